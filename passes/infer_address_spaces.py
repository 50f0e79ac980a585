"""infer-address-spaces: turn generic addresses into global/shared/local/const ones where provable.

Requires: a verified module (phase ``ssa``).
Ensures: every ``inttoptr`` to ``ptr<generic>`` whose integer is ``cvta`` from space S (not
``.to``) of an address ``a`` — possibly plus integer offsets (``add``), and ``a`` possibly
``ptrtoint`` of a ``ptr<S>`` — and whose pointer is only used as the address of memory ops
(``ld``, ``st``, ``atom``, ``red``, ``prefetch``) or through ``ptradd`` chains ending there, is
replaced by the equivalent ``ptr<S>`` computed from ``a``; the memory ops then access S directly.
A generic address obtained by ``cvta`` from S points into S's window, so this is exact.
Not handled: addresses merged through block arguments, ``isspacep``-guarded code, generic
pointers from memory or from kernel parameters (``.ptr.global`` is a promise, not a proof).
"""

from __future__ import annotations

from dataclasses import dataclass

from ptx2gcn.ir.core import Module, Op, Value
from ptx2gcn.ir.passbase import Pass
from ptx2gcn.ir.types import AddrSpace, IntType, PtrType, int_type

_MEMORY = {"ld": 0, "st": 0, "atom": 0, "red": 0, "prefetch": 0}
_SPACES = {"global": AddrSpace.GLOBAL, "shared": AddrSpace.SHARED, "local": AddrSpace.LOCAL,
           "const": AddrSpace.CONST}


@dataclass(frozen=True)
class InferAddressSpaces(Pass):
    name = "infer-address-spaces"

    def run(self, module: Module) -> bool:
        changed = False
        for fn in module.functions:
            for block in fn.blocks:
                # One rebuild per block (in-place inserts would be quadratic in huge blocks).
                new_ops: list[Op] = []
                rewrote = False
                for op in block.ops:
                    replacement = None
                    if op.name == "inttoptr" and op.results[0].type == PtrType(AddrSpace.GENERIC):
                        replacement = _rewrite(op)
                    if replacement is None:
                        new_ops.append(op)
                        continue
                    new_ops.extend(replacement)
                    rewrote = True
                if rewrote:
                    for op in new_ops:
                        op.parent = block
                    block.ops = new_ops
                    changed = True
        return changed


def _def(value: Value) -> Op | None:
    op = getattr(value, "op", None)
    return op if isinstance(op, Op) else None


def _trace(value: Value) -> tuple[AddrSpace, Value, list[Value]] | None:
    """(space, address in that space, integer offsets) when ``value`` is a provable generic address."""
    op = _def(value)
    if op is None:
        return None
    if op.name == "cvta" and not op.attrs.get("to") and op.attrs.get("space") in _SPACES:
        return _SPACES[str(op.attrs["space"])], op.operand(0), []
    if op.name == "add" and isinstance(op.results[0].type, IntType) and not op.attrs.get("sat"):
        for base, other in ((op.operand(0), op.operand(1)), (op.operand(1), op.operand(0))):
            inner = _trace(base)
            if inner is not None:
                return inner[0], inner[1], [*inner[2], other]
    return None


def _only_addresses(ptr: Value) -> bool:
    for use in ptr.uses:
        owner = use.owner
        if owner.name == "ptradd" and owner.operands[0] is use:
            if not _only_addresses(owner.results[0]):
                return False
        elif _MEMORY.get(owner.name) != owner.operands.index(use):
            return False
    return True


def _rewrite(op: Op) -> list[Op] | None:
    """The ops computing ``op``'s address in its provable space (``op`` is then retired)."""
    traced = _trace(op.operand(0))
    if traced is None or not _only_addresses(op.results[0]):
        return None
    space, address, offsets = traced
    ptr_type = PtrType(space)
    new_ops: list[Op] = []

    def insert(name: str, operands: list[Value], result: PtrType | IntType) -> Value:
        new = Op(name, operands, (result,), {}, op.loc)
        new_ops.append(new)
        return new.results[0]

    source = _def(address)
    if source is not None and source.name == "zext":
        source = _def(source.operand(0))  # a 32-bit shared/local address widened for cvta.u64
    if source is not None and source.name == "ptrtoint" and source.operand(0).type == ptr_type:
        ptr = source.operand(0)
    else:
        ptr = insert("inttoptr", [address], ptr_type)
    for offset in offsets:
        width = int_type(ptr_type.bits)
        if offset.type != width:
            offset = insert("trunc" if offset.type.bits > width.bits else "sext", [offset], width)
        ptr = insert("ptradd", [ptr, offset], ptr_type)
    _retype(op.results[0], ptr_type)
    op.results[0].replace_all_uses_with(ptr)
    op.detach()
    return new_ops


def _retype(ptr: Value, ptr_type: PtrType) -> None:
    for use in list(ptr.uses):
        owner = use.owner
        if owner.name == "ptradd":
            owner.results[0].type = ptr_type
            _retype(owner.results[0], ptr_type)
