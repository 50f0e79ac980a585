"""f16 and bf16 against independent references: numpy float16 (exact for these operations, as
numpy evaluates in float32 and 24 >= 2*11+2 bits makes the double rounding innocuous) and the
classic integer round-to-nearest-even formula for f32 -> bf16."""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.reference import fparith, run
from ptx2gcn.reference.floatformat import F16

ALL_F16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)


def same_or_nan(expected: np.ndarray, got_bits: np.ndarray) -> np.ndarray:
    got = got_bits.view(expected.dtype)
    return (expected.view(got_bits.dtype) == got_bits) | (np.isnan(expected) & np.isnan(got))


def test_cvt_f32_from_every_f16_is_exact() -> None:
    expected = ALL_F16.astype(np.float32)
    assert same_or_nan(expected, run("cvt.f32.f16", ALL_F16).value).all()


def test_cvt_rn_f16_from_f32_round_trips_every_f16_and_random_values() -> None:
    widened = ALL_F16.astype(np.float32)
    rng = np.random.default_rng(16)
    random = rng.integers(0, 2 ** 32 - 1, 20000, dtype=np.uint32, endpoint=True).view(np.float32)
    near = (rng.standard_normal(20000) * 2.0 ** rng.integers(-26, 17, 20000)).astype(np.float32)
    a = np.concatenate([widened, random, near])
    with np.errstate(all="ignore"):
        expected = a.astype(np.float16)
    assert same_or_nan(expected, run("cvt.rn.f16.f32", a).value).all()


@pytest.mark.parametrize("op", ["add", "mul"])
def test_f16_ops_over_every_a_for_fixed_b(op: str) -> None:
    for b_value in (np.float16(-6.1e-5),):
        b = np.full_like(ALL_F16, b_value)
        with np.errstate(all="ignore"):
            expected = (ALL_F16 + b) if op == "add" else (ALL_F16 * b)
        assert same_or_nan(expected, run(f"{op}.rn.f16", ALL_F16, b).value).all()


@pytest.mark.slow
@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_f16_ops_sweep(op: str) -> None:
    rng = np.random.default_rng(42)
    for b_bits in rng.integers(0, 1 << 16, 24):
        b = np.full_like(ALL_F16, np.uint16(b_bits).view(np.float16))
        with np.errstate(all="ignore"):
            expected = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[op](ALL_F16, b)
        assert same_or_nan(expected, run(f"{op}.rn.f16", ALL_F16, b).value).all()


@pytest.mark.slow
def test_f16_sqrt_and_division_exhaustive() -> None:
    with np.errstate(all="ignore"):
        roots = np.sqrt(ALL_F16)
        quotients = ALL_F16 / np.float16(3.0)
    three = int(np.float16(3.0).view(np.uint16))
    for i, bits in enumerate(ALL_F16.view(np.uint16).tolist()):
        got = fparith.sqrt(F16, bits, "rn")
        want = int(roots.view(np.uint16)[i])
        assert (F16.is_nan(want) and not isinstance(got, int)) or got == want
        got = fparith.div(F16, bits, three, "rn")
        want = int(quotients.view(np.uint16)[i])
        assert (F16.is_nan(want) and not isinstance(got, int)) or got == want


def bf16_rne(bits: np.ndarray) -> np.ndarray:
    """Round f32 bits to bf16 bits, nearest-even, via the integer bias trick (non-NaN inputs)."""
    b = bits.astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def test_cvt_rn_bf16_from_f32_matches_integer_formula() -> None:
    rng = np.random.default_rng(8)
    bits = rng.integers(0, 2 ** 32 - 1, 30000, dtype=np.uint32, endpoint=True)
    bits = bits[~np.isnan(bits.view(np.float32))]
    assert (run("cvt.rn.bf16.f32", bits.view(np.float32)).value == bf16_rne(bits)).all()


def test_bf16_add_is_f32_add_rounded_once() -> None:
    """bf16 + bf16: both are f32 values and, for nearby exponents, the f32 sum is exact, so the
    bf16 result is the one rounding of that sum."""
    rng = np.random.default_rng(9)
    a = (rng.standard_normal(3000)).astype(np.float32)
    b = (rng.standard_normal(3000)).astype(np.float32)
    a_bits = bf16_rne(a.view(np.uint32))
    b_bits = bf16_rne(b.view(np.uint32))
    a32 = (a_bits.astype(np.uint32) << 16).view(np.float32)
    b32 = (b_bits.astype(np.uint32) << 16).view(np.float32)
    exact = a32 + b32
    assert (run("add.rn.bf16", a_bits, b_bits).value == bf16_rne(exact.view(np.uint32))).all()


def test_f16_fma_against_exact_float64() -> None:
    """For f16 operands a*b+c is exact in float64 (at most 2*11 product bits over an exponent span
    of 2^-48..2^32), and numpy's float64 -> float16 cast rounds correctly, so this is an exact
    independent oracle for fma.rn.f16."""
    rng = np.random.default_rng(10)
    n = 20000
    a, b, c = (rng.integers(0, 1 << 16, n, dtype=np.uint32).astype(np.uint16).view(np.float16)
               for _ in range(3))
    with np.errstate(all="ignore"):
        exact = a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)
        expected = exact.astype(np.float16)
    got = run("fma.rn.f16", a, b, c)
    assert got.matches(expected).all()


def test_cvt_rn_f16_from_f64_matches_numpy() -> None:
    rng = np.random.default_rng(13)
    d = rng.standard_normal(20000) * 2.0 ** rng.integers(-30, 20, 20000)
    with np.errstate(all="ignore"):
        expected = d.astype(np.float16)
    assert run("cvt.rn.f16.f64", d).matches(expected).all()


def _directed_from_nearest(exact: np.ndarray, nearest: np.ndarray, mode: str) -> np.ndarray:
    """Directed results derived independently of the model: the two f16 neighbours of the exact
    value are the nearest result and its next value towards the exact value."""
    toward = np.where(exact > nearest.astype(np.float64), np.float16(np.inf), np.float16(-np.inf))
    other = np.nextafter(nearest, toward.astype(np.float16))
    exact_hit = nearest.astype(np.float64) == exact
    lo = np.where(exact_hit, nearest, np.minimum(nearest, other))
    hi = np.where(exact_hit, nearest, np.maximum(nearest, other))
    if mode == "rm":
        return lo
    if mode == "rp":
        return hi
    return np.where(exact >= 0, lo, hi)  # rz


@pytest.mark.parametrize("mode", ["rz", "rm", "rp"])
def test_f16_directed_rounding_from_exact_float64(mode: str) -> None:
    """The rounding core in the f16 format (PTX exposes only .rn there, so fparith is called
    directly): f16 + f16 and f16 * f16 are exact in float64; numpy rounds that to nearest, and
    the directed results follow from the nearest one by one nextafter step."""
    rng = np.random.default_rng(17)
    with np.errstate(over="ignore"):
        a = (rng.standard_normal(6000) * 2.0 ** rng.integers(-25, 16, 6000)).astype(np.float16)
        b = (rng.standard_normal(6000) * 2.0 ** rng.integers(-25, 16, 6000)).astype(np.float16)
    finite = np.isfinite(a) & np.isfinite(b) & (a != 0) & (b != 0)
    a, b = a[finite], b[finite]
    for op, exact in (("add", a.astype(np.float64) + b.astype(np.float64)),
                      ("mul", a.astype(np.float64) * b.astype(np.float64))):
        keep = exact != 0
        with np.errstate(over="ignore"):
            nearest = exact[keep].astype(np.float16)
        expected = _directed_from_nearest(exact[keep], nearest, mode)
        fn = fparith.add if op == "add" else fparith.mul  # PTX f16 arithmetic is .rn-only
        got = [fn(F16, int(x), int(y), mode) for x, y in
               zip(a[keep].view(np.uint16), b[keep].view(np.uint16), strict=True)]
        assert got == expected.view(np.uint16).tolist(), op
