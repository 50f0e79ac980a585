"""fma/mad with .rz/.rm/.rp (f32 and f64) on the emulator against an exact rational model.

The model computes a·b + c as a ``fractions.Fraction`` and rounds it once in the requested direction
(IEEE 754-2019 §4.3, with §6.3's signs: an exact zero sum is −0 under roundTowardNegative unless
both addends are +0, +0 otherwise unless both are −0; a non-zero result that rounds to zero keeps
its sign). The lanes stress what a double-precision error term gets wrong: products far below the
addend's ulp or below the subnormal range, products that overflow while the sum does not, exact
cancellation, and subnormal results.
"""

from __future__ import annotations

import math
import zlib
from fractions import Fraction

import numpy as np
import pytest

from ptx2gcn.fuzz.known import FAILING_INPUTS

_FORMAT = {"f32": (np.float32, np.uint32, 24, -149, 128), "f64": (np.float64, np.uint64, 53, -1074, 1024)}


def _round(x: Fraction, mode: str, t: str) -> float:
    """``x`` rounded to format ``t`` toward zero/−∞/+∞ (as a Python float holding that value)."""
    _, _, precision, min_exp, max_exp = _FORMAT[t]
    if x == 0:
        return 0.0
    sign = -1 if x < 0 else 1
    m = abs(x)
    e = math.floor(math.log2(m.numerator) - math.log2(m.denominator))
    while Fraction(2) ** e > m:
        e -= 1
    while Fraction(2) ** (e + 1) <= m:
        e += 1
    quantum = Fraction(2) ** max(e - precision + 1, min_exp)
    down = math.floor(m / quantum) * quantum
    away = (mode == "rp" and sign > 0) or (mode == "rm" and sign < 0)
    value = down + quantum if away and down != m else down
    largest = (2 - Fraction(2) ** (1 - precision)) * Fraction(2) ** (max_exp - 1)
    if value > largest:  # overflow: to infinity when rounding away from zero, else to the largest
        return sign * (math.inf if away else float(largest))
    return math.copysign(float(value), sign)


def _model(a: float, b: float, c: float, mode: str, t: str) -> float:
    if not all(math.isfinite(v) for v in (a, b, c)):
        return math.nan  # not judged here: the lanes are finite
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        product_negative = math.copysign(1.0, a) * math.copysign(1.0, b) < 0
        c_negative = math.copysign(1.0, c) < 0
        if mode == "rm":
            return 0.0 if not product_negative and not c_negative else -0.0
        return -0.0 if product_negative and c_negative else 0.0
    return _round(exact, mode, t)


def _lanes(t: str, count: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Finite operands with exponents spread over the whole range and the hard regions above."""
    dtype, utype, precision, _, _ = _FORMAT[t]
    rng = np.random.default_rng(seed)
    bits = 8 * np.dtype(dtype).itemsize
    exp_bits = bits - precision
    bias = (1 << (exp_bits - 1)) - 1

    def make(exponents: np.ndarray) -> np.ndarray:
        fraction = rng.integers(0, 1 << (precision - 1), count, dtype=np.uint64)
        sign = rng.integers(0, 2, count, dtype=np.uint64)
        biased = np.clip(exponents + bias, 0, 2 * bias).astype(np.uint64)
        raw = (sign << np.uint64(bits - 1)) | (biased << np.uint64(precision - 1)) | fraction
        return raw.astype(utype).view(dtype)

    a = make(rng.integers(-bias, bias + 1, count))
    b = make(rng.integers(-bias, bias + 1, count))
    c = make(rng.integers(-bias, bias + 1, count))
    kind = rng.integers(0, 5, count)
    with np.errstate(all="ignore"):
        cancel = kind == 0  # c ≈ −a·b: the exact sum is tiny or zero
        c[cancel] = -(a[cancel] * b[cancel])
        tiny = kind == 1  # a·b far below c's ulp or below the subnormal range
        a[tiny] = make(rng.integers(-bias, -bias // 2, count))[tiny]
        b[tiny] = make(rng.integers(-bias, -bias // 2, count))[tiny]
        huge = kind == 2  # a·b overflows, c brings the sum back into range
        a[huge] = make(rng.integers(bias // 2 + 2, bias // 2 + 4, count))[huge]
        b[huge] = np.abs(make(np.full(count, bias // 2 - 1)))[huge] * np.sign(a[huge])
        c[huge] = -np.copysign(np.finfo(dtype).max, a[huge])
    finite = np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
    return a[finite], b[finite], c[finite]


def _directed_inputs(t: str) -> list[tuple[int, int, int]]:
    spellings = [s for s in FAILING_INPUTS if s.startswith(("fma.r", "mad.r")) and s.endswith(t)
                 and ".rn." not in s and "ftz" not in s]
    return [triple for s in spellings for triple in FAILING_INPUTS[s] if len(triple) == 3]


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("mode", ["rz", "rm", "rp"])
@pytest.mark.parametrize("op", ["fma", "mad"])
def test_fma_directed_matches_exact_model(run_op, op: str, mode: str, t: str) -> None:
    dtype, utype, *_ = _FORMAT[t]
    a, b, c = _lanes(t, 1500, seed=zlib.crc32(f"{op}.{mode}.{t}".encode()))
    directed = np.array(_directed_inputs(t), dtype=utype).reshape(-1, 3).view(dtype)
    a, b, c = (np.concatenate([x, directed[:, i]]) for i, x in enumerate((a, b, c)))
    got = run_op(f"{op}.{mode}.{t} %d, %a0, %a1, %a2", [t] * 3, t, a, b, c)
    lanes = zip(a, b, c, strict=True)
    expected = np.array([_model(float(x), float(y), float(z), mode, t) for x, y, z in lanes],
                        dtype=dtype).view(utype)
    bad = np.flatnonzero(got != expected)
    width = 2 * np.dtype(dtype).itemsize
    assert not bad.size, [
        (f"{a.view(utype)[i]:#0{width + 2}x}", f"{b.view(utype)[i]:#0{width + 2}x}",
         f"{c.view(utype)[i]:#0{width + 2}x}", f"got {got[i]:#0{width + 2}x}",
         f"expected {expected[i]:#0{width + 2}x}") for i in bad[:8]]
