"""Lowering of PTX floating-point instructions (PTX ISA 9.7.3-9.7.4, half 9.7.4.x).

Invariant: ``.rn`` (and no rounding modifier) uses LLVM's IEEE operations, which the AMDGPU back
end implements correctly rounded (division and square root included); ``.rz/.rm/.rp`` use the
exact error-term method of ``ptx2gcn.emit.float_rounding`` (never the MODE register, so nothing
leaks into neighbouring instructions); ``.ftz`` flushes subnormal inputs and results to
sign-preserving zero with explicit selects; ``.sat`` clamps to [+0, 1] with NaN → +0; ``.approx``
maps to AMDGPU's hardware approximations, each within the error bound PTX states for it.
``min``/``max`` follow IEEE 754-2019 minimumNumber/maximumNumber (a NaN operand is ignored, −0 < +0);
``.NaN`` propagates NaN.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.float_rounding import directed, fconst, fma, is_finite, is_inf, two_sum, wide_of
from ptx2gcn.emit.llvm_types import FLOAT, I1, I32, int_of
from ptx2gcn.emit.lower_values import constant
from ptx2gcn.ir.core import Op

_MIN_NORMAL = {"half": 0x0400, "bfloat": 0x0080, "float": 0x00800000, "double": 0x0010000000000000}


def suffix(t: ir.Type) -> str:
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{suffix(t.element)}"
    return {"half": "f16", "bfloat": "bf16", "float": "f32", "double": "f64"}[str(t)]


def _scalar(t: ir.Type) -> ir.Type:
    return t.element if isinstance(t, ir.VectorType) else t


def _splat(t: ir.Type, c: ir.Constant) -> ir.Constant:
    if isinstance(t, ir.VectorType):
        return ir.Constant(t, [c] * t.count)
    return c


def fabs(cx: FnContext, x: ir.Value) -> ir.Value:
    return cx.call(f"llvm.fabs.{suffix(x.type)}", x.type, [x])


def flush(cx: FnContext, x: ir.Value) -> ir.Value:
    """Subnormal ``x`` → zero of the same sign (``.ftz``); other values unchanged."""
    b = cx.builder
    scalar = _scalar(x.type)
    tiny = b.fcmp_ordered("<", fabs(cx, x), _splat(x.type, constant(scalar, _MIN_NORMAL[str(scalar)])))
    zero = cx.call(f"llvm.copysign.{suffix(x.type)}", x.type, [_splat(x.type, fconst(scalar, 0.0)), x])
    return b.select(tiny, zero, x)


def saturate(cx: FnContext, x: ir.Value) -> ir.Value:
    b = cx.builder
    scalar = _scalar(x.type)
    one, zero = _splat(x.type, fconst(scalar, 1.0)), _splat(x.type, fconst(scalar, 0.0))
    clamped = b.select(b.fcmp_ordered(">", x, one), one, x)
    return b.select(b.fcmp_ordered(">", x, zero), clamped, zero)


def _inputs(cx: FnContext, op: Op) -> list[ir.Value]:
    values = cx.operands(op)
    return [flush(cx, v) for v in values] if cx.flag(op, "ftz") else values


def _finish(cx: FnContext, op: Op, result: ir.Value) -> None:
    if cx.flag(op, "ftz"):
        result = flush(cx, result)
    if cx.flag(op, "sat"):
        result = saturate(cx, result)
    if cx.flag(op, "relu"):
        result = _relu(cx, result)
    cx.define(op, result)


def _relu(cx: FnContext, x: ir.Value) -> ir.Value:
    """max(x, +0), NaN → the canonical NaN (PTX .relu)."""
    b = cx.builder
    zero = _splat(x.type, fconst(_scalar(x.type), 0.0))
    return canonical_nan(cx, b.select(b.fcmp_ordered("<=", x, zero), zero, x))


def _rnd(cx: FnContext, op: Op) -> str:
    rnd = cx.attr(op, "rnd", "rn")
    return "rn" if rnd in ("", "rn", "approx", "full") else rnd


def _no_directed_vectors(cx: FnContext, op: Op, t: ir.Type) -> None:
    if isinstance(t, ir.VectorType) or str(t) == "bfloat":
        raise cx.unsupported(f"{op.name}.{cx.attr(op, 'rnd')}.{cx.attr(op, 'type')}",
                             "directed rounding of packed and bf16 values is not lowered yet")


def _exact_parts(cx: FnContext, kind: str, xs: list[ir.Value]) -> tuple[ir.Value, ir.Value, ir.Value | None]:
    """(s, e, overflowed) in the wide type for op ``kind`` of narrow operands ``xs``."""
    b = cx.builder
    narrow = xs[0].type
    wide_t = wide_of(narrow)
    ws = [b.fpext(x, wide_t) if wide_t != narrow else x for x in xs]
    finite_inputs: ir.Value = ir.Constant(I1, 1)
    for x in ws:
        finite_inputs = b.and_(finite_inputs, is_finite(cx, x))
    if kind in ("add", "sub"):
        other = ws[1] if kind == "add" else b.fneg(ws[1])
        s, e = two_sum(cx, ws[0], other)
    elif kind == "mul":
        s = b.fmul(ws[0], ws[1])
        e = _product_error(cx, ws[0], ws[1], s) if wide_t == narrow else fma(cx, ws[0], ws[1], b.fneg(s))
    elif kind == "fma":
        if wide_t == narrow:
            s = fma(cx, ws[0], ws[1], ws[2])
            e = _fma_error(cx, ws[0], ws[1], ws[2], s)
        else:
            s, e = two_sum(cx, b.fmul(ws[0], ws[1]), ws[2])
    elif kind == "div":
        s = b.fdiv(ws[0], ws[1])
        numerator, quotient = _scaled_if_tiny(cx, ws[0], s, wide_t == narrow, 108)
        remainder = fma(cx, b.fneg(quotient), ws[1], numerator)
        e = b.select(b.fcmp_ordered("<", ws[1], fconst(wide_t, 0.0)), b.fneg(remainder), remainder)
        finite_inputs = b.and_(finite_inputs, b.fcmp_ordered("!=", ws[1], fconst(wide_t, 0.0)))
    else:  # sqrt
        s = cx.call(f"llvm.sqrt.{suffix(wide_t)}", wide_t, [ws[0]])
        radicand, _ = _scaled_if_tiny(cx, ws[0], s, wide_t == narrow, 108)
        _, root = _scaled_if_tiny(cx, ws[0], s, wide_t == narrow, 54)
        e = fma(cx, b.fneg(root), root, radicand)
    overflowed = b.and_(finite_inputs, is_inf(cx, s)) if wide_t == narrow else None
    return s, e, overflowed


_F64_SCALE = 2.0 ** 108
_F64_EXACT_FLOOR = 2.0 ** -960
"""Below this magnitude an f64 product's fma residual may be inexact (the residual is subnormal)."""


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
    one_signed = cx.call("llvm.copysign.f64", t, [fconst(t, 1.0), s])
    nonzero_inputs = b.and_(b.fcmp_ordered("!=", a, fconst(t, 0.0)), b.fcmp_ordered("!=", b_, fconst(t, 0.0)))
    is_zero = b.fcmp_ordered("==", s, fconst(t, 0.0))
    tiny = b.fcmp_ordered("<", fabs(cx, s), fconst(t, _F64_EXACT_FLOOR))
    error = b.select(tiny, tiny_error, plain)
    return b.select(is_zero, b.select(nonzero_inputs, one_signed, fconst(t, 0.0)), error)


def _fma_error(cx: FnContext, a: ir.Value, x: ir.Value, y: ir.Value, r1: ir.Value) -> ir.Value:
    """r2 with a·x + y = r1 + r2 + r3 exactly and |r3| ≤ ulp(r2)/2, so r2 has the sign of the
    error of r1 = fma(a, x, y) (ErrFma, Boldo & Muller, IEEE TC 60(8), 2011, Algorithm 5; exact
    barring underflow of the error terms)."""
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


def _directed_op(cx: FnContext, op: Op, kind: str, xs: list[ir.Value]) -> ir.Value:
    narrow = xs[0].type
    _no_directed_vectors(cx, op, narrow)
    s, e, overflowed = _exact_parts(cx, kind, xs)
    mode = _rnd(cx, op)
    result = directed(cx, mode, narrow, s, e, overflowed)
    if mode == "rm" and kind in ("add", "sub"):
        result = _rm_zero_sign(cx, kind, xs, result)
    elif mode == "rm" and kind == "fma":
        product = cx.builder.fmul(xs[0], xs[1])  # its sign is exact even when it rounds to zero
        result = _rm_zero_sign(cx, "add", [product, xs[2]], result)
    return result


def _rm_zero_sign(cx: FnContext, kind: str, xs: list[ir.Value], r: ir.Value) -> ir.Value:
    """IEEE 754 §6.3: an exact zero sum is −0 when rounding toward −∞, unless both addends are +0."""
    b = cx.builder
    it = int_of(r.type)
    a_bits = b.bitcast(xs[0], it)
    b_bits = b.bitcast(b.fneg(xs[1]) if kind == "sub" else xs[1], it)
    both_plus_zero = b.icmp_unsigned("==", b.or_(a_bits, b_bits), ir.Constant(it, 0))
    is_zero = b.fcmp_ordered("==", r, fconst(r.type, 0.0))
    minus_zero = fconst(r.type, -0.0)
    return b.select(b.and_(is_zero, b.not_(both_plus_zero)), minus_zero, r)


def _arith(kind: str) -> Lowering:
    def lower(cx: FnContext, op: Op) -> None:
        xs = _inputs(cx, op)
        b = cx.builder
        if _rnd(cx, op) != "rn":
            result = _directed_op(cx, op, kind, xs)
        elif kind == "add":
            result = b.fadd(xs[0], xs[1])
        elif kind == "sub":
            result = b.fsub(xs[0], xs[1])
        else:
            result = b.fmul(xs[0], xs[1])
        _finish(cx, op, result)
    return lower


def float_fma(cx: FnContext, op: Op) -> None:
    xs = _inputs(cx, op)
    if _rnd(cx, op) != "rn":
        result = _directed_op(cx, op, "fma", xs)
    else:
        result = cx.call(f"llvm.fma.{suffix(xs[0].type)}", xs[0].type, xs)
    _finish(cx, op, result)


def float_div(cx: FnContext, op: Op) -> None:
    xs = _inputs(cx, op)
    b = cx.builder
    rnd = cx.attr(op, "rnd", "rn")
    if rnd == "approx":
        # PTX: a * (1/b) within 2 ulp, and 0 for 2^126 < |b| (the reciprocal flushes to zero):
        # v_rcp_f32 (1 ulp) with its subnormal results flushed, then one rounded multiply.
        if str(_scalar(xs[0].type)) != "float":
            raise cx.unsupported(f"div.approx.{cx.attr(op, 'type')}", "defined for f32 only")
        result = b.fmul(xs[0], flush(cx, cx.call("llvm.amdgcn.rcp.f32", xs[1].type, [xs[1]])))
    elif _rnd(cx, op) != "rn":
        result = _directed_op(cx, op, "div", xs)
    else:  # .rn and .full (.full is allowed 2 ulp; correctly rounded is within it)
        result = b.fdiv(xs[0], xs[1])
    _finish(cx, op, result)


def lower_rcp(cx: FnContext, op: Op) -> None:
    (x,) = _inputs(cx, op)
    one = _splat(x.type, fconst(_scalar(x.type), 1.0))
    if cx.attr(op, "rnd") == "approx" and str(x.type) == "float":
        # PTX allows 1 ulp; !fpmath 1.0 lets LLVM use v_rcp_f32, scaling subnormal inputs itself.
        result = cx.builder.fdiv(one, x)
        result.set_metadata("fpmath", cx.mod.module.add_metadata([ir.Constant(FLOAT, 1.0)]))
    elif _rnd(cx, op) != "rn":
        result = _directed_op(cx, op, "div", [one, x])
    else:
        result = cx.builder.fdiv(one, x)
    _finish(cx, op, result)


def lower_sqrt(cx: FnContext, op: Op) -> None:
    (x,) = _inputs(cx, op)
    if cx.attr(op, "rnd") == "approx" and str(x.type) == "float":
        result = cx.call("llvm.amdgcn.sqrt.f32", x.type, [x])
    elif _rnd(cx, op) != "rn":
        result = _directed_op(cx, op, "sqrt", [x])
    else:
        result = cx.call(f"llvm.sqrt.{suffix(x.type)}", x.type, [x])
    _finish(cx, op, result)


def lower_rsqrt(cx: FnContext, op: Op) -> None:
    (x,) = _inputs(cx, op)
    if str(x.type) == "float":
        result = cx.call("llvm.amdgcn.rsq.f32", x.type, [x])
    else:
        root = cx.call(f"llvm.sqrt.{suffix(x.type)}", x.type, [x])
        result = cx.builder.fdiv(_splat(x.type, fconst(_scalar(x.type), 1.0)), root)
    _finish(cx, op, result)


def _via_f32(cx: FnContext, x: ir.Value, fn: str) -> ir.Value:
    """Apply unary LLVM math intrinsic ``fn`` in f32 (f16/bf16 inputs widened, result narrowed)."""
    b = cx.builder
    if str(_scalar(x.type)) == "float":
        return cx.call(f"llvm.{fn}.{suffix(x.type)}", x.type, [x])
    wide_t = ir.VectorType(FLOAT, x.type.count) if isinstance(x.type, ir.VectorType) else FLOAT
    wide = cx.call(f"llvm.{fn}.{suffix(wide_t)}", wide_t, [b.fpext(x, wide_t)])
    return b.fptrunc(wide, x.type)


def _approx(fn: str) -> Lowering:
    def lower(cx: FnContext, op: Op) -> None:
        (x,) = _inputs(cx, op)
        if str(_scalar(x.type)) == "double":
            raise cx.unsupported(f"{op.name}.f64", "PTX defines this approximation for f32 and f16 only")
        _finish(cx, op, _via_f32(cx, x, fn))
    return lower


def lower_tanh(cx: FnContext, op: Op) -> None:
    """tanh(x) = 1 − 2/(e^{2|x|} + 1) with the sign of x; a short odd series below |x| < 1/16
    (relative error < 2^-28 there); PTX's tanh.approx.f32 bound is 2^-10.987 relative."""
    (x,) = _inputs(cx, op)
    b = cx.builder
    narrow = x.type
    if str(_scalar(narrow)) != "float":
        wide_t = ir.VectorType(FLOAT, narrow.count) if isinstance(narrow, ir.VectorType) else FLOAT
        x = b.fpext(x, wide_t)
    t = x.type
    c = lambda v: _splat(t, fconst(FLOAT, v))  # noqa: E731
    ax = fabs(cx, x)
    e2x = cx.call(f"llvm.exp2.{suffix(t)}", t, [b.fmul(ax, c(2.8853900817779268))])  # 2*log2(e)
    big = b.fsub(c(1.0), b.fdiv(c(2.0), b.fadd(e2x, c(1.0))))
    x2 = b.fmul(x, x)
    series = b.fmul(x, b.fadd(c(1.0), b.fmul(x2, b.fadd(c(-1.0 / 3.0), b.fmul(x2, c(2.0 / 15.0))))))
    signed_big = cx.call(f"llvm.copysign.{suffix(t)}", t, [big, x])
    result = b.select(b.fcmp_ordered("<", ax, c(0.0625)), series, signed_big)
    if result.type != narrow:
        result = b.fptrunc(result, narrow)
    _finish(cx, op, result)


def float_abs(cx: FnContext, op: Op) -> None:
    (x,) = _inputs(cx, op)
    _finish(cx, op, fabs(cx, x))


def float_neg(cx: FnContext, op: Op) -> None:
    (x,) = _inputs(cx, op)
    _finish(cx, op, cx.builder.fneg(x))


def float_minmax(kind: str) -> Lowering:
    def lower(cx: FnContext, op: Op) -> None:
        a, b_ = _inputs(cx, op)
        if cx.flag(op, "xorsign"):
            raise cx.unsupported(f"{kind}.xorsign.abs", "not lowered yet")
        name = f"llvm.{kind}imum" if cx.flag(op, "nan") else f"llvm.{kind}imumnum"
        _finish(cx, op, canonical_nan(cx, cx.call(f"{name}.{suffix(a.type)}", a.type, [a, b_])))
    return lower


_CANONICAL_NAN = {"half": 0x7FFF, "bfloat": 0x7FFF, "float": 0x7FFFFFFF, "double": 0x7FFFFFFFFFFFFFFF}


def canonical_nan(cx: FnContext, x: ir.Value) -> ir.Value:
    """NaN results as PTX's canonical NaN (all exponent and fraction bits set, sign clear)."""
    b = cx.builder
    nan = _splat(x.type, constant(_scalar(x.type), _CANONICAL_NAN[str(_scalar(x.type))]))
    return b.select(b.fcmp_unordered("uno", x, x), nan, x)


def lower_copysign(cx: FnContext, op: Op) -> None:
    """PTX copysign d, a, b: b's magnitude with a's sign."""
    a, b_ = cx.operands(op)
    cx.define(op, cx.call(f"llvm.copysign.{suffix(a.type)}", a.type, [b_, a]))


_FPCLASS = {"finite": 0x1F8, "infinite": 0x204, "number": 0x3FC, "notanumber": 0x003,
            "normal": 0x168, "subnormal": 0x090}


def lower_testp(cx: FnContext, op: Op) -> None:
    (x,) = cx.operands(op)
    mask = ir.Constant(I32, _FPCLASS[cx.attr(op, "op")])
    cx.define(op, cx.call(f"llvm.is.fpclass.{suffix(x.type)}", I1, [x, mask]))


_FCMP: dict[str, tuple[str, bool]] = {
    "eq": ("==", True), "ne": ("!=", True), "lt": ("<", True), "le": ("<=", True), "gt": (">", True),
    "ge": (">=", True), "equ": ("==", False), "neu": ("!=", False), "ltu": ("<", False),
    "leu": ("<=", False), "gtu": (">", False), "geu": (">=", False), "num": ("ord", True),
    "nan": ("uno", False),
}


def float_setp(cx: FnContext, op: Op) -> None:
    a, b_ = _inputs(cx, op)
    predicate, ordered = _FCMP[cx.attr(op, "cmp")]
    b = cx.builder
    cx.define(op, b.fcmp_ordered(predicate, a, b_) if ordered else b.fcmp_unordered(predicate, a, b_))


def float_mad(cx: FnContext, op: Op) -> None:
    """mad.f32/f64 is fma (PTX: "mad.f32 is identical to fma.f32" for sm_20+ with a rounding mode)."""
    float_fma(cx, op)


LOWERINGS: dict[str, Lowering] = {
    "fma": float_fma, "rcp": lower_rcp, "sqrt": lower_sqrt, "rsqrt": lower_rsqrt,
    "sin": _approx("sin"), "cos": _approx("cos"), "lg2": _approx("log2"), "ex2": _approx("exp2"),
    "tanh": lower_tanh, "copysign": lower_copysign, "testp": lower_testp,
}
"""Ops that exist only for floats; ``FLOAT_FORMS`` holds the float halves of shared ops."""

FLOAT_FORMS: dict[str, Lowering] = {
    "add": _arith("add"), "sub": _arith("sub"), "mul": _arith("mul"), "mad": float_mad,
    "div": float_div, "abs": float_abs, "neg": float_neg, "min": float_minmax("min"),
    "max": float_minmax("max"), "setp": float_setp,
}
