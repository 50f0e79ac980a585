"""The ``ptx2gcn`` command: a thin argparse shell over one module per subcommand.

Invariant: ``main`` never lets an exception escape as a traceback for a user error. Known errors
(``Ptx2GcnError``) print their rendered diagnostics and exit 1; usage errors exit 2; an internal
error prints one line asking for a bug report (``PTX2GCN_TRACEBACK=1`` shows the traceback) and
exits 3. A command line that names a subcommand imports and registers only that subcommand's
module, and parses exactly as the full parser would (help, usage errors and the namespace are the
subcommand parser's own); anything else (no arguments, ``--help``, ``--version``, an unknown name)
gets the full parser, which lists every subcommand.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Callable, Sequence

from ptx2gcn.compile_gc import paused_gc
from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.version import __version__

# Subcommand modules under ptx2gcn.commands, in the order --help lists them.
SUBCOMMANDS: tuple[str, ...] = (
    "parse",
    "opt",
    "compile",
    "run",
    "fatbin",
    "cache",
    "fuzz",
    "exec",
)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command-line parser with every subcommand, or with the one named ``only``.

    Registering a subcommand imports its module, and some modules need their stage's tables to
    describe themselves (``opt`` lists the passes); ``only`` keeps a command from paying for the
    others' (``ptx2gcn compile`` loaded the fatbin reader and the JIT cache, ~30 ms, for nothing).
    """
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
    for name in SUBCOMMANDS if only is None else (only,):
        module = importlib.import_module(f"ptx2gcn.commands.{name}")
        module.register(subparsers)
    return parser


def named_subcommand(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` starts with, or None when it starts with anything else.

    Only the first argument is looked at: the top-level parser's own options (``-h``,
    ``--version``) end the command before a subcommand, and everything after the subcommand's name
    belongs to the subcommand, so its parser alone decides the outcome.
    """
    return argv[0] if argv and argv[0] in SUBCOMMANDS else None


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command line and return its exit status.

    ``argv`` None reads ``sys.argv[1:]``: the command line of this very process (the ``ptx2gcn``
    script, ``python -m ptx2gcn``), which exits as soon as ``main`` returns; a subcommand marked
    ``one_shot`` then runs as ``_run_one_shot`` describes. Callers that run commands inside a
    longer-lived process pass ``argv`` and get an ordinary call.
    """
    arguments = sys.argv[1:] if argv is None else list(argv)
    with paused_gc():  # imports and argparse tables: many objects, no garbage worth a collection
        parser = build_parser(named_subcommand(arguments))
        args = parser.parse_args(arguments)
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    if argv is None and getattr(args, "one_shot", False):
        return _run_one_shot(handler, args)
    return _run(handler, args)


def _run_one_shot(handler: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Run ``handler`` as the last work of this process, leaving its objects to the exit.

    The cyclic garbage collector is off while the handler runs, and whatever is still allocated
    when it returns, garbage included, is frozen (``gc.freeze``: moved where no collection looks)
    before the collector comes back on. Nothing the handler built is ever walked by a collection:
    not by the one that would follow ``compile()`` re-enabling the collector, nor by the full one
    the interpreter runs at exit whether or not the collector is enabled.

    Why: ``ptx2gcn compile`` of the 104k-line corpus file used to leave ~2.3M objects (its AST, IR
    and LLVM IR graphs, garbage once the output is written) whose collection cost ~0.85 s of CPU
    after the output was already written. The compile now frees most of them by reference counting
    as it goes (``ptx2gcn.compile_gc``), so what is left here is small; the freeze still keeps the
    collections during the imports (~5 ms) and the one at exit off whatever remains.

    Why this and not ``os._exit``: the process still ends the ordinary way, so the exit status is
    ``main``'s, atexit handlers run (llvmlite registers one), and standard output and error are
    flushed and closed by the interpreter, with a failed flush reported as usual; the handler has
    written and closed its output files before it returns. ``os._exit`` saved no more CPU in
    measurements (what the interpreter still frees at exit is only what modules hold) and would
    leave all of that to us. The cost is memory the process never gives back before it exits: the
    peak is unchanged, since ``compile()`` runs with the collector paused and its whole graph is
    alive when it ends. Library calls never get here (``main`` with an ``argv``, ``compile()``).
    """
    with paused_gc():
        try:
            return _run(handler, args)
        finally:
            gc.freeze()


def _run(handler: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """``handler(args)``, with every exception turned into a message and an exit status."""
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
            import traceback  # only here: it costs every command ~2 ms of start-up

            traceback.print_exc()
        sys.stderr.write(
            f"ptx2gcn: internal error: {type(error).__name__}: {error}\n"
            "This is a bug in ptx2gcn; please report it with the input "
            "(PTX2GCN_TRACEBACK=1 shows the traceback).\n"
        )
        return 3
