"""The ``ptx2gcn`` command: a thin argparse shell over one module per subcommand.

Invariant: ``main`` never lets an exception escape as a traceback for a user error. Known errors
(``Ptx2GcnError``) print their rendered diagnostics and exit 1; usage errors exit 2; an internal
error prints one line asking for a bug report (``PTX2GCN_TRACEBACK=1`` shows the traceback) and
exits 3.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from collections.abc import Sequence

from ptx2gcn import __version__
from ptx2gcn.diagnostics import Ptx2GcnError

# Subcommand modules under ptx2gcn.commands, in the order --help lists them.
SUBCOMMANDS: tuple[str, ...] = (
    "parse",
    "opt",
    "compile",
    "run",
    "fatbin",
    "cache",
    "fuzz",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ptx2gcn",
        description=(
            "Recompile CUDA PTX into AMDGPU code objects (gfx942 first) and run them on an AMD GPU "
            "or on the built-in gfx942 emulator."
        ),
        epilog="Run 'ptx2gcn COMMAND --help' for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"ptx2gcn {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"ptx2gcn.commands.{name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(handler(args))
    except Ptx2GcnError as error:
        sys.stderr.write(error.render())
        if not error.render().endswith("\n"):
            sys.stderr.write("\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("ptx2gcn: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:  # noqa: BLE001 - last line of defence: no tracebacks for users
        if os.environ.get("PTX2GCN_TRACEBACK"):
            traceback.print_exc()
        sys.stderr.write(
            f"ptx2gcn: internal error: {type(error).__name__}: {error}\n"
            "This is a bug in ptx2gcn; please report it with the input "
            "(PTX2GCN_TRACEBACK=1 shows the traceback).\n"
        )
        return 3
