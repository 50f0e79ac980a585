"""Device functions return their ``.param`` results in registers instead of through a pointer.

A PTX ``.func (.param .b32 r) f(...)`` returns ``r`` in parameter memory: lowered literally, the
caller passes the address of a private slot, the callee stores into it and the caller reloads it —
two scratch accesses and a live frame per call, which LLVM cannot undo for a function it does not
inline (recursion, ``__noinline__``). Here such a slot becomes part of the LLVM return value: the
callee keeps its slot as a local ``alloca`` and loads it at each ``ret``; the caller stores the
returned value into its own slot, where SROA usually dissolves it.

Functions called through pointers (address taken) cannot be rewritten per caller, and an indirect
call site does not know which of its ``.param`` operands are results; for them every ``.param`` slot
(results and arguments alike) travels *by value both ways* (``passed_in``): the caller loads each
slot and passes the value, the callee stores it into its own ``alloca`` slot, and at ``ret`` returns
every slot's final value, which the caller stores back. Copy-in/copy-out is exact because only the
callee can reach its parameter memory and PTX passes each slot once; it frees the call of every
private-memory access (``indirect_values``).

Invariant: only functions whose every caller is a direct call in this module change ABI for their
results alone (defined, not a kernel, address never taken, not ``.weak``); address-taken functions
take the copy-in/copy-out ABI exactly when ``indirect_values`` holds for the module, and then so does
every ``call_indirect`` (its slots read from its operands' ``alloca`` sizes, which PTX makes equal to
the prototype's). Only slots of 1, 2 or a multiple of 4 bytes up to 64 travel in registers
(``i8``/``i16``/``i32``/``[n x i32]``); every other slot stays a pointer. The slot values come first
in the LLVM return value, then the ``.reg`` results, then the exit flag (``lower_control``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from llvmlite import ir

from ptx2gcn.ir.core import Function, Module, OpResult, Value
from ptx2gcn.ir.types import AddrSpace, PtrType

MAX_SLOT_BYTES = 64
"""Largest return slot passed in registers (16 VGPRs)."""


@dataclass(frozen=True, slots=True)
class ReturnSlot:
    index: int
    """Position of the slot among the function's entry-block arguments (``Function.abi_params``)."""
    type: ir.Type
    size: int
    align: int
    passed_in: bool = False
    """The slot's value is also an argument (copy in, copy out: calls through pointers)."""


def _slot_type(size: int) -> ir.Type | None:
    if size in (1, 2, 4):
        return ir.IntType(8 * size)
    if size % 4 == 0 and 0 < size <= MAX_SLOT_BYTES:
        return ir.ArrayType(ir.IntType(32), size // 4)
    return None


def _param_alloca(value: Value) -> tuple[int, int] | None:
    """(size, align) of a ``.param`` operand that is an ``alloca`` of the caller."""
    if isinstance(value, OpResult) and value.op.name == "alloca":
        size, align = value.op.attrs.get("size"), value.op.attrs.get("align")
        if isinstance(size, int) and isinstance(align, int):
            return size, align
    return None


def indirect_values(module: Module, address_taken: set[str]) -> bool:
    """Whether calls through pointers pass ``.param`` slots by value (module docstring): every
    function whose address is taken is defined here and not ``.weak`` (so all possible targets take
    the same ABI), and every ``call_indirect``'s ``.param`` operands are allocas of known size."""
    for fn in module.functions:
        if fn.name in address_taken and fn.kind != "kernel" and (fn.is_declaration or fn.linkage == "weak"):
            return False
    for fn in module.functions:
        for op in fn.ops():
            if op.name == "call_indirect" and any(
                    isinstance(v.type, PtrType) and v.type.space is AddrSpace.PARAM and _param_alloca(v) is None
                    for v in op.operand_values[1:]):
                return False
    return True


def return_slots(fn: Function, address_taken: set[str], indirect: bool = False) -> list[ReturnSlot]:
    """The ``.param`` slots of ``fn`` that travel in registers (see the module invariant);
    ``indirect``: ``indirect_values`` of the module."""
    if fn.kind == "kernel" or fn.is_declaration or fn.linkage == "weak":
        return []
    if fn.name in address_taken:
        if not indirect:
            return []
        return [ReturnSlot(index, typ, p.size, max(p.align, 1), passed_in=True)
                for index, p in enumerate(fn.abi_params)
                if p.space == "param" and (typ := _slot_type(p.size)) is not None]
    slots: list[ReturnSlot] = []
    for index, param in enumerate(p for p in fn.returns if p.space == "param"):  # abi_params starts so
        typ = _slot_type(param.size)
        if typ is not None:
            slots.append(ReturnSlot(index, typ, param.size, max(param.align, 1)))
    return slots


def call_slots(operands: Sequence[Value]) -> list[ReturnSlot]:
    """The by-value slots of an indirect call with (non-target) ``operands``, by the module's
    ``indirect_values`` ABI: each ``.param`` alloca of a register-sized slot."""
    slots: list[ReturnSlot] = []
    for index, value in enumerate(operands):
        facts = _param_alloca(value) if isinstance(value.type, PtrType) and value.type.space is AddrSpace.PARAM \
            else None
        typ = _slot_type(facts[0]) if facts is not None else None
        if facts is not None and typ is not None:
            slots.append(ReturnSlot(index, typ, facts[0], max(facts[1], 1), passed_in=True))
    return slots
