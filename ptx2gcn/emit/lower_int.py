"""Lowering of PTX integer arithmetic (PTX ISA 9.7.1-9.7.2: add sub mul mad with .lo/.hi/.wide and
.sat, carry chains, mul24 mad24 sad div rem abs neg min max, dp4a dp2a, packed .u16x2/.s16x2
add/min/max) and integer setp, with PTX's exact semantics.

Invariant: no lowering emits LLVM undefined behaviour or poison for any input: division by zero and
``INT_MIN / -1`` (unspecified in PTX) give defined values (quotient all ones / INT_MIN, remainder
the dividend). Signedness comes from the op's ``type`` attribute (``s*``); IR integers are
signless; packed ``u16x2``/``s16x2`` values are i32 in IR and work lane-wise as ``<2 x i16>``.
Bit-field and counting instructions are in ``lower_int_bits``, logic and shifts in
``lower_int_logic``.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_types import I1, I32
from ptx2gcn.emit.lower_int_common import const, extend, signed_op
from ptx2gcn.ir.core import Op

_HALVES = ir.VectorType(ir.IntType(16), 2)
"""A packed ``u16x2``/``s16x2`` value as LLVM sees it: element 0 is the low half of the i32."""


def _packed_operands(cx: FnContext, op: Op) -> list[ir.Value] | None:
    """The operands as ``<2 x i16>`` when the op is on ``u16x2``/``s16x2``, else None."""
    if cx.attr(op, "type") not in ("u16x2", "s16x2"):
        return None
    return [cx.builder.bitcast(value, _HALVES) for value in cx.operands(op)]


def _suffix(t: ir.Type) -> str:
    """The overload suffix of an LLVM integer intrinsic (``i32``, ``v2i16``)."""
    return "v2i16" if t == _HALVES else str(t)


def int_add(cx: FnContext, op: Op) -> None:
    a, b_ = _packed_operands(cx, op) or cx.operands(op)
    if cx.flag(op, "sat"):
        cx.define(op, cx.call(f"llvm.sadd.sat.{a.type}", a.type, [a, b_]))
    else:
        cx.define(op, cx.builder.add(a, b_))


def int_sub(cx: FnContext, op: Op) -> None:
    a, b_ = cx.operands(op)  # no packed form: ptxas rejects sub.u16x2/.s16x2
    if cx.flag(op, "sat"):
        cx.define(op, cx.call(f"llvm.ssub.sat.{a.type}", a.type, [a, b_]))
    else:
        cx.define(op, cx.builder.sub(a, b_))


def _with_carry(cx: FnContext, kind: str, a: ir.Value, b_: ir.Value,
                cin: ir.Value) -> tuple[ir.Value, ir.Value]:
    """``a ± (b + cin)`` and the carry (add) or borrow (sub) out, as PTX's CC.CF."""
    if kind == "uadd" and a.type.width == 64:
        return _add64_with_carry(cx, a, b_, cin)
    b = cx.builder
    name = f"llvm.{kind}.with.overflow.{a.type}"
    pair_t = ir.LiteralStructType([a.type, I1])
    first = cx.call(name, pair_t, [a, b_])
    second = cx.call(name, pair_t, [b.extract_value(first, 0), b.zext(cin, a.type)])
    carry = b.or_(b.extract_value(first, 1), b.extract_value(second, 1))
    return b.extract_value(second, 0), carry


def _add64_with_carry(cx: FnContext, a: ir.Value, b_: ir.Value, cin: ir.Value) -> tuple[ir.Value, ir.Value]:
    """A 64-bit ``a + b + cin`` and its carry-out as the majority of the top bits,
    ``msb((a & b) | ((a | b) & ~sum))``, not ``llvm.uadd.with.overflow.i64``: LLVM 22 gets that
    intrinsic's carry wrong for gfx942 when one operand's high word is a plain add (a 64-bit
    product, so every 64-bit ``mad.lo.cc``) and the other's is 0, by folding
    ``uaddo_carry((x + y), 0, c)`` into ``uaddo_carry(x, y, c)`` (llvm/llvm-project#204362; found
    by tests/conformance/test_metamorphic.py)."""
    b = cx.builder
    total = b.add(b.add(a, b_), b.zext(cin, a.type))
    top = b.or_(b.and_(a, b_), b.and_(b.or_(a, b_), b.not_(total)))
    return total, b.trunc(b.lshr(top, const(a.type, 63)), I1)


def lower_addc(cx: FnContext, op: Op) -> None:
    cx.define(op, *_with_carry(cx, "uadd", *cx.operands(op)))


def lower_subc(cx: FnContext, op: Op) -> None:
    """IR ``subc(a, b, borrow_in) -> (a - b - borrow_in, borrow_out)``: the PTX ISA's wording of one
    instruction. On hardware CC.CF after a subtraction is the carry of ``a + ~b + 1``, i.e. NOT the
    borrow (ptxas folds ``sub.cc 0, 1; addc 0, 0`` to 0): whoever carries ``%cc`` from a ``subc``
    into an ``addc``/``madc`` (or back) must invert it (tests/codegen/test_int_carry.py)."""
    cx.define(op, *_with_carry(cx, "usub", *cx.operands(op)))


def _product(cx: FnContext, op: Op, a: ir.Value, b_: ir.Value, mode: str) -> ir.Value:
    b = cx.builder
    width = a.type.width
    if mode in ("", "lo"):
        return b.mul(a, b_)
    signed = signed_op(cx, op)
    wide = b.mul(extend(cx, a, 2 * width, signed), extend(cx, b_, 2 * width, signed))
    if mode == "wide":
        return wide
    return b.trunc(b.lshr(wide, const(wide.type, width)), a.type)


def int_mul(cx: FnContext, op: Op) -> None:
    a, b_ = cx.operands(op)
    cx.define(op, _product(cx, op, a, b_, cx.attr(op, "mode")))


def int_mad(cx: FnContext, op: Op) -> None:
    a, b_, c = cx.operands(op)
    product = _product(cx, op, a, b_, cx.attr(op, "mode"))
    if cx.flag(op, "sat"):  # mad.hi.sat.s32
        cx.define(op, cx.call(f"llvm.sadd.sat.{c.type}", c.type, [product, c]))
    else:
        cx.define(op, cx.builder.add(product, c))


def lower_madc(cx: FnContext, op: Op) -> None:
    a, b_, c, cin = cx.operands(op)
    product = _product(cx, op, a, b_, cx.attr(op, "mode"))
    cx.define(op, *_with_carry(cx, "uadd", product, c, cin))


def _operand24(cx: FnContext, value: ir.Value, signed: bool) -> ir.Value:
    b = cx.builder
    shifted = b.shl(value, const(value.type, 8))
    return b.ashr(shifted, const(value.type, 8)) if signed else b.lshr(shifted, const(value.type, 8))


def _product24(cx: FnContext, op: Op, a: ir.Value, b_: ir.Value) -> ir.Value:
    b = cx.builder
    signed = signed_op(cx, op)
    wide = b.mul(extend(cx, _operand24(cx, a, signed), 64, signed),
                 extend(cx, _operand24(cx, b_, signed), 64, signed))
    if cx.attr(op, "mode") == "hi":  # bits 47..16 of the 48-bit product
        wide = b.lshr(wide, const(wide.type, 16))
    return b.trunc(wide, a.type)


def lower_mul24(cx: FnContext, op: Op) -> None:
    cx.define(op, _product24(cx, op, *cx.operands(op)))


def lower_mad24(cx: FnContext, op: Op) -> None:
    a, b_, c = cx.operands(op)
    product = _product24(cx, op, a, b_)
    if cx.flag(op, "sat"):
        cx.define(op, cx.call(f"llvm.sadd.sat.{c.type}", c.type, [product, c]))
    else:
        cx.define(op, cx.builder.add(product, c))


def lower_sad(cx: FnContext, op: Op) -> None:
    a, b_, c = cx.operands(op)
    b = cx.builder
    lt = b.icmp_signed("<", a, b_) if signed_op(cx, op) else b.icmp_unsigned("<", a, b_)
    diff = b.select(lt, b.sub(b_, a), b.sub(a, b_))
    cx.define(op, b.add(diff, c))


def _nonzero_divisor(b: ir.IRBuilder, divisor: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(divisor == 0, the divisor with 1 in place of 0): LLVM's division by 0 is undefined, PTX's is
    not, so the caller divides by the safe divisor and selects PTX's result where ``zero`` holds."""
    zero = b.icmp_unsigned("==", divisor, const(divisor.type, 0))
    return zero, b.select(zero, const(divisor.type, 1), divisor)


def int_div(cx: FnContext, op: Op) -> None:
    a, b_ = cx.operands(op)
    b = cx.builder
    zero, safe = _nonzero_divisor(b, b_)
    if signed_op(cx, op):
        overflow = b.and_(b.icmp_signed("==", a, const(a.type, 1 << (a.type.width - 1))),
                          b.icmp_signed("==", b_, const(b_.type, -1)))
        safe = b.select(overflow, const(b_.type, 1), safe)
        quotient = b.sdiv(a, safe)
    else:
        quotient = b.udiv(a, safe)
    cx.define(op, b.select(zero, const(a.type, -1), quotient))


def lower_rem(cx: FnContext, op: Op) -> None:
    a, b_ = cx.operands(op)
    b = cx.builder
    zero, safe = _nonzero_divisor(b, b_)
    if signed_op(cx, op):
        minus_one = b.icmp_signed("==", b_, const(b_.type, -1))
        safe = b.select(minus_one, const(b_.type, 1), safe)  # x rem -1 = 0 = x rem 1, no INT_MIN trap
        remainder = b.srem(a, safe)
    else:
        remainder = b.urem(a, safe)
    cx.define(op, b.select(zero, a, remainder))


def int_abs(cx: FnContext, op: Op) -> None:
    a = cx.operand(op, 0)
    cx.define(op, cx.call(f"llvm.abs.{a.type}", a.type, [a, ir.Constant(I1, 0)]))


def int_neg(cx: FnContext, op: Op) -> None:
    a = cx.operand(op, 0)
    cx.define(op, cx.builder.neg(a))


def int_minmax(kind: str) -> Lowering:
    """min/max (``.relu``: then max with 0); packed types work per 16-bit half."""
    def lower(cx: FnContext, op: Op) -> None:
        packed = _packed_operands(cx, op)
        a, b_ = packed or cx.operands(op)
        signed = cx.attr(op, "type") == "s16x2" if packed else signed_op(cx, op)
        name = f"llvm.{'s' if signed else 'u'}{kind}.{_suffix(a.type)}"
        result = cx.call(name, a.type, [a, b_])
        if cx.flag(op, "relu"):
            zero = ir.Constant(a.type, None)
            result = cx.call(f"llvm.smax.{_suffix(a.type)}", a.type, [result, zero])
        cx.define(op, result)
    return lower


def _parts(cx: FnContext, x: ir.Value, width: int, count: int, first: int, signed: bool) -> list[ir.Value]:
    """``count`` fields of ``width`` bits of i32 ``x`` starting at field ``first``, extended to i32."""
    b = cx.builder
    field_t = ir.IntType(width)
    parts = []
    for index in range(first, first + count):
        piece = b.trunc(b.lshr(x, ir.Constant(I32, index * width)), field_t)
        parts.append(b.sext(piece, I32) if signed else b.zext(piece, I32))
    return parts


def lower_dp4a(cx: FnContext, op: Op) -> None:
    """d = c + Σ a.byte[i] · b.byte[i] (bytes signed per .atype/.btype), wrapping mod 2^32."""
    a, b_, c = cx.operands(op)
    xs = _parts(cx, a, 8, 4, 0, cx.attr(op, "atype") == "s32")
    ys = _parts(cx, b_, 8, 4, 0, cx.attr(op, "btype") == "s32")
    total = c
    for x, y in zip(xs, ys):
        total = cx.builder.add(total, cx.builder.mul(x, y))
    cx.define(op, total)


def lower_dp2a(cx: FnContext, op: Op) -> None:
    """d = c + Σ a.half[i] · b.byte[i + 2·hi] (two 16-bit halves of a, two bytes of b)."""
    a, b_, c = cx.operands(op)
    xs = _parts(cx, a, 16, 2, 0, cx.attr(op, "atype") == "s32")
    ys = _parts(cx, b_, 8, 2, 2 if cx.attr(op, "mode") == "hi" else 0, cx.attr(op, "btype") == "s32")
    total = c
    for x, y in zip(xs, ys):
        total = cx.builder.add(total, cx.builder.mul(x, y))
    cx.define(op, total)


_ICMP: dict[str, tuple[str, bool | None]] = {
    "eq": ("==", None), "ne": ("!=", None), "lt": ("<", True), "le": ("<=", True), "gt": (">", True),
    "ge": (">=", True), "lo": ("<", False), "ls": ("<=", False), "hi": (">", False), "hs": (">=", False),
}


def int_setp(cx: FnContext, op: Op) -> None:
    a, b_ = cx.operands(op)
    predicate, signed_cmp = _ICMP[cx.attr(op, "cmp")]
    signed = signed_op(cx, op) if signed_cmp is True else False
    b = cx.builder
    cx.define(op, b.icmp_signed(predicate, a, b_) if signed else b.icmp_unsigned(predicate, a, b_))


LOWERINGS: dict[str, Lowering] = {
    "addc": lower_addc, "subc": lower_subc, "madc": lower_madc, "mul24": lower_mul24,
    "mad24": lower_mad24, "sad": lower_sad, "rem": lower_rem, "dp4a": lower_dp4a, "dp2a": lower_dp2a,
}
"""Ops that exist only for integers; ``INT_FORMS`` holds the integer halves of shared ops."""

INT_FORMS: dict[str, Lowering] = {
    "add": int_add, "sub": int_sub, "mul": int_mul, "mad": int_mad, "div": int_div, "abs": int_abs,
    "neg": int_neg, "min": int_minmax("min"), "max": int_minmax("max"), "setp": int_setp,
}
