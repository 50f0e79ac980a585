"""Floating-point instructions with exact results: add/sub/mul/fma/mad/div/sqrt/rcp (IEEE rounding
modes), min/max, abs/neg, testp, copysign, on f32/f64/f16/bf16 and packed f16x2/bf16x2.

Invariant: results are correctly rounded from the exact value (``fparith``), then ``.ftz``/``.sat``/
``.relu`` are applied in the order the manual gives; packed types evaluate each element on its own.
``.approx``/``.full`` forms are delegated to ``approx`` (interval results). Sections: PTX ISA 9.7.3
(f32/f64: testp 9.7.3.1, copysign 9.7.3.2, add 9.7.3.3, sub 9.7.3.4, mul 9.7.3.5, fma 9.7.3.6,
mad 9.7.3.7, div 9.7.3.8, abs 9.7.3.9, neg 9.7.3.10, min 9.7.3.11, max 9.7.3.12, rcp 9.7.3.13,
sqrt 9.7.3.15), 9.7.4 (half precision: add .1, sub .2, mul .3, fma .4, neg .5, abs .6, min .7,
max .8) and "Mixed Precision Floating Point Instructions" (add/sub/fma .f32.f16/.bf16).

min/max rules (9.7.3.11/12, 9.7.4.7/8): a NaN operand is ignored unless all are NaN (or ``.NaN`` is
given), in which case the result is the canonical NaN; -0.0 is less than +0.0 ("if values of both
inputs are 0.0, then +0.0 > -0.0", stated for f32 and for redux.sync.f32). The half-precision
sections only give the pseudo-code ``(a < b) ? a : b``, which read literally would return the
second of two zeros; the model applies the f32 rule to f16/bf16 too, as NVIDIA's CUDA Tile IR
minf/maxf (lowered to these instructions) states "+0.0 is considered greater than -0.0" for
f16/bf16/f32/f64. CUDA golden outputs should confirm this. ``.xorsign.abs`` compares magnitudes and
gives the result the XOR of the operands' signs unless it is NaN.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

from ptx2gcn.reference import approx, fparith
from ptx2gcn.reference.errors import OperandCountError, ReferenceInputError
from ptx2gcn.reference.floatformat import FloatFormat, FpClass, float_format
from ptx2gcn.reference.ptxtypes import PtxType, join, ptx_type, split
from ptx2gcn.reference.result import Result
from ptx2gcn.reference.rounding import round_dyadic
from ptx2gcn.reference.spelling import AnyNaN, Either, LaneValue, Spelling, run_lanes

Handler = Callable[[Spelling, Sequence[object]], Result]
ElementFn = Callable[..., fparith.FloatResult]

RND = ("rn", "rz", "rm", "rp")
FLOAT_TYPES = ("f32", "f64", "f16", "f16x2", "bf16", "bf16x2")
ARITH_TYPES = FLOAT_TYPES + ("f32x2",)
"""add/sub/mul/fma also exist on packed f32x2 (sm_100)."""


def packed(t: PtxType, element: ElementFn) -> Callable[..., LaneValue]:
    """Lift a per-element function to a lane function over (possibly packed) registers."""
    width = t.element_width
    if t.lanes == 1:
        return element

    def lane(*registers: int) -> LaneValue:
        columns = [split(r, width, t.lanes) for r in registers]
        results = [element(*(col[i] for col in columns)) for i in range(t.lanes)]
        return join_elements(results, width)

    return lane


def join_elements(results: Sequence[fparith.FloatResult], width: int) -> LaneValue:
    """One register from per-element results (element 0 lowest). NaN flags stay per element; if
    elements have alternatives, the register's alternative switches all of them at once (the
    model does not enumerate mixed combinations)."""
    bits = join([r.bits if isinstance(r, (AnyNaN, Either)) else r for r in results], width)
    nan_mask = sum(1 << i for i, r in enumerate(results) if isinstance(r, AnyNaN))
    payload = sum(1 << i for i, r in enumerate(results) if isinstance(r, AnyNaN) and r.payload)
    if nan_mask:
        return AnyNaN(bits, nan_mask, payload)
    if any(isinstance(r, Either) for r in results):
        alternative = join([r.alternative if isinstance(r, Either) else r for r in results
                            if not isinstance(r, AnyNaN)], width)
        return Either(bits, alternative)
    return bits


def _element_format(t: PtxType) -> FloatFormat:
    return float_format(t.element)


def _rounding(sp: Spelling, required: bool) -> str:
    return sp.one_of(RND, None if required else "rn")


def _check_ftz(sp: Spelling, t: PtxType) -> bool:
    """``.ftz`` exists for f32 and f16 only: f64 and bf16 (9.7.4.5-8 ``abs/neg/min/max.bf16``,
    whose syntax has no ``{.ftz}``) reject it."""
    ftz = sp.has("ftz")
    if ftz and t.element in ("f64", "bf16"):
        raise ReferenceInputError(f"{sp.text}: .ftz is not valid for .{t.name}")
    return ftz


def _arith(sp: Spelling, inputs: Sequence[object]) -> Result:
    """add/sub/mul/fma/mad (including packed f16x2/bf16x2/f32x2)."""
    fused = sp.opcode in ("fma", "mad")
    if len(sp.types) == 2:
        return _mixed(sp, inputs)
    sp.require({*RND, "ftz", "sat", "relu"}, ARITH_TYPES)
    t = sp.type
    fmt = _element_format(t)
    mode = _rounding(sp, required=fused)
    ftz = _check_ftz(sp, t)
    sat, use_relu = sp.has("sat"), sp.has("relu")
    if use_relu and (fmt.name not in ("f16", "bf16") or not fused):
        raise ReferenceInputError(f"{sp.text}: .relu applies to fma on f16/bf16 types only")
    if use_relu and sat:  # 9.7.4.4: fma.rnd{.ftz}{.sat}.f16 and fma.rnd{.ftz}.relu.f16 are separate forms
        raise ReferenceInputError(f"{sp.text}: .sat and .relu do not combine")
    _check_half_modifiers(sp, fmt, mode)
    if sat and fmt.name == "f64":
        raise ReferenceInputError(f"{sp.text}: .sat is not valid for .f64")

    def element(*xs: int) -> fparith.FloatResult:
        xs_ = fparith.flush_inputs(fmt, ftz, xs)
        if sp.opcode == "add":
            r = fparith.add(fmt, xs_[0], xs_[1], mode)
        elif sp.opcode == "sub":
            r = fparith.add(fmt, xs_[0], fmt.negate(xs_[1]), mode)
        elif sp.opcode == "mul":
            r = fparith.mul(fmt, xs_[0], xs_[1], mode)
        else:
            r = fparith.fma(fmt, xs_[0], xs_[1], xs_[2], mode)
        if use_relu:
            return relu(fmt, fparith.finish(fmt, r, ftz, False))
        return fparith.finish(fmt, r, ftz, sat)

    count = 3 if fused else 2
    return run_lanes(sp, packed(t, element), inputs, [t] * count, [t])


def _mixed(sp: Spelling, inputs: Sequence[object]) -> Result:
    """Mixed precision ``add/sub{.rnd}{.sat}.f32.atype d, a, c`` and ``fma.rnd{.sat}.f32.abtype
    d, a, b, c`` (PTX ISA 9.7.3, sm_100): the f16/bf16 operands widen exactly to f32 first."""
    if sp.opcode not in ("add", "sub", "fma"):
        raise ReferenceInputError(f"{sp.text}: no mixed-precision form of {sp.opcode}")
    sp.require({*RND, "sat"}, ("f32", "f16", "bf16"))
    dst, narrow = sp.types
    if dst.name != "f32" or narrow.name not in ("f16", "bf16"):
        raise ReferenceInputError(f"{sp.text}: expected .f32.f16 or .f32.bf16")
    mode = _rounding(sp, required=sp.opcode == "fma")
    small, f32 = _element_format(narrow), _element_format(dst)

    def widen(x: int) -> int:
        if small.is_nan(x):
            return f32.canonical_nan
        if small.is_inf(x):
            return f32.infinity(small.is_negative(x))
        significand, exponent = small.decode(x)
        return round_dyadic(f32, significand, exponent, "rn", small.is_negative(x))

    def element(*xs: int) -> fparith.FloatResult:
        *narrow_ops, c = xs
        a = [widen(x) for x in narrow_ops]
        if sp.opcode == "fma":
            r = fparith.fma(f32, a[0], a[1], c, mode)
        else:
            r = fparith.add(f32, a[0], c if sp.opcode == "add" else f32.negate(c), mode)
        return fparith.finish(f32, r, False, sp.has("sat"))

    in_types = [narrow, narrow, dst] if sp.opcode == "fma" else [narrow, dst]
    return run_lanes(sp, element, inputs, in_types, [dst])


def _check_half_modifiers(sp: Spelling, fmt: FloatFormat, mode: str) -> None:
    """Half-precision arithmetic (9.7.4.1-4) has only ``.rn``; bf16 has no ``.ftz``/``.sat``."""
    if fmt.width != 16:
        return
    if mode != "rn":
        raise ReferenceInputError(f"{sp.text}: half-precision arithmetic rounds with .rn only")
    if fmt.name == "bf16" and (sp.has("ftz") or sp.has("sat")):
        raise ReferenceInputError(f"{sp.text}: .bf16 arithmetic takes no .ftz/.sat")


def relu(fmt: FloatFormat, r: fparith.FloatResult) -> fparith.FloatResult:
    """``.relu`` (9.7.4.4 fma): negative results become +0; NaN becomes the canonical NaN."""
    if isinstance(r, AnyNaN):
        return fmt.canonical_nan
    if isinstance(r, Either):
        first, second = relu(fmt, r.bits), relu(fmt, r.alternative)
        assert isinstance(first, int) and isinstance(second, int)
        return first if first == second else Either(first, second)
    return fmt.zero() if fmt.is_negative(r) else r


def _div(sp: Spelling, inputs: Sequence[object]) -> Result:
    if sp.has("approx") or sp.has("full"):
        return approx.evaluate(sp, inputs)
    sp.require({*RND, "ftz"}, ("f32", "f64"))
    t = sp.type
    fmt = _element_format(t)
    mode, ftz = _rounding(sp, required=True), _check_ftz(sp, t)

    def element(a: int, b: int) -> fparith.FloatResult:
        a, b = fparith.flush_inputs(fmt, ftz, (a, b))
        return fparith.finish(fmt, fparith.div(fmt, a, b, mode), ftz, False)

    return run_lanes(sp, packed(t, element), inputs, [t, t], [t])


def _unary_rounded(sp: Spelling, inputs: Sequence[object]) -> Result:
    """sqrt/rcp with an IEEE rounding mode; ``.approx`` goes to the interval model."""
    if sp.has("approx"):
        return approx.evaluate(sp, inputs)
    sp.require({*RND, "ftz"}, ("f32", "f64"))
    t = sp.type
    fmt = _element_format(t)
    mode, ftz = _rounding(sp, required=True), _check_ftz(sp, t)
    op = fparith.sqrt if sp.opcode == "sqrt" else fparith.rcp

    def element(a: int) -> fparith.FloatResult:
        (a,) = fparith.flush_inputs(fmt, ftz, (a,))
        return fparith.finish(fmt, op(fmt, a, mode), ftz, False)

    return run_lanes(sp, packed(t, element), inputs, [t], [t])


def _order_key(fmt: FloatFormat, x: int) -> tuple[Fraction | float, int]:
    """Sort key of a non-NaN value; -0.0 sorts below +0.0."""
    value: Fraction | float
    if fmt.is_inf(x):
        value = float("-inf") if fmt.is_negative(x) else float("inf")
    else:
        value = fmt.exact(x)
    return value, (-1 if value == 0 and fmt.is_negative(x) else 0)


def select_min_max(fmt: FloatFormat, values: Sequence[int], want_min: bool,
                   nan_wins: bool) -> int | AnyNaN:
    """min/max of already flushed values, as the manual's ``min_num``/``min_nan`` applied left to
    right: NaNs are skipped unless ``.NaN`` is given, which makes any NaN give the canonical NaN;
    when all inputs are NaN the result is a NaN (canonical for f16/bf16, whose section says so;
    unspecified for f32/f64). -0.0 orders below +0.0 for every format."""
    numbers = [x for x in values if not fmt.is_nan(x)]
    if nan_wins and len(numbers) < len(values):
        return fmt.canonical_nan
    if not numbers:
        return fmt.canonical_nan if fmt.width == 16 else AnyNaN(fmt.canonical_nan)
    best = numbers[0]
    for x in numbers[1:]:
        kb, kx = _order_key(fmt, best), _order_key(fmt, x)
        keep_best = kb < kx if want_min else kb > kx
        if not keep_best:
            best = x
    return best


def _min_max(sp: Spelling, inputs: Sequence[object]) -> Result:
    """``.xorsign`` needs ``.abs`` and two inputs; ``.abs`` alone is the three-input form's option."""
    sp.require({"ftz", "NaN", "xorsign", "abs"}, FLOAT_TYPES)
    t = sp.type
    fmt = _element_format(t)
    ftz = _check_ftz(sp, t)
    nan_wins, xorsign, absolute = sp.has("NaN"), sp.has("xorsign"), sp.has("abs")
    if len(inputs) not in (2, 3):
        raise OperandCountError(f"{sp.text}: takes 2 or 3 source operands", (2, 3))
    if xorsign and (not absolute or len(inputs) == 3):
        raise ReferenceInputError(f"{sp.text}: .xorsign needs .abs and two source operands")
    if absolute and not xorsign and len(inputs) == 2:
        raise ReferenceInputError(f"{sp.text}: .abs without .xorsign is the three-input form")
    want_min = sp.opcode == "min"

    def element(*xs: int) -> fparith.FloatResult:
        xs_ = fparith.flush_inputs(fmt, ftz, xs)
        sign = sum(fmt.is_negative(x) for x in xs_) % 2 == 1
        if absolute:
            xs_ = [fmt.magnitude(x) for x in xs_]
        best = select_min_max(fmt, xs_, want_min, nan_wins)
        if isinstance(best, AnyNaN) or fmt.is_nan(best):  # NaN results ignore .xorsign/.abs
            return best
        return fmt.with_sign(best, sign) if xorsign else best

    return run_lanes(sp, packed(t, element), inputs, [t] * len(inputs), [t])


def _abs_neg(sp: Spelling, inputs: Sequence[object]) -> Result:
    """abs/neg change only the sign bit of numbers. NaN inputs (9.7.3.9/10, 9.7.4.5/6): "yield an
    unspecified NaN", except ``abs.f64``, where "NaN input is passed through unchanged"."""
    sp.require({"ftz"}, FLOAT_TYPES)
    t = sp.type
    fmt = _element_format(t)
    ftz = _check_ftz(sp, t)

    def element(a: int) -> fparith.FloatResult:
        (a,) = fparith.flush_inputs(fmt, ftz, (a,))
        out = fmt.magnitude(a) if sp.opcode == "abs" else fmt.negate(a)
        if fmt.is_nan(a):
            return a if sp.opcode == "abs" and fmt.width == 64 else AnyNaN(out)
        return out

    return run_lanes(sp, packed(t, element), inputs, [t], [t])


_TESTP: dict[str, Callable[[FpClass], bool]] = {
    "finite": lambda c: c not in (FpClass.INF, FpClass.NAN),
    "infinite": lambda c: c is FpClass.INF,
    "number": lambda c: c is not FpClass.NAN,
    "notanumber": lambda c: c is FpClass.NAN,
    # "As a special case, positive and negative zero are considered normal numbers."
    "normal": lambda c: c in (FpClass.NORMAL, FpClass.ZERO),
    "subnormal": lambda c: c is FpClass.SUBNORMAL,
}


def _testp(sp: Spelling, inputs: Sequence[object]) -> Result:
    sp.require(set(_TESTP), ("f32", "f64"))
    t = sp.type
    fmt = _element_format(t)
    test = _TESTP[sp.one_of(_TESTP)]

    def lane(a: int) -> LaneValue:
        return test(fmt.classify(a))

    return run_lanes(sp, lane, inputs, [t], [ptx_type("pred")])


def _copysign(sp: Spelling, inputs: Sequence[object]) -> Result:
    """``copysign d, a, b``: ``b`` with the sign of ``a`` (note the operand order)."""
    sp.require(set(), ("f32", "f64"))
    t = sp.type
    fmt = _element_format(t)

    def lane(a: int, b: int) -> LaneValue:
        return fmt.with_sign(b, fmt.is_negative(a))

    return run_lanes(sp, lane, inputs, [t, t], [t])




def _approx_only(sp: Spelling, inputs: Sequence[object]) -> Result:
    """rsqrt/sin/cos/lg2/ex2/tanh exist only as ``.approx`` (9.7.3.16-9.7.3.22, 9.7.4.9/10)."""
    if not sp.has("approx"):
        raise ReferenceInputError(f"{sp.text}: {sp.opcode} needs .approx")
    return approx.evaluate(sp, inputs)


HANDLERS: dict[str, Handler] = {
    "add": _arith, "sub": _arith, "mul": _arith, "fma": _arith, "mad": _arith, "div": _div,
    "sqrt": _unary_rounded, "rcp": _unary_rounded, "min": _min_max, "max": _min_max,
    "abs": _abs_neg, "neg": _abs_neg, "testp": _testp, "copysign": _copysign,
    "rsqrt": _approx_only, "sin": _approx_only, "cos": _approx_only, "lg2": _approx_only,
    "ex2": _approx_only, "tanh": _approx_only,
}
