"""Integer arithmetic against hand-computed values and numpy/Python-int models."""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.reference import ReferenceInputError, run

RNG = np.random.default_rng(2024)
U32 = RNG.integers(0, 2 ** 32, 500, dtype=np.uint64).astype(np.uint32)
V32 = RNG.integers(0, 2 ** 32, 500, dtype=np.uint64).astype(np.uint32)
EDGE = np.array([0, 1, 2, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE], dtype=np.uint32)


def test_add_sub_wrap_like_numpy() -> None:
    assert (run("add.u32", U32, V32).value == U32 + V32).all()
    assert (run("sub.s32", U32, V32).value == U32 - V32).all()


def test_add_sat_s32_clamps() -> None:
    a = np.array([0x7FFFFFFF, -0x80000000, 5, -7], dtype=np.int32)
    b = np.array([1, -1, -10, 3], dtype=np.int32)
    assert run("add.sat.s32", a, b).value.view(np.int32).tolist() == [0x7FFFFFFF, -0x80000000, -5, -4]
    assert run("sub.sat.s32", a, -b).value.view(np.int32).tolist() == [0x7FFFFFFF, -0x80000000, -5, -4]
    with pytest.raises(ReferenceInputError, match=".sat applies to .s32"):
        run("add.sat.u32", 1, 2)


def test_carry_chain_adds_128_bit_numbers() -> None:
    rng = np.random.default_rng(5)
    for _ in range(50):
        x, y = (int(v) for v in rng.integers(0, 2 ** 63, 2))
        x, y = x * (2 ** 65) + x, y * (2 ** 64 + 7) + y
        x, y = x % 2 ** 128, y % 2 ** 128
        words = lambda v: [(v >> (32 * i)) & 0xFFFFFFFF for i in range(4)]  # noqa: E731
        xs, ys = words(x), words(y)
        d0, cf = run("add.cc.u32", xs[0], ys[0]).outputs
        limbs = [int(d0.bits)]
        carry = bool(cf.bits)
        for i in (1, 2, 3):
            d, cf = run("addc.cc.u32", xs[i], ys[i], carry).outputs
            limbs.append(int(d.bits))
            carry = bool(cf.bits)
        total = sum(limb << (32 * i) for i, limb in enumerate(limbs)) + (int(carry) << 128)
        assert total == x + y


def test_borrow_chain_subtracts_64_bit_numbers() -> None:
    for x, y in [(5, 7), (2 ** 40, 1), (0, 2 ** 64 - 1), (123456789012345, 123456789012344)]:
        d0, bf = run("sub.cc.u32", x & 0xFFFFFFFF, y & 0xFFFFFFFF).outputs
        d1, bf1 = run("subc.cc.u32", x >> 32, y >> 32, bool(bf.bits)).outputs
        assert (int(d1.bits) << 32 | int(d0.bits)) == (x - y) % 2 ** 64
        assert bool(bf1.bits) == (x < y)


def test_mad_cc_and_madc_chain_multiplies_wide() -> None:
    """64x32 -> 96-bit product from 32-bit limbs: lo/hi parts with madc carrying."""
    x, y = 0xFEDCBA9876543210, 0x9ABCDEF1
    x0, x1 = x & 0xFFFFFFFF, x >> 32
    r0 = int(run("mul.lo.u32", x0, y).value)
    r1, cf = run("mad.hi.cc.u32", x0, y, int(run("mul.lo.u32", x1, y).value)).outputs
    r2 = int(run("madc.hi.u32", x1, y, 0, bool(cf.bits)).value)
    assert r0 | int(r1.bits) << 32 | r2 << 64 == x * y


def test_mul_hi_wide_match_python_ints() -> None:
    a = U32.astype(np.int64).astype(np.uint32).view(np.int32)
    b = V32.view(np.int32)
    wide = a.astype(np.int64) * b.astype(np.int64)
    assert (run("mul.wide.s32", a, b).value.view(np.int64) == wide).all()
    assert (run("mul.hi.s32", a, b).value.view(np.int32) == (wide >> 32).astype(np.int32)).all()
    a64 = [int(x) << 32 | int(y) for x, y in zip(U32[:50], V32[:50])]
    b64 = [int(y) << 32 | int(x) for x, y in zip(U32[50:100], V32[50:100])]
    got = run("mul.hi.u64", np.array(a64, dtype=np.uint64), np.array(b64, dtype=np.uint64)).value
    assert [int(v) for v in got] == [(x * y) >> 64 for x, y in zip(a64, b64)]


def test_mad_hi_sat_s32() -> None:
    # hi(0x7fffffff * 0x7fffffff) = 0x3fffffff; + 0x7fffffff saturates.
    assert int(run("mad.hi.sat.s32", 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF).value) == 0x7FFFFFFF
    assert int(run("mad.hi.sat.s32", 0x7FFFFFFF, 0x7FFFFFFF, 5).value) == 0x3FFFFFFF + 5
    assert int(run("mad.hi.sat.s32", -0x80000000, 0x7FFFFFFF, -0x80000000).value) == 0x80000000


def test_mul24_and_mad24() -> None:
    # 24-bit signed operands: 0xFFFFFF is -1 after sign extension from bit 23.
    assert int(run("mul24.lo.s32", 0x12FFFFFF, 3).value) == (-3) & 0xFFFFFFFF
    assert int(run("mul24.lo.u32", 0x12FFFFFF, 3).value) == (0xFFFFFF * 3) & 0xFFFFFFFF
    assert int(run("mul24.hi.u32", 0xFFFFFF, 0xFFFFFF).value) == (0xFFFFFF * 0xFFFFFF) >> 16
    assert int(run("mad24.lo.u32", 2, 3, 4).value) == 10


def test_sad_div_rem() -> None:
    assert int(run("sad.u32", 3, 10, 100).value) == 107
    assert int(run("sad.s32", -3, 10, 100).value) == 113
    res = run("div.s32", np.array([7, -7, 7, 1, -2 ** 31]), np.array([2, 2, -2, 0, -1]))
    assert res.value.view(np.int32)[:3].tolist() == [3, -3, -3]
    assert res.defined.tolist() == [True, True, True, False, False]
    rem = run("rem.s32", np.array([7, -7, 7, -2 ** 31]), np.array([2, 2, -2, -1]))
    assert rem.value.view(np.int32).tolist() == [1, -1, 1, 0]
    assert (run("div.u32", U32, V32 | 1).value == U32 // (V32 | 1)).all()


def test_abs_neg_min_max() -> None:
    assert run("abs.s32", np.array([-5, 5, -2 ** 31])).value.view(np.int32).tolist() == [5, 5, -2 ** 31]
    assert run("neg.s16", np.array([3], dtype=np.int16)).value.view(np.int16).tolist() == [-3]
    assert int(run("min.u32", 0xFFFFFFFF, 1).value) == 1
    assert int(run("min.s32", 0xFFFFFFFF, 1).value) == 0xFFFFFFFF
    assert int(run("max.relu.s32", -5, -7).value) == 0
    with pytest.raises(ReferenceInputError, match="expected 2 source operands"):
        run("max.s32", 1, 9, 4)
    assert int(run("max.s8x4", 0x7F80FF01, 0x80017F00).value) == 0x7F017F01
    assert int(run("min.relu.s8x4", 0x7F80FF01, 0x80017F00).value) == 0x00000000
    assert int(run("min.u8x4", 0x7F80FF01, 0x80017F00).value) == 0x7F017F00
    assert int(run("neg.s8x4", 0x80FF0102).value) == 0x8001FFFE
    # s16x2: halves compared independently: low (-1 vs 2), high (5 vs -3)
    a = (5 << 16) | 0xFFFF
    b = (0xFFFD << 16) | 2
    assert int(run("min.s16x2", a, b).value) == (0xFFFD << 16) | 0xFFFF
    assert int(run("max.relu.s16x2", a, b).value) == (5 << 16) | 2


def test_dp4a_dp2a() -> None:
    a = 0x01FF0203  # bytes 03 02 ff 01
    b = 0x04030201
    assert int(run("dp4a.u32.u32", a, b, 10).value) == 10 + 3 * 1 + 2 * 2 + 255 * 3 + 1 * 4
    assert int(run("dp4a.s32.u32", a, b, 10).value) == 10 + 3 * 1 + 2 * 2 - 1 * 3 + 1 * 4
    a2 = 0xFFFF0002  # halves: 2, -1 (signed)
    assert int(run("dp2a.lo.s32.u32", a2, b, 0).value) == 2 * 1 + (-1) * 2 & 0xFFFFFFFF
    assert int(run("dp2a.hi.s32.u32", a2, b, 0).value) == (2 * 3 + (-1) * 4) & 0xFFFFFFFF


def test_packed_u16x2_add_wraps_per_half_and_sub_has_no_packed_form() -> None:
    a = (U32.astype(np.uint64)).astype(np.uint32)
    lo = ((a & 0xFFFF) + (V32 & 0xFFFF)) & 0xFFFF
    hi = ((a >> 16) + (V32 >> 16)) & 0xFFFF
    assert (run("add.u16x2", a, V32).value == (hi << 16 | lo)).all()
    with pytest.raises(ReferenceInputError):  # PTX ISA 9.7.1.2: sub.type has no .u16x2/.s16x2
        run("sub.s16x2", a, V32)
