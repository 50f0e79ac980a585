"""FP8 conversions (PTX ISA 9.7.9.21 cvt, "Floating point 8-bit formats"): f32/f16/bf16 → e4m3 and
e5m2 with ``.satfinite`` (and ``.relu``), and e4m3x2/e5m2x2 → f16x2.

Formats (OCP 8-bit floating point, as PTX defines them): e4m3 has bias 7, 3 fraction bits, no
infinity, NaN = S.1111.111 and largest finite 448; e5m2 has bias 15, 2 fraction bits and IEEE
infinities and NaNs (largest finite 57344). gfx942's own FP8 instructions use the FNUZ variants
(other bias, no −0), so everything here is integer and exact f32 arithmetic.

Invariant: a conversion into FP8 is the source value (widened exactly to f32) rounded once to
nearest even: with q the FP8 quantum at |x| (2^(max(⌊log2|x|⌋, emin) − mantissa bits)), |x|/q is
exact, ``roundeven`` rounds it, and ·q is exact again; ``.satfinite`` maps overflow and ±inf to the
largest finite value of the sign, NaN to the canonical NaN 0x7F, ``.relu`` negative values (−0
included) to +0. FP8 → f16 is exact (every e4m3/e5m2 value is an f16 value). The first element of
a pair sits in the low bits.
"""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.llvm_types import FLOAT, HALF, I8, I16, I32
from ptx2gcn.emit.lower_float_values import fabs
from ptx2gcn.emit.lower_values import constant


@dataclass(frozen=True, slots=True)
class Fp8:
    mantissa: int
    bias: int
    largest: int
    """Bit pattern of the largest finite value (sign clear)."""

    @property
    def emin(self) -> int:
        return 1 - self.bias


FORMATS = {"e4m3": Fp8(3, 7, 0x7E), "e5m2": Fp8(2, 15, 0x7B)}
_NAN = 0x7F


def _pow2(e: int) -> ir.Constant:
    return constant(FLOAT, (e + 127) << 23)


def to_fp8(cx: FnContext, fmt: Fp8, x: ir.Value, relu: bool) -> ir.Value:
    """f32 ``x`` → FP8 bits (i8), round to nearest even, saturating to finite."""
    b = cx.builder
    bits = b.bitcast(x, I32)
    magnitude = fabs(cx, x)
    biased = b.and_(b.lshr(bits, ir.Constant(I32, 23)), ir.Constant(I32, 0xFF))
    exponent = b.sub(biased, ir.Constant(I32, 127))
    low = ir.Constant(I32, fmt.emin)
    clamped = b.select(b.icmp_signed("<", exponent, low), low, exponent)
    quantum_bits = b.shl(b.add(clamped, ir.Constant(I32, 127 - fmt.mantissa)), ir.Constant(I32, 23))
    quantum = b.bitcast(quantum_bits, FLOAT)
    steps = cx.call("llvm.roundeven.f32", FLOAT, [b.fdiv(magnitude, quantum)])  # both exact
    rounded = b.fmul(steps, quantum)
    largest_value = _decode_normal(cx, fmt, ir.Constant(I32, fmt.largest))
    overflow = b.fcmp_ordered(">", rounded, largest_value)  # ±inf sources included
    # encode: normal values from their f32 exponent and top fraction bits, subnormals as steps
    r_bits = b.bitcast(rounded, I32)
    r_exponent = b.sub(b.lshr(r_bits, ir.Constant(I32, 23)), ir.Constant(I32, 127 - fmt.bias))
    fraction = b.and_(b.lshr(r_bits, ir.Constant(I32, 23 - fmt.mantissa)),
                      ir.Constant(I32, (1 << fmt.mantissa) - 1))
    normal = b.or_(b.shl(r_exponent, ir.Constant(I32, fmt.mantissa)), fraction)
    is_subnormal = b.fcmp_ordered("<", rounded, _pow2(fmt.emin))
    subnormal = b.fptoui(b.fmul(rounded, _pow2(fmt.mantissa - fmt.emin)), I32)
    code = b.select(is_subnormal, subnormal, normal)
    code = b.select(overflow, ir.Constant(I32, fmt.largest), code)
    negative = b.icmp_signed("<", bits, ir.Constant(I32, 0))
    signed = b.or_(code, b.select(negative, ir.Constant(I32, 0x80), ir.Constant(I32, 0)))
    if relu:
        signed = b.select(negative, ir.Constant(I32, 0), signed)
    result = b.select(b.fcmp_unordered("uno", x, x), ir.Constant(I32, _NAN), signed)
    return b.trunc(result, I8)


def _decode_normal(cx: FnContext, fmt: Fp8, code: ir.Value) -> ir.Value:
    """The f32 value of a normal (exponent field ≠ 0) FP8 magnitude ``code`` (i32, sign clear)."""
    b = cx.builder
    exponent = b.add(b.lshr(code, ir.Constant(I32, fmt.mantissa)), ir.Constant(I32, 127 - fmt.bias))
    fraction = b.and_(code, ir.Constant(I32, (1 << fmt.mantissa) - 1))
    return b.bitcast(b.or_(b.shl(exponent, ir.Constant(I32, 23)),
                           b.shl(fraction, ir.Constant(I32, 23 - fmt.mantissa))), FLOAT)


def from_fp8(cx: FnContext, fmt: Fp8, byte: ir.Value, relu: bool) -> ir.Value:
    """FP8 bits (i8) → f16, exactly."""
    b = cx.builder
    code = b.zext(byte, I32)
    magnitude_code = b.and_(code, ir.Constant(I32, 0x7F))
    is_subnormal = b.icmp_unsigned("<", magnitude_code, ir.Constant(I32, 1 << fmt.mantissa))
    subnormal = b.fmul(b.uitofp(magnitude_code, FLOAT), _pow2(fmt.emin - fmt.mantissa))
    value = b.fptrunc(b.select(is_subnormal, subnormal, _decode_normal(cx, fmt, magnitude_code)), HALF)
    negative = b.icmp_unsigned("!=", b.and_(code, ir.Constant(I32, 0x80)), ir.Constant(I32, 0))
    half_bits = b.bitcast(value, I16)
    half_bits = b.select(negative, b.or_(half_bits, ir.Constant(I16, 0x8000)), half_bits)
    if fmt.bias == 15:  # e5m2: inf and NaN have the f16 layout's top byte
        special = b.icmp_unsigned(">=", magnitude_code, ir.Constant(I32, 0x7C))
        half_bits = b.select(special, b.shl(b.trunc(code, I16), ir.Constant(I16, 8)), half_bits)
        nan: ir.Value = b.icmp_unsigned(">", magnitude_code, ir.Constant(I32, 0x7C))
    else:
        nan = b.icmp_unsigned("==", magnitude_code, ir.Constant(I32, 0x7F))
    if relu:
        half_bits = b.select(negative, ir.Constant(I16, 0), half_bits)
    half_bits = b.select(nan, ir.Constant(I16, 0x7FFF), half_bits)
    return b.bitcast(half_bits, HALF)


def lower_fp8_cvt(cx: FnContext, stype: str, dtype: str, value: ir.Value, relu: bool) -> ir.Value | None:
    """The FP8 ``cvt`` of ``value`` from ``stype`` to ``dtype``, or None when neither side is FP8."""
    b = cx.builder
    if dtype in FORMATS and stype in ("f32", "f16", "bf16"):
        wide = value if stype == "f32" else b.fpext(value, FLOAT)
        return to_fp8(cx, FORMATS[dtype], wide, relu)
    if dtype.endswith("x2") and dtype[:-2] in FORMATS and stype in ("f16x2", "bf16x2"):
        fmt = FORMATS[dtype[:-2]]
        low, high = (to_fp8(cx, fmt, b.fpext(b.extract_element(value, ir.Constant(I32, i)), FLOAT), relu)
                     for i in range(2))
        return b.or_(b.zext(low, I16), b.shl(b.zext(high, I16), ir.Constant(I16, 8)))
    if stype.endswith("x2") and stype[:-2] in FORMATS and dtype == "f16x2":
        fmt = FORMATS[stype[:-2]]
        bits = b.bitcast(value, I16) if not isinstance(value.type, ir.IntType) else value
        pair = ir.Constant(ir.VectorType(HALF, 2), ir.Undefined)
        for i in range(2):
            byte = b.trunc(b.lshr(bits, ir.Constant(I16, 8 * i)), I8)
            pair = b.insert_element(pair, from_fp8(cx, fmt, byte, relu), ir.Constant(I32, i))
        return pair
    return None
