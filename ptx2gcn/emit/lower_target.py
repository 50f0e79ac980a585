"""Lowering of the target ops (``ptx2gcn.ir.opcodes.TARGET_OPS``): each is one LLVM intrinsic call or instruction.

Invariant: an ``amdgcn.X`` op becomes exactly one call of ``llvm.amdgcn.X`` (with the overload
suffix of its result type where the intrinsic is overloaded), an ``llvm.cttz`` one ``llvm.cttz.iN``
and an ``llvm.fence`` one ``fence``; the op's integer attributes are the intrinsic's ``immarg``
operands, after its value operands. Intrinsics of convergent ops are declared ``convergent``.
Nothing here knows about CUDA warps: the warp-mapping passes (``passes/wave64_*.py``) decided
which wave operations a PTX collective needs.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_atomics import fence
from ptx2gcn.emit.llvm_types import I1, llvm_type
from ptx2gcn.ir.core import Op
from ptx2gcn.ir.opcodes import TARGET_OPS, is_convergent

_OVERLOADED = frozenset({"amdgcn.ballot", "amdgcn.readlane", "amdgcn.set.inactive", "amdgcn.strict.wwm",
                         "amdgcn.update.dpp"})
"""Intrinsics whose name carries the result type (``llvm.amdgcn.ballot.i64``)."""
_OPERAND_OVERLOADED = frozenset({"amdgcn.inverse.ballot"})
"""Intrinsics whose name carries the first operand's type (``llvm.amdgcn.inverse.ballot.i64``)."""
_IMMARGS: dict[str, tuple[str, ...]] = {"amdgcn.ds.swizzle": ("offset",), "amdgcn.s.sleep": ("n",),
                                        "amdgcn.update.dpp": ("dpp_ctrl", "row_mask", "bank_mask", "bound_ctrl")}
"""Attributes passed as trailing immediate operands, in order: i32, except those in ``_I1_IMMARGS``."""
_I1_IMMARGS = frozenset({"bound_ctrl"})


def _immarg(cx: FnContext, op: Op, name: str) -> ir.Constant:
    return ir.Constant(I1, _int(op, name)) if name in _I1_IMMARGS else cx.i32(_int(op, name))


def lower_intrinsic(cx: FnContext, op: Op) -> None:
    operands = cx.operands(op)
    args = [*operands, *(_immarg(cx, op, name) for name in _IMMARGS.get(op.name, ()))]
    ret = llvm_type(op.result.type) if op.results else ir.VoidType()
    name = f"llvm.{op.name}" + (f".{ret}" if op.name in _OVERLOADED else "")
    name += f".{operands[0].type}" if op.name in _OPERAND_OVERLOADED else ""
    result = cx.call(name, ret, args, ["convergent"] if is_convergent(op.name) else [])
    if op.results:
        cx.define(op, result)


def lower_cttz(cx: FnContext, op: Op) -> None:
    value = cx.operand(op, 0)
    poison = ir.Constant(I1, 1 if cx.flag(op, "zero_poison") else 0)
    cx.define(op, cx.call(f"llvm.cttz.{value.type}", value.type, [value, poison]))


def lower_fence(cx: FnContext, op: Op) -> None:
    scope = cx.attr(op, "syncscope")
    fence(cx.builder, cx.attr(op, "ordering"), "" if scope == "system" else scope)


def _int(op: Op, name: str) -> int:
    value = op.attrs[name]
    assert isinstance(value, int)
    return value


LOWERINGS: dict[str, Lowering] = {
    **{name: lower_intrinsic for name in TARGET_OPS if name.startswith("amdgcn.")},
    "llvm.cttz": lower_cttz,
    "llvm.fence": lower_fence,
}
