"""Small helpers shared by the integer lowering modules (``lower_int``, ``lower_int_bits``,
``lower_int_logic``).

Invariant: every helper returns LLVM values of exactly the stated width and emits no poison:
constants are wrapped to the type's width, extensions and resizes never lose bits silently except
where the caller asks for a truncation.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.ir.core import Op
from ptx2gcn.ir.types import is_signed


def const(t: ir.Type, value: int) -> ir.Constant:
    """``value`` wrapped to integer type ``t``."""
    assert isinstance(t, ir.IntType)
    return ir.Constant(t, value & ((1 << t.width) - 1))


def signed_op(cx: FnContext, op: Op) -> bool:
    """Whether the op's ``type`` attribute is a signed integer type (``s*``)."""
    return is_signed(cx.attr(op, "type"))


def extend(cx: FnContext, value: ir.Value, width: int, signed: bool) -> ir.Value:
    t = ir.IntType(width)
    return cx.builder.sext(value, t) if signed else cx.builder.zext(value, t)


def fit(cx: FnContext, value: ir.Value, to: ir.IntType) -> ir.Value:
    """Zero-extend or truncate an integer to ``to`` (shift amounts, counts)."""
    return cx.coerce(value, to)
