"""Scalar IEEE 754 arithmetic on bit patterns with an explicit rounding mode, exactly rounded.

Invariant: finite operands are turned into exact rationals, the exact result is rounded once by
``rounding.round_to_format``; special operands follow IEEE 754-2019 sections 6 and 7 (invalid
operations give NaN, exact zero sums are +0 except in round-toward-negative). A NaN result is
an ``AnyNaN``: single-precision (and half) NaN results are unspecified, while f64 propagates the
payload of a single NaN operand (``propagate_nan``).
``ftz`` flushes subnormal inputs before and subnormal results after rounding (PTX ISA 9.7.3
"Floating-point instructions": "subnormal inputs and results are flushed to sign-preserving zero").
"""

from __future__ import annotations

from collections.abc import Sequence

from ptx2gcn.reference.floatformat import FloatFormat, FpClass
from ptx2gcn.reference.rounding import Rational, SquareRoot, TinyRounded, round_dyadic, round_to_format
from ptx2gcn.reference.spelling import AnyNaN, Either

FloatResult = int | AnyNaN | Either


def nan(fmt: FloatFormat) -> AnyNaN:
    """The NaN an invalid operation produces (inf - inf, 0 * inf, ...): payload unspecified."""
    return AnyNaN(fmt.canonical_nan)


def propagate_nan(fmt: FloatFormat, *operands: int) -> AnyNaN:
    """The result when an operand is NaN. PTX ISA 9.7.3: "NaN payloads are supported for
    double-precision instructions ... Single-precision instructions return an unspecified NaN."
    So an f64 result with exactly one NaN operand is that NaN, quieted (sign not fixed: ``sub``
    and ``neg`` modifiers may flip it); with several NaN operands the model does not pick one."""
    nans = [x for x in operands if fmt.is_nan(x)]
    if fmt.width == 64 and len(nans) == 1:
        return AnyNaN(fmt.quiet(nans[0]), 1, payload=1)
    return nan(fmt)


def flush_inputs(fmt: FloatFormat, ftz: bool, operands: Sequence[int]) -> list[int]:
    return [fmt.flush_subnormal(x) if ftz else x for x in operands]


def finish(fmt: FloatFormat, result: FloatResult, ftz: bool, sat: bool) -> FloatResult:
    """Apply output ``.ftz`` and ``.sat`` (clamp to [+0.0, 1.0], NaN -> +0.0; PTX ISA 9.7.3).

    ``.ftz`` flushes results that are subnormal after rounding; a result that rounded up to the
    smallest normal from below is ambiguous (tininess before or after rounding), so both it and
    the flushed zero are accepted (``Either``)."""
    if isinstance(result, AnyNaN):
        return fmt.zero() if sat else result
    if isinstance(result, Either):
        options = _options(finish(fmt, result.bits, ftz, sat)) + _options(finish(fmt, result.alternative, ftz, sat))
        distinct = list(dict.fromkeys(options))
        assert len(distinct) <= 2, distinct
        return distinct[0] if len(distinct) == 1 else Either(distinct[0], distinct[1])
    if ftz and isinstance(result, TinyRounded):
        return finish(fmt, Either(int(result), fmt.zero(fmt.is_negative(result))), False, sat)
    result = int(result)
    if ftz:
        result = fmt.flush_subnormal(result)
    if sat:
        if result == fmt.zero(True):
            # -0.0 lies in [0.0, 1.0] (it equals +0.0), and PTX does not say whether the clamp
            # keeps its sign: both zeros are accepted (reference/README.md, rulings)
            return Either(fmt.zero(), result)
        if fmt.is_negative(result):
            return fmt.zero()
        if fmt.magnitude(result) > fmt.one:
            return fmt.one
    return result


def _options(result: FloatResult) -> list[int]:
    if isinstance(result, Either):
        return [result.bits, result.alternative]
    assert isinstance(result, int)
    return [result]


Signed = tuple[int, int, bool]
"""An exact finite operand: (signed significand, exponent, sign bit) -- the sign bit matters for
zeros only."""


def _operand(fmt: FloatFormat, bits: int) -> Signed:
    significand, exponent = fmt.decode(bits)
    return significand, exponent, fmt.is_negative(bits)


def _sum_of(fmt: FloatFormat, terms: Sequence[Signed], mode: str) -> int:
    """Round an exact sum of dyadic terms; zero sums follow IEEE 754 6.3 (x + -x = +0 except in
    round-toward-negative; -0 + -0 = -0)."""
    base = min(e for _, e, _ in terms)
    total = sum(m << (e - base) for m, e, _ in terms)
    if total != 0:
        return round_dyadic(fmt, total, base, mode)
    if all(m == 0 for m, _, _ in terms) and len({neg for _, _, neg in terms}) == 1:
        return fmt.zero(terms[0][2])
    return fmt.zero(mode == "rm")


def add(fmt: FloatFormat, a: int, b: int, mode: str) -> FloatResult:
    ca, cb = fmt.classify(a), fmt.classify(b)
    if FpClass.NAN in (ca, cb):
        return propagate_nan(fmt, a, b)
    if ca is FpClass.INF and cb is FpClass.INF:
        return a if fmt.is_negative(a) == fmt.is_negative(b) else nan(fmt)
    if ca is FpClass.INF:
        return a
    if cb is FpClass.INF:
        return b
    return _sum_of(fmt, [_operand(fmt, a), _operand(fmt, b)], mode)


def _product(fmt: FloatFormat, a: int, b: int) -> Signed:
    ma, ea = fmt.decode(a)
    mb, eb = fmt.decode(b)
    return ma * mb, ea + eb, fmt.is_negative(a) != fmt.is_negative(b)


def mul(fmt: FloatFormat, a: int, b: int, mode: str) -> FloatResult:
    ca, cb = fmt.classify(a), fmt.classify(b)
    negative = fmt.is_negative(a) != fmt.is_negative(b)
    if FpClass.NAN in (ca, cb):
        return propagate_nan(fmt, a, b)
    if FpClass.INF in (ca, cb):
        return nan(fmt) if FpClass.ZERO in (ca, cb) else fmt.infinity(negative)
    significand, exponent, _ = _product(fmt, a, b)
    return round_dyadic(fmt, significand, exponent, mode, negative)


def fma(fmt: FloatFormat, a: int, b: int, c: int, mode: str) -> FloatResult:
    """``a * b + c`` with a single rounding (IEEE 754 5.4.1 fusedMultiplyAdd)."""
    ca, cb, cc = fmt.classify(a), fmt.classify(b), fmt.classify(c)
    product_negative = fmt.is_negative(a) != fmt.is_negative(b)
    if FpClass.NAN in (ca, cb, cc):
        if {ca, cb} == {FpClass.INF, FpClass.ZERO}:
            # 0 * inf + NaN: IEEE 754-2019 7.2(c) leaves it implementation-defined whether this
            # signals invalid (then the result is the default NaN) or propagates c; PTX says only
            # that f64 "NaN payloads are supported" (9.7.3): the payload is open
            return nan(fmt)
        return propagate_nan(fmt, a, b, c)
    if FpClass.INF in (ca, cb):
        if FpClass.ZERO in (ca, cb):
            return nan(fmt)
        if cc is FpClass.INF and fmt.is_negative(c) != product_negative:
            return nan(fmt)
        return fmt.infinity(product_negative)
    if cc is FpClass.INF:
        return c
    return _sum_of(fmt, [_product(fmt, a, b), _operand(fmt, c)], mode)


def div(fmt: FloatFormat, a: int, b: int, mode: str) -> FloatResult:
    ca, cb = fmt.classify(a), fmt.classify(b)
    negative = fmt.is_negative(a) != fmt.is_negative(b)
    if FpClass.NAN in (ca, cb):
        return propagate_nan(fmt, a, b)
    if ca is FpClass.INF:
        return nan(fmt) if cb is FpClass.INF else fmt.infinity(negative)
    if cb is FpClass.INF:
        return fmt.zero(negative)
    if cb is FpClass.ZERO:
        return nan(fmt) if ca is FpClass.ZERO else fmt.infinity(negative)
    if ca is FpClass.ZERO:
        return fmt.zero(negative)
    return round_to_format(fmt, negative, Rational(abs(fmt.exact(a) / fmt.exact(b))), mode)


def sqrt(fmt: FloatFormat, a: int, mode: str) -> FloatResult:
    cls = fmt.classify(a)
    if cls is FpClass.NAN:
        return propagate_nan(fmt, a)
    if cls is FpClass.ZERO:
        return a  # sqrt(-0) = -0 (IEEE 754 6.3)
    if fmt.is_negative(a):
        return nan(fmt)
    if cls is FpClass.INF:
        return a
    return round_to_format(fmt, False, SquareRoot(fmt.exact(a)), mode)


def rcp(fmt: FloatFormat, a: int, mode: str) -> FloatResult:
    return div(fmt, fmt.one, a, mode)
