"""``ptx2gcn parse FILE... [--print] [--no-check]``: parse (and check) PTX files.

Invariant: every file is parsed even when an earlier one fails; each problem is printed as
``file:line:col: error: ...`` with the source line and a caret; the exit status is 0 only when every
file parsed and (unless ``--no-check``) checked without errors (warnings are printed but do not
fail), 1 otherwise. ``--print`` writes the canonical
PTX of each file that parsed to standard output.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ptx2gcn.diagnostics import Ptx2GcnError, Severity

_DESCRIPTION = """\
Parse PTX files into ptx2gcn's typed syntax tree and run the module checker (undeclared registers
and labels, duplicate declarations, malformed directives). Errors are printed as
'file:line:col: error: message' with the source line and a caret.

Exit status: 0 when every file parses and checks clean, 1 when any file has an error."""


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "parse", help="parse and check PTX files", description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="PTX source files ('-' reads stdin)")
    parser.add_argument("--print", dest="print_ptx", action="store_true",
                        help="write the canonical PTX of each parsed file to stdout")
    parser.add_argument("--no-check", dest="check", action="store_false",
                        help="only parse; skip the module checker")
    parser.set_defaults(handler=run)


def _parse_one(name: str) -> Any:
    from ptx2gcn.frontend import parse_bytes, parse_file

    if name == "-":
        return parse_bytes(sys.stdin.buffer.read(), "<stdin>")
    return parse_file(name)


def run(args: argparse.Namespace) -> int:
    from ptx2gcn.frontend.check import check_module
    from ptx2gcn.frontend.printer import print_module

    status = 0
    for name in args.files:
        try:
            module = _parse_one(name)
        except Ptx2GcnError as error:
            sys.stderr.write(error.render())
            status = 1
            continue
        if args.check:
            diagnostics = check_module(module)
            for diagnostic in diagnostics:
                sys.stderr.write(diagnostic.render())
            if any(d.severity is Severity.ERROR for d in diagnostics):
                status = 1
        if args.print_ptx:
            sys.stdout.write(print_module(module))
    return status
