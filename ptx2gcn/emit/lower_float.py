"""Lowering of PTX floating-point instructions (PTX ISA 9.7.3-9.7.4, half 9.7.4.x).

Invariant: ``.rn`` (and no rounding modifier) uses LLVM's IEEE operations, which the AMDGPU back
end implements correctly rounded (division and square root included) and, with the mixed-precision
instructions off (``ptx2gcn.emit.target.TARGET_FEATURES``), never fuses with a neighbouring
conversion; bf16 fma, which LLVM would round twice through f32, is ``ptx2gcn.emit.lower_float_bf16``;
``div.rn``/``rcp.rn`` of f32/f64 use ``ptx2gcn.emit.lower_float_division`` (correct with v_rcp's
documented accuracy only, where LLVM's macro is not for all-ones significands);
``.rz/.rm/.rp`` use the exact error terms of ``ptx2gcn.emit.lower_float_exact`` (never the MODE
register, so nothing leaks into neighbouring instructions); ``.ftz`` flushes subnormal inputs and
results to sign-preserving zero with explicit selects; ``.sat`` clamps to [+0, 1] with NaN → +0;
``.sat`` with ``.relu`` is a located error (ptxas rejects it); ``.approx`` maps to AMDGPU's
hardware approximations, each within the error bound PTX states for it, and the f64 "gross"
rcp/rsqrt.approx.ftz read and write only the upper word. ``min``/``max`` follow IEEE 754-2019
minimumNumber/maximumNumber (a NaN operand is ignored, −0 < +0); ``.NaN`` propagates NaN;
``.xorsign.abs`` takes the magnitudes and gives the result the XOR of the operands' signs.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_types import FLOAT, I1, I32, I64, scalar_bits
from ptx2gcn.emit.lower_float_bf16 import bf16_fma
from ptx2gcn.emit.lower_float_division import divide
from ptx2gcn.emit.lower_float_exact import directed_op
from ptx2gcn.emit.lower_float_values import (
    canonical_nan,
    fabs,
    flush,
    like,
    per_element,
    relu,
    saturate,
    scalar_of,
    suffix,
)
from ptx2gcn.emit.lower_values import constant
from ptx2gcn.ir.core import Op


def _inputs(cx: FnContext, op: Op) -> list[ir.Value]:
    values = cx.operands(op)
    return [flush(cx, v) for v in values] if cx.flag(op, "ftz") else values


def _finish(cx: FnContext, op: Op, result: ir.Value) -> None:
    if cx.flag(op, "sat") and cx.flag(op, "relu"):
        # PTX ISA 9.7.4.4 lists fma{.ftz}{.sat} and fma{.ftz}.relu as separate forms; ptxas 13:
        # "Modifier '.relu' cannot be combined with modifier '.sat'"
        raise Ptx2GcnError.at(op.loc,
                              f"'{op.name}': modifier '.relu' cannot be combined with modifier '.sat'")
    if cx.flag(op, "ftz"):
        result = flush(cx, result)
    if cx.flag(op, "sat"):
        result = saturate(cx, result)
    if cx.flag(op, "relu"):
        result = relu(cx, result)
    cx.define(op, result)


def _rnd(cx: FnContext, op: Op) -> str:
    rnd = cx.attr(op, "rnd", "rn")
    return "rn" if rnd in ("", "rn", "approx", "full") else rnd


def _no_directed_vectors(cx: FnContext, op: Op, t: ir.Type) -> None:
    if isinstance(t, ir.VectorType) or str(t) == "bfloat":
        raise cx.unsupported(f"{op.name}.{cx.attr(op, 'rnd')}.{cx.attr(op, 'type')}",
                             "directed rounding of packed and bf16 values is not lowered yet")


def _directed_op(cx: FnContext, op: Op, kind: str, xs: list[ir.Value]) -> ir.Value:
    _no_directed_vectors(cx, op, xs[0].type)
    return directed_op(cx, _rnd(cx, op), kind, xs)


_F64_ZEROS = frozenset({0, 1 << 63})
_F64_ONES = frozenset({0x3FF0000000000000, 0xBFF0000000000000})
_IDENTITIES: dict[str, tuple[tuple[int, frozenset[int]], ...]] = {
    "add": ((0, _F64_ZEROS), (1, _F64_ZEROS)),
    "sub": ((0, _F64_ZEROS), (1, _F64_ZEROS)),
    "mul": ((0, _F64_ONES), (1, _F64_ONES)),
    "div": ((1, _F64_ONES),),
}
"""Operand positions whose constant makes an f64 operation ``x`` or ``-x`` for LLVM."""


def _const_bits(op: Op, index: int) -> int | None:
    value = op.operands[index].value
    owner = getattr(value, "op", None)
    if owner is None or owner.name != "const":
        return None
    bits = owner.attrs["value"]
    return bits if isinstance(bits, int) else None


def _quiet_identity(cx: FnContext, op: Op, kind: str, result: ir.Value) -> ir.Value:
    """An f64 ``x + -0.0``, ``-0.0 - x``, ``x * 1.0``, ``x / -1.0``... with a constant operand:
    LLVM folds it to ``x`` or ``-x`` and so passes a signalling NaN through unquieted, where PTX
    quiets it (f64 keeps the payload); ``llvm.canonicalize`` on the result quiets it again and is
    the identity on every other value (found by tests/conformance/test_metamorphic.py)."""
    if str(result.type) != "double":
        return result
    if not any(_const_bits(op, i) in bits for i, bits in _IDENTITIES.get(kind, ())):
        return result
    return cx.call("llvm.canonicalize.f64", result.type, [result])


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
        _finish(cx, op, _quiet_identity(cx, op, kind, result))
    return lower


def float_fma(cx: FnContext, op: Op) -> None:
    xs = _inputs(cx, op)
    if _rnd(cx, op) != "rn":
        result = _directed_op(cx, op, "fma", xs)
    elif str(scalar_of(xs[0].type)) == "bfloat":  # LLVM's bf16 fma rounds through f32: twice
        result = per_element(cx, lambda a, b, c: bf16_fma(cx, a, b, c), *xs)
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
        if str(scalar_of(xs[0].type)) != "float":
            raise cx.unsupported(f"div.approx.{cx.attr(op, 'type')}", "defined for f32 only")
        result = b.fmul(xs[0], flush(cx, cx.call("llvm.amdgcn.rcp.f32", xs[1].type, [xs[1]])))
    elif _rnd(cx, op) != "rn":
        result = _directed_op(cx, op, "div", xs)
    elif rnd == "full" or not _exact_division_type(xs[0].type):  # .full: 2 ulp, LLVM's fdiv is within it
        result = b.fdiv(xs[0], xs[1])
    else:
        result = divide(cx, xs[0], xs[1])
    _finish(cx, op, _quiet_identity(cx, op, "div", result))


def _exact_division_type(t: ir.Type) -> bool:
    return str(scalar_of(t)) in ("float", "double")


def lower_rcp(cx: FnContext, op: Op) -> None:
    (x,) = _inputs(cx, op)
    one = like(x.type, 1.0)
    if _is_gross_f64(cx, op, x):
        result = _gross_f64(cx, x, lambda high: cx.builder.fdiv(one, high))
    elif cx.attr(op, "rnd") == "approx" and str(x.type) == "float":
        # PTX allows 1 ulp; !fpmath 1.0 lets LLVM use v_rcp_f32, scaling subnormal inputs itself.
        result = cx.builder.fdiv(one, x)
        result.set_metadata("fpmath", cx.mod.module.add_metadata([ir.Constant(FLOAT, 1.0)]))
    elif _rnd(cx, op) != "rn":
        result = _directed_op(cx, op, "div", [one, x])
    elif _exact_division_type(x.type):
        result = divide(cx, one, x)
    else:
        result = cx.builder.fdiv(one, x)
    _finish(cx, op, result)


def _scaled_denormal(cx: FnContext, x: ir.Value, intrinsic: str, result_scale: float) -> ir.Value:
    """``intrinsic`` (v_sqrt_f32 / v_rsq_f32) of an f32 ``x`` whose subnormal inputs are first scaled
    by 2^32 into the normal range, the result then scaled back by ``result_scale`` (2^-16 / 2^16).
    Both instructions flush subnormal inputs to zero ("1ULP accuracy, denormals are flushed", CDNA3
    ISA VOP1 notes) whatever MODE says, while PTX's sqrt/rsqrt.approx.f32 without .ftz take them;
    the scalings are exact, so the instruction's 1 ULP is all the error there is."""
    b = cx.builder
    tiny = b.fcmp_ordered("<", fabs(cx, x), like(x.type, 2.0**-126))
    scaled = b.select(tiny, b.fmul(x, like(x.type, 2.0**32)), x)
    root = cx.call(intrinsic, x.type, [scaled])
    return b.fmul(root, b.select(tiny, like(x.type, result_scale), like(x.type, 1.0)))


def lower_sqrt(cx: FnContext, op: Op) -> None:
    (x,) = _inputs(cx, op)
    if cx.attr(op, "rnd") == "approx" and str(x.type) == "float":
        result = _scaled_denormal(cx, x, "llvm.amdgcn.sqrt.f32", 2.0**-16)
    elif _rnd(cx, op) != "rn":
        result = _directed_op(cx, op, "sqrt", [x])
    else:
        result = cx.call(f"llvm.sqrt.{suffix(x.type)}", x.type, [x])
    _finish(cx, op, result)


def lower_rsqrt(cx: FnContext, op: Op) -> None:
    (x,) = _inputs(cx, op)
    if str(x.type) == "float":
        result = _scaled_denormal(cx, x, "llvm.amdgcn.rsq.f32", 2.0**16)
    elif _is_gross_f64(cx, op, x):
        result = _gross_f64(cx, x, lambda high: cx.builder.fdiv(
            like(x.type, 1.0), cx.call("llvm.sqrt.f64", x.type, [high])))
    else:
        root = cx.call(f"llvm.sqrt.{suffix(x.type)}", x.type, [x])
        result = cx.builder.fdiv(like(x.type, 1.0), root)
    _finish(cx, op, result)


_LOW_WORD = 0xFFFFFFFF
_GROSS_NAN = 0x7FFFFFFF00000000


def _is_gross_f64(cx: FnContext, op: Op, x: ir.Value) -> bool:
    return str(x.type) == "double" and cx.attr(op, "rnd") == "approx" and cx.flag(op, "ftz")


def _gross_f64(cx: FnContext, x: ir.Value, fn: Callable[[ir.Value], ir.Value]) -> ir.Value:
    """rcp/rsqrt.approx.ftz.f64 (PTX ISA 9.7.3.14/17): computed from a[63:32] only, d[31:0] = 0,
    and "Input NaNs map to a canonical NaN with encoding 0x7fffffff00000000" (NaN in the upper word:
    0x7ff0000000000001 reads as +inf). ``fn`` of the
    truncated input is within 2^-52 relative; clearing the low word adds less than 2^-20 (the
    manual's "20 mantissa bits"). A NaN made from a number keeps its (zero) low word."""
    b = cx.builder
    high_mask = ir.Constant(I64, ~_LOW_WORD & (2**64 - 1))
    high = b.bitcast(b.and_(b.bitcast(x, I64), high_mask), x.type)
    result = b.bitcast(b.and_(b.bitcast(fn(high), I64), high_mask), x.type)
    return b.select(b.fcmp_unordered("uno", high, high), constant(x.type, _GROSS_NAN), result)


def _in_f32(cx: FnContext, x: ir.Value, fn: Callable[[ir.Value], ir.Value]) -> ir.Value:
    """``fn`` applied in f32 (f16/bf16 inputs widened, the result narrowed once)."""
    b = cx.builder
    if str(scalar_of(x.type)) == "float":
        return fn(x)
    wide_t = ir.VectorType(FLOAT, x.type.count) if isinstance(x.type, ir.VectorType) else FLOAT
    return b.fptrunc(fn(b.fpext(x, wide_t)), x.type)


def _intrinsic(cx: FnContext, fn: str) -> Callable[[ir.Value], ir.Value]:
    return lambda x: cx.call(f"llvm.{fn}.{suffix(x.type)}", x.type, [x])


def _exp2_by_parts(cx: FnContext, x: ir.Value) -> ir.Value:
    """2^x (f32 or f32 vector) as ldexp(2^f, n) with n = rint(x) and f = x - n (exact, |f| <= 1/2):
    an integer x gives exactly 2^x, since v_exp_f32(0) = 1 is one of the guide's fixed values,
    whereas v_exp_f32 of a nonzero integer is only documented within 1 ULP. NVIDIA's ex2.approx is
    exact there and CUDA's libdevice builds 2^n with it (nvcc's double tanh/erf: ``cvt.rni.f32.f32``
    then ``ex2.approx.ftz.f32``). Error otherwise: v_exp_f32's 1 ULP plus the rounding of a subnormal
    ldexp, inside PTX's 2 ULP. Infinite x skip the split (inf - inf); the saturating conversion
    keeps n defined for them and for NaN."""
    b = cx.builder
    t = x.type
    n = cx.call(f"llvm.rint.{suffix(t)}", t, [x])
    finite = b.fcmp_ordered("!=", fabs(cx, x), like(t, float("inf")))
    fraction = b.select(finite, b.fsub(x, n), x)
    vector = isinstance(t, ir.VectorType)
    it, int_suffix = (ir.VectorType(I32, t.count), f"v{t.count}i32") if vector else (I32, "i32")
    exponent = cx.call(f"llvm.fptosi.sat.{int_suffix}.{suffix(t)}", it, [n])
    part = cx.call(f"llvm.exp2.{suffix(t)}", t, [fraction])
    return cx.call(f"llvm.ldexp.{suffix(t)}.{int_suffix}", t, [part, exponent])


def _approx(fn: str) -> Lowering:
    def lower(cx: FnContext, op: Op) -> None:
        (x,) = _inputs(cx, op)
        if str(scalar_of(x.type)) == "double":
            raise cx.unsupported(f"{op.name}.f64", "PTX defines this approximation for f32 and f16 only")
        wide_fn = (lambda w: _exp2_by_parts(cx, w)) if fn == "exp2" else _intrinsic(cx, fn)
        _finish(cx, op, _in_f32(cx, x, wide_fn))
    return lower


def lower_tanh(cx: FnContext, op: Op) -> None:
    (x,) = _inputs(cx, op)
    _finish(cx, op, _tanh(cx, x))


def _tanh(cx: FnContext, x: ir.Value) -> ir.Value:
    """tanh(x) = 1 − 2/(e^{2|x|} + 1) with the sign of x; a short odd series below |x| < 1/16
    (relative error < 2^-28 there); PTX's tanh.approx.f32 bound is 2^-10.987 relative. f16/bf16
    (and their pairs) are computed in f32 and rounded once."""
    b = cx.builder
    narrow = x.type
    if str(scalar_of(narrow)) != "float":
        wide_t = ir.VectorType(FLOAT, narrow.count) if isinstance(narrow, ir.VectorType) else FLOAT
        x = b.fpext(x, wide_t)
    t = x.type
    c = lambda v: like(t, v)  # noqa: E731
    ax = fabs(cx, x)
    e2x = cx.call(f"llvm.exp2.{suffix(t)}", t, [b.fmul(ax, c(2.8853900817779268))])  # 2*log2(e)
    big = b.fsub(c(1.0), b.fdiv(c(2.0), b.fadd(e2x, c(1.0))))
    x2 = b.fmul(x, x)
    series = b.fmul(x, b.fadd(c(1.0), b.fmul(x2, b.fadd(c(-1.0 / 3.0), b.fmul(x2, c(2.0 / 15.0))))))
    signed_big = cx.call(f"llvm.copysign.{suffix(t)}", t, [big, x])
    result = b.select(b.fcmp_ordered("<", ax, c(0.0625)), series, signed_big)
    return b.fptrunc(result, narrow) if result.type != narrow else result


def float_abs(cx: FnContext, op: Op) -> None:
    (x,) = _inputs(cx, op)
    result = fabs(cx, x)
    if str(x.type) == "double":  # PTX ISA 9.7.3.9: "For abs.f64, NaN input is passed through unchanged"
        result = cx.builder.select(cx.builder.fcmp_unordered("uno", x, x), x, result)
    _finish(cx, op, result)


def float_neg(cx: FnContext, op: Op) -> None:
    (x,) = _inputs(cx, op)
    _finish(cx, op, cx.builder.fneg(x))


def float_minmax(kind: str) -> Lowering:
    def lower(cx: FnContext, op: Op) -> None:
        a, b_ = _inputs(cx, op)
        xorsign = cx.flag(op, "xorsign")
        x, y = (fabs(cx, a), fabs(cx, b_)) if xorsign else (a, b_)
        name = f"llvm.{kind}imum" if cx.flag(op, "nan") else f"llvm.{kind}imumnum"
        result = canonical_nan(cx, cx.call(f"{name}.{suffix(x.type)}", x.type, [x, y]))
        _finish(cx, op, _xor_signs(cx, result, a, b_) if xorsign else result)
    return lower


def _xor_signs(cx: FnContext, magnitude: ir.Value, a: ir.Value, b_: ir.Value) -> ir.Value:
    """.xorsign.abs: the (non-negative) ``magnitude`` with the XOR of a's and b's signs; a NaN
    result keeps its canonical bits (PTX ISA 9.7.4.7: "the sign bit of the result is the XOR of
    the sign bits of a and b"; the reference model leaves NaN results alone)."""
    b = cx.builder
    scalar_int = ir.IntType(scalar_bits(scalar_of(magnitude.type)))
    t = magnitude.type
    it = ir.VectorType(scalar_int, t.count) if isinstance(t, ir.VectorType) else scalar_int
    sign_mask = ir.Constant(scalar_int, 1 << (scalar_int.width - 1))
    mask = ir.Constant(it, [sign_mask] * t.count) if isinstance(t, ir.VectorType) else sign_mask
    signs = b.and_(b.xor(b.bitcast(a, it), b.bitcast(b_, it)), mask)
    signed = b.bitcast(b.or_(b.bitcast(magnitude, it), signs), t)
    return b.select(b.fcmp_unordered("uno", magnitude, magnitude), magnitude, signed)


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
