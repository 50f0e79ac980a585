"""cse: merge identical pure computations, walking the dominator tree.

Requires: a verified module (phase ``ssa``).
Ensures: no mergeable op (``ptx2gcn.ir.opcodes.is_mergeable``: pure, not convergent, not a memory
read, not volatile such as ``%clock``) is dominated by an earlier op with the same name,
attributes, result types and operands (operands in either order for commutative ops); uses of
the later op now use the earlier one. Convergent ops (``shfl``, ``vote``, ``bar``, calls...) are
never merged, even when identical: each execution is a separate collective.
Not handled: loads (no memory dependence analysis yet), partial redundancy across joins.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from ptx2gcn.ir.cfg import dominators, reverse_postorder
from ptx2gcn.ir.core import Block, Function, Module, Op
from ptx2gcn.ir.opcodes import OPS, is_mergeable
from ptx2gcn.ir.passbase import Pass


@dataclass(frozen=True)
class CommonSubexpressionElimination(Pass):
    name = "cse"

    def run(self, module: Module) -> bool:
        changed = False
        for fn in module.functions:
            if fn.blocks:
                changed |= _cse_function(fn)
        return changed


_COMMUTATIVE = frozenset(name for name, row in OPS.items() if "commutative" in row.flags)


def _key(op: Op) -> Hashable:
    operands = [id(use.value) for use in op.operands]
    if op.name in _COMMUTATIVE:
        operands.sort()
    return (op.name, tuple(operands), tuple(sorted(op.attrs.items())), tuple([r.type for r in op.results]))


def _cse_function(fn: Function) -> bool:  # noqa: C901
    idom = dominators(fn)
    children: dict[Block, list[Block]] = {}
    for block in reverse_postorder(fn):
        parent = idom.get(block)
        if parent is not None and parent is not block:
            children.setdefault(parent, []).append(block)
    changed = False
    available: dict[Hashable, Op] = {}
    # Iterative pre-order walk of the dominator tree with scoped tables (undo logs).
    stack: list[tuple[Block, list[Hashable] | None]] = [(fn.entry, None)]
    while stack:
        block, undo = stack.pop()
        if undo is not None:
            for key in undo:
                del available[key]
            continue
        added: list[Hashable] = []
        merged: set[Op] = set()
        for op in block.ops:
            if not op.results or not is_mergeable(op.name, op.attrs):
                continue
            key = _key(op)
            earlier = available.setdefault(key, op)  # one hash of the key, whether new or not
            if earlier is op:
                added.append(key)
                continue
            for mine, theirs in zip(op.results, earlier.results):
                mine.replace_all_uses_with(theirs)
            op.detach()
            merged.add(op)
        if merged:
            # One rebuild per block: erasing ops one by one is quadratic in huge blocks.
            block.ops = [op for op in block.ops if op not in merged]
            changed = True
        stack.append((block, added))
        for child in reversed(children.get(block, [])):
            stack.append((child, None))
    return changed
