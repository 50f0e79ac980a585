"""``ptx2gcn compile``: PTX → gfx942 code object (or LLVM IR, assembly, object).

Invariant: exit status 0 when the output was written; 1 with located diagnostics for bad or
unsupported PTX (raised as ``Ptx2GcnError`` and rendered by the CLI); 2 for usage errors (bad
``--arch``, ``-O`` level, ``--emit`` kind), reported by argparse before anything runs.
"""

from __future__ import annotations

import argparse
import os
import sys

from ptx2gcn.options import SUPPORTED_ARCHS

_SUFFIX = {"llvm": ".ll", "asm": ".s", "obj": ".o", "hsaco": ".hsaco"}


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],  # pyright: ignore[reportPrivateUsage]
) -> None:
    parser = subparsers.add_parser(
        "compile", help="compile PTX into an AMDGPU code object",
        description="Compile a PTX file for an AMDGPU target (HSA code object v5).")
    parser.add_argument("file", metavar="IN.ptx", help="the PTX file")
    parser.add_argument("--arch", default="gfx942", choices=SUPPORTED_ARCHS,
                        help="target GPU (default gfx942)")
    parser.add_argument("-o", "--output", metavar="OUT",
                        help="output file (default: IN with the --emit suffix; '-' writes to stdout)")
    parser.add_argument("-O", dest="opt", type=int, choices=(0, 1, 2, 3), default=3,
                        help="LLVM optimisation level (default 3)")
    parser.add_argument("--emit", choices=tuple(_SUFFIX), default="hsaco",
                        help="what to write: LLVM IR, assembly, relocatable object or code object (default)")
    parser.add_argument("-g", "--locations", action="store_true",
                        help="carry PTX line numbers into the LLVM IR as !dbg locations (no DWARF)")
    parser.add_argument("--kernel", action="append", metavar="NAME",
                        help="compile only this kernel (repeatable; default: all)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # Imported here so that building the command line (every subcommand registers) stays cheap.
    from ptx2gcn.compiler import compile, compile_assembly, compile_llvm, compile_object  # noqa: A004

    kinds = {"llvm": compile_llvm, "asm": compile_assembly, "obj": compile_object}
    if args.emit == "hsaco":
        data: str | bytes = compile(args.file, args.arch, args.opt, args.kernel, args.locations).data
    else:
        data = kinds[args.emit](args.file, args.arch, args.opt, args.kernel, locations=args.locations)
    output = args.output or os.path.splitext(args.file)[0] + _SUFFIX[args.emit]
    if output == "-":
        if isinstance(data, str):
            sys.stdout.write(data)
        else:
            sys.stdout.buffer.write(data)
    elif isinstance(data, str):
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(data)
    else:
        with open(output, "wb") as handle:
            handle.write(data)
    return 0
