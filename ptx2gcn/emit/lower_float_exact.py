"""Exact results of float arithmetic for directed rounding (``.rz/.rm/.rp``, PTX ISA 9.7.3).

Invariant: ``exact_parts`` returns ``(s, e)`` in a wide type W (f32 for f16, f64 for f32 and f64)
with ``s`` the round-to-nearest result and ``e`` zero exactly when ``s`` is the exact result, and
otherwise of the sign of (exact − s); ``directed_op`` rounds that to the operation's type with
``ptx2gcn.emit.float_rounding.directed`` and gives an exactly-zero sum the sign IEEE 754-2019 §6.3
prescribes for roundTowardNegative. For f16/f32 the W computations are exact (TwoSum, products
exact in W). For f64 the error terms come from fma residuals (Boldo & Muller, "Exact and
Approximated Error of the FMA", IEEE TC 60(8), 2011), made exact by scaling by powers of two where
a residual would underflow or a product overflow.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.float_rounding import directed, fconst, fma, is_finite, is_inf, two_sum, wide_of
from ptx2gcn.emit.llvm_types import I1, int_of
from ptx2gcn.emit.lower_float_division import divide
from ptx2gcn.emit.lower_float_values import copysign, fabs, suffix

_F64_SCALE = 2.0 ** 108
_F64_EXACT_FLOOR = 2.0 ** -960
"""Below this magnitude an f64 product's fma residual may be inexact (the residual is subnormal)."""
_FMA_TINY_PRODUCT = 2.0 ** -968
"""|fl(a·b)| below this: the residual a·b − fl(a·b) may not be representable (it needs 2^-1074)."""
_FMA_NEGLIGIBLE_ADDEND = 2.0 ** -900
"""|c| at least this and |a·b| < 2^-967: a·b is below ulp(c)/4, so fl(a·b + c) = c exactly."""
_FMA_UP = 2.0 ** 1000
_FMA_DOWN = 2.0 ** -200

Parts = tuple[ir.Value, ir.Value, ir.Value | None]
"""(s, e, overflowed): see ``exact_parts``."""


def exact_parts(cx: FnContext, kind: str, xs: list[ir.Value]) -> Parts:
    """(s, e, overflowed) in the wide type for op ``kind`` of narrow operands ``xs``; ``overflowed``
    (W = T only) is true where the exact result is finite but ``s`` is infinite."""
    b = cx.builder
    narrow = xs[0].type
    wide_t = wide_of(narrow)
    exact_wide = wide_t != narrow
    ws = [b.fpext(x, wide_t) if exact_wide else x for x in xs]
    finite_inputs: ir.Value = ir.Constant(I1, 1)
    for x in ws:
        finite_inputs = b.and_(finite_inputs, is_finite(cx, x))
    if kind in ("add", "sub"):
        s, e = two_sum(cx, ws[0], ws[1] if kind == "add" else b.fneg(ws[1]))
    elif kind == "mul":
        s = b.fmul(ws[0], ws[1])
        e = fma(cx, ws[0], ws[1], b.fneg(s)) if exact_wide else _product_error(cx, ws[0], ws[1], s)
    elif kind == "fma":
        s, e = two_sum(cx, b.fmul(ws[0], ws[1]), ws[2]) if exact_wide else _fma64_parts(cx, *ws)
    elif kind == "div":
        s = divide(cx, ws[0], ws[1])  # RN whatever v_rcp returns within its bound
        numerator, quotient = _scaled_if_tiny(cx, ws[0], s, not exact_wide, 108)
        remainder = fma(cx, b.fneg(quotient), ws[1], numerator)
        e = b.select(b.fcmp_ordered("<", ws[1], fconst(wide_t, 0.0)), b.fneg(remainder), remainder)
        finite_inputs = b.and_(finite_inputs, b.fcmp_ordered("!=", ws[1], fconst(wide_t, 0.0)))
    else:  # sqrt
        s = cx.call(f"llvm.sqrt.{suffix(wide_t)}", wide_t, [ws[0]])
        radicand, _ = _scaled_if_tiny(cx, ws[0], s, not exact_wide, 108)
        _, root = _scaled_if_tiny(cx, ws[0], s, not exact_wide, 54)
        e = fma(cx, b.fneg(root), root, radicand)
    overflowed = None if exact_wide else b.and_(finite_inputs, is_inf(cx, s))
    return s, e, overflowed


def directed_op(cx: FnContext, mode: str, kind: str, xs: list[ir.Value]) -> ir.Value:
    """Op ``kind`` of scalar operands ``xs`` rounded toward zero (rz), −∞ (rm) or +∞ (rp)."""
    s, e, overflowed = exact_parts(cx, kind, xs)
    result = directed(cx, mode, xs[0].type, s, e, overflowed)
    if mode != "rm" or kind not in ("add", "sub", "fma"):
        return result
    b = cx.builder
    zero = fconst(s.type, 0.0)
    exact_zero = b.and_(b.fcmp_ordered("==", s, zero), b.fcmp_ordered("==", e, fconst(e.type, 0.0)))
    if kind == "fma":  # the product's sign is exact even when it rounds to zero
        addends = [b.fmul(xs[0], xs[1]), xs[2]]
    else:
        addends = [xs[0], b.fneg(xs[1]) if kind == "sub" else xs[1]]
    return _rm_zero_sign(cx, addends, exact_zero, result)


def _rm_zero_sign(cx: FnContext, addends: list[ir.Value], exact_zero: ir.Value, r: ir.Value) -> ir.Value:
    """IEEE 754-2019 §6.3: an exactly zero sum is −0 under roundTowardNegative unless both addends
    are +0 (x + x keeps x's sign). A non-zero exact sum that rounds to zero keeps its own sign,
    which ``directed`` already gives."""
    b = cx.builder
    it = int_of(r.type)
    bits = b.or_(b.bitcast(addends[0], it), b.bitcast(addends[1], it))
    both_plus_zero = b.icmp_unsigned("==", bits, ir.Constant(it, 0))
    return b.select(b.and_(exact_zero, b.not_(both_plus_zero)), fconst(r.type, -0.0), r)


def _product_error(cx: FnContext, a: ir.Value, b_: ir.Value, s: ir.Value) -> ir.Value:
    """A value with the sign of (a·b − s) for f64, also when s = fl(a·b) is tiny or zero.

    Normal range: the fma residual is exact. Tiny results: the smaller operand is scaled by 2^108
    (exact; it is at most 2^-511 there), so P = fl(a'·b) and its residual are exact, and
    (P − s·2^108) + residual has the sign of the scaled error (Sterbenz: P and s·2^108 are within a
    factor of two). s = ±0 from non-zero operands: the exact product is non-zero with s's sign.
    """
    b = cx.builder
    t = s.type
    plain = fma(cx, a, b_, b.fneg(s))
    small_first = b.fcmp_ordered("<", fabs(cx, a), fabs(cx, b_))
    small, big = b.select(small_first, a, b_), b.select(small_first, b_, a)
    scaled = b.fmul(small, fconst(t, _F64_SCALE))
    product = b.fmul(scaled, big)
    residual = fma(cx, scaled, big, b.fneg(product))
    tiny_error = b.fadd(b.fsub(product, b.fmul(s, fconst(t, _F64_SCALE))), residual)
    one_signed = copysign(cx, fconst(t, 1.0), s)
    nonzero_inputs = b.and_(b.fcmp_ordered("!=", a, fconst(t, 0.0)), b.fcmp_ordered("!=", b_, fconst(t, 0.0)))
    is_zero = b.fcmp_ordered("==", s, fconst(t, 0.0))
    tiny = b.fcmp_ordered("<", fabs(cx, s), fconst(t, _F64_EXACT_FLOOR))
    error = b.select(tiny, tiny_error, plain)
    return b.select(is_zero, b.select(nonzero_inputs, one_signed, fconst(t, 0.0)), error)


def _fma64_parts(cx: FnContext, a: ir.Value, b_: ir.Value, c: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(s, e) for f64 fma: s = fl(a·b + c) and e the sign of the exact error X − s, X = a·b + c.

    The fma residual of a·b is exact unless fl(a·b) is tiny (< 2^-968) or overflows, so:
    - a·b tiny, a, b ≠ 0 and |c| ≥ 2^-900: a·b < ulp(c)/4, s = c and X − s = a·b (its sign: the
      xor of the operands' signs);
    - a·b tiny, |c| < 2^-900: the smaller factor, c and s are scaled by 2^1000 (exact, no overflow),
      and if the scaled product is still tiny the same argument applies (c = 0 included: s = ±0);
    - fl(a·b) infinite, s finite: the larger factor, c and s are scaled by 2^-200 (exact: |c| and
      |s| are then multiples of 2^918 or s overflowed anyway).
    In the scaled domain r' = fl(a'·b' + c') is the 53-bit rounding of X' = X·2^k and s' = s·2^k a
    rounding of X' to a grid no finer (subnormal s), so sign(X' − s') is sign(r' − s') when they
    differ and ErrFma's error of r' otherwise.
    """
    b = cx.builder
    t = a.type
    s = fma(cx, a, b_, c)
    product = b.fmul(a, b_)
    tiny = b.fcmp_ordered("<", fabs(cx, product), fconst(t, _FMA_TINY_PRODUCT))
    huge = is_inf(cx, product)
    small_c = b.fcmp_ordered("<", fabs(cx, c), fconst(t, _FMA_NEGLIGIBLE_ADDEND))
    factor = b.select(b.and_(tiny, small_c), fconst(t, _FMA_UP),
                      b.select(huge, fconst(t, _FMA_DOWN), fconst(t, 1.0)))
    a_smaller = b.fcmp_ordered("<", fabs(cx, a), fabs(cx, b_))
    scale_a = b.xor(a_smaller, huge)  # tiny: scale the smaller factor up; huge: the larger down
    a2 = b.select(scale_a, b.fmul(a, factor), a)
    b2 = b.select(scale_a, b_, b.fmul(b_, factor))
    c2, s2 = b.fmul(c, factor), b.fmul(s, factor)
    r2 = fma(cx, a2, b2, c2)
    scaled_error = b.select(b.fcmp_ordered("!=", r2, s2), b.fsub(r2, s2), _fma_error(cx, a2, b2, c2, r2))
    zero = fconst(t, 0.0)
    nonzero = b.and_(b.fcmp_ordered("!=", a, zero), b.fcmp_ordered("!=", b_, zero))
    still_tiny = b.fcmp_ordered("<", fabs(cx, b.fmul(a2, b2)), fconst(t, _FMA_TINY_PRODUCT))
    product_sign = b.fmul(copysign(cx, fconst(t, 1.0), a), copysign(cx, fconst(t, 1.0), b_))
    return s, b.select(b.and_(nonzero, still_tiny), product_sign, scaled_error)


def _fma_error(cx: FnContext, a: ir.Value, x: ir.Value, y: ir.Value, r1: ir.Value) -> ir.Value:
    """r2 with a·x + y = r1 + r2 + r3 exactly and |r3| ≤ ulp(r2)/2, so r2 has the sign of the
    error of r1 = fma(a, x, y) (ErrFma, Boldo & Muller 2011, Algorithm 5; exact unless the
    residual of a·x underflows)."""
    b = cx.builder
    u1 = b.fmul(a, x)
    u2 = fma(cx, a, x, b.fneg(u1))
    alpha1, z = two_sum(cx, y, u2)
    beta1, beta2 = two_sum(cx, u1, alpha1)
    gamma = b.fadd(b.fsub(beta1, r1), beta2)
    return b.fadd(gamma, z)


def _scaled_if_tiny(cx: FnContext, x: ir.Value, result: ir.Value, needed: bool,
                    power: int) -> tuple[ir.Value, ir.Value]:
    """(x, result), both scaled by 2^power (exactly) when |x| < 2^-960 in f64, so that the fma
    residual of a division or square root stays out of the subnormal range and keeps its sign."""
    if not needed:
        return x, result
    b = cx.builder
    t = x.type
    tiny = b.fcmp_ordered("<", fabs(cx, x), fconst(t, _F64_EXACT_FLOOR))
    factor = b.select(tiny, fconst(t, 2.0 ** power), fconst(t, 1.0))
    return b.fmul(x, factor), b.fmul(result, factor)
