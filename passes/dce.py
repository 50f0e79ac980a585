"""dce: delete ops, block arguments and blocks whose results can never matter.

Requires: a verified module (phase ``ssa``).
Ensures: every remaining op either has an effect (``ptx2gcn.ir.opcodes.has_side_effects``: stores,
atomics, calls, collectives, volatile/acquire loads, terminators) or produces a value that such an
op needs, directly or through block arguments; every non-entry block argument is needed; every
block is reachable from the entry. Liveness is computed by marking from the effectful ops
(aggressive DCE), so values that only feed each other around a loop are removed too.
Not handled: removing effect-free calls (calls are always kept) and merging blocks.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptx2gcn.ir.cfg import predecessor_map, reachable_blocks
from ptx2gcn.ir.core import Block, BlockArg, Function, Module, Op, OpResult, Value
from ptx2gcn.ir.opcodes import has_side_effects
from ptx2gcn.ir.passbase import Pass


@dataclass(frozen=True)
class DeadCodeElimination(Pass):
    name = "dce"

    def run(self, module: Module) -> bool:
        changed = False
        for fn in module.functions:
            if fn.blocks:
                changed |= _remove_unreachable(fn)
                changed |= _remove_dead(fn)
        return changed


def _remove_unreachable(fn: Function) -> bool:
    reachable = reachable_blocks(fn)
    dead = [b for b in fn.blocks if b not in reachable]
    if not dead:
        return False
    for block in dead:
        for op in block.ops:
            op.drop_uses()
    for block in dead:
        for op in block.ops:
            for result in op.results:
                result.uses.clear()
            op.detach()
        for arg in block.args:
            arg.uses.clear()
        block.args.clear()  # an argument points back at its block
    fn.blocks = [b for b in fn.blocks if b in reachable]
    return True


def _live_values(fn: Function) -> tuple[set[Op], set[BlockArg]]:
    """The live ops and the live block arguments (marked from the effectful ops)."""
    incoming: dict[BlockArg, list[Value]] = {}
    for block in fn.blocks:
        term = block.terminator
        for succ in term.successors if term is not None else ():
            for arg, use in zip(succ.block.args, succ.args):
                incoming.setdefault(arg, []).append(use.value)
    live_ops: set[Op] = set()
    live_args: set[BlockArg] = set()
    work: list[Value] = []
    for op in fn.ops():
        if has_side_effects(op.name, op.attrs):
            live_ops.add(op)
            work.extend([use.value for use in op.operands])
    work.extend(fn.entry.args)
    # An op result is live when its op is (so only ops and arguments need marking).
    while work:
        value = work.pop()
        if isinstance(value, OpResult):
            owner = value.op
            if owner not in live_ops:
                live_ops.add(owner)
                work.extend([use.value for use in owner.operands])
        elif isinstance(value, BlockArg) and value not in live_args:
            live_args.add(value)
            work.extend(incoming.get(value, ()))
    return live_ops, live_args


def _remove_dead(fn: Function) -> bool:
    live_ops, live_args = _live_values(fn)
    changed = False
    preds = predecessor_map(fn)
    for block in fn.blocks:
        if block is not fn.entry:
            changed |= _remove_dead_args(block, live_args, preds[block])
    for block in fn.blocks:
        dead = [op for op in block.ops if op not in live_ops]
        for op in dead:
            op.drop_uses()
        for op in dead:
            for result in op.results:
                result.uses.clear()
            op.detach()
        if dead:
            dead_set = set(dead)
            block.ops = [op for op in block.ops if op not in dead_set]
            changed = True
    return changed


def _remove_dead_args(block: Block, live_args: set[BlockArg], preds: list[Block]) -> bool:
    dead = [arg.index for arg in block.args if arg not in live_args]
    for index in reversed(dead):
        arg = block.args[index]
        for use in list(arg.uses):
            use.drop()
        arg.uses.clear()
        block.remove_arg(index, preds)
    return bool(dead)
