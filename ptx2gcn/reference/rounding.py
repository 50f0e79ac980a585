"""Exact rounding of real numbers to binary floating-point formats and to integers.

Invariant: every rounded result is computed from the exact mathematical value, never from an
intermediate float, so there is no double rounding. An exact value is an object that can say
``floor(log2 |x|)`` and ``floor(|x| * 2^k)`` together with whether that floor was exact; that is
enough for correct rounding in every mode (one guard bit plus a sticky flag). ``Rational`` covers
+ - * / fma and conversions; ``SquareRoot`` covers sqrt via integer square roots.

Rounding modes (PTX ISA 9.7.3 "Rounding modifiers" and 9.7.9.21 cvt): ``rn`` nearest-even, ``rna``
nearest ties-away (cvt to tf32), ``rz`` toward zero, ``rm`` toward -inf, ``rp`` toward +inf.
Cost: Python big-integer arithmetic, a few microseconds per value.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import isqrt
from typing import Protocol

from ptx2gcn.reference.errors import ReferenceInputError
from ptx2gcn.reference.floatformat import FloatFormat

ROUNDING_MODES = ("rn", "rna", "rz", "rm", "rp")
INTEGER_ROUNDING = {"rni": "rn", "rzi": "rz", "rmi": "rm", "rpi": "rp"}


class ExactMagnitude(Protocol):
    """A positive real number that can be inspected exactly."""

    def ilog2(self) -> int:
        """``floor(log2(x))``."""
        ...

    def floor_scaled(self, k: int) -> tuple[int, bool]:
        """``(floor(x * 2^k), x * 2^k is an integer)``."""
        ...


def _ilog2_fraction(x: Fraction) -> int:
    n, d = x.numerator, x.denominator
    e = n.bit_length() - d.bit_length()
    if (n << -e if e < 0 else n) < (d << e if e > 0 else d):
        e -= 1
    return e


@dataclass(frozen=True, slots=True)
class Dyadic:
    """``significand * 2^exponent`` with a positive integer significand: the exact result of
    + - * and fma on binary floats, handled with shifts only (no Fraction arithmetic)."""

    significand: int
    exponent: int

    def ilog2(self) -> int:
        return self.significand.bit_length() - 1 + self.exponent

    def floor_scaled(self, k: int) -> tuple[int, bool]:
        shift = self.exponent + k
        if shift >= 0:
            return self.significand << shift, True
        return self.significand >> -shift, self.significand & ((1 << -shift) - 1) == 0


@dataclass(frozen=True, slots=True)
class Rational:
    value: Fraction

    def __post_init__(self) -> None:
        if self.value <= 0:
            raise ValueError("Rational magnitude must be positive")

    def ilog2(self) -> int:
        return _ilog2_fraction(self.value)

    def floor_scaled(self, k: int) -> tuple[int, bool]:
        scaled = self.value * (Fraction(2) ** k)
        floor = scaled.numerator // scaled.denominator
        return floor, floor * scaled.denominator == scaled.numerator


@dataclass(frozen=True, slots=True)
class SquareRoot:
    """``sqrt(radicand)`` for a positive rational radicand."""

    radicand: Fraction

    def ilog2(self) -> int:
        return _ilog2_fraction(self.radicand) // 2

    def floor_scaled(self, k: int) -> tuple[int, bool]:
        # floor(sqrt(y)) == isqrt(floor(y)) for y >= 0, and sqrt(y) is an integer iff y is a square.
        scaled = self.radicand * (Fraction(2) ** (2 * k))
        floor_y = scaled.numerator // scaled.denominator
        root = isqrt(floor_y)
        return root, root * root == scaled and scaled.denominator == 1


class TinyRounded(int):
    """A result that rounded up to the smallest normal number from an exact value below it. It is
    an ``int`` like any other result; ``.ftz`` consumers use the marker because flushing "subnormal
    results" can be decided before or after rounding and PTX does not say which."""


def _round_up(mode: str, negative: bool, odd: bool, guard: bool, sticky: bool) -> bool:
    """Whether to add one unit in the last place to a truncated magnitude."""
    if mode == "rn":
        return guard and (sticky or odd)
    if mode == "rna":
        return guard
    if mode == "rz":
        return False
    if mode == "rp":
        return (guard or sticky) and not negative
    if mode == "rm":
        return (guard or sticky) and negative
    raise ReferenceInputError(f"unknown rounding mode '.{mode}'")


def overflow_result(fmt: FloatFormat, negative: bool, mode: str) -> int:
    """IEEE 754 7.4: nearest modes give infinity; directed modes stop at the largest finite value
    on the side they round away from. Formats without infinity (e4m3) give NaN for nearest."""
    to_infinity = mode in ("rn", "rna") or (mode == "rp" and not negative) or (mode == "rm" and negative)
    if not to_infinity:
        return fmt.with_sign(fmt.max_finite, negative)
    if fmt.has_inf:
        return fmt.infinity(negative)
    return fmt.with_sign(fmt.canonical_nan, negative)


def round_to_format(fmt: FloatFormat, negative: bool, x: ExactMagnitude | None, mode: str) -> int:
    """Bits of ``(-1)^negative * x`` rounded to ``fmt`` (``x is None`` means exact zero)."""
    if x is None:
        return fmt.zero(negative)
    e = x.ilog2()
    quantum = max(e, fmt.emin) - fmt.man_bits
    scaled, exact = x.floor_scaled(1 - quantum)
    significand = scaled >> 1
    if _round_up(mode, negative, bool(significand & 1), bool(scaled & 1), not exact):
        significand += 1
    if significand == 1 << (fmt.man_bits + 1):
        significand >>= 1
        quantum += 1
    if quantum + fmt.man_bits > fmt.emax:
        return overflow_result(fmt, negative, mode)
    bits = fmt.encode(negative, significand, quantum)
    if fmt.magnitude(bits) > fmt.max_finite:
        return overflow_result(fmt, negative, mode)
    if e < fmt.emin and fmt.magnitude(bits) == fmt.min_normal:
        return TinyRounded(bits)
    return bits


def round_fraction(fmt: FloatFormat, value: Fraction, mode: str, zero_negative: bool = False) -> int:
    """Round an exact rational; an exact zero gets the sign ``zero_negative``."""
    if value == 0:
        return fmt.zero(zero_negative)
    return round_to_format(fmt, value < 0, Rational(abs(value)), mode)


def round_dyadic(fmt: FloatFormat, significand: int, exponent: int, mode: str,
                 zero_negative: bool = False) -> int:
    """Round the exact ``significand * 2^exponent`` (signed significand); zero gets ``zero_negative``."""
    if significand == 0:
        return fmt.zero(zero_negative)
    return round_to_format(fmt, significand < 0, Dyadic(abs(significand), exponent), mode)


def round_to_integer(value: Fraction, mode: str) -> int:
    """``value`` rounded to an integer in ``mode`` (rn/rna/rz/rm/rp)."""
    if value == 0:
        return 0
    negative = value < 0
    scaled, exact = Rational(abs(value)).floor_scaled(1)
    magnitude = scaled >> 1
    if _round_up(mode, negative, bool(magnitude & 1), bool(scaled & 1), not exact):
        magnitude += 1
    return -magnitude if negative else magnitude
