"""VALU semantics, one instruction at a time (assembled by llvm-mc-22), against models written from the
CDNA3 ISA definitions with plain Python integers / fractions / numpy (never the emulator's helpers)."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest

from ptx2gcn.runtime.emulator.wave import VCC_LO, Wave

Run = Callable[[str, Wave], Wave]
M32 = 0xFFFFFFFF
EDGE32 = [0, 1, 2, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE, 12345, 0xDEADBEEF, 0x00010000, 31, 32, 33]


def lanes(values: list[int], n: int = 64) -> np.ndarray:
    return np.array([values[i % len(values)] for i in range(n)], dtype=np.uint64)


def f32_bits(values: object) -> np.ndarray:
    return np.asarray(values, dtype=np.float32).view(np.uint32)


@pytest.fixture(autouse=True)
def _factory(make_wave: Callable[..., Wave]) -> None:
    global wave_with
    wave_with = make_wave


wave_with: Callable[..., Wave]


def s32(x: int) -> int:
    return x - (1 << 32) if x >> 31 else x


def test_add_co_sets_carry_per_lane_and_addc_consumes_it(one_instruction: Run) -> None:
    a = lanes(EDGE32)
    b = lanes(EDGE32[3:] + EDGE32[:3])
    w = one_instruction("v_add_co_u32_e32 v2, vcc, v0, v1", wave_with(v0=a, v1=b))
    total = [int(x) + int(y) for x, y in zip(a, b)]
    assert w.v[2].tolist() == [t & M32 for t in total]
    assert w.vcc == sum(1 << i for i, t in enumerate(total) if t >> 32)
    w.v[3] = 5
    w = one_instruction("v_addc_co_u32_e64 v4, s[10:11], v3, v1, vcc", w)
    carries = [t >> 32 for t in total]
    with_carry = [5 + int(y) + c for y, c in zip(b, carries)]
    assert w.v[4].tolist() == [t & M32 for t in with_carry]
    assert w.sreg64(10) == sum(1 << i for i, t in enumerate(with_carry) if t >> 32)


def test_sub_co_borrow_and_inactive_lanes_read_zero_in_mask(one_instruction: Run) -> None:
    a, b = lanes(EDGE32), lanes(EDGE32[5:] + EDGE32[:5])
    w = wave_with(v0=a, v1=b)
    w.set_exec(0x00000000FFFF0000)
    w.v[2] = 77
    one_instruction("v_sub_co_u32_e64 v2, s[4:5], v0, v1", w)
    active = [16 <= i < 32 for i in range(64)]
    assert w.v[2].tolist() == [(int(x) - int(y)) & M32 if act else 77 for x, y, act in zip(a, b, active)]
    assert w.sreg64(4) == sum(1 << i for i in range(64) if active[i] and b[i] > a[i])


def test_mul_hi_and_mad_u64_u32_against_python_integers(one_instruction: Run) -> None:
    a, b = lanes(EDGE32), lanes(EDGE32[::-1])
    w = one_instruction("v_mul_hi_u32 v2, v0, v1", wave_with(v0=a, v1=b))
    assert w.v[2].tolist() == [(int(x) * int(y)) >> 32 for x, y in zip(a, b)]
    one_instruction("v_mul_hi_i32 v3, v0, v1", w)
    assert w.v[3].tolist() == [((s32(int(x)) * s32(int(y))) >> 32) & M32 for x, y in zip(a, b)]
    w.v[4], w.v[5] = a.astype(np.uint32), b.astype(np.uint32)  # addend v[4:5]
    one_instruction("v_mad_u64_u32 v[6:7], s[8:9], v0, v1, v[4:5]", w)
    exact = [int(x) * int(y) + (int(x) | int(y) << 32) for x, y in zip(a, b)]
    assert w.v[6].tolist() == [e & M32 for e in exact] and w.v[7].tolist() == [(e >> 32) & M32 for e in exact]
    assert w.sreg64(8) == sum(1 << i for i, e in enumerate(exact) if e >> 64)


@pytest.mark.parametrize("offset, width", [(0, 0), (0, 8), (4, 12), (28, 4), (31, 1), (8, 31), (40, 36)])
def test_bfe_u32_and_i32(one_instruction: Run, offset: int, width: int) -> None:
    a = lanes(EDGE32)
    w = wave_with(v0=a, v1=np.full(64, offset), v2=np.full(64, width))
    one_instruction("v_bfe_u32 v3, v0, v1, v2", w)
    one_instruction("v_bfe_i32 v4, v0, v1, v2", w)
    o, n = offset & 31, width & 31
    fields = [(int(x) >> o) & ((1 << n) - 1) for x in a]
    assert w.v[3].tolist() == fields
    signed = [f - (1 << n) if n and f >> (n - 1) else f for f in fields]
    assert w.v[4].tolist() == [s & M32 for s in signed]


def test_bit_counting_and_reversal(one_instruction: Run) -> None:
    a = lanes(EDGE32)
    w = wave_with(v0=a)
    for text in (
        "v_ffbh_u32_e32 v1, v0",
        "v_ffbl_b32_e32 v2, v0",
        "v_bfrev_b32_e32 v3, v0",
        "v_bcnt_u32_b32 v4, v0, 3",
        "v_ffbh_i32_e32 v5, v0",
    ):
        one_instruction(text, w)
    for i, x in enumerate(int(v) for v in a):
        assert w.v[1, i] == (M32 if x == 0 else 32 - x.bit_length())
        assert w.v[2, i] == (M32 if x == 0 else (x & -x).bit_length() - 1)
        assert w.v[3, i] == int(f"{x:032b}"[::-1], 2)
        assert w.v[4, i] == bin(x).count("1") + 3
        flipped = x ^ M32 if x >> 31 else x
        assert w.v[5, i] == (M32 if x in (0, M32) else 32 - flipped.bit_length())


def test_alignbit_perm_and_shift_add(one_instruction: Run) -> None:
    a, b = lanes(EDGE32), lanes(EDGE32[::-1])
    w = wave_with(v0=a, v1=b, v2=lanes([0, 1, 7, 31, 32, 63]))
    one_instruction("v_alignbit_b32 v3, v0, v1, v2", w)
    w.s[0] = 0x0C080400  # selectors: byte 0, byte 4, sign of byte 1 (8), zero (12)
    one_instruction("v_perm_b32 v4, v0, v1, s0", w)
    one_instruction("v_lshl_add_u64 v[6:7], v[0:1], 2, v[0:1]", w)
    for i in range(64):
        x, y, s = int(a[i]), int(b[i]), int(w.v[2, i]) & 31
        assert w.v[3, i] == ((x << 32 | y) >> s) & M32
        data = x << 32 | y
        byte = [data >> (8 * k) & 0xFF for k in range(8)]
        sign1 = 0xFF if data >> 15 & 1 else 0
        assert w.v[4, i] == byte[0] | byte[4] << 8 | sign1 << 16
        pair = x | y << 32
        assert int(w.v[6, i]) | int(w.v[7, i]) << 32 == ((pair << 2) + pair) % 2**64


def test_ashrrev_i64_and_lshrrev_b64(one_instruction: Run) -> None:
    lo, hi = lanes(EDGE32), lanes(EDGE32[::-1])
    w = wave_with(v2=lo, v3=hi, v0=lanes([0, 1, 31, 32, 33, 63, 64, 65]))
    one_instruction("v_ashrrev_i64 v[4:5], v0, v[2:3]", w)
    one_instruction("v_lshrrev_b64 v[6:7], v0, v[2:3]", w)
    for i in range(64):
        value = int(lo[i]) | int(hi[i]) << 32
        signed = value - (1 << 64) if value >> 63 else value
        shift = int(w.v[0, i]) & 63
        assert int(w.v[4, i]) | int(w.v[5, i]) << 32 == (signed >> shift) % 2**64
        assert int(w.v[6, i]) | int(w.v[7, i]) << 32 == value >> shift


def test_cndmask_e64_uses_sgpr_pair_and_inline_constant(one_instruction: Run) -> None:
    w = wave_with(v0=np.arange(64))
    w.s[20], w.s[21] = 0xAAAAAAAA, 0x0000FFFF
    one_instruction("v_cndmask_b32_e64 v1, v0, -1, s[20:21]", w)
    mask = 0xAAAAAAAA | 0xFFFF << 32
    assert w.v[1].tolist() == [M32 if mask >> i & 1 else i for i in range(64)]


def _fma_model(a: float, b: float, c: float, dtype: type) -> float:
    """Correctly rounded fma through exact rationals and numpy's correctly rounded conversion."""
    if not all(math.isfinite(v) for v in (a, b, c)) or a == 0 or b == 0:
        return float(dtype(np.float64(a) * np.float64(b) + np.float64(c)))
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        return 0.0
    # Round to dtype: find the neighbours of the exact value in dtype and pick by distance, ties even.
    approx = dtype(float(exact))
    candidates = {approx, np.nextafter(approx, dtype(np.inf)), np.nextafter(approx, dtype(-np.inf))}
    finite = [c for c in candidates if np.isfinite(c)]
    best = min(
        finite,
        key=lambda v: (
            abs(Fraction(float(v)) - exact),
            int(np.asarray(v).view(np.uint32 if dtype == np.float32 else np.uint64)) & 1,
        ),
    )
    return float(best)


def test_fma_f32_is_correctly_rounded_on_hard_cases(one_instruction: Run) -> None:
    rng = np.random.default_rng(7)
    a = rng.standard_normal(64).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)
    c = (-(a.astype(np.float64) * b.astype(np.float64))).astype(np.float32)  # massive cancellation
    c[::3] = rng.standard_normal(22).astype(np.float32) * np.float32(1e-8)
    c[1] = np.float32(1e-45)
    w = wave_with(v0=f32_bits(a), v1=f32_bits(b), v2=f32_bits(c))
    one_instruction("v_fma_f32 v3, v0, v1, v2", w)
    got = w.v[3].view(np.float32)
    expected = [_fma_model(float(x), float(y), float(z), np.float32) for x, y, z in zip(a, b, c)]
    np.testing.assert_array_equal(got, np.array(expected, dtype=np.float32))


def _fma_f64(one_instruction: Run, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Each lane's ``v_fma_f64`` of a, b and c (64 lanes each)."""
    w = wave_with()
    for row, values in ((0, a), (2, b), (4, c)):
        raw = values.view(np.uint64)
        w.v[row], w.v[row + 1] = (raw & M32).astype(np.uint32), (raw >> 32).astype(np.uint32)
    one_instruction("v_fma_f64 v[6:7], v[0:1], v[2:3], v[4:5]", w)
    return (w.v[6].astype(np.uint64) | w.v[7].astype(np.uint64) << 32).view(np.float64)


def test_fma_f64_is_correctly_rounded(one_instruction: Run) -> None:
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal(64), rng.standard_normal(64)
    c = -(a * b)
    got = _fma_f64(one_instruction, a, b, c)
    expected = [_fma_model(x, y, z, np.float64) for x, y, z in zip(a, b, c)]
    np.testing.assert_array_equal(got, np.array(expected))
    assert np.count_nonzero(got) > 50  # the residual a*b - round(a*b) is almost never zero


def test_min_max_f32_nan_and_signed_zero(one_instruction: Run) -> None:
    nan, snan = np.uint32(0x7FC00000), np.uint32(0x7FA00000)
    a = np.array([1.0, np.nan, -0.0, 0.0, -np.inf, 2.0] * 11, dtype=np.float32)[:64]
    b = np.array([np.nan, 3.0, 0.0, -0.0, 5.0, 2.0] * 11, dtype=np.float32)[:64]
    w = wave_with(v0=f32_bits(a), v1=f32_bits(b))
    w.v[0, 63], w.v[1, 62] = snan, nan
    one_instruction("v_min_f32_e32 v2, v0, v1", w)
    one_instruction("v_max_f32_e32 v3, v0, v1", w)
    mins, maxs = w.v[2].view(np.float32), w.v[3].view(np.float32)
    assert mins[0] == 1.0 and mins[1] == 3.0 and maxs[0] == 1.0 and maxs[1] == 3.0
    assert np.signbit(mins[2]) and np.signbit(mins[3]) and not np.signbit(maxs[2]) and not np.signbit(maxs[3])
    assert mins[4] == -np.inf and maxs[4] == 5.0
    assert w.v[2, 63] == 0x7FE00000  # IEEE mode: a signalling NaN operand gives its quieted NaN


def test_float_to_int_conversions_truncate_saturate_and_zero_nan(one_instruction: Run) -> None:
    values = np.array(
        [1.9, -1.9, 3e9, -3e9, np.nan, np.inf, -np.inf, 2147483520.0, -0.5, 4294967040.0], dtype=np.float32
    )
    w = wave_with(v0=f32_bits(np.resize(values, 64)))
    one_instruction("v_cvt_i32_f32_e32 v1, v0", w)
    one_instruction("v_cvt_u32_f32_e32 v2, v0", w)
    i32 = [1, -1, 2**31 - 1, -(2**31), 0, 2**31 - 1, -(2**31), 2147483520, 0, 2**31 - 1]
    u32 = [1, 0, 3000000000, 0, 0, M32, 0, 2147483520, 0, 4294967040]
    assert w.v[1, :10].tolist() == [v & M32 for v in i32]
    assert w.v[2, :10].tolist() == u32


def test_f16_conversion_rounds_to_nearest_even(one_instruction: Run) -> None:
    # 1 + 2^-11 is a tie between 1.0 and 1+2^-10 (f16 ulp at 1 is 2^-10): even -> 1.0.
    values = np.array([1 + 2**-11, 1 + 3 * 2**-11, 65520.0, 6e-8, -2.5e-8, np.nan], dtype=np.float32)
    w = wave_with(v0=f32_bits(np.resize(values, 64)))
    w.v[1] = 0xFFFFFFFF
    one_instruction("v_cvt_f16_f32_e32 v1, v0", w)
    got = (w.v[1, :6] & 0xFFFF).astype(np.uint16).view(np.float16)
    assert got[0] == 1.0 and got[1] == np.float16(1 + 2**-9) and np.isinf(got[2])
    assert (
        got[3] == np.float16(5.960464477539063e-08)
        and got[4] == np.float16(-2.980232238769531e-08)
        or got[4] == 0.0
    )
    assert np.isnan(got[5])
    assert (w.v[1] >> 16 == 0).all()  # the upper half is zeroed on gfx9


def test_transcendentals_within_one_ulp(one_instruction: Run) -> None:
    rng = np.random.default_rng(9)
    x = rng.uniform(-4, 4, 64).astype(np.float32)
    w = wave_with(v0=f32_bits(x), v1=f32_bits(np.abs(x) + np.float32(0.01)))
    for text in (
        "v_sin_f32_e32 v2, v0",
        "v_cos_f32_e32 v3, v0",
        "v_exp_f32_e32 v4, v0",
        "v_log_f32_e32 v5, v1",
        "v_rcp_f32_e32 v6, v1",
        "v_rsq_f32_e32 v7, v1",
        "v_sqrt_f32_e32 v8, v1",
    ):
        one_instruction(text, w)
    pos = (np.abs(x) + np.float32(0.01)).astype(np.float64)
    refs = {
        2: np.sin(2 * np.pi * x.astype(np.float64)),
        3: np.cos(2 * np.pi * x.astype(np.float64)),
        4: np.exp2(x.astype(np.float64)),
        5: np.log2(pos),
        6: 1 / pos,
        7: 1 / np.sqrt(pos),
        8: np.sqrt(pos),
    }
    for row, ref in refs.items():
        got = w.v[row].view(np.float32).astype(np.float64)
        ulp = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
        assert (np.abs(got - ref) <= np.maximum(ulp, 1e-7)).all(), row


def test_inline_constant_inv_2pi_and_literal(one_instruction: Run) -> None:
    w = wave_with(v0=f32_bits(np.full(64, 2.0)))
    one_instruction("v_mul_f32_e32 v1, 0.15915494, v0", w)
    assert (w.v[1] == f32_bits(np.float32(np.uint32(0x3E22F983).view(np.float32)) * np.float32(2.0))).all()
    one_instruction("v_mul_f32_e32 v2, 0x40490fdb, v0", w)  # literal pi
    assert (w.v[2].view(np.float32) == np.float32(np.uint32(0x40490FDB).view(np.float32)) * 2).all()


def test_vop3_abs_neg_omod_clamp(one_instruction: Run) -> None:
    a = np.array([0.25, -0.75, 3.0, -np.inf] * 16, dtype=np.float32)
    w = wave_with(v0=f32_bits(a), v1=f32_bits(np.full(64, 0.5)))
    one_instruction("v_add_f32_e64 v2, -|v0|, v1", w)
    one_instruction("v_add_f32_e64 v3, v0, v1 mul:2", w)
    one_instruction("v_add_f32_e64 v4, v0, v1 clamp", w)
    np.testing.assert_array_equal(w.v[2].view(np.float32), -np.abs(a) + np.float32(0.5))
    np.testing.assert_array_equal(w.v[3].view(np.float32), (a + np.float32(0.5)) * 2)
    np.testing.assert_array_equal(w.v[4].view(np.float32), np.clip(a + np.float32(0.5), 0, 1))


def test_compares_nan_ordering_class_and_cmpx(one_instruction: Run) -> None:
    a = np.array([1.0, np.nan, 2.0, -0.0, np.inf, 1e-40] * 11, dtype=np.float32)[:64]
    b = np.array([1.0, 1.0, np.nan, 0.0, np.inf, 0.0] * 11, dtype=np.float32)[:64]
    w = wave_with(v0=f32_bits(a), v1=f32_bits(b))
    one_instruction("v_cmp_neq_f32_e64 s[0:1], v0, v1", w)
    one_instruction("v_cmp_lg_f32_e64 s[2:3], v0, v1", w)
    w.s[6] = 1 << 4 | 1 << 7  # class bits: negative denormal, positive denormal
    one_instruction("v_cmp_class_f32_e64 s[4:5], v0, s6", w)
    assert w.sreg64(0) == sum(1 << i for i in range(64) if a[i] != b[i])
    assert w.sreg64(2) == sum(1 << i for i in range(64) if a[i] < b[i] or a[i] > b[i])
    assert w.sreg64(4) == sum(1 << i for i in range(64) if 0 < abs(a[i]) < np.finfo(np.float32).tiny)
    w.v[2] = np.arange(64)
    w.set_exec(0xFFFF)
    one_instruction("v_cmpx_gt_u32_e32 vcc, 3, v2", w)
    assert w.exec == 0b111 and w.vcc == 0b111  # GFX9 v_cmpx writes EXEC and VCC


def test_div_fixup_special_cases(one_instruction: Run) -> None:
    quotient = np.float32(7.0)
    den = np.array([0.0, np.inf, 2.0, np.nan, 0.0, -np.inf, 3.0, 1.0], dtype=np.float32)
    num = np.array([1.0, 1.0, np.inf, 1.0, 0.0, np.inf, np.nan, -2.0], dtype=np.float32)
    w = wave_with(
        v0=f32_bits(np.full(64, quotient)), v1=f32_bits(np.resize(den, 64)), v2=f32_bits(np.resize(num, 64))
    )
    one_instruction("v_div_fixup_f32 v3, v0, v1, v2", w)
    got = w.v[3, :8].view(np.float32)
    assert got[0] == np.inf and got[1] == 0 and got[2] == np.inf and np.isnan(got[3])
    assert np.isnan(got[4]) and np.isnan(got[5]) and np.isnan(got[6]) and got[7] == -7.0
    assert w.v[3, 4] == 0xFFC00000  # 0/0 gives the default NaN


def test_readlane_readfirstlane_writelane_mbcnt(one_instruction: Run) -> None:
    w = wave_with(v0=np.arange(100, 164))
    w.set_exec(0xF0F0_0000_0000_0000)
    one_instruction("v_readfirstlane_b32 s7, v0", w)
    assert w.s[7] == 100 + 52
    w.s[8] = 5
    one_instruction("v_readlane_b32 s9, v0, s8", w)
    assert w.s[9] == 105  # reads lane 5 although it is inactive
    w.s[10] = 0xABC
    one_instruction("v_writelane_b32 v0, s10, 3", w)
    assert w.v[0, 3] == 0xABC
    w.set_exec((1 << 64) - 1)
    one_instruction("v_mbcnt_lo_u32_b32 v1, -1, 0", w)
    one_instruction("v_mbcnt_hi_u32_b32 v1, -1, v1", w)
    assert w.v[1].tolist() == list(range(64))


def test_dpp_reads_pre_instruction_values(one_instruction: Run) -> None:
    """Pitfall 2: v_add_u32_dpp v6, v6, v7 row_shr:1 must not turn into a prefix sum."""
    w = wave_with(v6=np.arange(1, 65), v7=np.full(64, 1000))
    one_instruction("v_add_u32_dpp v6, v6, v7 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1", w)
    expected = [
        (i if i % 16 else 0) + 1000 for i in range(64)
    ]  # lane i reads old v6[i-1] = i; row start reads 0
    assert w.v[6].tolist() == expected


def test_dpp_without_bound_ctrl_keeps_lanes_with_invalid_source(one_instruction: Run) -> None:
    w = wave_with(v1=np.arange(64), v2=np.full(64, 7))
    one_instruction("v_mov_b32_dpp v2, v1 row_shl:1 row_mask:0xa bank_mask:0xf", w)
    for lane in range(64):
        row_enabled = (0xA >> (lane // 16)) & 1
        valid = lane % 16 != 15
        assert w.v[2, lane] == (lane + 1 if row_enabled and valid else 7)
    one_instruction("v_mov_b32_dpp v3, v1 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf", w)
    assert w.v[3].tolist() == [(lane & ~3) | (3 - (lane & 3)) for lane in range(64)]


def test_sdwa_selects_and_preserves(one_instruction: Run) -> None:
    a = lanes(EDGE32)
    w = wave_with(v0=a, v1=lanes(EDGE32[::-1]), v2=np.full(64, 0x11223344))
    one_instruction(
        "v_add_u32_sdwa v2, v0, v1 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1 src1_sel:WORD_0",
        w,
    )
    for i in range(64):
        total = ((int(a[i]) >> 8) & 0xFF) + (int(w.v[1, i]) & 0xFFFF)
        assert w.v[2, i] == 0x3344 | (total & 0xFFFF) << 16


def test_packed_f16_op_sel(one_instruction: Run) -> None:
    lo = np.random.default_rng(10).standard_normal(64).astype(np.float16)
    hi = np.random.default_rng(11).standard_normal(64).astype(np.float16)
    packed = lo.view(np.uint16).astype(np.uint32) | hi.view(np.uint16).astype(np.uint32) << 16
    w = wave_with(v0=packed, v1=packed)
    one_instruction("v_pk_add_f16 v2, v0, v1 op_sel:[1,0] op_sel_hi:[0,1]", w)
    got_lo = (w.v[2] & 0xFFFF).astype(np.uint16).view(np.float16)
    got_hi = (w.v[2] >> 16).astype(np.uint16).view(np.float16)
    np.testing.assert_array_equal(got_lo, hi + lo)
    np.testing.assert_array_equal(got_hi, lo + hi)


def test_vcc_destination_code(one_instruction: Run) -> None:
    w = wave_with(v0=np.arange(64))
    one_instruction("v_cmp_gt_u32_e32 vcc, 10, v0", w)
    assert w.s[VCC_LO] == (1 << 10) - 1 and w.s[VCC_LO + 1] == 0


def test_sdwa_compares_select_sub_dwords(one_instruction: Run) -> None:
    a, b = lanes(EDGE32), lanes(EDGE32[::-1])
    w = wave_with(v0=a, v1=b)
    one_instruction("v_cmp_eq_u16_sdwa s[2:3], v0, v1 src0_sel:BYTE_1 src1_sel:WORD_0", w)
    one_instruction("v_cmp_lt_i32_sdwa vcc, v0, v1 src0_sel:WORD_1 src1_sel:DWORD", w)
    byte1 = [(int(x) >> 8) & 0xFF for x in a]
    assert w.sreg64(2) == sum(1 << i for i in range(64) if byte1[i] == int(b[i]) & 0xFFFF)
    word1 = [(int(x) >> 16) & 0xFFFF for x in a]  # zero-extended (no sext)
    assert w.vcc == sum(1 << i for i in range(64) if word1[i] < s32(int(b[i])))


def test_dpp_carry_and_cndmask(one_instruction: Run) -> None:
    a = lanes(EDGE32)
    b = lanes(EDGE32[2:] + EDGE32[:2])
    w = wave_with(v0=a, v1=b, v2=np.full(64, 5))
    one_instruction("v_add_co_u32_dpp v2, vcc, v0, v1 row_shr:1 row_mask:0xf bank_mask:0xf", w)
    for i in range(64):
        if i % 16 == 0:  # no source lane and no bound_ctrl: lane not written
            assert w.v[2, i] == 5
        else:
            total = int(a[i - 1]) + int(b[i])
            assert w.v[2, i] == total & M32 and (w.vcc >> i & 1) == (total >> 32)
    w.s[VCC_LO], w.s[VCC_LO + 1] = 0x0F0F0F0F, 0xF0F0F0F0
    one_instruction("v_cndmask_b32_dpp v3, v0, v1, vcc quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", w)
    vcc = 0xF0F0F0F0_0F0F0F0F
    assert w.v[3].tolist() == [int(b[i]) if vcc >> i & 1 else int(a[i ^ 1]) for i in range(64)]


def test_16_bit_results_zero_or_keep_the_high_half(one_instruction: Run) -> None:
    """gfx9: v_add_f16 zeroes bits 31:16 of the destination, v_mac_f16 keeps them (LLVM's
    GCNSubtarget::zeroesHigh16BitsOfDest)."""
    one = int(np.float16(1.0).view(np.uint16))
    w = wave_with(v0=np.full(64, one), v1=np.full(64, one), v2=np.full(64, 0xABCD0000 | one))
    w.v[3] = 0x12340000
    one_instruction("v_add_f16_e32 v3, v0, v1", w)
    assert (w.v[3] == int(np.float16(2.0).view(np.uint16))).all()
    one_instruction("v_mac_f16_e32 v2, v0, v1", w)
    assert (w.v[2] == 0xABCD0000 | int(np.float16(2.0).view(np.uint16))).all()


def test_integer_clamp_saturates(one_instruction: Run) -> None:
    a, b = lanes(EDGE32), lanes(EDGE32[::-1])
    w = wave_with(v0=a, v1=b)
    one_instruction("v_add_u32_e64 v2, v0, v1 clamp", w)
    one_instruction("v_sub_u32_e64 v3, v0, v1 clamp", w)
    one_instruction("v_add_i32 v4, v0, v1 clamp", w)
    for i in range(64):
        x, y = int(a[i]), int(b[i])
        assert w.v[2, i] == min(x + y, M32) and w.v[3, i] == max(x - y, 0)
        assert w.v[4, i] == max(-(2**31), min(2**31 - 1, s32(x) + s32(y))) & M32


def _round_f64(exact: Fraction) -> float:
    """Round a rational to float64 (RNE), overflow to infinity at the IEEE threshold (2 - 2^-53) * 2^1023."""
    limit = (2 - Fraction(1, 2**53)) * 2**1023
    if abs(exact) >= limit:
        return math.inf if exact > 0 else -math.inf
    return exact.numerator / exact.denominator  # int / int is correctly rounded in CPython


def test_fma_f64_overflow_subnormal_and_cancellation_edges(one_instruction: Run) -> None:
    tiny = 5e-324
    cases = [
        (1e300, 1e300, -1e308),
        (1e300, -1e300, 1e308),
        (1.7976931348623157e308, 1.0000000000000002, -1e292),
        (tiny, 0.5, 0.0),
        (tiny, 1.5, tiny),
        (3e-160, 3e-160, -9e-320),
        (1.0 + 2**-52, 1.0 - 2**-53, -1.0),
        (2.0**600, 2.0**500, -(2.0**1023)),
        (0.1, 10.0, -1.0),
        (-0.0, 5.0, 0.0),
    ]
    a, b, c = (np.resize(np.array(column), 64) for column in zip(*cases))
    got = _fma_f64(one_instruction, a, b, c)
    for i, (x, y, z) in enumerate(cases):
        expected = z + x * y if x * y == 0 else _round_f64(Fraction(x) * Fraction(y) + Fraction(z))
        assert got[i] == expected and math.copysign(1, got[i]) == math.copysign(1, expected), (
            x,
            y,
            z,
            got[i],
        )


@pytest.mark.parametrize(
    "op_sel, expected", [("[0,0]", (2, 4)), ("[0,1]", (2, 5)), ("[1,0]", (3, 4)), ("[1,1]", (3, 5))]
)
def test_pk_mov_b32_selects_dwords_by_op_sel(
    one_instruction: Run, op_sel: str, expected: tuple[int, int]
) -> None:
    """CDNA3: D[31:0] = op_sel[0] ? S0[63:32] : S0[31:0]; D[63:32] = op_sel[1] ? S1[63:32] : S1[31:0]."""
    w = wave_with(v2=np.full(64, 2), v3=np.full(64, 3), v4=np.full(64, 4), v5=np.full(64, 5))
    one_instruction(f"v_pk_mov_b32 v[0:1], v[2:3], v[4:5] op_sel:{op_sel}", w)
    assert (w.v[0] == expected[0]).all() and (w.v[1] == expected[1]).all()


def test_pk_fma_f32_half_selects(one_instruction: Run) -> None:
    rng = np.random.default_rng(40)
    regs = {r: rng.integers(-50, 50, 64).astype(np.float32) for r in range(2, 8)}
    w = wave_with(**{f"v{r}": values.view(np.uint32) for r, values in regs.items()})
    one_instruction("v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7] op_sel:[1,0,0] op_sel_hi:[0,1,1]", w)
    # low result: S0 high dword, S1 low, S2 low; high result: S0 low (op_sel_hi 0), S1 high, S2 high
    np.testing.assert_array_equal(w.v[0].view(np.float32), regs[3] * regs[4] + regs[6])
    np.testing.assert_array_equal(w.v[1].view(np.float32), regs[2] * regs[5] + regs[7])


def test_cvt_pkrtz_rounds_toward_zero(one_instruction: Run) -> None:
    x = np.resize(
        np.array([1 + 2**-11 + 2**-20, 70000.0, -70000.0, 0.1, -0.1, 3.0, np.inf, 1e-9], np.float32), 64
    )
    w = wave_with(v0=f32_bits(x), v1=f32_bits(-x))
    one_instruction("v_cvt_pkrtz_f16_f32 v2, v0, v1", w)
    lo = (w.v[2] & 0xFFFF).astype(np.uint16).view(np.float16).astype(np.float64)
    hi = (w.v[2] >> 16).astype(np.uint16).view(np.float16).astype(np.float64)
    for got, source in ((lo, x), (hi, -x)):
        for g, v in zip(got[:8], source[:8].astype(np.float64)):
            # model: the f16 value of largest magnitude not exceeding |v| (infinity stays infinity)
            if np.isinf(v):
                assert g == v
                continue
            assert abs(g) <= abs(v) and np.sign(g) in (0, np.sign(v))
            with np.errstate(over="ignore"):
                up = np.nextafter(np.float16(g), np.float16(np.copysign(np.inf, v))).astype(np.float64)
            assert abs(up) > abs(v) or np.isinf(up)


def test_sdwa_cndmask_places_the_selected_word(one_instruction: Run) -> None:
    a, b = lanes(EDGE32), lanes(EDGE32[::-1])
    w = wave_with(v0=a, v1=b, v2=np.full(64, 0x11223344))
    w.s[VCC_LO], w.s[VCC_LO + 1] = 0x55555555, 0x55555555
    one_instruction(
        "v_cndmask_b32_sdwa v2, v0, v1, vcc dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_0 "
        "src1_sel:WORD_1",
        w,
    )
    for i in range(64):
        chosen = (int(b[i]) >> 16) if i % 2 == 0 else int(a[i]) & 0xFF
        assert w.v[2, i] == 0x3344 | (chosen & 0xFFFF) << 16


def test_fma_f32_double_rounding_trap(one_instruction: Run) -> None:
    """a*b = 1 + 2^-11 + 2^-24 is exactly halfway between two floats; adding c = +-2^-60 decides the
    direction, but a float64 sum rounds it away (and ties-to-even would then pick the wrong side)."""
    a = np.float32(1 + 2**-12)
    c = np.resize(np.array([2.0**-60, -(2.0**-60), 2.0**-100, 0.0], np.float32), 64)
    w = wave_with(v0=f32_bits(np.full(64, a)), v1=f32_bits(np.full(64, a)), v2=f32_bits(c))
    one_instruction("v_fma_f32 v3, v0, v1, v2", w)
    got = w.v[3].view(np.float32)
    for i in range(4):
        expected = _fma_model(float(a), float(a), float(c[i]), np.float32)
        assert got[i] == np.float32(expected), (i, got[i], expected)
    assert got[0] == np.float32(1 + 2**-11 + 2**-23) and got[1] == np.float32(1 + 2**-11)


def test_pk_f32_inline_constant_is_an_f32_in_the_low_dword(one_instruction: Run) -> None:
    """LLVM folds <1.0, 1.0> into ``v_pk_add_f32 ..., 1.0 op_sel_hi:[1,0]`` (both lanes read the
    constant's low dword): the constant is f32 1.0 (0x3f800000), not f64 1.0's low word (0)."""
    x = np.resize(np.array([0.5, -2.0, 3.25, 1e30], np.float32), 64)
    y = np.resize(np.array([-0.0, 7.0, 0.125, -1e-30], np.float32), 64)
    w = wave_with(v2=x.view(np.uint32), v3=y.view(np.uint32))
    one_instruction("v_pk_add_f32 v[0:1], v[2:3], 1.0 op_sel_hi:[1,0]", w)
    np.testing.assert_array_equal(w.v[0].view(np.float32), x + np.float32(1.0))
    np.testing.assert_array_equal(w.v[1].view(np.float32), y + np.float32(1.0))
    w = wave_with(v2=x.view(np.uint32), v3=y.view(np.uint32))
    one_instruction("v_pk_mul_f32 v[0:1], v[2:3], -4.0 op_sel_hi:[1,0]", w)
    np.testing.assert_array_equal(w.v[1].view(np.float32), y * np.float32(-4.0))


def test_pk_f32_inline_zero_reads_zero_in_both_dwords(one_instruction: Run) -> None:
    """clang negates an f32 pair as ``v_pk_add_f32 v, v, 0 neg_lo:[1,1] neg_hi:[1,1]`` (op_sel_hi
    selects the constant's high dword, which is 0 whatever its width): -x - 0 = -x in both lanes."""
    x = np.resize(np.array([0.5, -2.0, 3.25, 0.0], np.float32), 64)
    y = np.resize(np.array([-0.0, 7.0, -1e-30, 1e30], np.float32), 64)
    w = wave_with(v6=x.view(np.uint32), v7=y.view(np.uint32))
    one_instruction("v_pk_add_f32 v[6:7], v[6:7], 0 neg_lo:[1,1] neg_hi:[1,1]", w)
    np.testing.assert_array_equal(w.v[6].view(np.uint32), (-x - np.float32(0)).view(np.uint32))
    np.testing.assert_array_equal(w.v[7].view(np.uint32), (-y - np.float32(0)).view(np.uint32))
