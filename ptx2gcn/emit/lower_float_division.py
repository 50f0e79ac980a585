"""Correctly rounded f32/f64 division (``div.rn``, ``rcp.rn``) built on AMD's documented accuracy of
``v_rcp`` only: 1 ULP for f32, 2^29 ULPs for f64 (CDNA3 ISA VOP1 notes).

LLVM's own ``fdiv`` macro (div_scale x2, v_rcp, Newton steps, div_fmas, div_fixup) refines the
reciprocal with ``y + y(1 - dy)``, which by Markstein's theorem gives the correctly rounded 1/d from
any y within 1 ULP *except* when d's significand is all ones (d = (2 - ulp) * 2^k, 1/d just above
a rounding midpoint); a v_rcp that returns the lower neighbour there, as its bound allows, makes
``1.0f / 1.99999988f``, ``2^24 / FLT_MAX`` or ``n / DBL_MAX`` one ULP low (found by the emulator's
adversarial approximation policy, ``docs/emulator-approximations.md``).

Invariant: ``divide`` returns IEEE a/b rounded to nearest even (subnormals, zeros, infinities and
NaNs as ``v_div_fixup`` gives them) for every reciprocal seed within the documented bound:
the seed is refined until it is within 1 ULP (f64: two Newton steps), then one Markstein step, and
for an all-ones significand the correctly rounded reciprocal is written down exactly instead:
nextafter(2^-(k+1), away from zero). The quotient step is Markstein's (q = RN(n y) within 1 ULP,
remainder exact by fma, one final fma in ``v_div_fmas``), done on ``v_div_scale``'d operands so no
intermediate overflows or goes subnormal, with ``v_div_fixup`` for the special cases.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.llvm_types import I1, I32, I64
from ptx2gcn.emit.lower_float_values import like, per_element, suffix

_MANTISSA = {"float": (0x7FFFFF, I32), "double": (0xFFFFFFFFFFFFF, I64)}


def divide(cx: FnContext, a: ir.Value, b_: ir.Value) -> ir.Value:
    """a / b (f32, f64 or vectors of them) correctly rounded to nearest even."""
    return per_element(cx, lambda x, y: _divide(cx, x, y), a, b_)


def _fma(cx: FnContext, a: ir.Value, b_: ir.Value, c: ir.Value) -> ir.Value:
    return cx.call(f"llvm.fma.{suffix(a.type)}", a.type, [a, b_, c])


def _div_scale(cx: FnContext, a: ir.Value, b_: ir.Value, numerator: bool) -> tuple[ir.Value, ir.Value]:
    t = a.type
    pair = cx.call(f"llvm.amdgcn.div.scale.{suffix(t)}", ir.LiteralStructType([t, I1]),
                   [a, b_, ir.Constant(I1, int(numerator))])
    return cx.builder.extract_value(pair, 0), cx.builder.extract_value(pair, 1)


def _all_ones_reciprocal(cx: FnContext, d: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(d's significand is all ones, RN(1/d) for such d): d = (2 - ulp) * 2^k has d + ulp = 2^(k+1),
    1/d = 2^-(k+1) (1 + ulp/2 + ...) rounds up to the float after 2^-(k+1). ``d`` is a scaled
    denominator (normal, far from the range limits), so 2^-(k+1) is normal."""
    b = cx.builder
    t = d.type
    mask, it = _MANTISSA[str(t)]
    bits = b.bitcast(d, it)
    all_ones = b.icmp_unsigned("==", b.and_(bits, ir.Constant(it, mask)), ir.Constant(it, mask))
    frexp = cx.call(f"llvm.frexp.{suffix(t)}.i32", ir.LiteralStructType([t, I32]), [d])
    exponent = b.extract_value(frexp, 1)  # d = m * 2^exponent, 0.5 <= |m| < 1: exponent = k + 1
    power = cx.call(f"llvm.ldexp.{suffix(t)}.i32", t, [cx.call(f"llvm.copysign.{suffix(t)}", t, [like(t, 1.0), d]),
                                                       b.neg(exponent)])
    after = b.bitcast(b.add(b.bitcast(power, it), ir.Constant(it, 1)), t)
    return all_ones, after


def _divide(cx: FnContext, a: ir.Value, b_: ir.Value) -> ir.Value:
    b = cx.builder
    t = a.type
    one = like(t, 1.0)
    den, _ = _div_scale(cx, a, b_, False)
    num, scaled = _div_scale(cx, a, b_, True)
    neg_den = b.fneg(den)
    y = cx.call(f"llvm.amdgcn.rcp.{suffix(t)}", t, [den])
    if str(t) == "double":  # 2^29 ULPs (relative 2^-23): two Newton steps bring it within 1 ULP
        for _ in range(2):
            y = _fma(cx, y, _fma(cx, neg_den, y, one), y)
    markstein = _fma(cx, y, _fma(cx, neg_den, y, one), y)  # RN(1/d) unless d's significand is all ones
    all_ones, exact = _all_ones_reciprocal(cx, den)
    y = b.select(all_ones, exact, markstein)
    q = b.fmul(num, y)
    if str(t) == "float":  # LLVM's f32 macro refines the quotient twice; kept
        q = _fma(cx, _fma(cx, neg_den, q, num), y, q)
    remainder = _fma(cx, neg_den, q, num)
    quotient = cx.call(f"llvm.amdgcn.div.fmas.{suffix(t)}", t, [remainder, y, q, scaled])
    return cx.call(f"llvm.amdgcn.div.fixup.{suffix(t)}", t, [quotient, b_, a])
