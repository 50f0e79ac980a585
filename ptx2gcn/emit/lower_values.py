"""Lowering of value plumbing: constants, undef, casts, width changes, pack/unpack, selp.

Invariant: these ops never change bits except as their names say (``zext``/``sext``/``trunc`` resize
integers; ``bitcast``/``pack``/``unpack`` reinterpret the same bits, element 0 in the low bits);
float constants are materialised from their bit patterns, so NaN payloads and -0.0 survive.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_types import int_of, llvm_type, scalar_bits
from ptx2gcn.ir.core import Op


def constant(t: ir.Type, bits: int) -> ir.Constant:
    """The constant of LLVM type ``t`` whose bit pattern is ``bits``."""
    if isinstance(t, ir.IntType):
        return ir.Constant(t, bits & ((1 << t.width) - 1))
    width = scalar_bits(t)
    raw = ir.Constant(ir.IntType(width), bits & ((1 << width) - 1))
    return raw.bitcast(t)


def lower_const(cx: FnContext, op: Op) -> None:
    value = op.attrs["value"]
    assert isinstance(value, int)
    cx.define(op, constant(llvm_type(op.result.type), value))


def lower_undef(cx: FnContext, op: Op) -> None:
    cx.define(op, ir.Constant(llvm_type(op.result.type), ir.Undefined))


def to_int(cx: FnContext, value: ir.Value) -> ir.Value:
    """``value``'s bits as an integer of the same width."""
    if isinstance(value.type, ir.IntType):
        return value
    if isinstance(value.type, ir.PointerType):
        return cx.builder.ptrtoint(value, int_of(value.type))
    return cx.builder.bitcast(value, int_of(value.type))


def from_int(cx: FnContext, value: ir.Value, to: ir.Type) -> ir.Value:
    """Integer ``value`` (same width) reinterpreted as ``to``."""
    if value.type == to:
        return value
    if isinstance(to, ir.PointerType):
        return cx.builder.inttoptr(value, to)
    return cx.builder.bitcast(value, to)


def lower_bitcast(cx: FnContext, op: Op) -> None:
    to = llvm_type(op.result.type)
    value = cx.operand(op, 0)
    bits = to_int(cx, value)
    width = scalar_bits(to)
    if bits.type.width != width:  # PTX register reinterpretation of a narrower/wider register
        bits = cx.coerce(bits, ir.IntType(width))
    cx.define(op, from_int(cx, bits, to))


def _resize(kind: str) -> Lowering:
    def lower(cx: FnContext, op: Op) -> None:
        to = llvm_type(op.result.type)
        value = to_int(cx, cx.operand(op, 0))
        assert isinstance(to, ir.IntType)
        if value.type.width == to.width:
            cx.define(op, value)
        elif kind == "trunc" or value.type.width > to.width:
            cx.define(op, cx.builder.trunc(value, to))
        elif kind == "sext":
            cx.define(op, cx.builder.sext(value, to))
        else:
            cx.define(op, cx.builder.zext(value, to))
    return lower


def lower_pack(cx: FnContext, op: Op) -> None:
    """Concatenate the operands' bits, operand 0 in the low bits."""
    to = llvm_type(op.result.type)
    b = cx.builder
    width = scalar_bits(to)
    whole: ir.Value = ir.Constant(ir.IntType(width), 0)
    shift = 0
    for value in cx.operands(op):
        part = to_int(cx, value)
        whole = b.or_(whole, b.shl(b.zext(part, whole.type) if part.type.width < width else part,
                                   ir.Constant(whole.type, shift)))
        shift += part.type.width
    cx.define(op, from_int(cx, whole, to))


def lower_unpack(cx: FnContext, op: Op) -> None:
    """Split the operand's bits into the results, result 0 from the low bits."""
    b = cx.builder
    whole = to_int(cx, cx.operand(op, 0))
    shift = 0
    parts: list[ir.Value] = []
    for result in op.results:
        to = llvm_type(result.type)
        width = scalar_bits(to)
        piece = b.lshr(whole, ir.Constant(whole.type, shift)) if shift else whole
        piece = b.trunc(piece, ir.IntType(width)) if whole.type.width > width else piece
        parts.append(from_int(cx, piece, to))
        shift += width
    cx.define(op, *parts)


def lower_selp(cx: FnContext, op: Op) -> None:
    a, b_, c = cx.operands(op)
    cx.define(op, cx.builder.select(c, a, b_))


LOWERINGS: dict[str, Lowering] = {
    "const": lower_const, "undef": lower_undef, "bitcast": lower_bitcast,
    "zext": _resize("zext"), "sext": _resize("sext"), "trunc": _resize("trunc"),
    "pack": lower_pack, "unpack": lower_unpack, "selp": lower_selp,
}
