"""``--emu-approx nominal|adversarial`` and ``--emu-approx-seed N``: the emulator's policy for
approximate instructions (``ptx2gcn.runtime.emulator.approx``), shared by ``run`` and ``fuzz``.

Invariant: the options are the command-line spelling of ``PTX2GCN_EMU_APPROX`` and
``PTX2GCN_EMU_APPROX_SEED``: ``apply`` puts what was given into the process environment, so every
launch of the command sees it, in worker processes too; options not given leave the environment
as it was (an unset environment means nominal, seed 0).
"""

from __future__ import annotations

import argparse
import os
from typing import Any

ENV_MODE = "PTX2GCN_EMU_APPROX"
ENV_SEED = "PTX2GCN_EMU_APPROX_SEED"
"""Spelled out (equal to ``ptx2gcn.runtime.emulator.approx.ENV_*``) so ``--help`` imports no emulator."""


def add_arguments(parser: Any) -> None:
    parser.add_argument(
        "--emu-approx",
        choices=("nominal", "adversarial"),
        help="emulator: approximate instructions (v_rcp, v_sqrt, v_exp, ...) give the documented best "
        "estimate (nominal, default) or a seeded pseudo-random result within their documented error "
        f"bound (adversarial); default {ENV_MODE} or nominal",
    )
    parser.add_argument(
        "--emu-approx-seed",
        type=int,
        metavar="N",
        help=f"seed of the adversarial choices (default {ENV_SEED} or 0)",
    )


def apply(args: argparse.Namespace) -> None:
    if args.emu_approx is not None:
        os.environ[ENV_MODE] = args.emu_approx
    if args.emu_approx_seed is not None:
        os.environ[ENV_SEED] = str(args.emu_approx_seed)
