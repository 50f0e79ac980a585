"""Subnormal f16 elements on the f16 MFMA paths (``lower_mma_mfma.f16_gated``, ``mfma_widen``, issue #14):
CDNA3's f16 MFMAs align a group's products to a subnormal's nominal exponent (f16's smallest normal
one), which can cost the group's other products more than the reference model's bound allows. The
data below (``ptx2gcn fuzz``'s case: small A and B values, one A element -2^-24 times a B element
12944 in every row and column) is first shown to break the bound under the emulator's model of the
f16 MFMAs, then run through the compiled m16n8k16 mma and m16n16k16 wmma: the wave must take the
f32-input MFMAs of the same layouts (``mfma_widen``: two xf32 per 16x16x16 f16 MFMA; four f32 per
4x4x4 one, each chain closed by an f16 MFMA of zeros) and land within the bound."""

from __future__ import annotations

import struct

import numpy as np
import numpy.typing as npt
import pytest

from ptx2gcn.compiler import compile_assembly
from ptx2gcn.reference.mma import WARP, element_format, matrix_expected, mma_disagreements, mma_form
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory
from ptx2gcn.runtime.emulator.mfma_arith import f32_chain, fused_dot
from tests.warp.conftest import compiled
from tests.warp.matrix_harness import run_matrix_stats
from tests.warp.test_mma import _join, _kernel, _lanes, _split
from tests.warp.test_wmma import Combo, _load, _store, _stride
from tests.warp.test_wmma import _kernel as _wmma_kernel

SPELLING = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
TINY, BIG = -(2.0 ** -24), 12944.0


def _trigger(rng: np.random.Generator, rows: int, cols: int) -> tuple[npt.NDArray[np.float16], ...]:
    """A (rows x 16) and B (16 x cols) f16: small values with many significant product bits, A's last
    column -2^-24 (subnormal) and B's last row 12944, so every output's last K group holds a product
    whose nominal exponent is 2^10 above its value."""
    a = rng.uniform(0.03, 0.06, (rows, 16)).astype(np.float16)
    b = rng.uniform(0.005, 0.01, (16, cols)).astype(np.float16)
    a[:, 15] = TINY
    b[15, :] = BIG
    return a, b


def _bits(x: npt.NDArray[np.float16]) -> npt.NDArray[np.int64]:
    return x.view(np.uint16).astype(np.int64)


def _outside(a: npt.NDArray[np.float16], b: npt.NDArray[np.float16], c: npt.NDArray[np.float32],
             d: npt.NDArray[np.float32]) -> int:
    """How many elements of ``d`` the reference model rejects as A*B + C (f16 A, B; f32 C, D)."""
    expected = matrix_expected(SPELLING, _bits(a).tolist(), _bits(b).tolist(),
                               c.view(np.uint32).astype(np.int64).tolist())
    got = d.astype(np.float32).view(np.uint32)
    return sum(not expected[r][n].accepts(element_format("f32"), int(got[r, n]))
               for r in range(d.shape[0]) for n in range(d.shape[1]))


@pytest.mark.parametrize("group", [8, 4], ids=["16x16x16", "4x4x4"])
def test_the_data_breaks_the_bound_on_f16_mfmas_only(group: int, rng: np.random.Generator) -> None:
    """The emulator's CDNA3 model: the f16 MFMA (groups of 8 products for 16x16x16, 4 for the 4x4x4
    form of wmma) misses the model's bound on this data; the f32 MFMA chain and the xf32 MFMA of the
    same products (what the fallbacks compute) do not."""
    a, b = _trigger(rng, 16, 16)
    c = np.zeros((16, 16), dtype=np.float32)
    a64, b64 = a.astype(np.float64)[None], b.astype(np.float64)[None]
    f16 = fused_dot(a64, b64, c[None], "f16", "f16", group)[0]
    f32 = f32_chain(a64, b64, c[None])[0]
    xf32 = fused_dot(a64, b64, c[None], "xf32", "xf32", 4)[0]
    assert _outside(a, b, c, f16) > 16
    assert _outside(a, b, c, f32) == 0
    assert _outside(a, b, c, xf32) == 0


@pytest.mark.parametrize("mma", ["mfma", "auto"])
def test_subnormal_mma_takes_f32_mfmas(mma: str, rng: np.random.Generator) -> None:
    """m16n8k16 f16 -> f32 on a whole wave: normal data take the two f16 MFMAs; with the trigger in
    warp 1's operands the whole wave takes four ``v_mfma_f32_16x16x8_xf32`` (no exact path) and both
    warps' results are within the bound."""
    form = mma_form(SPELLING)
    s, fc = form.shape, form.c_frag
    ptx, n_in, n_out = _kernel(SPELLING)
    for subnormal, mfmas in ((False, 2), (True, 2 * 2)):
        warps = []
        for w in range(2):
            a, b = _trigger(rng, 16, 8)
            if not (subnormal and w == 1):
                a[:, 15], b[15, :] = 0.5, 0.25
            c = rng.uniform(-0.01, 0.01, (fc.rows, fc.cols)).astype(np.float32)
            warps.append((_lanes(s.a, _bits(a)), _lanes(s.b, _bits(b)),
                          _lanes(fc, c.view(np.uint32).astype(np.int64))))
        inputs = [[*_split(fa, s.a)[lane], *_split(fb, s.b)[lane], *_split(fcc, fc)[lane], 0]
                  for fa, fb, fcc in warps for lane in range(WARP)]
        out, stats = run_matrix_stats(ptx, 2 * WARP, inputs, n_out, mma=mma)
        assert stats.mfma_instructions == mfmas, f"subnormal={subnormal}"
        for w, (fa, fb, fcc) in enumerate(warps):
            wrong = mma_disagreements(SPELLING, fa, fb, fcc, _join(out[w * WARP:(w + 1) * WARP], form.d_frag))
            assert not wrong, f"warp {w}, subnormal={subnormal}: {len(wrong)} wrong, e.g. {wrong[:3]}"


def test_the_f32_mfmas_are_emitted() -> None:
    ptx, _, _ = _kernel(SPELLING)
    code = compile_assembly(ptx, mma="mfma")
    assert code.count("v_mfma_f32_16x16x16_f16") == 2
    assert code.count("v_mfma_f32_16x16x8_xf32") == 4


WMMA = Combo("m16n16k16", "f16", "f32", "f32")


def _run_wmma(operands: list[tuple[npt.NDArray[np.float16], npt.NDArray[np.float16], npt.NDArray[np.float32]]],
              combo: Combo = WMMA) -> tuple[int, list[npt.NDArray[np.float32]]]:
    """Both warps' wmma m16n16k16 -> f32 (A row-major, B column-major; f16 A/B, or bf16 bits as
    int64 for ``combo`` bf16): MFMA count and each D."""
    memory = DeviceMemory()
    addresses = []
    for which in range(4):
        blob = b"".join(_store(m[2].view(np.uint32).astype(np.int64) if which >= 2 else
                               _bits(m[which]) if m[which].dtype == np.float16 else m[which],
                               "col" if which == 1 else "row", _stride(combo, "abcd"[which]),
                               (combo.atype, combo.atype, "f32", "f32")[which]) for m in operands)
        addresses.append(memory.alloc(len(blob)))
        memory.write(addresses[-1], blob)
    skip = memory.alloc(8)
    memory.write(skip, struct.pack("<II", 0, 0))
    program = load(compiled(_wmma_kernel(combo)), "wmma.hsaco")
    stats = launch(program, "k", grid=(1, 1, 1), block=(64, 1, 1), kernarg=struct.pack("<5Q", *addresses, skip),
                   memory=memory, step_budget=5_000_000)
    size = 16 * _stride(WMMA, "d") * 4
    results = []
    for w in range(2):
        got = _load(memory.read(addresses[3] + w * size, size), 16, 16, "row", _stride(WMMA, "d"), "f32")
        results.append(np.array(got.astype(np.int64), dtype=np.uint32).view(np.float32))
    return stats.mfma_instructions, results


@pytest.mark.parametrize("subnormal", [False, True], ids=["normal", "subnormal"])
def test_subnormal_wmma_takes_f32_mfmas(subnormal: bool, rng: np.random.Generator) -> None:
    """wmma m16n16k16 f16 -> f32 (``wmma_mfma``'s 4x4x4 layout): 8 ``v_mfma_f32_4x4x4_16b_f16`` on
    normal data, 32 ``v_mfma_f32_4x4x1_16b_f32`` with the trigger in warp 0 (each chain then
    ``mfma_widen.SETTLE`` wait states); within
    the bound."""
    operands = []
    for w in range(2):
        a, b = _trigger(rng, 16, 16)
        if not (subnormal and w == 0):
            a[:, 15], b[15, :] = 0.5, 0.25
        operands.append((a, b, rng.uniform(-0.01, 0.01, (16, 16)).astype(np.float32)))
    mfmas, results = _run_wmma(operands)
    assert mfmas == (32 if subnormal else 8)
    for w, ((a, b, c), d) in enumerate(zip(operands, results, strict=True)):
        assert _outside(a, b, c, d) == 0, f"warp {w}"


@pytest.mark.parametrize(("warp", "which", "row", "col"), [(0, "a", 0, 0), (1, "a", 5, 15), (0, "a", 13, 8),
                                                          (1, "a", 10, 3), (0, "b", 15, 3), (1, "b", 7, 12)])
def test_one_subnormal_element_is_seen(warp: int, which: str, row: int, col: int, rng: np.random.Generator) -> None:
    """A single subnormal A or B element anywhere (the test reads half of A's registers per lane and
    B's registers 0-3, ``wmma_mfma.checked_a``/``checked_b``) sends the wave to the f32 MFMAs."""
    operands = []
    for w in range(2):
        a = rng.integers(-3, 4, (16, 16)).astype(np.float16)
        b = rng.integers(-3, 4, (16, 16)).astype(np.float16)
        if w == warp:
            (a if which == "a" else b)[row, col] = np.float16(-(2.0 ** -20))
        operands.append((a, b, np.zeros((16, 16), dtype=np.float32)))
    mfmas, results = _run_wmma(operands)
    assert mfmas == 32
    for (a, b, c), d in zip(operands, results, strict=True):
        assert _outside(a, b, c, d) == 0


BF16 = Combo("m16n16k16", "bf16", "f32", "f32")
_BF16_ONE, _BF16_TINY, _BF16_HUGE = 0x3F80, 0x8001, 0x5F80  # 1.0, -2^-133, 2^64


@pytest.mark.parametrize(("special", "mfmas"), [(None, 8), (_BF16_TINY, 0), (_BF16_HUGE, 0)],
                         ids=["normal", "subnormal", "huge"])
def test_bf16_wmma_takes_4x4x4_bf16_mfmas(special: int | None, mfmas: int, rng: np.random.Generator) -> None:
    """wmma m16n16k16 bf16 -> f32 (``wmma_mfma.A_BF16``/``B_BF16``, the other K half fetched by
    ``ds_swizzle``): 8 ``v_mfma_f32_4x4x4_16b_bf16`` for both warps on normal data; a subnormal or a
    finite |x| >= 2^60 element (the guards of the other bf16 MFMA forms, ``operands_normal``) sends
    the wave to the exact path; the model accepts every result (warp 0 small integers: bit exact)."""
    operands = []
    for w in range(2):
        small = w == 0
        a, b = ((rng.integers(-8, 9, shape) if small else rng.standard_normal(shape)).astype(np.float32)
                for shape in ((16, 16), (16, 16)))
        a16, b16 = ((x.view(np.uint32) >> 16).astype(np.int64) for x in (a, b))  # truncated to bf16
        if special is not None and w == 1:
            a16[3, 9] = special
            b16[9, 2] = _BF16_ONE
        operands.append((a16, b16, rng.integers(-64, 65, (16, 16)).astype(np.float32)))
    got, results = _run_wmma(operands, BF16)
    assert got == mfmas
    for w, ((a16, b16, c), d) in enumerate(zip(operands, results, strict=True)):
        expected = matrix_expected(BF16.base_spelling, a16.tolist(), b16.tolist(),
                                   c.view(np.uint32).astype(np.int64).tolist())
        bits = d.view(np.uint32)
        wrong = [(r, n) for r in range(16) for n in range(16)
                 if not expected[r][n].accepts(element_format("f32"), int(bits[r, n]))]
        assert not wrong, f"warp {w}: {wrong[:3]}"


@pytest.mark.parametrize("layouts", [("row", "col"), ("col", "row")])
def test_bf16_wmma_opcode(layouts: tuple[str, str]) -> None:
    code = compile_assembly(_wmma_kernel(Combo("m16n16k16", "bf16", "f32", "f32", *layouts)), mma="auto")
    assert code.count("v_mfma_f32_4x4x4_16b_bf16") == 8
    assert "v_mfma_f32_4x4x4_16b_bf16" not in compile_assembly(
        _wmma_kernel(Combo("m16n16k16", "bf16", "f32", "f32", *layouts)), mma="exact")
