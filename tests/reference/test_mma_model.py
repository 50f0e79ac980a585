"""The reference model of warp-level matrix instructions against numpy and against the PTX ISA's
own worked facts: every fragment covers its matrix exactly once, fragments round-trip, small-integer
mma results equal numpy's matmul, and the error bound accepts what it should and nothing more."""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.reference.errors import ReferenceInputError
from ptx2gcn.reference.mma import (
    WARP,
    chain_expected,
    from_matrix,
    ldmatrix,
    mma_disagreements,
    mma_expected,
    mma_form,
    movmatrix,
    stmatrix,
    to_matrix,
)
from ptx2gcn.reference.mma_layouts import (
    C_F16,
    MATRIX_8X8_B16,
    MMA_SHAPES,
    VOLTA_C_F16,
    VOLTA_C_F32,
    Fragment,
    volta_shape,
)

FRAGMENTS = [(f"{shape}.{kind}.{name}", getattr(s, name)) for (shape, kind), s in MMA_SHAPES.items()
             for name in ("a", "b", "c")] + [("c_f16", C_F16), ("m8n8.b16", MATRIX_8X8_B16)] + [
    (f"m8n8k4.f16.{a}.{b}.{name}", getattr(volta_shape(a, b, False), name)) for a in ("row", "col")
    for b in ("row", "col") for name in ("a", "b")] + [("volta.c_f16", VOLTA_C_F16), ("volta.c_f32", VOLTA_C_F32)]


@pytest.mark.parametrize(("name", "frag"), FRAGMENTS, ids=[n for n, _ in FRAGMENTS])
def test_fragment_covers_matrix_once(name: str, frag: Fragment) -> None:
    seen = [frag.where(lane, i) for lane in range(WARP) for i in range(frag.count)]
    assert sorted(seen) == [(r, c) for r in range(frag.rows) for c in range(frag.cols)], name


@pytest.mark.parametrize(("name", "frag"), FRAGMENTS, ids=[n for n, _ in FRAGMENTS])
def test_fragment_round_trip(name: str, frag: Fragment) -> None:
    rng = np.random.default_rng(1)
    matrix = rng.integers(0, 1 << min(frag.elem_bits, 62), (frag.rows, frag.cols)).tolist()
    assert to_matrix(frag, from_matrix(frag, matrix)) == matrix, name


def test_m16n8k16_a_matches_the_manual_example() -> None:
    """PTX ISA Figure 79: lane 5 (groupID 1, threadID_in_group 1) holds a0,a1 = A[1][2..3] and
    a6,a7 = A[9][10..11]."""
    frag = MMA_SHAPES[("m16n8k16", "f16")].a
    assert [frag.where(5, i) for i in (0, 1, 6, 7)] == [(1, 2), (1, 3), (9, 10), (9, 11)]


def _f16_bits(values: np.ndarray) -> list[list[int]]:
    return values.astype(np.float16).view(np.uint16).astype(int).tolist()


def _f32_bits(values: np.ndarray) -> list[list[int]]:
    return values.astype(np.float32).view(np.uint32).astype(int).tolist()


def _regs_f32(values: list[list[float]]) -> list[list[int]]:
    return [list(np.asarray(row, dtype=np.float32).view(np.uint32).astype(int)) for row in values]


def test_small_integer_f16_mma_is_numpy_matmul() -> None:
    rng = np.random.default_rng(2)
    spelling = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
    form = mma_form(spelling)
    a, b, c = rng.integers(-8, 9, (16, 16)), rng.integers(-8, 9, (16, 8)), rng.integers(-50, 50, (16, 8))
    a_regs, b_regs = from_matrix(form.shape.a, _f16_bits(a)), from_matrix(form.shape.b, _f16_bits(b))
    c_regs = from_matrix(form.shape.c, _f32_bits(c))
    d = (a @ b + c).astype(np.float32)
    d_regs = from_matrix(form.shape.c, _f32_bits(d))
    assert mma_disagreements(spelling, a_regs, b_regs, c_regs, d_regs) == []
    d_regs[3][1] ^= 1  # one ulp off in one element: small-integer data must be bit exact
    assert len(mma_disagreements(spelling, a_regs, b_regs, c_regs, d_regs)) == 1


def test_random_f16_bound_accepts_fp32_sum_and_rejects_f16_rounding() -> None:
    rng = np.random.default_rng(3)
    spelling = "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32"
    form = mma_form(spelling)
    a, b = rng.standard_normal((16, 8)).astype(np.float16), rng.standard_normal((8, 8)).astype(np.float16)
    c = rng.standard_normal((16, 8)).astype(np.float32)
    regs = (from_matrix(form.shape.a, _f16_bits(a)), from_matrix(form.shape.b, _f16_bits(b)),
            from_matrix(form.shape.c, _f32_bits(c)))
    d32 = (a.astype(np.float32) @ b.astype(np.float32) + c).astype(np.float32)
    assert mma_disagreements(spelling, *regs, from_matrix(form.shape.c, _f32_bits(d32))) == []
    d16 = d32.astype(np.float16).astype(np.float32)  # a result rounded to f16: far outside the bound
    assert mma_disagreements(spelling, *regs, from_matrix(form.shape.c, _f32_bits(d16)))


def test_int8_wraps_and_saturates() -> None:
    spelling = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"
    form = mma_form(spelling)
    a = np.full((16, 32), 0x80)  # -128
    b = np.full((32, 8), 0x80)
    c = np.full((16, 8), 0x7FFFFFFF)
    args = (from_matrix(form.shape.a, a.tolist()), from_matrix(form.shape.b, b.tolist()),
            from_matrix(form.shape.c, c.tolist()))
    total = 32 * 128 * 128 + 0x7FFFFFFF
    wrapped = mma_expected(spelling, *args)
    assert wrapped[0][0].bits == total & 0xFFFFFFFF
    saturated = mma_expected(spelling.replace(".col.", ".col.satfinite."), *args)
    assert saturated[0][0].bits == 0x7FFFFFFF


def test_u8_is_unsigned() -> None:
    spelling = "mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32"
    form = mma_form(spelling)
    a = np.full((16, 16), 0xFF)
    b = np.full((16, 8), 0xFF)  # -1 as s8
    args = (from_matrix(form.shape.a, a.tolist()), from_matrix(form.shape.b, b.tolist()),
            from_matrix(form.shape.c, np.zeros((16, 8), dtype=int).tolist()))
    assert mma_expected(spelling, *args)[0][0].bits == (-255 * 16) & 0xFFFFFFFF


def test_tf32_ignores_low_mantissa_bits() -> None:
    spelling = "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32"
    form = mma_form(spelling)
    one_plus = 0x3F800000 | 0x1FFF  # 1.0 with only the ignored bits set
    args = (from_matrix(form.shape.a, np.full((16, 4), one_plus).tolist()),
            from_matrix(form.shape.b, np.full((4, 8), 0x3F800000).tolist()),
            from_matrix(form.shape.c, np.zeros((16, 8), dtype=int).tolist()))
    assert mma_expected(spelling, *args)[0][0].bits == 0x40800000  # 4.0


def test_nan_and_infinity_rules() -> None:
    spelling = "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32"
    form = mma_form(spelling)
    a = np.zeros((16, 4), dtype=np.int64)
    a[0, 0], a[1, 0], a[2, 0] = 0x7F800000, 0x7FC00000, 0x7F800000  # inf, NaN, inf
    b = np.full((4, 8), 0x3F800000, dtype=np.int64)
    b[0, 1] = 0  # column 1: inf * 0
    c = np.zeros((16, 8), dtype=np.int64)
    c[2, 0] = 0xFF800000  # row 2: inf + -inf
    expected = mma_expected(spelling, from_matrix(form.shape.a, a.tolist()), from_matrix(form.shape.b, b.tolist()),
                            from_matrix(form.shape.c, c.tolist()))
    by_pos = {form.shape.c.where(lane, i): e for lane in range(WARP) for i, e in enumerate(expected[lane])}
    assert by_pos[(0, 0)].infinity == np.inf
    assert by_pos[(0, 1)].nan and by_pos[(1, 0)].nan and by_pos[(2, 0)].nan
    from ptx2gcn.reference.floatformat import F32
    assert by_pos[(1, 0)].accepts(F32, 0x7FFFFFFF) and not by_pos[(1, 0)].accepts(F32, 0x7FC00000)


def test_f64_is_an_fma_chain() -> None:
    spelling = "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"
    form = mma_form(spelling)
    big, tiny = np.float64(2.0**53), np.float64(1.0)
    a = np.array([[big, tiny, tiny, -big]] * 8)
    b = np.ones((4, 8))
    c = np.zeros((8, 8))
    regs = [from_matrix(f, x.view(np.uint64).astype(object).tolist()) for f, x in
            ((form.shape.a, a), (form.shape.b, b), (form.shape.c, c))]
    # chain: 2^53, 2^53 (+1 rounds to even), 2^53, 0 -- the exact sum would be 2
    assert mma_expected(spelling, *regs)[0][0].bits == 0


def test_ldmatrix_stmatrix_movmatrix() -> None:
    memory = {addr: (addr * 7 + 3) & 0xFFFF for addr in range(0, 4096, 2)}
    rows = [64 * r + 2 * (r % 3) for r in range(32)]  # 32 row addresses, rows not contiguous
    plain = ldmatrix(4, False, rows, memory.__getitem__)
    trans = ldmatrix(4, True, rows, memory.__getitem__)
    assert plain[5][2] == memory[rows[16 + 1] + 4] | memory[rows[16 + 1] + 6] << 16  # lane 5: row 1, cols 2-3
    assert trans[5][2] == memory[rows[16 + 2] + 2] | memory[rows[16 + 3] + 2] << 16  # col 1 of rows 2, 3
    assert [lane[2] for lane in trans] == movmatrix([lane[2] for lane in plain])
    stored: dict[int, int] = {}
    stmatrix(4, True, rows, trans, stored.__setitem__)
    assert all(memory[k] == v for k, v in stored.items()) and len(stored) == 4 * 64


def test_unknown_forms_are_refused() -> None:
    with pytest.raises(ReferenceInputError):
        mma_form("mma.sync.aligned.m16n8k4.row.col.f32.f16.f16.f32")
    with pytest.raises(ReferenceInputError):
        mma_form("mma.sync.aligned.m16n8k16.row.col.f32.f16.bf16.f32")


def test_chain_bound_grows_with_each_step_and_saturation_is_per_step() -> None:
    spelling = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
    one = int(np.float16(1.0).view(np.uint16))
    third = int(np.float16(1 / 3).view(np.uint16))
    a = [[third] * 16 for _ in range(16)]
    b = [[one] * 8 for _ in range(16)]
    c = [[0] * 8 for _ in range(16)]
    single = chain_expected(spelling, [(a, b)], c)[0][0]
    triple = chain_expected(spelling, [(a, b)] * 3, c)[0][0]
    assert single.exact is not None and triple.exact == 3 * single.exact
    assert triple.bound > 3 * single.bound  # later steps also carry the earlier error
    exact = float(triple.exact)
    from ptx2gcn.reference.floatformat import F32
    assert triple.accepts(F32, int(np.float32(exact).view(np.uint32)))
    assert not triple.accepts(F32, int(np.float32(exact * (1 + 2**-12)).view(np.uint32)))
    sat = "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32"
    ones, neg = [[1] * 32 for _ in range(16)], [[0x80] * 8 for _ in range(32)]  # products -128
    big = [[0x7FFFFF00] * 8 for _ in range(16)]
    pos = [[0x7F] * 8 for _ in range(32)]
    # step 1 saturates at 2^31 - 1, step 2 subtracts 4096 from the saturated value, not from the sum
    assert chain_expected(sat, [(ones, pos), (ones, neg)], big)[0][0].bits == 0x7FFFFFFF - 4096
