"""``ptx2gcn opt``: load PTX or IR, run IR passes, print the IR.

Invariant: exit status 0 when the input loads, every pass runs and the result verifies (after every
pass with ``--verify-each``); 1 with located diagnostics for bad input or IR a pass broke; 2 for
usage errors such as an unknown pass name.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from ptx2gcn.options import CompileOptions
from ptx2gcn.output_file import write_output
from ptx2gcn.passes import PASSES
from ptx2gcn.pipeline import PIPELINE, check_pass_names, run_passes


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    parser = subparsers.add_parser(
        "opt", help="run IR passes on a PTX or IR file and print the IR",
        description=("Load FILE (.ptx: parsed and built into IR; .ir: IR text), run IR passes, "
                     f"and print the result. Passes: {', '.join(sorted(PASSES))}. "
                     f"Default pipeline: {','.join(PIPELINE)}."))
    parser.add_argument("file", metavar="FILE", help="a .ptx or .ir file")
    parser.add_argument("--passes", default=None, metavar="A,B",
                        help="comma-separated passes to run in order (default: the whole pipeline; "
                             "'' runs none)")
    parser.add_argument("--print", action="store_true", dest="print_ir",
                        help="print the final IR to stdout")
    parser.add_argument("--verify-each", action="store_true",
                        help="run the IR verifier after every pass")
    parser.add_argument("--print-after", action="append", default=[], metavar="NAME",
                        help="print the IR after pass NAME (repeatable, comma-separated, or 'all')")
    parser.add_argument("--locs", action="store_true", help="print loc(line:col) on every op")
    parser.add_argument("--kernel", action="append", metavar="NAME",
                        help="translate only this kernel's body (repeatable; default: all; every .func is kept)")
    parser.add_argument("-o", "--output", metavar="OUT", help="write the final IR to OUT ('-': standard output)")
    parser.set_defaults(handler=run)


def _write(text: str) -> None:
    sys.stdout.write(text)


def run(args: argparse.Namespace) -> int:
    from ptx2gcn.ir.printer import print_module
    from ptx2gcn.translate.load import load_module

    passes = None if args.passes is None else tuple(_names(args.passes))
    print_after = frozenset(n for text in args.print_after for n in _names(text))
    try:
        if passes is not None:
            check_pass_names(passes)
        check_pass_names([n for n in print_after if n != "all"])
    except ValueError as error:
        sys.stderr.write(f"ptx2gcn opt: {error}\n")
        return 2
    # PTX2GCN_PRINT_AFTER / PTX2GCN_DUMP / PTX2GCN_VERIFY_EACH are read here, at the front end only.
    env = CompileOptions.from_env()
    options = replace(env, passes=passes, verify_each=args.verify_each or env.verify_each,
                      print_after=print_after | env.print_after, print_locs=args.locs,
                      kernels=tuple(args.kernel) if args.kernel else None)
    module = load_module(args.file, options)
    run_passes(module, options, emit=_write)
    text = print_module(module, args.locs)
    if args.output == "-":
        sys.stdout.write(text)
    elif args.output:
        write_output(args.output, text.encode("utf-8"))
    if args.print_ir and args.output != "-":
        sys.stdout.write(text)
    return 0
