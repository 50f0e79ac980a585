"""The MFMA fast path of the mma forms beyond m16n8k16 .f32.f16.f16.f32 (``ptx2gcn.emit.mfma_forms``,
``lower_mfma_forms``; issue #14): bf16, m16n8k8 f16/bf16, f16 accumulators, s8/u8 (with and without
``.satfinite``), tf32 and f64, on the emulator (CDNA3 MFMA numerics, hazard faults) against the
reference model (``ptx2gcn.reference.mma``): small-integer data and integer/f64 forms bit exact,
random float data within the model's bound. Whole waves take the MFMA path (the launch counts the
plan's MFMAs); a wave with one warp skipping the mma takes the exact path."""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.compiler import compile_assembly
from ptx2gcn.emit.mfma_forms import OPS, Plan, plan_for
from ptx2gcn.reference.mma import WARP, chain_expected, element_format, mma_disagreements, mma_form, to_matrix
from tests.warp.conftest import SENTINEL
from tests.warp.matrix_harness import run_matrix_stats
from tests.warp.test_mma import _join, _kernel, _lanes, _matrix, _split, _warp_operands, chain_kernel

FORMS = [
    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
    "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32",
    "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16",
    "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32",
    "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16",
    "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
    "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32",
    "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
    "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32",
    "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32",
    "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32",
    "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32",
    "mma.sync.aligned.m16n8k16.row.col.s32.s8.u8.s32",
    "mma.sync.aligned.m16n8k16.row.col.satfinite.s32.u8.u8.s32",
    "mma.sync.aligned.m16n8k16.row.col.satfinite.s32.s8.s8.s32",
    "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
    "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64",
    "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64",
    "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64",
]
_IDS = [s.removeprefix("mma.sync.aligned.") for s in FORMS]


def _plan(spelling: str, arch: str = "gfx942") -> Plan | None:
    form = mma_form(spelling)
    return plan_for(spelling.split(".")[3], form.atype, form.btype, arch)


@pytest.mark.parametrize("spelling", FORMS, ids=_IDS)
def test_mfma_form_matches_reference_and_falls_back(spelling: str, rng: np.random.Generator) -> None:
    form = mma_form(spelling)
    plan = _plan(spelling)
    assert plan is not None
    ptx, n_in, n_out = _kernel(spelling)
    warps = 4
    operands = [_warp_operands(form, small=w % 2 == 0, rng=rng) for w in range(warps)]
    for skipped in ((), (1,)):
        inputs = np.zeros((warps * WARP, n_in), dtype=np.int64)
        for w, (a, b, c) in enumerate(operands):
            inputs[w * WARP:(w + 1) * WARP, :n_in - 1] = [x + y + z for x, y, z in zip(
                _split(a, form.shape.a), _split(b, form.shape.b), _split(c, form.c_frag))]
            inputs[w * WARP:(w + 1) * WARP, n_in - 1] = int(w in skipped)
        out, stats = run_matrix_stats(ptx, warps * WARP, inputs, n_out, mma="mfma")
        full_waves = sum(1 for wave in (0, 1) if not {2 * wave, 2 * wave + 1} & set(skipped))
        assert stats.mfma_instructions == plan.mfmas * full_waves, f"skipping {skipped}"
        for w, (a, b, c) in enumerate(operands):
            lanes = out[w * WARP:(w + 1) * WARP]
            if w in skipped:
                assert (lanes == SENTINEL).all()
                continue
            wrong = mma_disagreements(spelling, a, b, c, _join(lanes, form.d_frag))
            assert not wrong, f"warp {w} (skipping {skipped}): {len(wrong)} wrong, e.g. {wrong[:3]}"
