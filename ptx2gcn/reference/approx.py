"""``.approx`` and ``.full`` instructions: the exact mathematical value plus the manual's error bound,
as an accepted interval instead of one expected bit pattern.

Invariant: special inputs (NaN, infinities, zeros, out-of-domain) have exact expected results; every
other lane carries ``[lo, hi]`` = exact value widened by the stated bound, never narrower than the
two neighbours of the exact value in the format (a result must be representable), and lanes
outside the range the manual guarantees are ``defined == False``. Packed f16x2/bf16x2 forms carry
one interval per element. The exact value comes from Python's ``math``
on float64 (error below 2^-52 relative, far inside every bound here); the interval is widened by a
further 2^-50 relative so that error can never reject a correct result.

Bounds and special values as the manual states them (PTX ISA 9.7.3.8 div, 9.7.3.13 rcp, 9.7.3.14
rcp.approx.ftz.f64, 9.7.3.15 sqrt, 9.7.3.16 rsqrt, 9.7.3.17 rsqrt.approx.ftz.f64, 9.7.3.18 sin,
9.7.3.19 cos, 9.7.3.20 lg2, 9.7.3.21 ex2, 9.7.3.22 tanh, 9.7.4.9 tanh, 9.7.4.10 ex2):
  rcp.approx.f32     1 ulp, full range           div.full.f32    2 ulp, full range
  div.approx.f32     2 ulp for 2^-126 <= |b| <= 2^126; 2^126 < |b| < 2^128 gives 0 (NaN if a is
                     infinite); smaller |b| unspecified
  sqrt.approx.f32    relative 2^-23              rsqrt.approx.f32  relative 2^-22.9
  sin/cos.approx.f32 absolute 2^-20.5 on [-2pi, 2pi], 2^-14.7 on [-100pi, 100pi], no guarantee
                     outside (undefined lanes)
  lg2.approx.f32     absolute 2^-22 for inputs in (0.5, 2), relative 2^-22 elsewhere
  ex2.approx.f32     2 ulp from the correctly rounded result, full range
  tanh.approx.f32    relative 2^-11; subnormal inputs pass through unchanged
  tanh.approx.f16/.bf16  absolute 2^-10.987 / 2^-8;  ex2.approx.f16/.bf16  relative 2^-9.9 / 2^-7
  rcp.approx.ftz.f64 / rsqrt.approx.ftz.f64: computed from the upper 32 bits of ``a`` (1.11.20),
                     the low 32 bits of ``d`` are zero, NaN gives exactly 0x7fffffff00000000; the
                     manual gives no error figure ("gross approximation", 20 mantissa bits): the
                     model assumes relative 2^-19 and says so in the result's notes.
  rsqrt.approx.f64   "emulated in software", no figure: relative 2^-20 assumed (noted).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ptx2gcn.reference.errors import ReferenceInputError
from ptx2gcn.reference.floatformat import FloatFormat, FpClass, float_format
from ptx2gcn.reference.ptxtypes import PtxType, join, split
from ptx2gcn.reference.result import Output, Result, make_output
from ptx2gcn.reference.rounding import round_dyadic
from ptx2gcn.reference.spelling import UNDEFINED, AnyNaN, LaneValue, Spelling, operands

SLACK = 2.0 ** -50


@dataclass(frozen=True, slots=True)
class Bound:
    kind: str  # "ulp", "rel" or "abs"
    amount: float
    note: str = ""


@dataclass(frozen=True, slots=True)
class Interval:
    lo: float
    hi: float
    nearest: int
    """The exact value rounded to nearest, as bits (shown when a comparison fails)."""


Approx = LaneValue | Interval

BOUNDS: dict[tuple[str, str], Bound] = {
    ("rcp", "f32"): Bound("ulp", 1),
    ("div", "f32"): Bound("ulp", 2),
    ("sqrt", "f32"): Bound("rel", 2.0 ** -23),
    ("rsqrt", "f32"): Bound("rel", 2.0 ** -22.9),
    ("lg2", "f32"): Bound("rel", 2.0 ** -22),
    ("ex2", "f32"): Bound("ulp", 2),
    ("tanh", "f32"): Bound("rel", 2.0 ** -11),
    ("sin", "f32"): Bound("abs", 2.0 ** -20.5),
    ("cos", "f32"): Bound("abs", 2.0 ** -20.5),
    ("tanh", "f16"): Bound("abs", 2.0 ** -10.987),
    ("tanh", "bf16"): Bound("abs", 2.0 ** -8),
    ("ex2", "f16"): Bound("rel", 2.0 ** -9.9),
    ("ex2", "bf16"): Bound("rel", 2.0 ** -7),
    ("rcp", "f64"): Bound("rel", 2.0 ** -19, "rcp.approx.ftz.f64: no bound in the manual; 2^-19 assumed"),
    ("rsqrt", "f64"): Bound("rel", 2.0 ** -20, "rsqrt.approx.f64: no bound in the manual; 2^-20 assumed"),
    ("rsqrt", "f64-gross"): Bound("rel", 2.0 ** -19,
                                  "rsqrt.approx.ftz.f64: no bound in the manual; 2^-19 assumed"),
}
GROSS_NAN = 0x7FFFFFFF00000000
"""The NaN rcp/rsqrt.approx.ftz.f64 return for any NaN input (a fixed encoding, per the manual)."""
LOW_WORD = 0xFFFFFFFF

_FUNCTIONS: dict[str, Callable[[float], float]] = {
    "rcp": lambda x: 1.0 / x, "sqrt": math.sqrt, "rsqrt": lambda x: 1.0 / math.sqrt(x),
    "sin": math.sin, "cos": math.cos, "lg2": math.log2, "ex2": lambda x: 2.0 ** x,
    "tanh": math.tanh,
}


def _value(fmt: FloatFormat, bits: int) -> float:
    if fmt.is_nan(bits):
        return math.nan
    if fmt.is_inf(bits):
        return -math.inf if fmt.is_negative(bits) else math.inf
    v = float(fmt.exact(bits))
    return -0.0 if v == 0 and fmt.is_negative(bits) else v


def _bits(fmt: FloatFormat, value: float) -> int:
    if math.isnan(value):
        return fmt.canonical_nan
    if math.isinf(value):
        return fmt.infinity(value < 0)
    if value == 0:
        return fmt.zero(math.copysign(1.0, value) < 0)
    return _round_float(fmt, value, "rn")


def _round_float(fmt: FloatFormat, value: float, mode: str) -> int:
    """A finite float64 rounded into ``fmt`` (its ratio has a power-of-two denominator, so the
    integer path applies)."""
    numerator, denominator = value.as_integer_ratio()
    return round_dyadic(fmt, numerator, 1 - denominator.bit_length(), mode)


def _ulp(fmt: FloatFormat, value: float) -> float:
    exponent = max(math.frexp(abs(value))[1] - 1, fmt.emin)
    return 2.0 ** (exponent - fmt.man_bits)


def interval(fmt: FloatFormat, exact: float, bound: Bound, ftz: bool) -> Interval:
    if bound.kind == "ulp":
        err = bound.amount * _ulp(fmt, exact)
    elif bound.kind == "rel":
        err = bound.amount * abs(exact)
    else:
        err = bound.amount
    err += SLACK * abs(exact)
    # Never tighter than faithful rounding: both format neighbours of the exact value are always
    # acceptable (matters where the format is coarser than the bound, e.g. among subnormals). Past
    # the largest finite value the neighbour is the infinity; the largest finite value itself only
    # counts if the bound reaches it.
    below = _value(fmt, _round_float(fmt, exact, "rm"))
    above = _value(fmt, _round_float(fmt, exact, "rp"))
    lo, hi = exact - err, exact + err
    if math.isinf(above):
        hi = math.inf
    elif math.isinf(below):
        lo = -math.inf
    else:
        lo, hi = min(lo, below), max(hi, above)
    nearest = _bits(fmt, exact)
    tiny = 2.0 ** fmt.emin
    if ftz and min(abs(lo), abs(hi)) < tiny:  # a result flushed to zero is also acceptable
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    return Interval(lo, hi, nearest)


def _special(op: str, fmt: FloatFormat, x: int) -> LaneValue | None:
    """Exact results for inputs where IEEE/the manual fix the answer; None for ordinary inputs."""
    cls = fmt.classify(x)
    neg = fmt.is_negative(x)
    if cls is FpClass.NAN:
        return AnyNaN(fmt.canonical_nan)
    table: dict[str, Callable[[], LaneValue | None]] = {
        "rcp": lambda: (fmt.infinity(neg) if cls is FpClass.ZERO else
                        fmt.zero(neg) if cls is FpClass.INF else None),
        "sqrt": lambda: (x if cls is FpClass.ZERO else AnyNaN(fmt.canonical_nan) if neg else
                         x if cls is FpClass.INF else None),
        "rsqrt": lambda: (fmt.infinity(neg) if cls is FpClass.ZERO else
                          AnyNaN(fmt.canonical_nan) if neg else
                          fmt.zero() if cls is FpClass.INF else None),
        "sin": lambda: (AnyNaN(fmt.canonical_nan) if cls is FpClass.INF else
                        x if cls is FpClass.ZERO else None),
        "cos": lambda: (AnyNaN(fmt.canonical_nan) if cls is FpClass.INF else
                        fmt.one if cls is FpClass.ZERO else None),
        "lg2": lambda: (fmt.infinity(True) if cls is FpClass.ZERO else
                        AnyNaN(fmt.canonical_nan) if neg else
                        x if cls is FpClass.INF else None),
        "ex2": lambda: ((fmt.zero() if neg else x) if cls is FpClass.INF else
                        fmt.one if cls is FpClass.ZERO else None),
        # f32 tanh: "subnormal inputs gets passed through to the output"
        "tanh": lambda: (fmt.with_sign(fmt.one, neg) if cls is FpClass.INF else
                         x if cls is FpClass.ZERO or (cls is FpClass.SUBNORMAL and fmt.width == 32)
                         else None),
    }
    return table[op]()


def _unary_lane(op: str, fmt: FloatFormat, bound: Bound, ftz: bool, x: int) -> Approx:
    if ftz:
        x = fmt.flush_subnormal(x)
    special = _special(op, fmt, x)
    if special is not None:
        return special
    value = _value(fmt, x)
    if op in ("sin", "cos"):
        if abs(value) > 100 * math.pi:
            return UNDEFINED
        if abs(value) > 2 * math.pi:
            bound = Bound("abs", 2.0 ** -14.7)
    if op == "lg2" and 0.5 < value < 2:
        bound = Bound("abs", 2.0 ** -22)
    try:
        exact = _FUNCTIONS[op](value)
    except OverflowError:
        exact = math.inf
    if math.isinf(exact):  # beyond the format: only the correctly signed overflow is sure
        return fmt.infinity(exact < 0)
    return interval(fmt, exact, bound, ftz)


def _div_lane(full: bool, fmt: FloatFormat, ftz: bool, a: int, b: int) -> Approx:
    """div.approx computes ``a * (1/b)``: for 2^126 < |b| < 2^128 the manual fixes the result (NaN
    for an infinite ``a``, otherwise 0 -- the model gives that zero the quotient's sign) and leaves
    |b| below 2^-126 unspecified; div.full has a 2-ulp bound over the whole range."""
    if ftz:
        a, b = fmt.flush_subnormal(a), fmt.flush_subnormal(b)
    ca, cb = fmt.classify(a), fmt.classify(b)
    neg = fmt.is_negative(a) != fmt.is_negative(b)
    if FpClass.NAN in (ca, cb):
        return AnyNaN(fmt.canonical_nan)
    if not full and cb in (FpClass.NORMAL, FpClass.SUBNORMAL):
        magnitude = abs(_value(fmt, b))
        if magnitude > 2.0 ** 126:
            return AnyNaN(fmt.canonical_nan) if ca is FpClass.INF else fmt.zero(neg)
        if magnitude < 2.0 ** -126:
            return UNDEFINED
    if ca == cb and ca in (FpClass.ZERO, FpClass.INF):
        return AnyNaN(fmt.canonical_nan)
    if ca is FpClass.INF or cb is FpClass.ZERO:
        return fmt.infinity(neg)
    if ca is FpClass.ZERO or cb is FpClass.INF:
        return fmt.zero(neg)
    exact = float(fmt.exact(a) / fmt.exact(b))
    if math.isinf(exact) or abs(exact) > float(fmt.exact(fmt.max_finite)):
        return UNDEFINED if not full else fmt.infinity(neg)
    return interval(fmt, exact, Bound("ulp", 2), ftz)


def evaluate(sp: Spelling, inputs: Sequence[object]) -> Result:
    """Entry point for ``.approx``/``.full`` spellings (called by ``floats``)."""
    op = sp.opcode
    allowed = {"approx", "ftz"} | ({"full"} if op == "div" else set())
    sp.require(allowed, ("f32", "f64", "f16", "bf16", "f16x2", "bf16x2"))
    t = sp.type
    if t.lanes == 2:
        return _packed(sp, inputs, t)
    fmt = float_format(t.name)
    ftz = sp.has("ftz")
    gross = t.name == "f64" and ftz
    if t.name == "f64" and op == "rcp" and not ftz:
        raise ReferenceInputError(f"{sp.text}: the f64 reciprocal approximation is rcp.approx.ftz.f64")
    bound = BOUNDS.get((op, "f64-gross" if gross and op == "rsqrt" else t.name))
    if bound is None:
        raise ReferenceInputError(f"{sp.text}: no approximate form modelled for .{t.name}")
    arrays = operands(inputs, [t] * (2 if op == "div" else 1), sp)
    shape = arrays[0].shape
    flat = [a.reshape(-1) for a in arrays]
    lanes: list[Approx] = []
    for i in range(flat[0].size):
        if op == "div":
            lanes.append(_div_lane(sp.has("full"), fmt, ftz, flat[0][i], flat[1][i]))
        elif gross:
            lanes.append(_gross_lane(op, fmt, bound, flat[0][i]))
        else:
            lanes.append(_unary_lane(op, fmt, bound, ftz, flat[0][i]))
    notes = (bound.note,) if bound.note else ()
    return Result((_output(t, lanes, shape, LOW_WORD if gross else 0),), notes,
                  tuple([t] * (2 if op == "div" else 1)))


def _packed(sp: Spelling, inputs: Sequence[object], t: PtxType) -> Result:
    """ex2/tanh.approx on f16x2/bf16x2: each half-word is its own approximation (9.7.4.9/10)."""
    if sp.opcode not in ("ex2", "tanh"):
        raise ReferenceInputError(f"{sp.text}: no packed approximate form of {sp.opcode}")
    fmt = float_format(t.element)
    bound = BOUNDS[(sp.opcode, t.element)]
    (array,) = operands(inputs, [t], sp)
    width = t.element_width
    lanes = [[_unary_lane(sp.opcode, fmt, bound, sp.has("ftz"), x) for x in split(int(a), width, 2)]
             for a in array.reshape(-1)]
    return Result((_packed_output(t, lanes, array.shape),), (), (t,))


def _packed_output(t: PtxType, lanes: list[list[Approx]], shape: tuple[int, ...]) -> Output:
    def shown(x: Approx) -> int:
        if isinstance(x, Interval):
            return x.nearest
        if isinstance(x, AnyNaN):
            return x.bits
        assert isinstance(x, int)
        return x

    defined = [all(x is not UNDEFINED for x in lane) for lane in lanes]
    bits = np.empty(len(lanes), dtype=object)
    bits[:] = [join([shown(x) for x in lane], t.element_width) if ok else 0
               for lane, ok in zip(lanes, defined)]
    nan = [sum(1 << k for k, x in enumerate(lane) if isinstance(x, AnyNaN)) for lane in lanes]
    base = make_output(t, bits.reshape(shape), np.array(defined).reshape(shape),
                       np.array(nan, dtype=np.uint8).reshape(shape))
    element_shape = shape + (t.lanes,)
    lo = np.array([[x.lo if isinstance(x, Interval) else 0.0 for x in lane] for lane in lanes])
    hi = np.array([[x.hi if isinstance(x, Interval) else 0.0 for x in lane] for lane in lanes])
    bounded = np.array([[isinstance(x, Interval) for x in lane] for lane in lanes], dtype=np.bool_)
    return Output(base.type, base.bits, base.defined, base.any_nan,
                  (lo.reshape(element_shape), hi.reshape(element_shape)), bounded.reshape(element_shape))


def _gross_lane(op: str, fmt: FloatFormat, bound: Bound, x: int) -> Approx:
    """rcp/rsqrt.approx.ftz.f64: only ``a[63:32]`` is read (a subnormal upper word flushes to
    zero), and ``d[31:0]`` is zero. PTX ISA 9.7.3.14/17: "Input NaNs map to a canonical NaN with
    encoding 0x7fffffff00000000" (fixed bits); a NaN the instruction *makes* from a number
    (rsqrt of -Inf or a negative normal) has no stated encoding: any NaN with a zero low word."""
    x = fmt.flush_subnormal(x & ~LOW_WORD)
    if fmt.is_nan(x):
        return GROSS_NAN
    result = _unary_lane(op, fmt, bound, True, x)
    if isinstance(result, AnyNaN):
        return AnyNaN(GROSS_NAN)
    if isinstance(result, Interval):  # the shown answer must itself be acceptable: clear the low word
        return Interval(result.lo, result.hi, result.nearest & ~LOW_WORD)
    return result


def _output(t: PtxType, lanes: list[Approx], shape: tuple[int, ...], zero_bits: int) -> Output:
    bits = np.empty(len(lanes), dtype=object)
    bits[:] = [x.nearest if isinstance(x, Interval) else x.bits if isinstance(x, AnyNaN)
               else 0 if x is UNDEFINED else x for x in lanes]
    defined = np.array([x is not UNDEFINED for x in lanes], dtype=np.bool_)
    nan = np.array([1 if isinstance(x, AnyNaN) else 0 for x in lanes], dtype=np.uint8)
    base = make_output(t, bits.reshape(shape), defined.reshape(shape), nan.reshape(shape))
    lo = np.array([x.lo if isinstance(x, Interval) else 0.0 for x in lanes]).reshape(shape)
    hi = np.array([x.hi if isinstance(x, Interval) else 0.0 for x in lanes]).reshape(shape)
    bounded = np.array([isinstance(x, Interval) for x in lanes], dtype=np.bool_).reshape(shape)
    return Output(base.type, base.bits, base.defined, base.any_nan, (lo, hi), bounded, zero_bits)


def is_within(spelling: str, result: object, *inputs: object) -> np.ndarray:
    """Per lane: is ``result`` an acceptable answer of the ``.approx`` instruction on ``inputs``?"""
    return evaluate(Spelling.parse(spelling), inputs).matches(result)
