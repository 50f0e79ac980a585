"""Lowering of ``cvt_pack`` (``cvt.pack.sat.{u2,s2,u4,s4,u8,s8,u16,s16}.s32[.b32]``, PTX ISA 9.7.9.22).

Invariant: the result is exactly PTX's definition: a and b (signed 32-bit) are each clamped to the
range of the w-bit destination type (``.sat`` is part of every form), b fills bits [0, w), a bits
[w, 2w); for w < 16 the operand c fills bits [2w, 32) with its low 32 - 2w bits (d[i] = c[i - 2w]).
No LLVM poison: clamping uses ``smin``/``smax`` and every shift amount is below 32.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_types import I32
from ptx2gcn.ir.core import Op


def _range(dtype: str) -> tuple[int, int, int]:
    """(width, min, max) of a cvt.pack destination type."""
    width = int(dtype[1:])
    if dtype[0] == "s":
        return width, -(1 << (width - 1)), (1 << (width - 1)) - 1
    return width, 0, (1 << width) - 1


def lower_cvt_pack(cx: FnContext, op: Op) -> None:
    b = cx.builder
    width, low, high = _range(cx.attr(op, "dtype"))
    mask = ir.Constant(I32, (1 << width) - 1)

    def saturated(value: ir.Value) -> ir.Value:
        clamped = cx.call("llvm.smax.i32", I32, [value, ir.Constant(I32, low)])
        return b.and_(cx.call("llvm.smin.i32", I32, [clamped, ir.Constant(I32, high)]), mask)

    a, b_ = cx.operand(op, 0), cx.operand(op, 1)
    packed = b.or_(saturated(b_), b.shl(saturated(a), ir.Constant(I32, width)))
    if width < 16:
        packed = b.or_(packed, b.shl(cx.operand(op, 2), ir.Constant(I32, 2 * width)))
    cx.define(op, packed)


LOWERINGS: dict[str, Lowering] = {"cvt_pack": lower_cvt_pack}
