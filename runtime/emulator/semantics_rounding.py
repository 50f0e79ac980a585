"""Directed rounding (MODE.FP_ROUND other than round-to-nearest-even) for VALU float results.

Invariant: under a directed MODE rounding an operation gets one of three treatments, never a silent
round-to-nearest:

* rounding-free operations (``ROUNDING_FREE``: min/max/med3, floor/ceil/trunc/rndne, frexp_mant and
  the exact widening conversions) compute as usual, their results never being inexact;
* operations with a directed evaluator (``directed_evaluator``) are rounded exactly in the MODE
  direction: f16/f32 results from a float64 value *rounded to odd* (exact products, TwoSum-corrected
  sums; enough to round correctly to a format of at most 51 bits in any direction), f64 results
  lane by lane from the exact rational value (``fractions.Fraction``);
* every other operation is refused (``WaveFault`` from the caller), so the gap is loud.

Exact zero sums follow IEEE 754-2019 §6.3: +0 in every direction except toward -inf, where they are
-0, unless both addends are zeros of the same sign. MODE round field values: 0 nearest even, 1
toward +inf, 2 toward -inf, 3 toward zero; f32 results use MODE.FP_ROUND[1:0], f16 and f64 results
MODE.FP_ROUND[3:2] (CDNA3 ISA "MODE" register).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ptx2gcn.runtime.emulator.semantics_fp import _round_to_odd_sum

A = Any
F64 = np.float64
ROUND_NAMES = {1: "toward +inf", 2: "toward -inf", 3: "toward zero"}
Directed = Callable[[Sequence[A], Any, int], A]
"""(operands, result dtype, MODE rounding) -> results rounded in that direction."""


def round_directed(exact: A, dtype: Any, mode: int) -> A:
    """Round float64 values (exact or rounded to odd) to the narrow ``dtype`` in MODE ``mode``."""
    exact = np.asarray(exact, dtype=F64)
    with np.errstate(all="ignore"):
        nearest = exact.astype(dtype)
    if mode == 0:
        return nearest
    as64 = nearest.astype(F64)
    if mode == 1:
        step, target = as64 < exact, dtype(np.inf)
    elif mode == 2:
        step, target = as64 > exact, dtype(-np.inf)
    else:
        step, target = np.abs(as64) > np.abs(exact), dtype(0)
    return np.where(step, np.nextafter(nearest, target), nearest).astype(dtype)


def zero_sum_sign(result: A, p: A, c: A, mode: int) -> A:
    """IEEE exact-zero-sum sign for ``p + c`` (float64 addends) under ``mode``."""
    if mode != 2:
        return result
    same_zeros = (p == 0) & (c == 0) & (np.signbit(p) == np.signbit(c))
    return np.where((np.asarray(result) == 0) & ~same_zeros & np.isfinite(p + c), -0.0, result)


def _narrow(kind: str) -> Directed:
    """Directed f16/f32 evaluator of ``kind`` through float64 round-to-odd."""

    def run(args: Sequence[A], dtype: Any, mode: int) -> A:
        xs = [np.asarray(x, dtype=F64) for x in args]
        with np.errstate(all="ignore"):
            if kind == "mul":
                odd = xs[0] * xs[1]  # exact: at most 2 x 24 significant bits
            elif kind == "ldexp":
                odd = np.ldexp(xs[0], np.clip(np.asarray(args[1]).astype(np.int64), -400, 400))
            elif kind == "cvt":
                odd = xs[0]  # every f32/f16/i32/u32/i16/u16 source is exact in float64; f64 to odd below
            else:
                p, c = _addends(kind, xs)
                odd = zero_sum_sign(_round_to_odd_sum(p, c), p, c, mode)
        return round_directed(odd, dtype, mode)

    return run


def _addends(kind: str, xs: list[A]) -> tuple[A, A]:
    if kind == "add":
        return xs[0], xs[1]
    if kind == "sub":
        return xs[0], -xs[1]
    if kind == "subrev":
        return xs[1], -xs[0]
    return xs[0] * xs[1], xs[2]  # fma family


def round_fraction64(exact: Fraction, mode: int, negative_zero: bool) -> float:
    """The f64 nearest ``exact`` in direction ``mode``; ``negative_zero`` is the sign of an exact 0."""
    if exact == 0:
        return -0.0 if negative_zero else 0.0
    try:
        nearest = float(exact)  # int / int: correctly rounded, subnormals included
    except OverflowError:
        nearest = math.inf if exact > 0 else -math.inf
    if math.isinf(nearest):
        beyond = mode == 3 or (mode == 1 and nearest < 0) or (mode == 2 and nearest > 0)
        return math.nextafter(nearest, 0.0) if beyond else nearest
    error = Fraction(nearest) - exact
    if mode == 1 and error < 0:
        return math.nextafter(nearest, math.inf)
    if mode == 2 and error > 0:
        return math.nextafter(nearest, -math.inf)
    if mode == 3 and abs(Fraction(nearest)) > abs(exact):
        return math.nextafter(nearest, 0.0)
    return nearest


def fma64_lane(a: float, b: float, c: float, mode: int, scale: int = 0) -> float:
    """(a*b + c) * 2**scale rounded once in direction ``mode`` (f64)."""
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        special = c if math.isinf(c) and math.isfinite(a) and math.isfinite(b) else a * b + c
        return special  # infinities and NaNs do not depend on the rounding direction
    product = Fraction(a) * Fraction(b)
    exact = (product + Fraction(c)) * Fraction(2) ** scale
    product_negative = math.copysign(1.0, a) * math.copysign(1.0, b) < 0
    same_zeros = product == 0 and c == 0 and product_negative == (math.copysign(1.0, c) < 0)
    return round_fraction64(exact, mode, product_negative if same_zeros else mode == 2)


def _lane64(kind: str, xs: Sequence[float], mode: int) -> float:
    if kind == "mul":
        if not (math.isfinite(xs[0]) and math.isfinite(xs[1])):
            return xs[0] * xs[1]
        negative = math.copysign(1.0, xs[0]) * math.copysign(1.0, xs[1]) < 0
        return round_fraction64(Fraction(xs[0]) * Fraction(xs[1]), mode, negative)
    if kind == "ldexp":
        x, n = xs[0], max(-2200, min(2200, int(xs[1])))
        if not math.isfinite(x) or x == 0:
            return x
        return round_fraction64(Fraction(x) * Fraction(2) ** n, mode, x < 0)
    if kind in ("add", "sub", "subrev"):
        a, b = {"add": (xs[0], xs[1]), "sub": (xs[0], -xs[1]), "subrev": (xs[1], -xs[0])}[kind]
        return fma64_lane(a, 1.0, b, mode)
    return fma64_lane(xs[0], xs[1], xs[2], mode)


def _wide(kind: str) -> Directed:
    """Directed f64 evaluator of ``kind``, lane by lane on exact rationals."""

    def run(args: Sequence[A], dtype: Any, mode: int) -> A:
        arrays = np.broadcast_arrays(*(np.asarray(x) for x in args))
        shape = arrays[0].shape
        lanes = zip(*(x.ravel().tolist() for x in arrays))
        return np.array([_lane64(kind, xs, mode) for xs in lanes], dtype=F64).reshape(shape)

    return run


_KINDS = {"add": "add", "sub": "sub", "subrev": "subrev", "mul": "mul", "fma": "fma", "fmac": "fma",
          "mac": "fma", "mad": "fma", "fmaak": "fma", "fmamk": "fma", "madak": "fma", "madmk": "fma",
          "ldexp": "ldexp"}
_NARROW_CONVERSIONS = frozenset({"cvt_f16_f32", "cvt_f32_f64", "cvt_f32_i32", "cvt_f32_u32", "cvt_f16_u16",
                                 "cvt_f16_i16"})
ROUNDING_FREE = frozenset({"min", "max", "min3", "max3", "med3", "floor", "ceil", "trunc", "rndne",
                           "frexp_mant", "cvt_f64_i32", "cvt_f64_u32", "cvt_f64_f32", "cvt_f32_f16",
                           "cvt_off_f32_i4", "cvt_f32_ubyte0", "cvt_f32_ubyte1", "cvt_f32_ubyte2",
                           "cvt_f32_ubyte3"})


def _body(opcode: str) -> str:
    body = opcode.removeprefix("v_").removeprefix("pk_")
    return body if body.startswith("cvt_") else body.rsplit("_", 1)[0]


def rounding_free(opcode: str) -> bool:
    """Whether ``opcode``'s float result is exact, so that MODE rounding cannot change it."""
    return _body(opcode) in ROUNDING_FREE


def directed_evaluator(opcode: str) -> Directed | None:
    """The directed-rounding evaluator of ``v_<op>_<type>`` (``v_pk_<op>_<type>`` alike), or None
    when the emulator refuses the opcode under a directed MODE rounding."""
    body = _body(opcode)
    if body in _NARROW_CONVERSIONS:
        return _narrow("cvt")
    kind = _KINDS.get(body)
    if kind is None:
        return None
    return _wide(kind) if opcode.endswith("_f64") else _narrow(kind)
