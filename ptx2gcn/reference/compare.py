"""Comparison and selection: setp (with .and/.or/.xor combiners and the complement destination),
set, selp, slct, on integer, f32/f64/f16/bf16 and packed f16x2/bf16x2 operands.

Invariant: integer comparisons use the signedness of the operator (``lt le gt ge`` follow the
type; ``lo ls hi hs`` are always unsigned, PTX ISA 9.3.1 "Comparisons"); float comparisons are
decided on exact values with the ordered/unordered rules of 9.3.1.2: ordered operators are false
and unordered (``equ neu ltu leu gtu geu``) true when either operand is NaN, ``num``/``nan`` test for
NaN; -0.0 == +0.0. A negated predicate source ``!c`` is the caller's job: pass ``~c``.
Sections: "Comparison and Selection Instructions" (set, setp, selp, slct) and "Half Precision
Comparison Instructions" (set, setp).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

from ptx2gcn.reference.errors import OperandCountError, ReferenceInputError
from ptx2gcn.reference.floatformat import FloatFormat, float_format
from ptx2gcn.reference.ptxtypes import PtxType, ptx_type, split, to_signed
from ptx2gcn.reference.result import Result
from ptx2gcn.reference.spelling import LaneValue, Spelling, run_lanes

Handler = Callable[[Spelling, Sequence[object]], Result]
PRED = ptx_type("pred")

_ORDER: dict[str, Callable[[int], bool]] = {
    "eq": lambda c: c == 0, "ne": lambda c: c != 0, "lt": lambda c: c < 0,
    "le": lambda c: c <= 0, "gt": lambda c: c > 0, "ge": lambda c: c >= 0,
}
INT_OPS = {**_ORDER, "lo": _ORDER["lt"], "ls": _ORDER["le"], "hi": _ORDER["gt"], "hs": _ORDER["ge"]}
FLOAT_OPS = set(_ORDER) | {op + "u" for op in _ORDER} | {"num", "nan"}
BOOL_OPS: dict[str, Callable[[bool, bool], bool]] = {
    "and": lambda x, y: x and y, "or": lambda x, y: x or y, "xor": lambda x, y: x != y}
CMP_TYPES = ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64",
             "f32", "f64", "f16", "bf16", "f16x2", "bf16x2")


def _sign(x: Fraction | float) -> int:
    return (x > 0) - (x < 0)


def _float_key(fmt: FloatFormat, bits: int) -> Fraction | float:
    if fmt.is_inf(bits):
        return float("-inf") if fmt.is_negative(bits) else float("inf")
    return fmt.exact(bits)


def compare_float(fmt: FloatFormat, op: str, a: int, b: int) -> bool:
    unordered = fmt.is_nan(a) or fmt.is_nan(b)
    if op == "num":
        return not unordered
    if op == "nan":
        return unordered
    if unordered:
        return op.endswith("u")
    return _ORDER[op.removesuffix("u")](_sign(_float_key(fmt, a) - _float_key(fmt, b))
                                        if not (fmt.is_inf(a) and fmt.is_inf(b))
                                        else _sign(_float_key(fmt, a)) - _sign(_float_key(fmt, b)))


def compare_int(t: PtxType, op: str, a: int, b: int) -> bool:
    if t.kind == "b" and op not in ("eq", "ne"):
        raise ReferenceInputError(f"comparison .{op} is not valid for .{t.name}")
    signed = t.signed and op in _ORDER
    x, y = (to_signed(a, t.width), to_signed(b, t.width)) if signed else (a, b)
    return INT_OPS[op]((x > y) - (x < y))


def _comparator(sp: Spelling, t: PtxType) -> Callable[[int, int], list[bool]]:
    """Per-element comparison results for (possibly packed) operands."""
    ops = FLOAT_OPS if t.is_float else set(INT_OPS)
    op = sp.one_of(ops)
    ftz = sp.has("ftz")
    if t.is_float:
        fmt = float_format(t.element)

        def per_element(a: int, b: int) -> list[bool]:
            pairs = zip(split(a, t.element_width, t.lanes), split(b, t.element_width, t.lanes))
            return [compare_float(fmt, op, fmt.flush_subnormal(x) if ftz else x,
                                  fmt.flush_subnormal(y) if ftz else y) for x, y in pairs]
        return per_element
    if ftz:
        raise ReferenceInputError(f"{sp.text}: .ftz needs a float type")
    return lambda a, b: [compare_int(t, op, a, b)]


def _combine(sp: Spelling) -> Callable[[bool, bool], bool] | None:
    chosen = [m for m in sp.modifiers if m in BOOL_OPS]
    return BOOL_OPS[sp.one_of(BOOL_OPS)] if chosen else None


def _setp(sp: Spelling, inputs: Sequence[object]) -> Result:
    """Destinations ``p`` and ``q``: q is the complement (or, for x2 types, the high element)."""
    sp.require(FLOAT_OPS | set(INT_OPS) | set(BOOL_OPS) | {"ftz"}, CMP_TYPES)
    t = sp.type
    cmp, combine = _comparator(sp, t), _combine(sp)
    count = 3 if combine else 2
    if len(inputs) != count:
        raise OperandCountError(f"{sp.text}: takes {'a, b, c' if combine else 'a, b'}", (count,))

    def lane(a: int, b: int, c: bool = False) -> tuple[LaneValue, ...]:
        results = cmp(a, b)
        if t.lanes == 2:  # setp.f16x2 p|q: one predicate per element
            p, q = results
        else:
            p, q = results[0], not results[0]
        if combine is not None:
            p, q = combine(p, c), combine(q, c)
        return p, q

    in_types = [t, t] + ([PRED] if combine else [])
    return run_lanes(sp, lane, inputs, in_types, [PRED, PRED])


def _set(sp: Spelling, inputs: Sequence[object]) -> Result:
    """``set.CmpOp.dtype.stype``: true gives 0xffffffff for integers and 1.0 for floats."""
    sp.require(FLOAT_OPS | set(INT_OPS) | set(BOOL_OPS) | {"ftz"}, CMP_TYPES)
    types = sp.types
    if len(types) != 2:
        raise ReferenceInputError(f"{sp.text}: needs .dtype and .stype")
    dtype, stype = types
    if stype.lanes == 2 and dtype.lanes == 1 and (dtype.width != 32 or dtype.is_float):
        # 9.7.4 set (half precision): an x2 comparison writes .u32/.s32 or the packed type itself
        raise ReferenceInputError(f"{sp.text}: a packed comparison needs a .u32/.s32 or packed destination")
    cmp, combine = _comparator(sp, stype), _combine(sp)
    if dtype.is_float:
        fmt = float_format(dtype.element)
        true_bits, width = fmt.one, dtype.element_width
    else:  # all ones per compared element: 0xffff halves for x2 sources (half-precision set)
        width = 16 if stype.lanes == 2 else dtype.width
        true_bits = (1 << width) - 1

    def lane(a: int, b: int, c: bool = False) -> LaneValue:
        out = 0
        for i, r in enumerate(cmp(a, b)):
            if combine is not None:
                r = combine(r, c)
            out |= (true_bits if r else 0) << (i * width)
        return out

    in_types = [stype, stype] + ([PRED] if combine else [])
    return run_lanes(sp, lane, inputs, in_types, [dtype])


def _selp(sp: Spelling, inputs: Sequence[object]) -> Result:
    sp.require(set(), ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64"))
    t = sp.type

    def lane(a: int, b: int, c: bool) -> LaneValue:
        return a if c else b

    return run_lanes(sp, lane, inputs, [t, t, PRED], [t])


def _slct(sp: Spelling, inputs: Sequence[object]) -> Result:
    """``slct.dtype.ctype d, a, b, c``: ``d = (c >= 0) ? a : b``; .ftz flushes a subnormal ``c``."""
    sp.require({"ftz"}, ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64"))
    types = sp.types
    if len(types) != 2 or types[1].name not in ("s32", "f32"):
        raise ReferenceInputError(f"{sp.text}: needs .dtype and .s32/.f32 for c")
    dtype, ctype = types
    ftz = sp.has("ftz")
    fmt = float_format("f32")

    def lane(a: int, b: int, c: int) -> LaneValue:
        if ctype.name == "s32":
            return a if to_signed(c, 32) >= 0 else b
        c = fmt.flush_subnormal(c) if ftz else c
        return a if compare_float(fmt, "ge", c, 0) else b

    return run_lanes(sp, lane, inputs, [dtype, dtype, ctype], [dtype])


HANDLERS: dict[str, Handler] = {"setp": _setp, "set": _set, "selp": _selp, "slct": _slct}
