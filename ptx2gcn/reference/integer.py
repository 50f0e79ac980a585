"""Integer arithmetic: add/sub (.sat, .cc carry chains), mul/mad (.lo/.hi/.wide), mul24/mad24, sad,
div/rem, abs/neg, min/max (.relu, packed 16x2/8x4), dp4a/dp2a.

Invariant: every result is computed on exact Python integers and then wrapped or saturated to the
destination width, exactly as the PTX pseudo-code reads. Lanes PTX leaves unspecified are
``UNDEFINED``: division (and remainder) by zero ("yields an unspecified, machine-specific value",
PTX ISA 9.7.1.8 div / 9.7.1.9 rem) and signed ``div`` of INT_MIN by -1, whose quotient does not fit
(the manual says nothing, so the model refuses to guess). Signed div/rem truncate toward zero (C
semantics, what every GPU does; the rem section still carries the old note that negative operands
are "machine-dependent"). ``abs``/``neg`` of INT_MIN wrap to INT_MIN (two's complement, the manual's
``d = |a|`` at the type's width).

Carry chains: ``.cc`` adds a ``.pred`` destination holding CC.CF after the instruction; ``addc``,
``subc`` and ``madc`` take CC.CF as an extra, last, ``.pred`` source. For subtraction CC.CF is the
borrow (PTX ISA 9.7.2 subc: ``d = a - (b + CC.CF)``, "borrow-out written to CC.CF").
Sections: 9.7.1 "Integer Arithmetic Instructions" (add, sub, mul, mad, mul24, mad24, sad 9.7.1.7,
div 9.7.1.8, rem 9.7.1.9, abs 9.7.1.10, neg 9.7.1.11, min 9.7.1.12, max 9.7.1.13, dp4a, dp2a) and
9.7.2 "Extended-Precision Integer Arithmetic Instructions" (add.cc, addc, sub.cc, subc, mad.cc,
madc).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ptx2gcn.reference.errors import ReferenceInputError
from ptx2gcn.reference.ptxtypes import (
    PtxType,
    join,
    mask,
    ptx_type,
    saturate,
    split,
    to_signed,
    value_of,
    wrap,
)
from ptx2gcn.reference.result import Result
from ptx2gcn.reference.spelling import UNDEFINED, LaneValue, Spelling, run_lanes

Handler = Callable[[Spelling, Sequence[object]], Result]

INT_TYPES = ("u16", "u32", "u64", "s16", "s32", "s64")
CC_TYPES = ("u32", "s32", "u64", "s64", "b32", "b64")
PRED = ptx_type("pred")


def _add_sub(sp: Spelling, inputs: Sequence[object]) -> Result:
    """add/sub incl. ``.sat.s32``, ``.cc`` and add's packed ``.u16x2``/``.s16x2`` forms (wrapping per
    half-word)."""
    sp.require({"sat", "cc"}, INT_TYPES + ("b32", "b64", "u16x2", "s16x2"))
    t = sp.type
    if t.lanes == 2:
        if sp.opcode == "sub":  # 9.7.1.2: sub has no .u16x2/.s16x2 (only add does, 9.7.1.1)
            raise ReferenceInputError(f"{sp.text}: sub has no packed 16-bit form")
        if sp.has("sat") or sp.has("cc"):
            raise ReferenceInputError(f"{sp.text}: packed add takes no .sat/.cc")
        return _packed_add_sub(sp, inputs, t)
    sat, cc = sp.has("sat"), sp.has("cc")
    if sat and t.name != "s32":
        raise ReferenceInputError(f"{sp.text}: .sat applies to .s32 only")
    if cc and t.name not in CC_TYPES:
        raise ReferenceInputError(f"{sp.text}: .cc needs a 32- or 64-bit type")
    sign = 1 if sp.opcode == "add" else -1

    def lane(a: int, b: int) -> LaneValue | tuple[LaneValue, ...]:
        exact = value_of(a, t) + sign * value_of(b, t)
        d = saturate(exact, t.width, True) if sat else wrap(exact, t.width)
        if not cc:
            return d
        return d, _carry_out(a + sign * b, t.width, sign)

    outs = [t, PRED] if cc else [t]
    return run_lanes(sp, lane, inputs, [t, t], outs)


def _packed_add_sub(sp: Spelling, inputs: Sequence[object], t: PtxType) -> Result:
    sign = 1 if sp.opcode == "add" else -1
    width = t.element_width

    def lane(a: int, b: int) -> LaneValue:
        pairs = zip(split(a, width, t.lanes), split(b, width, t.lanes))
        return join([x + sign * y for x, y in pairs], width)

    return run_lanes(sp, lane, inputs, [t, t], [t])


def _carry_out(unsigned_result: int, width: int, sign: int) -> bool:
    """CC.CF: carry out of an unsigned add, or borrow out of an unsigned subtract."""
    return unsigned_result >> width != 0 if sign > 0 else unsigned_result < 0


def _addc_subc(sp: Spelling, inputs: Sequence[object]) -> Result:
    sp.require({"cc"}, CC_TYPES)
    t = sp.type
    cc = sp.has("cc")
    sign = 1 if sp.opcode == "addc" else -1

    def lane(a: int, b: int, cf: bool) -> LaneValue | tuple[LaneValue, ...]:
        raw = a + b + int(cf) if sign > 0 else a - (b + int(cf))
        d = wrap(raw, t.width)
        return (d, _carry_out(raw, t.width, sign)) if cc else d

    return run_lanes(sp, lane, inputs, [t, t, PRED], [t, PRED] if cc else [t])


def _product_part(product: int, t: PtxType, part: str) -> int:
    """``.lo``/``.hi``/``.wide`` bits of an exact product of two ``t`` values."""
    n = t.width
    if part == "wide":
        return wrap(product, 2 * n)
    if part == "hi":
        return wrap(product >> n, n)
    return wrap(product, n)


def _wide_type(t: PtxType, sp: Spelling) -> PtxType:
    if t.width == 64:
        raise ReferenceInputError(f"{sp.text}: .wide needs a 16- or 32-bit type")
    return ptx_type(f"{t.kind}{2 * t.width}")


def _mul(sp: Spelling, inputs: Sequence[object]) -> Result:
    sp.require({"lo", "hi", "wide"}, INT_TYPES)
    t = sp.type
    part = sp.one_of(("lo", "hi", "wide"), "lo")
    out = _wide_type(t, sp) if part == "wide" else t

    def lane(a: int, b: int) -> LaneValue:
        return _product_part(value_of(a, t) * value_of(b, t), t, part)

    return run_lanes(sp, lane, inputs, [t, t], [out])


def _mad(sp: Spelling, inputs: Sequence[object]) -> Result:
    carry_in = sp.opcode == "madc"
    sp.require({"lo", "hi", "wide", "sat", "cc"}, INT_TYPES)
    t = sp.type
    part = sp.one_of(("lo", "hi", "wide"), "lo")
    sat, cc = sp.has("sat"), sp.has("cc")
    if sat and (t.name != "s32" or part != "hi"):
        raise ReferenceInputError(f"{sp.text}: .sat applies to mad.hi.s32 only")
    if (cc or carry_in) and (part == "wide" or t.width < 32):
        raise ReferenceInputError(f"{sp.text}: carry forms need .lo/.hi and a 32/64-bit type")
    out = _wide_type(t, sp) if part == "wide" else t

    def lane(a: int, b: int, c: int, cf: bool = False) -> LaneValue | tuple[LaneValue, ...]:
        product = value_of(a, t) * value_of(b, t)
        if sat:  # d = t<63..32> + c, clamped to the s32 range (PTX ISA 9.7.1.6 mad)
            return saturate(to_signed(_product_part(product, t, "hi"), 32) + to_signed(c, 32), 32, True)
        term = _product_part(product, t, part)
        raw = term + (c & mask(out.width)) + int(cf)
        d = wrap(raw, out.width)
        return (d, raw >> out.width != 0) if cc else d

    in_types = [t, t, out] + ([PRED] if carry_in else [])
    return run_lanes(sp, lane, inputs, in_types, [out, PRED] if cc else [out])


def _mul24_mad24(sp: Spelling, inputs: Sequence[object]) -> Result:
    is_mad = sp.opcode == "mad24"
    sp.require({"lo", "hi", "sat"} if is_mad else {"lo", "hi"}, ("u32", "s32"))
    t = sp.type
    part = sp.one_of(("lo", "hi"), "lo")
    sat = sp.has("sat")
    if sat and (t.name != "s32" or part != "hi"):
        raise ReferenceInputError(f"{sp.text}: .sat applies to mad24.hi.s32 only")

    def operand24(x: int) -> int:
        return to_signed(x & 0xFFFFFF, 24) if t.signed else x & 0xFFFFFF

    def lane(a: int, b: int, c: int = 0) -> LaneValue:
        product = operand24(a) * operand24(b)  # exact 48-bit product
        term = wrap(product >> 16, 32) if part == "hi" else wrap(product, 32)
        if sat:
            return saturate(to_signed(term, 32) + to_signed(c, 32), 32, True)
        return wrap(term + c, 32)

    return run_lanes(sp, lane, inputs, [t, t, t] if is_mad else [t, t], [t])


def _sad(sp: Spelling, inputs: Sequence[object]) -> Result:
    sp.require(set(), INT_TYPES)
    t = sp.type

    def lane(a: int, b: int, c: int) -> LaneValue:
        return wrap(c + abs(value_of(a, t) - value_of(b, t)), t.width)

    return run_lanes(sp, lane, inputs, [t, t, t], [t])


def _div_rem(sp: Spelling, inputs: Sequence[object]) -> Result:
    sp.require(set(), INT_TYPES)
    t = sp.type
    notes = ["division by zero: unspecified (PTX ISA div/rem)"]
    if t.signed and sp.opcode == "div":
        notes.append("INT_MIN / -1 overflows: marked unspecified")

    def lane(a: int, b: int) -> LaneValue:
        x, y = value_of(a, t), value_of(b, t)
        if y == 0:
            return UNDEFINED
        quotient = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)  # truncates toward zero
        if sp.opcode == "div":
            if t.signed and quotient == 1 << (t.width - 1):
                return UNDEFINED
            return wrap(quotient, t.width)
        return wrap(x - quotient * y, t.width)

    return run_lanes(sp, lane, inputs, [t, t], [t], notes)


def _abs_neg(sp: Spelling, inputs: Sequence[object]) -> Result:
    """abs (.s16/.s32/.s64) and neg (also packed .s8x4, PTX ISA 9.2), wrapping at the width."""
    sp.require(set(), ("s16", "s32", "s64") + (("s8x4",) if sp.opcode == "neg" else ()))
    t = sp.type
    width = t.element_width

    def lane(a: int) -> LaneValue:
        parts = [to_signed(x, width) for x in split(a, width, t.lanes)]
        return join([abs(x) if sp.opcode == "abs" else -x for x in parts], width)

    return run_lanes(sp, lane, inputs, [t], [t])


def _min_max(sp: Spelling, inputs: Sequence[object]) -> Result:
    """Two-input integer min/max, incl. packed .u16x2/.s16x2/.u8x4/.s8x4 and ``.relu`` on the signed
    .s32/.s16x2/.s8x4 forms (three-input min/max exists for floats only)."""
    sp.require({"relu"}, INT_TYPES + ("u16x2", "s16x2", "u8x4", "s8x4"))
    t = sp.type
    relu = sp.has("relu")
    if relu and t.name not in ("s32", "s16x2", "s8x4"):
        raise ReferenceInputError(f"{sp.text}: .relu applies to .s32, .s16x2 and .s8x4 only")
    pick = min if sp.opcode == "min" else max
    width = t.element_width
    signed = t.signed

    def element(*xs: int) -> int:
        chosen = pick(to_signed(x, width) if signed else x for x in xs)
        return wrap(max(chosen, 0) if relu else chosen, width)

    def lane(*xs: int) -> LaneValue:
        columns = [split(x, width, t.lanes) for x in xs]
        return join([element(*(col[i] for col in columns)) for i in range(t.lanes)], width)

    return run_lanes(sp, lane, inputs, [t, t], [t])


def _dot(sp: Spelling, inputs: Sequence[object]) -> Result:
    """dp4a/dp2a (9.7.1): byte (and half-word) dot product accumulated in 32 bits."""
    is_dp2a = sp.opcode == "dp2a"
    sp.require({"lo", "hi"} if is_dp2a else set(), ("u32", "s32"))
    types = sp.types
    if len(types) != 2:
        raise ReferenceInputError(f"{sp.text}: needs .atype and .btype")
    a_type, b_type = types
    c_type = ptx_type("u32" if not (a_type.signed or b_type.signed) else "s32")
    select = 2 if is_dp2a and sp.one_of(("lo", "hi")) == "hi" else 0

    def parts(x: int, width: int, signed: bool) -> list[int]:
        return [to_signed(p, width) if signed else p for p in split(x, width, 32 // width)]

    def lane(a: int, b: int, c: int) -> LaneValue:
        va = parts(a, 16 if is_dp2a else 8, a_type.signed)
        vb = parts(b, 8, b_type.signed)[select:]
        return wrap(c + sum(x * y for x, y in zip(va, vb)), 32)

    return run_lanes(sp, lane, inputs, [a_type, b_type, c_type], [c_type])


HANDLERS: dict[str, Handler] = {
    "add": _add_sub, "sub": _add_sub, "addc": _addc_subc, "subc": _addc_subc,
    "mul": _mul, "mad": _mad, "madc": _mad, "mul24": _mul24_mad24, "mad24": _mul24_mad24,
    "sad": _sad, "div": _div_rem, "rem": _div_rem, "abs": _abs_neg, "neg": _abs_neg,
    "min": _min_max, "max": _min_max, "dp4a": _dot, "dp2a": _dot,
}
