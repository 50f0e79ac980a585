"""``ptx2gcn run CASE.toml``: run one kernel launch described by a case file.

Options: ``--backend`` (emulator, hip, cuda; default ``PTX2GCN_BACKEND`` or the detected one),
``--check`` (compare with the case's ``[expect]`` arrays; exit 1 with a per-buffer report on a
mismatch), ``--save DIR`` (each buffer's final contents as ``DIR/<name>.npy``), ``--stats`` (the
emulator's counts and time), ``--trace`` (the emulator's per-instruction trace on stderr),
``--emu-approx``/``--emu-approx-seed`` (the emulator's approximate-instruction policy,
``ptx2gcn.commands.emu_approx``), ``--mma`` (the tensor-core lowering the PTX is compiled with, as
``ptx2gcn compile --mma``).

Invariant: exit 0 when the launch ran (and, with ``--check``, every expected buffer matched); 1 for a
bad case file, a compile error, a kernel fault, an unavailable backend or a failed check, always as
a located diagnostic or a per-buffer report, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ptx2gcn.commands import emu_approx
from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.options import MMA_MODES, CompileOptions

if TYPE_CHECKING:
    from ptx2gcn.runtime.cases.run import CaseRun

PREVIEW = 8
BACKEND_NAMES = ("cuda", "emulator", "hip")
"""The keys of ``ptx2gcn.runtime.backends.protocol.BACKENDS`` (spelled out so ``--help`` imports no backend)."""


_DESCRIPTION = (
    "Run the launch a CASE.toml describes (code, kernel, grid, block, arguments) and optionally check its outputs."
)
_BACKEND_HELP = "where to run (default: PTX2GCN_BACKEND, else hip with an AMD GPU, else emulator)"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("run", help="run one kernel launch from a case file", description=_DESCRIPTION)
    parser.add_argument("case", metavar="CASE.toml", help="the case file")
    parser.add_argument("--backend", choices=BACKEND_NAMES, help=_BACKEND_HELP)
    parser.add_argument("--check", action="store_true", help="compare outputs with [expect]; exit 1 on mismatch")
    parser.add_argument("--save", metavar="DIR", type=Path, help="write each buffer to DIR/<name>.npy")
    parser.add_argument("--stats", action="store_true", help="print launch statistics (emulator)")
    parser.add_argument("--trace", action="store_true", help="trace every wave instruction to stderr (emulator)")
    emu_approx.add_arguments(parser)
    parser.add_argument("--mma", choices=MMA_MODES, default="auto",
                        help="compile the case's PTX with this tensor-core mma lowering (as ptx2gcn compile "
                             "--mma; default auto)")
    parser.set_defaults(handler=_run)


def _trace(line: str) -> None:
    sys.stderr.write(line + "\n")


def _run(args: argparse.Namespace) -> int:
    from ptx2gcn.runtime.cases.case import load_case
    from ptx2gcn.runtime.cases.run import run_case

    emu_approx.apply(args)
    case = load_case(args.case)
    if args.check and not case.expect:
        raise Ptx2GcnError.at(None, f"{args.case}: --check needs an [expect] table in the case file")
    result = run_case(case, args.backend, trace=_trace if args.trace else None,
                      options=CompileOptions(mma=args.mma))
    if args.save is not None:
        _save(result, args.save)
    if args.stats:
        _print_stats(result)
    if args.check:
        report = result.check()
        sys.stdout.write(report.render() + "\n")
        return 0 if report.ok else 1
    _print_outputs(result)
    return 0


def _save(result: CaseRun, folder: Path) -> None:
    import numpy as np

    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, array in result.outputs.items():
            np.save(folder / f"{name}.npy", array, allow_pickle=False)
    except OSError as error:
        raise Ptx2GcnError.at(None, f"--save {folder}: {error.strerror or error}") from None


def _print_stats(result: CaseRun) -> None:
    launch = result.launch
    if launch.wave_instructions is None:
        sys.stdout.write(f"stats: the {result.backend} backend does not count instructions\n")
        return
    seconds = launch.seconds or 0.0
    rate = launch.wave_instructions / seconds if seconds else 0.0
    sys.stdout.write(
        f"backend: {result.backend}\nwork-groups: {launch.workgroups}\nwaves: {launch.waves}\n"
        f"wave-instructions: {launch.wave_instructions}\ntime: {seconds:.6f} s\n"
        f"wave-instructions/s: {rate:.0f}\n"
    )
    if launch.mfma_instructions is not None:
        sys.stdout.write(f"mfma-instructions: {launch.mfma_instructions}\n"
                         f"mfma-busy-cycles: {launch.mfma_busy_cycles}\n")


def _print_outputs(result: CaseRun) -> None:
    for name, array in result.outputs.items():
        shown = ", ".join(repr(v) for v in array[:PREVIEW].tolist())
        more = f", ... ({array.size} elements)" if array.size > PREVIEW else ""
        sys.stdout.write(f"{name} ({array.dtype}): [{shown}{more}]\n")
