"""``ptx2gcn fuzz``: differential fuzzing of the compiler against the PTX reference model (or CUDA).

``ptx2gcn fuzz --count N --seed S [--backend emulator|hip|cuda] [--oracle model|cuda] [--jobs J]
[--save DIR | --no-save] [--record-golden DIR [--golden-forms]] [--include-known] [--first I]
[--no-progress] [--emu-approx nominal|adversarial [--emu-approx-seed N]]``
prints a progress bar on stderr, one line per failure (shrunk and saved as a case under ``DIR``,
default ``corpora/regressions``), then ``fuzz: N programs, M mismatches, E errors`` and the
throughput on stdout.

Invariant: exit 0 only when every program matched; 1 on any mismatch or error, or when a backend or
oracle is unavailable (one located sentence, no traceback); 2 for usage errors.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ptx2gcn.commands import emu_approx

DEFAULT_SAVE = Path("corpora/regressions")


def _at_least(minimum: int) -> Callable[[str], int]:
    """An argparse ``type`` for a whole number >= ``minimum`` (a usage error otherwise)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a number >= {minimum}, got {value}")
        return value

    return parse


_positive = _at_least(1)
_natural = _at_least(0)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "fuzz",
        help="differential fuzzing against the PTX reference model (or CUDA)",
        description="Generate random well-defined PTX kernels, compile and run them, compare every "
        "output with the reference model (or CUDA); shrink and save each failure as a case.",
    )
    parser.add_argument("--count", type=_positive, default=100, help="programs to run (default 100)")
    parser.add_argument("--seed", type=_natural, default=0, help="run seed (default 0)")
    parser.add_argument("--first", type=_natural, default=0, help="index of the first program (default 0)")
    parser.add_argument(
        "--backend",
        choices=("emulator", "hip", "cuda"),
        default="emulator",
        help="where the compiled programs run (default emulator)",
    )
    parser.add_argument(
        "--oracle",
        choices=("model", "cuda"),
        default="model",
        help="what decides the expected outputs (default: the reference model)",
    )
    parser.add_argument("--jobs", type=_positive, default=1, help="worker processes (default 1)")
    parser.add_argument(
        "--save",
        type=Path,
        default=DEFAULT_SAVE,
        help=f"directory for shrunk failure cases (default {DEFAULT_SAVE})",
    )
    parser.add_argument("--no-save", action="store_true", help="do not write failure cases")
    parser.add_argument(
        "--record-golden",
        type=Path,
        metavar="DIR",
        help="run every program on CUDA too and store its outputs as cases in DIR",
    )
    parser.add_argument(
        "--golden-forms",
        action="store_true",
        help="with --record-golden: also record every supported conformance form on CUDA (group kernels "
        "of 256 lanes) under DIR/conformance, judged later by the reference model",
    )
    parser.add_argument(
        "--include-known",
        action="store_true",
        help="also generate the instruction forms with known bugs (ptx2gcn.fuzz.known)",
    )
    parser.add_argument(
        "--statements", type=_positive, default=24, help="top-level statements per program (default 24)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    emu_approx.add_arguments(parser)
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from ptx2gcn.fuzz.runner import FuzzConfig, fuzz

    emu_approx.apply(args)
    if args.golden_forms:
        if args.record_golden is None:
            print("ptx2gcn fuzz: error: --golden-forms needs --record-golden DIR", file=sys.stderr)
            return 2
        _record_forms(args.record_golden / "conformance")

    config = FuzzConfig(
        count=args.count,
        seed=args.seed,
        first=args.first,
        backend=args.backend,
        oracle=args.oracle,
        jobs=args.jobs,
        save=None if args.no_save else args.save,
        record_golden=args.record_golden,
        include_known=args.include_known,
        statements=args.statements,
    )
    summary = fuzz(config, sys.stderr, show_progress=not args.no_progress)
    print(summary.line())
    print(
        f"fuzz: {summary.per_minute:.0f} programs/minute ({args.jobs} job{'s' if args.jobs != 1 else ''}, "
        f"{summary.seconds:.1f} s)"
    )
    return 0 if summary.mismatches == 0 and summary.errors == 0 else 1


def _record_forms(root: Path) -> None:
    """CUDA goldens of every supported conformance form (``ptx2gcn.conformance.golden``)."""
    from ptx2gcn.conformance.forms import model_forms
    from ptx2gcn.conformance.golden import backend_runner, record
    from ptx2gcn.conformance.table import classify
    from ptx2gcn.fuzz.runner import check_backend

    check_backend("cuda")
    written = record(classify(model_forms()), backend_runner("cuda"), root, "CUDA (ptx2gcn fuzz --golden-forms)")
    print(f"fuzz: recorded {len(written)} conformance group kernels under {root}")

