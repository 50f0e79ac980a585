"""Exact floating-point helpers for the VALU: fused multiply-add, IEEE min/max, class tests.

Invariant: results are the correctly rounded (round-to-nearest-even) values the CDNA3 ISA specifies,
computed without relying on host FMA or host FTZ/DAZ. f16/f32 FMA use a float64 evaluation made
round-to-odd (exact product, TwoSum error, sticky LSB), which rounds correctly to any format of at
most 51 bits; f64 FMA, whose product is not exact in float64, is computed lane by lane with Python
integers (``int / int`` and ``float(int)`` are correctly rounded in CPython, subnormals included).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

A = Any
F64, U64 = np.float64, np.uint64


def _round_to_odd_sum(p: A, c: A) -> A:
    """p + c (float64 arrays, p exact) rounded to odd: inexact results get an odd last bit."""
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    bits = np.asarray(s, dtype=F64).view(U64)
    inexact = (err != 0) & np.isfinite(s) & ((bits & U64(1)) == 0)
    if not np.any(inexact):
        return s
    toward = np.where(err > 0, np.inf, -np.inf)
    return np.where(inexact, np.nextafter(s, toward), s)


# dtype -> (mask of the float64 mantissa bits below the dtype's precision, the pattern of an exact
# midpoint there, smallest normal of the dtype)
_MIDPOINT = {
    np.dtype(np.float32): (U64((1 << 29) - 1), U64(1 << 28), float(np.finfo(np.float32).tiny)),
    np.dtype(np.float16): (U64((1 << 42) - 1), U64(1 << 41), float(np.finfo(np.float16).tiny)),
}


def fma_narrow(a: A, b: A, c: A, dtype: Any) -> A:
    """Correctly rounded fma for float16/float32 lanes (``dtype``).

    Fast path: ``s = RN64(a*b + c)`` rounds to the same ``dtype`` value as the exact sum unless ``s``
    is exactly a midpoint of the ``dtype`` grid (RN64 is monotonic and every such midpoint is a
    float64), so only when some lane's ``s`` looks like a midpoint, or lies in the subnormal range
    where the grid is coarser, is the sum recomputed rounded to odd."""
    a64, b64, c64 = (np.asarray(x, dtype=F64) for x in (a, b, c))
    product = a64 * b64  # exact: at most 2*24 significant bits
    total = product + c64
    low, half, tiny = _MIDPOINT[np.dtype(dtype)]
    hazard = ((np.asarray(total).view(U64) & low) == half) | (np.abs(total) < tiny)
    if not hazard.any():
        return total.astype(dtype)
    return _round_to_odd_sum(product, c64).astype(dtype)


_TWO53 = 9007199254740992.0


def _fma64_lane(a: float, b: float, c: float, scale: int = 0) -> float:
    """(a*b + c) * 2**scale rounded once: both terms as exact integers times powers of two, summed
    exactly, then converted by CPython's correctly rounded int -> float / int / int (subnormals and
    overflow too)."""
    if math.isinf(c) and math.isfinite(a) and math.isfinite(b):
        return c  # the exact product is finite, however large: a*b would overflow and give inf - inf
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)) or a == 0.0 or b == 0.0:
        special = a * b + c  # specials, and exact zero products (sign rules of a*b + c hold)
        if not (scale and math.isfinite(special) and special):
            return special
        try:
            return math.ldexp(special, scale)
        except OverflowError:
            return math.copysign(math.inf, special)
    ma, ea = math.frexp(a)
    mb, eb = math.frexp(b)
    total, exponent = int(ma * _TWO53) * int(mb * _TWO53), ea + eb - 106
    if c != 0.0:
        mc, ec = math.frexp(c)
        addend, ec = int(mc * _TWO53), ec - 53
        if exponent >= ec:
            total, exponent = (total << (exponent - ec)) + addend, ec
        else:
            total += addend << (ec - exponent)
    if total == 0:
        return 0.0
    exponent += scale
    try:
        return total / (1 << -exponent) if exponent < 0 else float(total << exponent)
    except OverflowError:
        return math.inf if total > 0 else -math.inf


def fma64(a: A, b: A, c: A) -> A:
    """Correctly rounded fma for float64 lanes."""
    a, b, c = np.broadcast_arrays(*(np.asarray(x, dtype=F64) for x in (a, b, c)))
    flat = [
        _fma64_lane(x, y, z) for x, y, z in zip(a.ravel().tolist(), b.ravel().tolist(), c.ravel().tolist())
    ]
    return np.array(flat, dtype=F64).reshape(a.shape)


def fma_scaled(a: A, b: A, c: A, scale: A) -> A:
    """(a*b + c) * 2**scale per lane with a single rounding (V_DIV_FMAS: the scale is applied before
    the result is rounded, so a quotient scaled into the subnormal range is not rounded twice)."""
    dtype = np.result_type(a, b, c)
    a, b, c, scale = np.broadcast_arrays(*(np.asarray(x, dtype=dtype) for x in (a, b, c)), np.asarray(scale))
    if dtype == F64:
        flat = [_fma64_lane(x, y, z, int(e)) for x, y, z, e in
                zip(a.ravel().tolist(), b.ravel().tolist(), c.ravel().tolist(), scale.ravel().tolist())]
        return np.array(flat, dtype=F64).reshape(a.shape)
    # float64 round-to-odd of the exact sum, scaled exactly (|scale| <= 64 keeps it normal in float64),
    # then one rounding to the narrow format.
    with np.errstate(all="ignore"):
        odd = _round_to_odd_sum(a.astype(F64) * b.astype(F64), c.astype(F64))
        return np.ldexp(odd, scale.astype(np.int64)).astype(dtype)


def fma(a: A, b: A, c: A) -> A:
    dtype = np.result_type(a, b, c)
    if dtype == F64:
        return fma64(a, b, c)
    return fma_narrow(a, b, c, dtype)


def quiet(x: A) -> A:
    """Quiet NaN of ``x`` (sets the top mantissa bit); other values unchanged."""
    x = np.asarray(x)
    bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize]
    quiet_bit = bits(1 << (np.finfo(x.dtype).nmant - 1))
    return np.where(np.isnan(x), (x.view(bits) | quiet_bit).view(x.dtype), x)


def is_snan(x: A) -> A:
    x = np.asarray(x)
    bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize]
    quiet_bit = bits(1 << (np.finfo(x.dtype).nmant - 1))
    return np.isnan(x) & ((x.view(bits) & quiet_bit) == 0)


def ieee_min_max(a: A, b: A, ieee: bool, take_min: bool) -> A:
    """V_MIN/V_MAX: a NaN operand yields the other (IEEE mode quiets a signalling NaN result);
    -0 < +0."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    both_zero = (a == 0) & (b == 0)
    a_neg = np.signbit(a)
    if take_min:
        pick_a = (a < b) | (both_zero & a_neg)
    else:
        pick_a = (a > b) | (both_zero & ~a_neg)
    out: A = np.where(pick_a, a, b)
    out = np.where(np.isnan(a), b, np.where(np.isnan(b), a, out))
    if ieee:
        out = np.where(is_snan(a), quiet(a), np.where(is_snan(b), quiet(b), out))
    return np.asarray(out).astype(a.dtype)


# CDNA3 V_CMP_CLASS bits: 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denorm, 5 -0, 6 +0, 7 +denorm,
# 8 +normal, 9 +inf.
def float_class_mask(x: A) -> A:
    x = np.asarray(x)
    neg = np.signbit(x)
    tiny = np.finfo(x.dtype).tiny
    mag = np.abs(x)
    cls = np.zeros(x.shape, dtype=np.uint32)
    cls = np.where(is_snan(x), 1 << 0, cls)
    cls = np.where(np.isnan(x) & ~is_snan(x), 1 << 1, cls)
    cls = np.where(np.isinf(x), np.where(neg, 1 << 2, 1 << 9), cls)
    normal = np.isfinite(x) & (mag >= tiny)
    cls = np.where(normal, np.where(neg, 1 << 3, 1 << 8), cls)
    denormal = (mag > 0) & (mag < tiny)
    cls = np.where(denormal, np.where(neg, 1 << 4, 1 << 7), cls)
    cls = np.where(mag == 0, np.where(neg, 1 << 5, 1 << 6), cls)
    return cls.astype(np.uint32)


def _atan_inverse(x: int, one: int) -> int:
    """atan(1/x) in fixed point with ``one`` as 1.0 (alternating Taylor series)."""
    total = term = one // x
    n, sign, x2 = 3, -1, x * x
    while term:
        term //= x2
        total += sign * (term // n)
        n, sign = n + 2, -sign
    return total


def _two_over_pi_bits(bits: int) -> int:
    """floor(2/pi * 2^bits), from Machin's formula pi = 16 atan(1/5) - 4 atan(1/239) in integers."""
    one = 1 << (bits + 64)
    pi = 16 * _atan_inverse(5, one) - 4 * _atan_inverse(239, one)
    return (2 * one << bits) // pi


TWO_OVER_PI_1201 = _two_over_pi_bits(1201)
"""The first 1201 fraction bits of 2/pi (bit 1200 is the 2^-1 place), V_TRIG_PREOP_F64's table."""


def trig_preop_lane(x: float, segment: int) -> float:
    """V_TRIG_PREOP_F64: the 53-bit piece of 2/pi that starts ``segment * 53`` bits (plus an exponent
    dependent shift for large ``x``) after the binary point, scaled to its place value."""
    exponent = (struct_bits(x) >> 52) & 0x7FF
    shift = (segment & 31) * 53 + max(exponent - 1077, 0)
    window = (TWO_OVER_PI_1201 << shift) >> (1201 - 53) & ((1 << 53) - 1) if shift <= 1201 else 0
    scale = -53 - shift + (128 if exponent >= 1968 else 0)
    return math.ldexp(float(window), scale)


def struct_bits(x: float) -> int:
    return int(np.float64(x).view(np.uint64))


def trig_preop(x: A, segment: A) -> A:
    x, segment = np.broadcast_arrays(np.asarray(x, dtype=F64), np.asarray(segment, dtype=np.uint32))
    return np.array(
        [trig_preop_lane(a, int(s)) for a, s in zip(x.ravel().tolist(), segment.ravel().tolist())], dtype=F64
    ).reshape(x.shape)
