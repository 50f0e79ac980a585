"""The MFMA fast path of mma m16n8k16 .f32.f16.f16.f32 (``ptx2gcn.emit.lower_mma_mfma``, issue #14),
on the emulator (which runs gfx942 MFMA with CDNA3 numerics and faults on MFMA hazards), against
the reference model (``ptx2gcn.reference.mma``): small-integer data bit exact, random data within
the model's bound. Both warps of each wave reach the mma together, so the launch counts MFMAs;
with one warp of each wave skipping the mma, the path falls back to the exact one (no MFMA) and
the results are still right; ``--mma exact`` emits no MFMA at all."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from ptx2gcn.compiler import compile, compile_assembly
from ptx2gcn.reference.mma import WARP, chain_expected, element_format, mma_disagreements, mma_form, to_matrix
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory
from tests.warp.conftest import SENTINEL
from tests.warp.matrix_harness import run_matrix_stats
from tests.warp.test_mma import _join, _kernel, _lanes, _matrix, _split, _warp_operands, chain_kernel

SPELLING = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"


@pytest.mark.parametrize("mma", ["mfma", "auto"])
def test_mfma_path_matches_reference_and_falls_back(mma: str, rng: np.random.Generator) -> None:
    form = mma_form(SPELLING)
    ptx, n_in, n_out = _kernel(SPELLING)
    warps = 4
    operands = [_warp_operands(form, small=w % 2 == 0, rng=rng) for w in range(warps)]
    for skipped in ((), (0, 3), (1,)):
        inputs = np.zeros((warps * WARP, n_in), dtype=np.int64)
        for w, (a, b, c) in enumerate(operands):
            inputs[w * WARP:(w + 1) * WARP, :n_in - 1] = [x + y + z for x, y, z in zip(a, b, c)]
            inputs[w * WARP:(w + 1) * WARP, n_in - 1] = int(w in skipped)
        out, stats = run_matrix_stats(ptx, warps * WARP, inputs, n_out, mma=mma)
        full_waves = sum(1 for wave in (0, 1) if not {2 * wave, 2 * wave + 1} & set(skipped))
        assert stats.mfma_instructions == 2 * full_waves, f"skipping {skipped}"
        for w, (a, b, c) in enumerate(operands):
            lanes = out[w * WARP:(w + 1) * WARP]
            if w in skipped:
                assert (lanes == SENTINEL).all()
                continue
            wrong = mma_disagreements(SPELLING, a, b, c, _join(lanes, form.d_frag))
            assert not wrong, f"warp {w} (skipping {skipped}): {len(wrong)} wrong, e.g. {wrong[:3]}"


def test_mfma_nan_is_canonical(rng: np.random.Generator) -> None:
    form = mma_form(SPELLING)
    ptx, n_in, n_out = _kernel(SPELLING)
    operands = [_warp_operands(form, small=True, rng=rng) for _ in range(2)]
    a, b, c = operands[1]
    a[5][0] = (a[5][0] & 0xFFFF0000) | 0x7E01  # a NaN with payload in row 1 of warp 1's A
    inputs = np.zeros((2 * WARP, n_in), dtype=np.int64)
    for w, (fa, fb, fc) in enumerate(operands):
        inputs[w * WARP:(w + 1) * WARP, :n_in - 1] = [x + y + z for x, y, z in zip(fa, fb, fc)]
    out, stats = run_matrix_stats(ptx, 2 * WARP, inputs, n_out, mma="mfma")
    assert stats.mfma_instructions == 2
    for w, (fa, fb, fc) in enumerate(operands):
        got = _join(out[w * WARP:(w + 1) * WARP], form.d_frag)
        assert not mma_disagreements(SPELLING, fa, fb, fc, got)
    assert 0x7FFFFFFF in out[WARP:].reshape(-1)


def test_chained_mfma_within_the_accumulated_bound(rng: np.random.Generator) -> None:
    """Three MFMA-path mma steps, D fed back as C, two warps with different data."""
    form = mma_form(SPELLING)
    s, fc = form.shape, form.c_frag
    steps = 3
    ptx, wc = chain_kernel(SPELLING, steps)
    cases = []
    words = []
    for small in (True, False):
        mats = [(_matrix("f16", (s.a.rows, s.a.cols), small, rng), _matrix("f16", (s.b.rows, s.b.cols), small, rng))
                for _ in range(steps)]
        c = _matrix("f32", (fc.rows, fc.cols), small, rng, accumulator=True)
        cases.append((mats, c))
        words += [sum((_split(_lanes(s.a, a), s.a)[lane] for a, _ in mats), []) +
                  sum((_split(_lanes(s.b, b), s.b)[lane] for _, b in mats), []) +
                  _split(_lanes(fc, c), fc)[lane] + [0] for lane in range(WARP)]
    out, stats = run_matrix_stats(ptx, 2 * WARP, words, wc, mma="mfma")
    assert stats.mfma_instructions == 2 * steps
    for w, (mats, c) in enumerate(cases):
        got = to_matrix(fc, _join(out[w * WARP:(w + 1) * WARP], fc))
        expected = chain_expected(SPELLING, [(a.tolist(), b.tolist()) for a, b in mats], c.tolist())
        wrong = [(r, col) for r in range(fc.rows) for col in range(fc.cols)
                 if not expected[r][col].accepts(element_format("f32"), got[r][col])]
        assert not wrong, f"warp {w}: {len(wrong)} wrong, e.g. {wrong[:3]}"


def test_mma_modes_choose_the_instructions() -> None:
    ptx, _, _ = _kernel(SPELLING)
    assert "v_mfma_f32_16x16x16" not in compile_assembly(ptx, mma="exact")
    assert "v_mfma_f32_16x16x16" in compile_assembly(ptx, arch="gfx942", mma="auto")
    for arch in ("gfx90a", "gfx950"):  # CDNA2 flushes f16 subnormal inputs; CDNA4 not measured
        assert "v_mfma" not in compile_assembly(ptx, arch=arch, mma="auto")
    other, _, _ = _kernel("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32")
    assert "v_mfma" not in compile_assembly(other, mma="mfma")  # no MFMA lowering for this form (mfma_forms)
    with pytest.raises(ValueError, match="--mma must be one of"):
        compile(ptx, mma="fast")


GEMM = Path(__file__).resolve().parents[2] / "benchmarks" / "assets" / "mma" / "gemm_wmma.ptx"


@pytest.mark.parametrize(("mma", "block", "mfmas"), [("auto", 128, 8 * 4 * 8), ("exact", 128, 0),
                                                     ("auto", 32, 0)])
def test_wmma_gemm_through_mfma(mma: str, block: int, mfmas: int, rng: np.random.Generator) -> None:
    """nvcc's wmma GEMM (64x64x64, one warp per 16x16 tile, 4 k-steps): whole waves take the MFMA
    path (8 waves x 4 k-steps x 8 v_mfma_f32_4x4x4_16b_f16, ``wmma_mfma``), blocks of one warp the
    exact path; all bit exact."""
    n = 64
    a = rng.integers(-3, 4, (n, n)).astype(np.float16)
    b = rng.integers(-3, 4, (n, n)).astype(np.float16)
    program = load(compile(GEMM, mma=mma).data, "gemm.hsaco")
    memory = DeviceMemory()
    pa, pb, pc = memory.alloc(a.nbytes), memory.alloc(b.nbytes), memory.alloc(4 * n * n)
    memory.write(pa, a.tobytes())
    memory.write(pb, b.tobytes())
    stats = launch(program, "gemm_wmma", grid=((n // 16) ** 2 * 32 // block, 1, 1), block=(block, 1, 1),
                   kernarg=struct.pack("<QQQi", pa, pb, pc, n), memory=memory)
    got = np.frombuffer(memory.read(pc, 4 * n * n), dtype=np.float32).reshape(n, n)
    assert np.array_equal(got, a.astype(np.float32) @ b.astype(np.float32))
    assert stats.mfma_instructions == mfmas
