"""Lowering of ``cvt`` between every pair of PTX scalar types (PTX ISA 9.7.9.21).

Invariant: int → int resizes by the *source* signedness and, with ``.sat``, clamps to the
destination range; float → int rounds with ``.rni/.rzi/.rmi/.rpi`` then converts saturating
(NaN → 0, as PTX requires); int → float and float → narrower float round to nearest by default
and exactly toward zero/−∞/+∞ with ``.rz/.rm/.rp`` (``ptx2gcn.emit.float_rounding``);
float → same float with an integer rounding mode rounds to an integral value; ``.ftz`` flushes
f32 subnormal inputs/results, ``.sat`` clamps float results to [0, 1], ``.relu`` clamps negative
results to +0. FP8/TF32 formats and ``.satfinite`` are reported unsupported.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.float_rounding import directed, fconst
from ptx2gcn.emit.llvm_types import DOUBLE, FLOAT, llvm_type, scalar_bits
from ptx2gcn.emit.lower_float_values import flush, relu, saturate, suffix
from ptx2gcn.ir.core import Op
from ptx2gcn.ir.types import is_float_name, is_signed

_FLOAT_NAMES = ("f16", "bf16", "f32", "f64")
_INT_ROUND = {"rni": "roundeven", "rzi": "trunc", "rmi": "floor", "rpi": "ceil"}
_UNSUPPORTED = ("e4m3x2", "e5m2x2", "tf32", "f16x2", "bf16x2", "b128")


def _int_range(name: str) -> tuple[int, int]:
    width = int(name[1:])
    return (-(1 << (width - 1)), (1 << (width - 1)) - 1) if is_signed(name) else (0, (1 << width) - 1)


def _int_to_int(cx: FnContext, op: Op, value: ir.Value, stype: str, dtype: str) -> ir.Value:
    b = cx.builder
    to = llvm_type(op.result.type)
    assert isinstance(to, ir.IntType) and isinstance(value.type, ir.IntType)
    src_signed = is_signed(stype)
    if not cx.flag(op, "sat") or dtype.startswith("b"):
        if value.type.width == to.width:
            return value
        if value.type.width > to.width:
            return b.trunc(value, to)
        return b.sext(value, to) if src_signed else b.zext(value, to)
    wide = ir.IntType(128)
    x = b.sext(value, wide) if src_signed else b.zext(value, wide)
    low, high = _int_range(dtype)
    x = b.select(b.icmp_signed("<", x, ir.Constant(wide, low)), ir.Constant(wide, low), x)
    x = b.select(b.icmp_signed(">", x, ir.Constant(wide, high)), ir.Constant(wide, high), x)
    return b.trunc(x, to)


def _float_to_int(cx: FnContext, op: Op, value: ir.Value, dtype: str) -> ir.Value:
    b = cx.builder
    if str(value.type) in ("half", "bfloat"):
        value = b.fpext(value, FLOAT)
    rounding = _INT_ROUND.get(cx.attr(op, "rnd", "rzi"), "trunc")
    rounded = cx.call(f"llvm.{rounding}.{suffix(value.type)}", value.type, [value])
    to = llvm_type(op.result.type)
    assert isinstance(to, ir.IntType)
    kind = "fptosi" if is_signed(dtype) else "fptoui"
    result = cx.call(f"llvm.{kind}.sat.{to}.{suffix(value.type)}", to, [rounded])
    if str(value.type) == "double" or to.width == 64:
        # PTX cvt, integer notes: NaN gives 0, "otherwise 1 << (BitWidth(dst) - 1)" from .f64
        # sources or into 64-bit destinations.
        is_nan = b.fcmp_unordered("uno", value, value)
        result = b.select(is_nan, ir.Constant(to, 1 << (to.width - 1)), result)
    return result


def _exact_int(cx: FnContext, value: ir.Value, signed: bool) -> tuple[ir.Value, ir.Value]:
    """(s, e): the integer as f64 rounded to nearest, and a value with the sign of (exact − s)."""
    b = cx.builder
    to_fp = b.sitofp if signed else b.uitofp
    s = to_fp(value, DOUBLE)
    if value.type.width <= 32:
        return s, fconst(DOUBLE, 0.0)
    # s may have rounded up to 2^63 (2^64 unsigned), outside the integer range: then exact < s.
    limit = fconst(DOUBLE, 2.0 ** (value.type.width - 1 if signed else value.type.width))
    at_limit = b.fcmp_ordered(">=", s, limit)
    in_range = b.select(at_limit, fconst(DOUBLE, 0.0), s)
    back = b.fptosi(in_range, value.type) if signed else b.fptoui(in_range, value.type)
    compare = b.icmp_signed if signed else b.icmp_unsigned
    above, below = compare(">", value, back), compare("<", value, back)
    one, minus_one, zero = fconst(DOUBLE, 1.0), fconst(DOUBLE, -1.0), fconst(DOUBLE, 0.0)
    e = b.select(at_limit, minus_one, b.select(above, one, b.select(below, minus_one, zero)))
    return s, e


def _int_to_float(cx: FnContext, op: Op, value: ir.Value, stype: str) -> ir.Value:
    b = cx.builder
    to = llvm_type(op.result.type)
    mode = cx.attr(op, "rnd", "rn")
    signed = is_signed(stype)
    if mode in ("", "rn"):
        return b.sitofp(value, to) if signed else b.uitofp(value, to)
    if str(to) == "bfloat":
        raise cx.unsupported(f"cvt.{mode}.bf16.{stype}", "directed rounding to bf16 is not lowered yet")
    s, e = _exact_int(cx, value, signed)
    return directed(cx, mode, to, s, e)


def _float_to_float(cx: FnContext, op: Op, value: ir.Value, stype: str, dtype: str) -> ir.Value:
    b = cx.builder
    to = llvm_type(op.result.type)
    mode = cx.attr(op, "rnd", "rn")
    if stype == dtype:
        if mode in _INT_ROUND:
            return cx.call(f"llvm.{_INT_ROUND[mode]}.{suffix(value.type)}", value.type, [value])
        return value
    if scalar_bits(to) > scalar_bits(value.type):
        if str(to) == "bfloat" or str(value.type) == "bfloat" and str(to) == "half":
            raise cx.unsupported(f"cvt.{dtype}.{stype}", "this conversion is not lowered yet")
        return b.fpext(value, to)
    if str(to) == "bfloat" and str(value.type) == "double":
        raise cx.unsupported(f"cvt.bf16.f64", "f64 → bf16 needs a single rounding; not lowered yet")
    if mode in ("", "rn"):
        return b.fptrunc(value, to)
    return directed(cx, mode, to, value, fconst(value.type, 0.0))


def lower_cvt(cx: FnContext, op: Op) -> None:
    stype, dtype = cx.attr(op, "stype"), cx.attr(op, "dtype")
    if stype in _UNSUPPORTED or dtype in _UNSUPPORTED:
        raise cx.unsupported(f"cvt.{dtype}.{stype}", "FP8, TF32 and packed conversions are not lowered yet")
    if cx.flag(op, "satfinite"):
        raise cx.unsupported(f"cvt.satfinite.{dtype}.{stype}", ".satfinite is not lowered yet")
    value = cx.operand(op, 0)
    if cx.flag(op, "ftz") and stype == "f32":
        value = flush(cx, value)
    src_float, dst_float = is_float_name(stype), is_float_name(dtype)
    if not src_float and not dst_float:
        result = _int_to_int(cx, op, value, stype, dtype)
    elif src_float and not dst_float:
        result = _float_to_int(cx, op, value, dtype)
    elif not src_float:
        result = _int_to_float(cx, op, value, stype)
    else:
        result = _float_to_float(cx, op, value, stype, dtype)
    if dst_float:
        if cx.flag(op, "ftz") and dtype == "f32":
            result = flush(cx, result)
        if cx.flag(op, "sat"):
            result = saturate(cx, result)
        if cx.flag(op, "relu"):
            result = relu(cx, result)
    cx.define(op, result)


LOWERINGS: dict[str, Lowering] = {"cvt": lower_cvt}
