"""Lowering of ``cvt`` between every pair of PTX scalar types (PTX ISA 9.7.9.21).

Invariant: int → int resizes by the *source* signedness and, with ``.sat``, clamps to the
destination range; float → int rounds with ``.rni/.rzi/.rmi/.rpi`` then converts saturating
(NaN → 0, as PTX requires); int → float and float → narrower float round to nearest by default
and exactly toward zero/−∞/+∞ with ``.rz/.rm/.rp`` (``ptx2gcn.emit.float_rounding``);
float → same float with an integer rounding mode rounds to an integral value; ``.ftz`` flushes
f32 subnormal inputs/results, ``.sat`` clamps float results to [0, 1], ``.relu`` clamps negative
results to +0, ``.satfinite`` turns ±inf results into the largest finite value of their sign.
Every conversion into bf16 rounds once (LLVM's go through f32: two roundings for f64 and wide
integers), see ``ptx2gcn.emit.lower_float_bf16``; f32 → tf32 rounds on the bit pattern; FP8 (e4m3,
e5m2) in both directions is ``ptx2gcn.emit.lower_float_fp8``. FP6, FP4, ue8m0 and the remaining
packed conversions are reported unsupported with the form's name.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.float_rounding import directed, fconst, is_inf
from ptx2gcn.emit.llvm_types import BFLOAT, DOUBLE, FLOAT, I32, llvm_type, scalar_bits
from ptx2gcn.emit.lower_float_bf16 import bf16_from_parts
from ptx2gcn.emit.lower_float_values import copysign, flush, relu, saturate, suffix
from ptx2gcn.emit.lower_values import constant
from ptx2gcn.ir.core import Op
from ptx2gcn.ir.types import is_float_name, is_signed

_FLOAT_NAMES = ("f16", "bf16", "f32", "f64")
_INT_ROUND = {"rni": "roundeven", "rzi": "trunc", "rmi": "floor", "rpi": "ceil"}
_UNSUPPORTED = ("e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2", "e2m1x2", "ue8m0x2", "tf32", "f16x2", "bf16x2",
                "b128")


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
    if str(to) == "bfloat":  # LLVM converts through f32: two roundings for wide integers
        s, e = _exact_int(cx, value, signed)
        return _to_bf16(cx, mode, s, e)
    if mode in ("", "rn"):
        return b.sitofp(value, to) if signed else b.uitofp(value, to)
    s, e = _exact_int(cx, value, signed)
    return directed(cx, mode, to, s, e)


def _to_bf16(cx: FnContext, mode: str, s: ir.Value, e: ir.Value) -> ir.Value:
    """The exact value ``s + e`` (f64, or f32 with e = 0) rounded once to bf16 in ``mode``."""
    if mode in ("", "rn"):
        if str(s.type) == "float":
            return cx.builder.fptrunc(s, BFLOAT)
        return bf16_from_parts(cx, s, e)
    return directed(cx, mode, BFLOAT, s, e)


def _float_to_float(cx: FnContext, op: Op, value: ir.Value, stype: str, dtype: str) -> ir.Value:
    b = cx.builder
    to = llvm_type(op.result.type)
    mode = cx.attr(op, "rnd", "rn")
    if stype == dtype:
        if mode in _INT_ROUND:
            return cx.call(f"llvm.{_INT_ROUND[mode]}.{suffix(value.type)}", value.type, [value])
        return value
    if "bfloat" in (str(to), str(value.type)) and str(value.type) in ("half", "bfloat"):
        value = b.fpext(value, FLOAT)  # f16 <-> bf16 through f32, which holds both exactly
    if value.type == to:
        return value
    if scalar_bits(to) > scalar_bits(value.type):
        return b.fpext(value, to)
    if str(to) == "bfloat":
        return _to_bf16(cx, mode, value, fconst(value.type, 0.0))
    if mode in ("", "rn"):
        return b.fptrunc(value, to)
    return directed(cx, mode, to, value, fconst(value.type, 0.0))


def _satfinite(cx: FnContext, x: ir.Value) -> ir.Value:
    """.satfinite: ±inf (overflow or an infinite source) → the largest finite value of that sign;
    NaN stays NaN."""
    largest = {"half": 0x7BFF, "bfloat": 0x7F7F, "float": 0x7F7FFFFF}[str(x.type)]
    return cx.builder.select(is_inf(cx, x), copysign(cx, constant(x.type, largest), x), x)


def _to_tf32(cx: FnContext, op: Op, value: ir.Value) -> ir.Value:
    """cvt.rna/.rn/.rz{.satfinite}.tf32.f32: the f32 layout with the 13 low bits zero, rounded on
    the bit pattern (ties away for .rna, to even for .rn; a carry into the exponent is the next
    binade or infinity, as it should be); NaN → the canonical f32 NaN."""
    b = cx.builder
    mode = cx.attr(op, "rnd", "rn")
    if mode not in ("rna", "rn", "rz"):
        raise cx.unsupported(f"cvt.{mode}.tf32.f32", "tf32 is converted with .rna, .rn or .rz only")
    bits = b.bitcast(value, I32)
    if mode == "rna":
        bits = b.add(bits, ir.Constant(I32, 0x1000))
    elif mode == "rn":
        odd = b.and_(b.lshr(bits, ir.Constant(I32, 13)), ir.Constant(I32, 1))
        bits = b.add(bits, b.add(ir.Constant(I32, 0xFFF), odd))
    rounded = b.bitcast(b.and_(bits, ir.Constant(I32, 0xFFFFE000)), FLOAT)
    if cx.flag(op, "satfinite"):
        limit = constant(FLOAT, 0x7F7FE000)
        rounded = b.select(is_inf(cx, rounded), copysign(cx, limit, rounded), rounded)
    nan = b.fcmp_unordered("uno", value, value)
    return b.select(nan, constant(FLOAT, 0x7FFFFFFF), rounded)


def _fp8(cx: FnContext, op: Op, stype: str, dtype: str) -> ir.Value | None:
    if dtype.startswith(("e4m3", "e5m2")) and not cx.flag(op, "satfinite"):
        raise Ptx2GcnError.at(op.loc, f"'cvt' to .{dtype} requires modifier '.satfinite'")
    if dtype.startswith(("e4m3", "e5m2")) and cx.attr(op, "rnd", "rn") != "rn":
        raise Ptx2GcnError.at(op.loc, f"'cvt' to .{dtype} rounds with '.rn' only")
    from ptx2gcn.emit.lower_float_fp8 import lower_fp8_cvt  # imported by the few kernels that use fp8

    return lower_fp8_cvt(cx, stype, dtype, cx.operand(op, 0), cx.flag(op, "relu"))


def lower_cvt(cx: FnContext, op: Op) -> None:  # noqa: C901
    stype, dtype = cx.attr(op, "stype"), cx.attr(op, "dtype")
    if dtype == "tf32" and stype == "f32":
        cx.define(op, _to_tf32(cx, op, cx.operand(op, 0)))
        return
    fp8 = _fp8(cx, op, stype, dtype)
    if fp8 is not None:
        cx.define(op, fp8)
        return
    if stype in _UNSUPPORTED or dtype in _UNSUPPORTED:
        raise cx.unsupported(f"cvt.{dtype}.{stype}",
                             "FP6, FP4, ue8m0 and this packed conversion are not lowered yet")
    if cx.flag(op, "satfinite") and not (is_float_name(stype) and dtype in ("f16", "bf16")):
        raise cx.unsupported(f"cvt.satfinite.{dtype}.{stype}",
                             ".satfinite is lowered for f16, bf16, tf32 and FP8 results only")
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
        if cx.flag(op, "satfinite"):
            result = _satfinite(cx, result)
        if cx.flag(op, "sat"):
            result = saturate(cx, result)
        if cx.flag(op, "relu"):
            result = relu(cx, result)
    cx.define(op, result)


LOWERINGS: dict[str, Lowering] = {"cvt": lower_cvt}
