"""Device functions return their ``.param`` results in registers instead of through a pointer.

A PTX ``.func (.param .b32 r) f(...)`` returns ``r`` in parameter memory: lowered literally, the
caller passes the address of a private slot, the callee stores into it and the caller reloads it —
two scratch accesses and a live frame per call, which LLVM cannot undo for a function it does not
inline (recursion, ``__noinline__``). Here such a slot becomes part of the LLVM return value: the
callee keeps its slot as a local ``alloca`` and loads it at each ``ret``; the caller stores the
returned value into its own slot, where SROA usually dissolves it.

Invariant: only functions whose every caller is a direct call in this module change ABI (defined,
not a kernel, address never taken — an indirect call keeps the pointer ABI of its prototype — and
not ``.weak``); only slots of 1, 2 or a multiple of 4 bytes up to 64 travel in registers
(``i8``/``i16``/``i32``/``[n x i32]``); every other slot stays a pointer. The returned values come first in
the LLVM return value, then the ``.reg`` results, then the exit flag (``lower_control``).
"""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

from ptx2gcn.ir.core import Function

MAX_SLOT_BYTES = 64
"""Largest return slot passed in registers (16 VGPRs)."""


@dataclass(frozen=True, slots=True)
class ReturnSlot:
    index: int
    """Position of the slot among the function's entry-block arguments (``Function.abi_params``)."""
    type: ir.Type
    size: int
    align: int


def _slot_type(size: int) -> ir.Type | None:
    if size in (1, 2, 4):
        return ir.IntType(8 * size)
    if size % 4 == 0 and 0 < size <= MAX_SLOT_BYTES:
        return ir.ArrayType(ir.IntType(32), size // 4)
    return None


def return_slots(fn: Function, address_taken: set[str]) -> list[ReturnSlot]:
    """The ``.param`` return slots of ``fn`` that travel in registers (see the module invariant)."""
    if fn.kind == "kernel" or fn.is_declaration or fn.name in address_taken or fn.linkage == "weak":
        return []
    slots: list[ReturnSlot] = []
    for index, param in enumerate(p for p in fn.returns if p.space == "param"):  # abi_params starts so
        typ = _slot_type(param.size)
        if typ is not None:
            slots.append(ReturnSlot(index, typ, param.size, max(param.align, 1)))
    return slots
