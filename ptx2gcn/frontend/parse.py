"""PTX text → typed AST: the cached Lark LALR parser and the public ``parse_ptx``/``parse_file``.

Invariant: ``parse_ptx`` returns an ``ast.Module`` or raises ``Ptx2GcnError`` (located, PTX-worded);
no input makes it raise anything else, recurse without bound or run super-linearly: binary data is
rejected before lexing, bracket nesting is capped at ``MAX_NESTING`` while lexing, and the LALR
driver and AST builder are iterative. One module-level parser (grammar loaded by package name,
tables cached in the user's cache folder) serves all calls; a lock serialises parses because the
builder holds the current file.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pkgutil
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import lark
from lark import Lark, Token
from lark.exceptions import UnexpectedInput

from ptx2gcn.compile_gc import paused_gc
from ptx2gcn.diagnostics import Ptx2GcnError, SourceFile, Span
from ptx2gcn.frontend import ast
from ptx2gcn.frontend.builder import AstBuilder
from ptx2gcn.frontend.errors import binary_error, set_literal_terminals, syntax_error
from ptx2gcn.version import __version__

MAX_NESTING = 64
"""Deepest allowed nesting of ``{ [ (`` brackets (real PTX uses < 10; every later stage may recurse
over nesting, so it stays far below the Python recursion limit)."""


class _Nesting:
    """Lexer callbacks counting bracket depth; too deep is a located error, not a recursion."""

    def __init__(self) -> None:
        self.depth = 0
        self.filename = "<input>"
        self.source: SourceFile | None = None

    def open(self, tok: Token) -> Token:
        self.depth += 1
        if self.depth > MAX_NESTING:
            span = Span(self.filename, tok.line or 0, tok.column or 0, tok.end_line or 0,
                        tok.end_column or 0, self.source)
            raise Ptx2GcnError.at(span, f"brackets nested more than {MAX_NESTING} deep")
        return tok

    def close(self, tok: Token) -> Token:
        self.depth -= 1
        return tok


_LOCK = threading.RLock()
_BUILDER = AstBuilder()
_NESTING = _Nesting()
_PARSER: Lark | None = None


def _grammar_cache(grammar: str) -> str | bool:
    """A per-user file for the parser's tables (``cached_parser``), or False to build them each time.

    Lark's default (``cache=True``) keeps a pickle in the shared temporary folder, where another user
    could plant one; ours lives in the user's own cache folder (mode 0700). The file name carries a
    hash of the grammar text, the parser options and the Lark and Python versions: a file is only
    ever read by the grammar and Lark that wrote it, and two installations with different grammars
    (a checkout and an older release) do not rebuild each other's file on every start.
    """
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "ptx2gcn")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if os.stat(folder).st_uid != os.getuid() or not os.access(folder, os.W_OK):
            return False
    except OSError:
        return False
    key = f"{grammar}\0{sorted(_OPTIONS.items())}\0{lark.__version__}\0{sys.version_info[:2]}"
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
    return os.path.join(folder, f"ptx-grammar-{__version__}-{digest}.lark-cache")


def grammar_text() -> str:
    """The grammar, loaded by package name (works from a wheel, an sdist or an editable install)."""
    data = pkgutil.get_data("ptx2gcn.grammar", "ptx.lark")
    assert data is not None, "ptx2gcn.grammar/ptx.lark is missing from the installation"
    return data.decode("utf-8")


_OPTIONS: dict[str, object] = {"parser": "lalr", "lexer": "contextual", "maybe_placeholders": False,
                                "propagate_positions": False}
"""Lark options of every parser built here (part of the grammar cache's key)."""


def _callbacks() -> dict[str, Callable[[Token], Token]]:
    callbacks: dict[str, Callable[[Token], Token]] = {name: _NESTING.open for name in ("LBRACE", "LSQB", "LPAR")}
    callbacks.update({name: _NESTING.close for name in ("RBRACE", "RSQB", "RPAR")})
    callbacks["SIMPLE_INSTRUCTIONS"] = _BUILDER.lex_simple_instructions
    return callbacks


def build_parser(grammar: str, *, strict: bool, cache: str | bool = False) -> Lark:
    """A parser for ``grammar`` with this module's lexer callbacks and AST builder (``cache``: Lark's
    own cache file, for tests; the shared parser uses ``cached_parser``).

    ``strict`` makes Lark reject any shift/reduce conflict and any pair of colliding terminals
    (it needs the optional ``interegular`` package). The shipped parser is built without it: for a
    grammar that passes the strict check (tests/frontend/test_grammar_strict.py builds it strictly)
    both build the same tables, and a user's installation must not need a test-only dependency.
    """
    return Lark(grammar, transformer=_BUILDER, strict=strict, cache=cache, lexer_callbacks=_callbacks(),
                **_OPTIONS)  # pyright: ignore[reportArgumentType]


_NOT_STORED = ("transformer", "lexer_callbacks")
"""Options that are objects of this process, given again when a stored parser is read."""


def _read_parser(path: str) -> Lark:
    """The parser stored at ``path`` by ``cached_parser``, with this process's callbacks. Reading
    uses the loader of Lark's own cache (``Lark._load``), which ``Lark.load`` lacks a way to hand
    callbacks to; any failure (no file, damaged, another Lark) is the caller's cue to build."""
    with open(path, "rb") as stored:
        parser = Lark.__new__(Lark)
        parser._load(stored, transformer=_BUILDER, lexer_callbacks=_callbacks(),  # pyright: ignore[reportPrivateUsage]
                     propagate_positions=_OPTIONS["propagate_positions"])
    return parser


def cached_parser(grammar: str, cache: str | bool) -> Lark:
    """The shipped (non-strict) parser for ``grammar``: read from the file ``cache`` when that holds
    one, else built and stored there (``cache`` False: built, stored nowhere).

    The file is the parser's tables as ``Lark.save`` writes them, under a name that hashes the
    grammar, the options and the Lark and Python versions (``_grammar_cache``). It is written whole to
    a name private to this process and thread, then renamed over ``cache``: a reader never sees half
    a file, and processes starting together may each build, each renaming a complete file. A file
    that is missing, truncated or otherwise unreadable costs a build, never a wrong parser or an
    error; a full disk or a read-only folder leaves the parser working without the file.
    """
    if isinstance(cache, str):
        try:
            return _read_parser(cache)
        except Exception:  # noqa: BLE001 -- any unreadable file means: build it again (documented above)
            pass
    parser = build_parser(grammar, strict=False)
    if isinstance(cache, str):
        private = f"{cache}.{os.getpid()}.{threading.get_ident()}.tmp"
        try:
            with open(private, "wb") as out:
                parser.save(out, _NOT_STORED)
            os.replace(private, cache)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(private)
    return parser


def grammar_parser() -> Lark:
    """The shared parser (built on first use, its analysis cached on disk: ``cached_parser``)."""
    global _PARSER
    with _LOCK, paused_gc():  # unpickling the tables allocates ~100k long-lived objects
        if _PARSER is None:
            grammar = grammar_text()
            _PARSER = cached_parser(grammar, _grammar_cache(grammar))
            set_literal_terminals({t.name: t.pattern.value for t in _PARSER.terminals
                                   if t.pattern.type == "str"})
        return _PARSER


def parse_ptx(text: str, filename: str = "<input>") -> ast.Module:
    """Parse PTX source text into a typed ``ast.Module``; raises ``Ptx2GcnError`` on bad input."""
    source = SourceFile(filename, text)
    bad = binary_error(source)
    if bad is not None:
        raise bad
    with _LOCK:
        parser = grammar_parser()
        _BUILDER.reset(source)
        _NESTING.depth = 0
        _NESTING.filename, _NESTING.source = filename, source
        try:
            module = parser.parse(text)
        except UnexpectedInput as error:
            raise syntax_error(error, source, _reparse) from None
        except RecursionError:  # defensive: nothing here recurses on input depth
            raise Ptx2GcnError.at(Span(filename, 1, 1, 1, 2, source), "input nested too deeply") from None
    assert isinstance(module, ast.Module)
    return module


def _reparse(text: str) -> object:
    """Parse an error example (for ``UnexpectedInput.match_examples``); builder errors count as none."""
    saved = (_BUILDER.filename, _BUILDER.source)
    _BUILDER.reset(SourceFile("<example>", text))
    _NESTING.depth = 0
    try:
        return grammar_parser().parse(text)
    except Ptx2GcnError:
        return None
    finally:
        _BUILDER.filename, _BUILDER.source = saved


def parse_file(path: str | os.PathLike[str]) -> ast.Module:
    """Read and parse a PTX file; unreadable, binary or non-UTF-8 files are located errors."""
    name = os.fspath(path)
    try:
        data = Path(name).read_bytes()
    except OSError as error:
        raise Ptx2GcnError.at(Span.unknown(name), f"cannot read file: {error.strerror or error}") from None
    return parse_bytes(data, name)


def parse_bytes(data: bytes, filename: str = "<input>") -> ast.Module:
    """Decode PTX bytes (ASCII/UTF-8) and parse them; invalid UTF-8 is reported at its byte."""
    # surrogateescape keeps undecodable bytes visible to binary_error (reported with their offset).
    text = data.decode("utf-8", errors="surrogateescape")
    return parse_ptx(text, filename)
