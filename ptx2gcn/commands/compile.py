"""``ptx2gcn compile``: PTX → gfx942 code object (or LLVM IR, assembly, object).

Invariant: exit status 0 when the output was written; 1 with located diagnostics for bad or
unsupported PTX, or an output that cannot be written (raised as ``Ptx2GcnError`` and rendered by the
CLI); 2 for usage errors (bad ``--arch``, ``-O`` level, ``--emit`` kind), reported by argparse
before anything runs. An output file is complete or untouched: a regular file is written beside its
destination and renamed over it once written and closed, so an interrupted or failed compile never
leaves a truncated code object under the output's name (devices and pipes, e.g. ``/dev/null``, are
written in place; ``-o -`` writes to standard output). The command is ``one_shot``
(``ptx2gcn.cli._run_one_shot``): run as the process's own command, it leaves its objects to the
process exit instead of having them collected.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from ptx2gcn.diagnostics import Ptx2GcnError, Span
from ptx2gcn.options import MMA_MODES, OPT_LEVELS, SUPPORTED_ARCHS, CompileOptions
from ptx2gcn.output_file import write_output

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
    parser.add_argument("-O", dest="opt", type=int, choices=OPT_LEVELS, default=3,
                        help="LLVM optimisation level (default 3)")
    parser.add_argument("--emit", choices=tuple(_SUFFIX), default="hsaco",
                        help="what to write: LLVM IR, assembly, relocatable object or code object (default)")
    parser.add_argument("-g", "--locations", action="store_true",
                        help="carry PTX line numbers into the LLVM IR as !dbg locations (no DWARF)")
    parser.add_argument("--kernel", action="append", metavar="NAME",
                        help="compile only this kernel (repeatable; default: all)")
    parser.add_argument("--verify-each", action="store_true",
                        help="run the IR verifier after every IR pass (default: once, after the pipeline; "
                             "PTX2GCN_VERIFY_EACH=1 does the same)")
    parser.add_argument("--mma", choices=MMA_MODES, default="auto",
                        help="tensor-core mma: MFMA fast path where the target has matrix cores and the "
                             "whole wave reaches the mma, else the exact VALU path (auto, default); "
                             "exact: VALU only; mfma: require matrix cores")
    parser.add_argument("--time-report", action="store_true",
                        help="print this process's CPU seconds to stderr: start-up (Python, imports, "
                             "command line), each stage (--emit hsaco), and the total once the output "
                             "is written")
    parser.set_defaults(handler=run, one_shot=True)


def run(args: argparse.Namespace) -> int:
    # Imported here so that building the command line (every subcommand registers) stays cheap.
    from ptx2gcn.compiler import compile, compile_assembly, compile_llvm, compile_object  # noqa: A004

    started = time.process_time()
    timings: dict[str, float] = {}
    kinds = {"llvm": compile_llvm, "asm": compile_assembly, "obj": compile_object}
    # --verify-each, else PTX2GCN_VERIFY_EACH decides
    verify_each = bool(args.verify_each) or CompileOptions.from_env().verify_each
    options = CompileOptions(arch=args.arch, opt=args.opt, locations=args.locations,
                             kernels=tuple(args.kernel) if args.kernel else None, verify_each=verify_each,
                             mma=args.mma)
    if args.emit == "hsaco":
        code = compile(args.file, options)
        data: str | bytes = code.data
        timings = code.timings
    else:
        data = kinds[args.emit](args.file, options)
    _write(args, data)
    if args.time_report:
        seconds = {"start-up": started, **timings, "total": time.process_time()}
        sys.stderr.write("ptx2gcn compile: CPU seconds: "
                         + " ".join(f"{name}={value:.6f}" for name, value in seconds.items()) + "\n")
    return 0


def _write(args: argparse.Namespace, data: str | bytes) -> None:
    output = args.output or os.path.splitext(args.file)[0] + _SUFFIX[args.emit]
    if output == "-":
        _write_stdout(data)
    else:
        write_output(output, data.encode("utf-8") if isinstance(data, str) else data)


def _write_stdout(data: str | bytes) -> None:
    """Write ``data`` to standard output and flush it; a failure (other than a closed pipe, which the
    command line treats as the reader having had enough) is a ``Ptx2GcnError``."""
    try:
        if isinstance(data, str):
            sys.stdout.write(data)
        else:
            sys.stdout.buffer.write(data)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise Ptx2GcnError.at(Span.unknown("<stdout>"),
                              f"cannot write standard output: {error.strerror or error}") from None
