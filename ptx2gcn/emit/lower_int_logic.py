"""Lowering of PTX logic and shift instructions (PTX ISA 9.7.8: and, or, xor, not, cnot, lop3, shl, shr,
shf; 9.7.9.7 prmt) with PTX's exact semantics.

Invariant: shift amounts are clamped as PTX says (``shl``/``shr`` by the width or more give 0 or the
sign fill; ``shf`` clamps at 32 or wraps mod 32), so no LLVM shift ever sees an amount at or past
its width (no poison); ``prmt`` selects bytes of the 64-bit pair b:a exactly per its selector.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_types import I32
from ptx2gcn.emit.lower_int_common import const, fit, signed_op
from ptx2gcn.ir.core import Op


def _binary(method: str) -> Lowering:
    def lower(cx: FnContext, op: Op) -> None:
        a, b_ = cx.operands(op)
        cx.define(op, getattr(cx.builder, method)(a, b_))
    return lower


def lower_not(cx: FnContext, op: Op) -> None:
    cx.define(op, cx.builder.not_(cx.operand(op, 0)))


def lower_cnot(cx: FnContext, op: Op) -> None:
    a = cx.operand(op, 0)
    cx.define(op, cx.builder.zext(cx.builder.icmp_unsigned("==", a, const(a.type, 0)), a.type))


def lower_lop3(cx: FnContext, op: Op) -> None:
    """Sum of the minterms selected by the LUT; minterm i has a = bit 2, b = bit 1, c = bit 0."""
    a, b_, c = cx.operands(op)
    lut = op.attrs["lut"]
    assert isinstance(lut, int)
    b = cx.builder
    result: ir.Value = const(a.type, 0)
    for index in range(8):
        if lut >> index & 1:
            term = b.and_(b.and_(a if index & 4 else b.not_(a), b_ if index & 2 else b.not_(b_)),
                          c if index & 1 else b.not_(c))
            result = b.or_(result, term)
    cx.define(op, result)


def _constant_amount(amount: ir.Value) -> int | None:
    """The value of a constant shift amount (PTX code mostly shifts by immediates)."""
    constant = getattr(amount, "constant", None)
    return constant if isinstance(amount, ir.Constant) and isinstance(constant, int) else None


def lower_shl(cx: FnContext, op: Op) -> None:
    a, amount = cx.operands(op)
    b = cx.builder
    known = _constant_amount(amount)
    if known is not None:
        cx.define(op, b.shl(a, const(a.type, known)) if known < a.type.width else const(a.type, 0))
        return
    big = b.icmp_unsigned(">=", amount, ir.Constant(I32, a.type.width))
    safe = fit(cx, b.select(big, ir.Constant(I32, 0), amount), a.type)
    cx.define(op, b.select(big, const(a.type, 0), b.shl(a, safe)))


def lower_shr(cx: FnContext, op: Op) -> None:
    a, amount = cx.operands(op)
    b = cx.builder
    width = a.type.width
    known = _constant_amount(amount)
    if known is not None:
        if signed_op(cx, op):
            cx.define(op, b.ashr(a, const(a.type, min(known, width - 1))))
        else:
            cx.define(op, b.lshr(a, const(a.type, known)) if known < width else const(a.type, 0))
        return
    if signed_op(cx, op):
        clamped = cx.call("llvm.umin.i32", I32, [amount, ir.Constant(I32, width - 1)])
        cx.define(op, b.ashr(a, fit(cx, clamped, a.type)))
        return
    big = b.icmp_unsigned(">=", amount, ir.Constant(I32, width))
    safe = fit(cx, b.select(big, ir.Constant(I32, 0), amount), a.type)
    cx.define(op, b.select(big, const(a.type, 0), b.lshr(a, safe)))


def lower_shf(cx: FnContext, op: Op) -> None:
    """Funnel shift of b:a (b high); ``.clamp`` saturates the amount at 32, ``.wrap`` takes it mod 32."""
    a, high, amount = cx.operands(op)
    b = cx.builder
    left = cx.attr(op, "dir") == "l"
    masked = b.and_(amount, ir.Constant(I32, 31))
    shifted = cx.call(f"llvm.fsh{'l' if left else 'r'}.i32", I32, [high, a, masked])
    if cx.attr(op, "mode") == "clamp":
        saturated = b.icmp_unsigned(">=", amount, ir.Constant(I32, 32))
        shifted = b.select(saturated, a if left else high, shifted)
    cx.define(op, shifted)


_PRMT_MODES: dict[str, tuple[tuple[int, int, int, int], ...]] = {
    # mode → for c[1:0] = 0..3, the source byte of result bytes (b0, b1, b2, b3); source bytes 0-3
    # are a's, 4-7 are b's (PTX ISA "prmt", table of the special modes).
    "f4e": ((0, 1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)),
    "b4e": ((0, 7, 6, 5), (1, 0, 7, 6), (2, 1, 0, 7), (3, 2, 1, 0)),
    "rc8": ((0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3)),
    "ecl": ((0, 1, 2, 3), (1, 1, 2, 3), (2, 2, 2, 3), (3, 3, 3, 3)),
    "ecr": ((0, 0, 0, 0), (0, 1, 1, 1), (0, 1, 2, 2), (0, 1, 2, 3)),
    "rc16": ((0, 1, 0, 1), (2, 3, 2, 3), (0, 1, 0, 1), (2, 3, 2, 3)),
}


def _prmt_mode(cx: FnContext, pair: ir.Value, selector: ir.Value, mode: str) -> ir.Value:
    b = cx.builder
    i64 = pair.type
    low = b.and_(selector, ir.Constant(I32, 3))
    result: ir.Value = ir.Constant(I32, 0)
    for position in range(4):
        index: ir.Value = ir.Constant(I32, _PRMT_MODES[mode][0][position])
        for choice in range(1, 4):
            chosen = b.icmp_unsigned("==", low, ir.Constant(I32, choice))
            index = b.select(chosen, ir.Constant(I32, _PRMT_MODES[mode][choice][position]), index)
        byte = b.trunc(b.lshr(pair, b.shl(b.zext(index, i64), ir.Constant(i64, 3))), ir.IntType(8))
        result = b.or_(result, b.shl(b.zext(byte, I32), ir.Constant(I32, 8 * position)))
    return result


def lower_prmt(cx: FnContext, op: Op) -> None:
    a, b_, selector = cx.operands(op)
    b = cx.builder
    i64 = ir.IntType(64)
    pair = b.or_(b.zext(a, i64), b.shl(b.zext(b_, i64), ir.Constant(i64, 32)))
    if cx.attr(op, "mode"):
        cx.define(op, _prmt_mode(cx, pair, selector, cx.attr(op, "mode")))
        return
    result: ir.Value = ir.Constant(I32, 0)
    for index in range(4):
        nibble = b.and_(b.lshr(selector, ir.Constant(I32, 4 * index)), ir.Constant(I32, 0xF))
        byte_index = b.zext(b.and_(nibble, ir.Constant(I32, 7)), i64)
        byte = b.trunc(b.lshr(pair, b.shl(byte_index, ir.Constant(i64, 3))), ir.IntType(8))
        replicate = b.icmp_unsigned("!=", b.and_(nibble, ir.Constant(I32, 8)), ir.Constant(I32, 0))
        sign = b.ashr(byte, ir.Constant(ir.IntType(8), 7))
        chosen = b.zext(b.select(replicate, sign, byte), I32)
        result = b.or_(result, b.shl(chosen, ir.Constant(I32, 8 * index)))
    cx.define(op, result)


LOWERINGS: dict[str, Lowering] = {
    "and": _binary("and_"), "or": _binary("or_"), "xor": _binary("xor"), "not": lower_not,
    "cnot": lower_cnot, "lop3": lower_lop3, "shl": lower_shl, "shr": lower_shr, "shf": lower_shf,
    "prmt": lower_prmt,
}
