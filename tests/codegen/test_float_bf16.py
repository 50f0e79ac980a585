"""bf16 fma (scalar and x2, with .relu) rounds once, on the emulator against an exact rational model.

LLVM computes a bf16 fma in f32 and rounds the f32 result to bf16 (two roundings); f64 alone would
not do either (a·b can be a bf16 midpoint with c far below it). The model evaluates a·b + c as a
``fractions.Fraction`` and rounds it to nearest-even bf16 (subnormals, overflow to ±inf, the sign
rules of IEEE 754-2019 §6.3 for zeros); NaN results may be any NaN.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import numpy as np
import pytest

from ptx2gcn.fuzz.known import FAILING_INPUTS

_QUANTUM_MIN = Fraction(2) ** -133  # bf16: 8 significant bits, exponent range of f32
_LARGEST = Fraction(0x1FE, 0x100) * Fraction(2) ** 127


def _value(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def _bits(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0] >> 16


def _round_bf16(x: Fraction) -> int:
    """Bit pattern of non-zero ``x`` rounded to nearest-even bf16."""
    sign = 0x8000 if x < 0 else 0
    m = abs(x)
    e = m.numerator.bit_length() - m.denominator.bit_length()
    if Fraction(2) ** e > m:
        e -= 1
    quantum = max(Fraction(2) ** (e - 7), _QUANTUM_MIN)
    q, r = divmod(m, quantum)
    half = quantum / 2
    if r > half or (r == half and q % 2 == 1):
        q += 1
    value = q * quantum
    if value > _LARGEST:
        return sign | 0x7F80
    return sign | _bits(float(value))


def _fma(a: int, b: int, c: int, relu: bool) -> int | None:
    """Expected bf16 bits of fma.rn(.relu).bf16; None for "any NaN"."""
    x, y, z = _value(a), _value(b), _value(c)
    if any(math.isnan(v) for v in (x, y, z)):
        return None
    if math.isinf(x) or math.isinf(y) or math.isinf(z):
        with np.errstate(all="ignore"):
            result = float(np.float64(x) * np.float64(y) + np.float64(z))
        if math.isnan(result):
            return None
        bits = 0x7F80 | (0x8000 if result < 0 else 0)
    else:
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        if exact == 0:
            both_negative = math.copysign(1, x) * math.copysign(1, y) < 0 and math.copysign(1, z) < 0
            bits = 0x8000 if both_negative else 0
        else:
            bits = _round_bf16(exact)
    if relu and bits & 0x8000:
        return 0
    return bits


def _lanes(count: int) -> list[np.ndarray]:
    rng = np.random.default_rng(20261130)
    a, b, c = (rng.integers(0, 1 << 16, count, dtype=np.uint32) for _ in range(3))
    # a·b + c with c near a·b's lowest bits or far below them, where double rounding shows
    shift = rng.integers(8, 40, count).astype(np.uint32)
    near = rng.integers(0, 2, count).astype(bool)
    exponent_ab = ((a >> 7) & 0xFF) + ((b >> 7) & 0xFF)
    exponent_c = np.clip(exponent_ab.astype(np.int64) - 127 - shift, 1, 254).astype(np.uint32)
    c = np.where(near, (c & 0x807F) | (exponent_c << 7), c)
    directed = [np.array([3.0, -3.0, 3.0]), np.array([1.0234375] * 3),
                np.array([2.0 ** -100, -(2.0 ** -100), 0.0])]
    fixed = [np.array([_bits(v) for v in column], np.uint32) for column in directed]
    return [np.concatenate([x, f]) for x, f in zip((a, b, c), fixed, strict=True)]


def _failing(spelling: str) -> list[tuple[int, ...]]:
    return [t for t in FAILING_INPUTS.get(spelling, ()) if len(t) == 3]


def _check(got: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray, relu: bool) -> None:
    bad = []
    for i, (x, y, z) in enumerate(zip(a.tolist(), b.tolist(), c.tolist(), strict=True)):
        want = _fma(x, y, z, relu)
        ok = (got[i] & 0x7FFF) > 0x7F80 if want is None else int(got[i]) == want
        if not ok:
            bad.append((f"{x:#06x}", f"{y:#06x}", f"{z:#06x}", f"got {int(got[i]):#06x}", want))
    assert not bad, bad[:8]


def test_midpoint_product_with_tiny_addend_is_the_hard_case() -> None:
    # the model's own sanity: 3 * (1 + 3·2^-7) is the bf16 midpoint 3.0703125; 2^-100 decides
    assert _fma(0x4040, 0x3F83, _bits(2.0 ** -100), False) == 0x4045
    assert _fma(0x4040, 0x3F83, _bits(-(2.0 ** -100)), False) == 0x4044


@pytest.mark.parametrize("relu", [False, True])
def test_fma_bf16_single_rounding(run_op, relu: bool) -> None:
    spelling = f"fma.rn{'.relu' if relu else ''}.bf16"
    a, b, c = _lanes(3000)
    extra = np.array(_failing(spelling), np.uint32).reshape(-1, 3)
    a, b, c = (np.concatenate([x, extra[:, i]]) for i, x in enumerate((a, b, c)))
    halves = (x.astype(np.uint16) for x in (a, b, c))
    got = run_op(f"{spelling} %d, %a0, %a1, %a2", ["bf16"] * 3, "bf16", *halves)
    _check(got, a, b, c, relu)


@pytest.mark.parametrize("relu", [False, True])
def test_fma_bf16x2_single_rounding(run_op, relu: bool) -> None:
    spelling = f"fma.rn{'.relu' if relu else ''}.bf16x2"
    lo, hi = _lanes(1500), _lanes(1500)
    hi = [np.roll(x, 7) for x in hi]
    packed = [(h << 16) | low for low, h in zip(lo, hi, strict=True)]
    extra = np.array(_failing(spelling), np.uint32).reshape(-1, 3)
    packed = [np.concatenate([x, extra[:, i]]) for i, x in enumerate(packed)]
    got = run_op(f"{spelling} %d, %a0, %a1, %a2", ["bf16x2"] * 3, "bf16x2", *packed)
    _check(got & 0xFFFF, *(x & 0xFFFF for x in packed), relu)
    _check(got >> 16, *(x >> 16 for x in packed), relu)
