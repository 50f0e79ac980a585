"""Load a module from a PTX file (front end + builder) or an IR file (IR parser), by extension.

Invariant: the result passes ``verify`` in phase ``ssa``; anything else is a located
``Ptx2GcnError`` (unreadable file, syntax error, a front-end check error, a semantic error found
while building, an unsupported feature).
"""

from __future__ import annotations

import os

from ptx2gcn.diagnostics import Ptx2GcnError, Severity, Span
from ptx2gcn.frontend import parse_ptx
from ptx2gcn.frontend.check import check_module
from ptx2gcn.ir.core import Module
from ptx2gcn.ir.verify import verify
from ptx2gcn.options import CompileOptions
from ptx2gcn.translate.builder import build_module


def read_text(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise Ptx2GcnError.at(Span.unknown(path), f"cannot read {path}: {error.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Ptx2GcnError.at(Span.unknown(path), f"{path} is not UTF-8 text (byte {error.start})") from None


def module_from_ptx(text: str, filename: str = "<input>", options: CompileOptions | None = None) -> Module:
    """Parse, check (``ptx2gcn.frontend.check``), build for ``options`` and verify."""
    tree = parse_ptx(text, filename)
    problems = [d for d in check_module(tree) if d.severity is Severity.ERROR]
    if problems:
        raise Ptx2GcnError(problems)
    module = build_module(tree, options)
    verify(module)
    return module


def module_from_ir(text: str, filename: str = "<input>") -> Module:
    # Imported here: compiling PTX (which imports this module for ``read_text``) never needs the
    # IR text parser and its lexer tables.
    from ptx2gcn.ir.parser import parse_module

    module = parse_module(text, filename)
    verify(module)
    return module


def load_module(path: str, options: CompileOptions | None = None) -> Module:
    """``.ir`` files are IR text; anything else is PTX, built for ``options``."""
    text = read_text(path)
    if os.path.splitext(path)[1] == ".ir":
        return module_from_ir(text, path)
    return module_from_ptx(text, path, options)
