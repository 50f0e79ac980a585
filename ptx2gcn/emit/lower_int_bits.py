"""Lowering of PTX bit counting and bit-field instructions (PTX ISA 9.7.1: popc, clz, bfind, brev, bfe,
bfi, bmsk, szext, fns) with PTX's exact semantics.

Invariant: no lowering emits LLVM poison or undefined behaviour for any operand value: bit-field
positions and lengths are taken modulo 256 and clamped as PTX says, counts are never passed to an
LLVM shift at or past the type's width, and ``fns``'s "not found" result is 0xffffffff.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_types import I1, I32
from ptx2gcn.emit.lower_int_common import const, fit, signed_op
from ptx2gcn.ir.core import Op


def lower_popc(cx: FnContext, op: Op) -> None:
    a = cx.operand(op, 0)
    cx.define(op, fit(cx, cx.call(f"llvm.ctpop.{a.type}", a.type, [a]), I32))


def lower_clz(cx: FnContext, op: Op) -> None:
    a = cx.operand(op, 0)
    cx.define(op, fit(cx, cx.call(f"llvm.ctlz.{a.type}", a.type, [a, ir.Constant(I1, 0)]), I32))


def lower_bfind(cx: FnContext, op: Op) -> None:
    """Position of the most significant non-sign bit; 0xffffffff when there is none."""
    a = cx.operand(op, 0)
    b = cx.builder
    width = a.type.width
    if signed_op(cx, op):
        negative = b.icmp_signed("<", a, const(a.type, 0))
        a = b.select(negative, b.not_(a), a)
    leading = fit(cx, cx.call(f"llvm.ctlz.{a.type}", a.type, [a, ir.Constant(I1, 0)]), I32)
    none = b.icmp_unsigned("==", leading, ir.Constant(I32, width))
    position = leading if cx.flag(op, "shiftamt") else b.sub(ir.Constant(I32, width - 1), leading)
    cx.define(op, b.select(none, ir.Constant(I32, 0xFFFFFFFF), position))


def lower_brev(cx: FnContext, op: Op) -> None:
    a = cx.operand(op, 0)
    cx.define(op, cx.call(f"llvm.bitreverse.{a.type}", a.type, [a]))


def _mask(cx: FnContext, length: ir.Value, t: ir.IntType) -> ir.Value:
    """Low ``length`` bits set (all bits when length ≥ width); ``length`` is i32 in 0..255."""
    b = cx.builder
    full = b.icmp_unsigned(">=", length, ir.Constant(I32, t.width))
    shift = fit(cx, b.and_(length, ir.Constant(I32, t.width - 1)), t)
    return b.select(full, const(t, -1), b.sub(b.shl(const(t, 1), shift), const(t, 1)))


def lower_bfe(cx: FnContext, op: Op) -> None:
    """PTX: d[i] = (i < len && pos + i < width) ? a[pos + i] : sbit, sbit = 0 for .u and
    a[min(pos + len - 1, width - 1)] for .s; len == 0 gives 0."""
    a, pos, length = cx.operands(op)
    b = cx.builder
    t = a.type
    width = t.width
    pos = b.and_(pos, ir.Constant(I32, 0xFF))
    length = b.and_(length, ir.Constant(I32, 0xFF))
    beyond = b.icmp_unsigned(">=", pos, ir.Constant(I32, width))
    pos_t = fit(cx, cx.call("llvm.umin.i32", I32, [pos, ir.Constant(I32, width - 1)]), t)
    # Result bits that come from ``a``: the first ``len`` ones, and only those inside the source.
    valid = b.and_(_mask(cx, length, t), b.select(beyond, const(t, 0), b.lshr(const(t, -1), pos_t)))
    field = b.and_(b.lshr(a, pos_t), valid)
    if signed_op(cx, op):
        msb = cx.call("llvm.umin.i32", I32, [b.sub(b.add(pos, length), ir.Constant(I32, 1)),
                                             ir.Constant(I32, width - 1)])
        sbit = b.trunc(b.lshr(a, fit(cx, msb, t)), I1)
        field = b.or_(field, b.select(sbit, b.not_(valid), const(t, 0)))
    cx.define(op, b.select(b.icmp_unsigned("==", length, ir.Constant(I32, 0)), const(t, 0), field))


def lower_bfi(cx: FnContext, op: Op) -> None:
    insert, base, pos, length = cx.operands(op)
    b = cx.builder
    t = base.type
    pos = b.and_(pos, ir.Constant(I32, 0xFF))
    length = b.and_(length, ir.Constant(I32, 0xFF))
    in_range = b.icmp_unsigned("<", pos, ir.Constant(I32, t.width))
    shift = fit(cx, b.and_(pos, ir.Constant(I32, t.width - 1)), t)
    mask = b.shl(_mask(cx, length, t), shift)
    merged = b.or_(b.and_(base, b.not_(mask)), b.and_(b.shl(insert, shift), mask))
    cx.define(op, b.select(in_range, merged, base))


def lower_bmsk(cx: FnContext, op: Op) -> None:
    pos, length = cx.operands(op)
    b = cx.builder
    if cx.attr(op, "mode") == "wrap":
        pos = b.and_(pos, ir.Constant(I32, 31))
        length = b.and_(length, ir.Constant(I32, 31))
    else:
        pos = cx.call("llvm.umin.i32", I32, [pos, ir.Constant(I32, 32)])
        length = cx.call("llvm.umin.i32", I32, [length, ir.Constant(I32, 32)])
    i64 = ir.IntType(64)
    mask = b.sub(b.shl(ir.Constant(i64, 1), b.zext(length, i64)), ir.Constant(i64, 1))
    cx.define(op, b.trunc(b.shl(mask, b.zext(pos, i64)), I32))


LOWERINGS: dict[str, Lowering] = {
    "popc": lower_popc, "clz": lower_clz, "bfind": lower_bfind, "brev": lower_brev, "bfe": lower_bfe,
    "bfi": lower_bfi, "bmsk": lower_bmsk,
}
