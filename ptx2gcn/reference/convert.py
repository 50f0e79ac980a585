"""Conversions: ``cvt`` between every integer and floating-point type pair (including f16, bf16,
tf32, e4m3, e5m2 and the packed x2 forms) and ``cvt.pack``.

Invariant: a conversion is "exact value of the source, then one rounding into the destination"
(PTX ISA 9.7.9.21 cvt), with these manual rules layered on top:
- float -> int needs ``.rni .rzi .rmi .rpi`` and always saturates to the destination range ("for
  float-to-integer conversions, the result is clamped to the destination range by default"); NaN
  becomes 0, except from .f64 or into a 64-bit type, where it becomes ``1 << (width - 1)``;
  int -> float and narrowing float -> float need ``.rn .rz .rm .rp`` (tf32 also ``.rna``).
- float -> float with ``.rni`` etc. (same type) rounds to an integral value, keeping the sign of zero.
- int -> int without ``.sat`` sign/zero-extends by the source type then keeps the destination's
  low bits; ``.sat`` clamps the exact source value.
- ``.ftz`` flushes an f32 source before and an f32 destination after rounding; ``.sat`` on a float
  destination clamps to [+0.0, 1.0] with NaN -> +0.0; ``.relu`` makes negative results +0 and NaN
  the canonical NaN; ``.satfinite`` turns overflow (and infinite inputs) into the largest finite
  value of the same sign and keeps NaN a NaN.
- Packed results: for ``cvt.*.f16x2.f32 d, a, b`` (and bf16x2, e4m3x2, e5m2x2) ``a`` lands in the
  upper half; ``e4m3x2/e5m2x2 -> f16x2`` keeps element order.
- ``cvt.pack`` (9.7.9.22): n-bit saturated fields ``d = c << 2n | sat(a) << n | sat(b)``.
- fp8 destinations require ``.satfinite``; fp4/fp6/ue8m0/s2f6 formats and ``.rs`` are not modelled.
Other NaN results are NaNs of unspecified payload (e.g. "for cvt.f32.bf16, NaN input yields
unspecified NaN").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

from ptx2gcn.reference import fparith
from ptx2gcn.reference.errors import ReferenceInputError
from ptx2gcn.reference.floatformat import F32, TF32, FloatFormat, FpClass, float_format
from ptx2gcn.reference.floats import join_elements, relu
from ptx2gcn.reference.ptxtypes import PtxType, ptx_type, saturate, split, value_of, wrap
from ptx2gcn.reference.result import Result
from ptx2gcn.reference.rounding import INTEGER_ROUNDING, round_fraction, round_to_integer
from ptx2gcn.reference.spelling import AnyNaN, Either, LaneValue, Spelling, run_lanes

Handler = Callable[[Spelling, Sequence[object]], Result]
FLOAT_ROUNDING = ("rn", "rz", "rm", "rp", "rna")
CVT_TYPES = ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f16", "bf16", "f32", "f64",
             "tf32", "e4m3", "e5m2", "f16x2", "bf16x2", "e4m3x2", "e5m2x2")
PACKED_PAIRS = {("f16x2", "f32"), ("bf16x2", "f32"), ("e4m3x2", "f32"), ("e5m2x2", "f32"),
                ("e4m3x2", "f16x2"), ("e5m2x2", "f16x2"), ("e4m3x2", "bf16x2"), ("e5m2x2", "bf16x2"),
                ("f16x2", "e4m3x2"), ("f16x2", "e5m2x2")}
"""(destination, source) pairs of the packed cvt forms (PTX ISA 9.7.9.21)."""


class Options:
    """The modifiers of one ``cvt`` that shape a single element conversion."""

    def __init__(self, sp: Spelling) -> None:
        irnd = [m for m in sp.modifiers if m in INTEGER_ROUNDING]
        self.integral = INTEGER_ROUNDING[irnd[0]] if irnd else None
        frnd = [m for m in sp.modifiers if m in FLOAT_ROUNDING]
        self.mode = frnd[0] if frnd else None
        if len(irnd) + len(frnd) > 1:
            raise ReferenceInputError(f"{sp.text}: more than one rounding modifier")
        self.ftz, self.sat = sp.has("ftz"), sp.has("sat")
        self.relu, self.satfinite = sp.has("relu"), sp.has("satfinite")
        self.text = sp.text


def _float_exact(fmt: FloatFormat, bits: int) -> Fraction:
    return fmt.exact(bits)


def to_int(opts: Options, src: FloatFormat, dst: PtxType, bits: int) -> LaneValue:
    if opts.integral is None:
        raise ReferenceInputError(f"{opts.text}: float-to-integer needs .rni/.rzi/.rmi/.rpi")
    if opts.ftz and src is F32:
        bits = src.flush_subnormal(bits)
    cls = src.classify(bits)
    if cls is FpClass.NAN:
        # "Zero if source is not .f64 and destination is not .s64, .u64. Otherwise
        # 1 << (BitWidth(dst) - 1)" (9.7.9.21 cvt, Integer Notes).
        return 1 << (dst.width - 1) if src.width == 64 or dst.width == 64 else 0
    if cls is FpClass.INF:
        return saturate(-(1 << 200) if src.is_negative(bits) else 1 << 200, dst.width, dst.signed)
    return saturate(round_to_integer(_float_exact(src, bits), opts.integral), dst.width, dst.signed)


def from_int(opts: Options, src: PtxType, dst: FloatFormat, bits: int) -> LaneValue:
    if opts.mode is None or opts.mode == "rna":
        raise ReferenceInputError(f"{opts.text}: integer-to-float needs .rn/.rz/.rm/.rp")
    result = round_fraction(dst, Fraction(value_of(bits, src)), opts.mode)
    return fparith.finish(dst, result, opts.ftz and dst is F32, opts.sat)


def _exactly_representable(src: FloatFormat, dst: FloatFormat) -> bool:
    return (dst.man_bits >= src.man_bits and dst.exp_bits >= src.exp_bits
            and (dst.has_inf or not src.has_inf))


def float_to_float(opts: Options, src: FloatFormat, dst: FloatFormat, bits: int) -> LaneValue:
    if opts.ftz and src is F32:
        bits = src.flush_subnormal(bits)
    cls = src.classify(bits)
    negative = src.is_negative(bits)
    if cls is FpClass.NAN:
        result: fparith.FloatResult = AnyNaN(dst.canonical_nan)
    elif cls is FpClass.INF:
        result = (dst.with_sign(dst.max_finite, negative) if opts.satfinite or not dst.has_inf
                  else dst.infinity(negative))
    else:
        result = _round_finite(opts, src, dst, bits)
    if opts.relu:
        return relu(dst, result)
    return fparith.finish(dst, result, opts.ftz and dst is F32, opts.sat)


def _round_finite(opts: Options, src: FloatFormat, dst: FloatFormat, bits: int) -> int:
    value = _float_exact(src, bits)
    negative = src.is_negative(bits)
    if opts.integral is not None:
        if src != dst:
            raise ReferenceInputError(f"{opts.text}: integral rounding needs equal types")
        return round_fraction(dst, Fraction(round_to_integer(value, opts.integral)), "rn", negative)
    if opts.mode is None:
        if not _exactly_representable(src, dst):
            raise ReferenceInputError(f"{opts.text}: a narrowing conversion needs a rounding modifier")
        mode = "rn"
    else:
        mode = opts.mode
    rounded = round_fraction(dst, value, mode, negative)
    if opts.satfinite and (dst.is_inf(rounded) or dst.is_nan(rounded)):
        return dst.with_sign(dst.max_finite, negative)
    return rounded


def _tf32(opts: Options, bits: int) -> LaneValue:
    """tf32 lives in a 32-bit register in the f32 layout with the 13 low bits zero."""
    if opts.mode not in ("rna", "rn", "rz"):
        raise ReferenceInputError(f"{opts.text}: .tf32 needs .rna, .rn or .rz")
    result = float_to_float(opts, F32, TF32, bits)
    if isinstance(result, AnyNaN):
        return AnyNaN(F32.canonical_nan)
    assert isinstance(result, int)
    return result << 13


def _element(opts: Options, src: PtxType, dst: PtxType) -> Callable[[int], LaneValue]:
    if dst.name == "tf32":
        if src.name != "f32":
            raise ReferenceInputError(f"{opts.text}: .tf32 converts from .f32 only")
        return lambda a: _tf32(opts, a)
    if src.is_float and dst.is_float:
        s, d = float_format(src.element), float_format(dst.element)
        return lambda a: float_to_float(opts, s, d, a)
    if src.is_float:
        s = float_format(src.element)
        return lambda a: to_int(opts, s, dst, a)
    if dst.is_float:
        d = float_format(dst.element)
        return lambda a: from_int(opts, src, d, a)
    if opts.integral or opts.mode:
        raise ReferenceInputError(f"{opts.text}: integer-to-integer conversions take no rounding")
    if opts.sat:
        return lambda a: saturate(value_of(a, src), dst.width, dst.signed)
    return lambda a: wrap(value_of(a, src), dst.width)


def _float_part(value: LaneValue) -> fparith.FloatResult:
    assert isinstance(value, (int, AnyNaN, Either)) and not isinstance(value, bool)
    return value


def _cvt(sp: Spelling, inputs: Sequence[object]) -> Result:
    sp.require({*INTEGER_ROUNDING, *FLOAT_ROUNDING, "ftz", "sat", "relu", "satfinite"}, CVT_TYPES)
    types = sp.types
    if len(types) != 2:
        raise ReferenceInputError(f"{sp.text}: needs .dtype and .atype")
    dst, src = types
    opts = Options(sp)
    if (dst.lanes > 1 or src.lanes > 1) and (dst.name, src.name) not in PACKED_PAIRS:
        raise ReferenceInputError(f"{sp.text}: no packed conversion from .{src.name} to .{dst.name}")
    if dst.element in ("e4m3", "e5m2") and not opts.satfinite:
        raise ReferenceInputError(f"{sp.text}: .satfinite is mandatory for fp8 destinations")
    if dst.lanes == 2 and src.lanes == 1:  # two f32 sources, a -> upper element
        convert = _element(opts, src, ptx_type(dst.element))

        def pair(a: int, b: int) -> LaneValue:
            return join_elements([_float_part(convert(b)), _float_part(convert(a))], dst.element_width)

        return run_lanes(sp, pair, inputs, [src, src], [_register(dst)])
    if src.lanes == 2:  # packed source converts element-wise, order kept
        convert = _element(opts, ptx_type(src.element), ptx_type(dst.element))

        def each(a: int) -> LaneValue:
            return join_elements([_float_part(convert(x)) for x in split(a, src.element_width, 2)],
                                 dst.element_width)

        return run_lanes(sp, each, inputs, [src], [_register(dst)])
    if (src.is_float and dst.is_float and opts.mode is not None and dst.name != "tf32"
            and _exactly_representable(float_format(src.name), float_format(dst.name))):
        raise ReferenceInputError(f"{sp.text}: floating-point rounding is illegal for a conversion "
                                  "that loses no precision")
    convert = _element(opts, src, dst)
    return run_lanes(sp, convert, inputs, [src], [_register(dst)])


def _register(t: PtxType) -> PtxType:
    """The type a destination is reported as: tf32 lives in a .b32 register in the f32 layout, so
    its output is typed .f32 (which also tells the comparison how to recognise a NaN)."""
    return ptx_type("f32") if t.name == "tf32" else t


PACK_WIDTHS = {"u16": 16, "s16": 16, "u8": 8, "s8": 8, "u4": 4, "s4": 4, "u2": 2, "s2": 2}


def _cvt_pack(sp: Spelling, inputs: Sequence[object]) -> Result:
    """9.7.9.22: ``d = c << 2n | sat(a) << n | sat(b)`` (n-bit fields, c only for n < 16)."""
    parts = sp.modifiers
    if len(parts) not in (4, 5) or parts[:2] != ("pack", "sat") or parts[2] not in PACK_WIDTHS \
            or parts[3] != "s32" or parts[4:] not in ((), ("b32",)):
        raise ReferenceInputError(
            f"{sp.text}: expected cvt.pack.sat.{{u16,s16}}.s32 or cvt.pack.sat.{{u8,s8,u4,s4,u2,s2}}.s32.b32")
    size, signed = PACK_WIDTHS[parts[2]], parts[2].startswith("s")
    if (size == 16) != (len(parts) == 4):
        raise ReferenceInputError(f"{sp.text}: .b32 c operand goes with the 8/4/2-bit forms only")
    s32, b32 = ptx_type("s32"), ptx_type("b32")

    def lane(a: int, b: int, c: int = 0) -> LaneValue:
        fields = saturate(value_of(a, s32), size, signed) << size | saturate(value_of(b, s32), size, signed)
        return (c << 2 * size | fields) & 0xFFFFFFFF

    in_types = [s32, s32] if size == 16 else [s32, s32, b32]
    return run_lanes(sp, lane, inputs, in_types, [b32])


def _dispatch(sp: Spelling, inputs: Sequence[object]) -> Result:
    return _cvt_pack(sp, inputs) if sp.has("pack") else _cvt(sp, inputs)


HANDLERS: dict[str, Handler] = {"cvt": _dispatch}
