"""Value-level helpers shared by the float lowerings: type suffixes, |x|, .ftz, .sat, .relu, NaNs.

Invariant: every helper works on scalar and vector (packed ``x2``) LLVM float values alike and
changes nothing but what its name says: ``flush`` maps subnormals to the zero of their sign,
``saturate`` clamps to [+0, 1] with NaN → +0, ``relu`` clamps to ≥ +0 with NaN → canonical NaN,
``canonical_nan`` replaces any NaN by PTX's canonical NaN (all exponent and fraction bits set, sign
clear), ``per_element`` applies a scalar lowering to each element of a vector.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.float_rounding import fconst
from ptx2gcn.emit.lower_values import constant

_MIN_NORMAL = {"half": 0x0400, "bfloat": 0x0080, "float": 0x00800000, "double": 0x0010000000000000}
_CANONICAL_NAN = {"half": 0x7FFF, "bfloat": 0x7FFF, "float": 0x7FFFFFFF, "double": 0x7FFFFFFFFFFFFFFF}


def suffix(t: ir.Type) -> str:
    """LLVM's overloaded-intrinsic suffix for float type ``t`` (``f32``, ``v2f16`` ...)."""
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{suffix(t.element)}"
    return {"half": "f16", "bfloat": "bf16", "float": "f32", "double": "f64"}[str(t)]


def scalar_of(t: ir.Type) -> ir.Type:
    return t.element if isinstance(t, ir.VectorType) else t


def splat(t: ir.Type, c: ir.Constant) -> ir.Constant:
    """Constant ``c`` (of ``t``'s scalar type) as a value of ``t``."""
    if isinstance(t, ir.VectorType):
        return ir.Constant(t, [c] * t.count)
    return c


def like(t: ir.Type, value: float) -> ir.Constant:
    """Float ``value`` as a constant of type ``t`` (scalar or vector)."""
    return splat(t, fconst(scalar_of(t), value))


def fabs(cx: FnContext, x: ir.Value) -> ir.Value:
    return cx.call(f"llvm.fabs.{suffix(x.type)}", x.type, [x])


def copysign(cx: FnContext, magnitude: ir.Value, sign: ir.Value) -> ir.Value:
    return cx.call(f"llvm.copysign.{suffix(magnitude.type)}", magnitude.type, [magnitude, sign])


def flush(cx: FnContext, x: ir.Value) -> ir.Value:
    """Subnormal ``x`` → zero of the same sign (``.ftz``); other values unchanged."""
    b = cx.builder
    scalar = scalar_of(x.type)
    tiny = b.fcmp_ordered("<", fabs(cx, x), splat(x.type, constant(scalar, _MIN_NORMAL[str(scalar)])))
    return b.select(tiny, copysign(cx, like(x.type, 0.0), x), x)


def saturate(cx: FnContext, x: ir.Value) -> ir.Value:
    """Clamp to [+0, 1]; NaN and −0 give +0 (PTX ``.sat``)."""
    b = cx.builder
    one, zero = like(x.type, 1.0), like(x.type, 0.0)
    clamped = b.select(b.fcmp_ordered(">", x, one), one, x)
    return b.select(b.fcmp_ordered(">", x, zero), clamped, zero)


def relu(cx: FnContext, x: ir.Value) -> ir.Value:
    """max(x, +0), NaN → the canonical NaN (PTX ``.relu``)."""
    b = cx.builder
    zero = like(x.type, 0.0)
    return canonical_nan(cx, b.select(b.fcmp_ordered("<=", x, zero), zero, x))


def canonical_nan(cx: FnContext, x: ir.Value) -> ir.Value:
    """NaN results as PTX's canonical NaN (all exponent and fraction bits set, sign clear)."""
    b = cx.builder
    scalar = scalar_of(x.type)
    nan = splat(x.type, constant(scalar, _CANONICAL_NAN[str(scalar)]))
    return b.select(b.fcmp_unordered("uno", x, x), nan, x)


def per_element(cx: FnContext, fn: Callable[..., ir.Value], *xs: ir.Value) -> ir.Value:
    """``fn`` applied to each element of vector operands ``xs`` (or once to scalars)."""
    t = xs[0].type
    if not isinstance(t, ir.VectorType):
        return fn(*xs)
    b = cx.builder
    out: ir.Value | None = None
    for i in range(t.count):
        index = ir.Constant(ir.IntType(32), i)
        element = fn(*[b.extract_element(x, index) for x in xs])
        if out is None:
            out = ir.Constant(ir.VectorType(element.type, t.count), ir.Undefined)
        out = b.insert_element(out, element, index)
    assert out is not None
    return out
