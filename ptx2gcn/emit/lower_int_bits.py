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




def lower_szext(cx: FnContext, op: Op) -> None:
    """szext.{clamp,wrap}.{u32,s32} d, a, n (PTX ISA 9.7.1.21): the low n bits of a, zero- or
    sign-extended; n == 0 gives 0; n ≥ 32 gives a (.clamp) or uses n mod 32 (.wrap)."""
    a, n = cx.operands(op)
    b = cx.builder
    n1 = b.and_(n, const(I32, 31))
    kept = b.shl(const(I32, -1), n1)  # the bits above the field (n1 < 32: no poison)
    if cx.attr(op, "mode") == "clamp":
        kept = b.select(b.icmp_unsigned(">=", n, const(I32, 32)), const(I32, 0), kept)
    result = b.and_(a, b.not_(kept))
    if cx.attr(op, "type") == "s32":
        sign_pos = b.and_(b.sub(n1, const(I32, 1)), const(I32, 31))
        # No fill for an empty field (n1 == 0); a clamped whole word has kept == 0 anyway.
        sign = b.and_(b.trunc(b.lshr(a, sign_pos), I1), b.icmp_unsigned("!=", n1, const(I32, 0)))
        result = b.or_(result, b.select(sign, kept, const(I32, 0)))
    cx.define(op, result)


def _nth_set_bit(cx: FnContext, bits: ir.Value, n: ir.Value) -> ir.Value:
    """Position of the n-th (1-based) set bit of i32 ``bits`` counted from bit 0, for 1 ≤ n ≤ popc:
    a binary search that halves the window (32, 16, ..., 1) using population counts."""
    b = cx.builder
    position: ir.Value = const(I32, 0)
    for width in (16, 8, 4, 2, 1):
        window = b.and_(b.lshr(bits, position), const(I32, (1 << width) - 1))
        count = cx.call("llvm.ctpop.i32", I32, [window])
        skip = b.icmp_unsigned(">", n, count)
        position = b.select(skip, b.add(position, const(I32, width)), position)
        n = b.select(skip, b.sub(n, count), n)
    return position


def lower_fns(cx: FnContext, op: Op) -> None:
    """fns.b32 d, mask, base, offset (PTX ISA 9.7.1.17): the |offset|-th set bit of mask at or above
    bit ``base`` (offset > 0) or at or below it (offset < 0); offset 0: base itself if that bit is set;
    0xffffffff when there is none. ``base`` > 31 is undefined in PTX: its low 5 bits are used."""
    mask, base, offset = cx.operands(op)
    b = cx.builder
    base = b.and_(base, const(I32, 31))
    backward = b.icmp_signed("<", offset, const(I32, 0))
    upward = b.and_(mask, b.shl(const(I32, -1), base))
    # Searching downward from base is searching upward in the bit-reversed word from 31 - base.
    downward = cx.call("llvm.bitreverse.i32", I32, [b.and_(mask, b.lshr(const(I32, -1),
                                                                          b.sub(const(I32, 31), base)))])
    candidates = b.select(backward, downward, upward)
    n = b.select(backward, b.neg(offset), offset)  # |offset| as unsigned (INT_MIN stays 2^31)
    found = _nth_set_bit(cx, candidates, n)
    found = b.select(backward, b.sub(const(I32, 31), found), found)
    exists = b.icmp_unsigned("<=", n, cx.call("llvm.ctpop.i32", I32, [candidates]))
    at_base = b.trunc(b.lshr(mask, base), I1)
    none = const(I32, -1)
    result = b.select(b.icmp_unsigned("==", offset, const(I32, 0)), b.select(at_base, base, none),
                      b.select(exists, found, none))
    cx.define(op, result)


LOWERINGS: dict[str, Lowering] = {
    "popc": lower_popc, "clz": lower_clz, "bfind": lower_bfind, "brev": lower_brev, "bfe": lower_bfe,
    "bfi": lower_bfi, "bmsk": lower_bmsk, "szext": lower_szext, "fns": lower_fns,
}
