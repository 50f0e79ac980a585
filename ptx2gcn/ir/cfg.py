"""Control-flow graph queries: reachability, reverse post-order, immediate dominators.

Invariant: these functions only read the IR; each result reflects the function at the time of
the call (recompute after a pass changes branches).
"""

from __future__ import annotations

from ptx2gcn.ir.core import Block, Function


def reverse_postorder(fn: Function) -> list[Block]:
    """Blocks reachable from the entry, in reverse post-order (iterative DFS, no recursion limit)."""
    if not fn.blocks:
        return []
    order: list[Block] = []
    seen: set[Block] = {fn.entry}
    # Each block's successor list is made once (a switch may have very many).
    stack: list[tuple[Block, list[Block], int]] = [(fn.entry, fn.entry.successors(), 0)]
    while stack:
        block, succs, index = stack[-1]
        if index < len(succs):
            stack[-1] = (block, succs, index + 1)
            nxt = succs[index]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, nxt.successors(), 0))
        else:
            stack.pop()
            order.append(block)
    order.reverse()
    return order


def reachable_blocks(fn: Function) -> set[Block]:
    return set(reverse_postorder(fn))


def predecessor_map(fn: Function) -> dict[Block, list[Block]]:
    """Every block's predecessors (each listed once, in function order)."""
    preds: dict[Block, list[Block]] = {b: [] for b in fn.blocks}
    for block in fn.blocks:
        for succ in dict.fromkeys(block.successors()):
            preds.setdefault(succ, []).append(block)
    return preds


def dominators(fn: Function) -> dict[Block, Block]:
    """Immediate dominators of reachable blocks (the entry maps to itself).

    Cooper, Harvey, Kennedy, "A Simple, Fast Dominance Algorithm" (2001).
    """
    order = reverse_postorder(fn)
    if not order:
        return {}
    index = {b: i for i, b in enumerate(order)}
    preds = predecessor_map(fn)
    idom: dict[Block, Block] = {order[0]: order[0]}
    changed = True
    while changed:
        changed = False
        for block in order[1:]:
            new: Block | None = None
            for pred in preds[block]:
                if pred in idom:
                    new = pred if new is None else _intersect(pred, new, idom, index)
            if new is not None and idom.get(block) is not new:
                idom[block] = new
                changed = True
    return idom


def _intersect(a: Block, b: Block, idom: dict[Block, Block], index: dict[Block, int]) -> Block:
    while a is not b:
        while index[a] > index[b]:
            a = idom[a]
        while index[b] > index[a]:
            b = idom[b]
    return a


class DominatorTree:
    """Constant-time dominance queries from pre/post numbers of the dominator tree."""

    def __init__(self, fn: Function) -> None:
        self.idom = dominators(fn)
        children: dict[Block, list[Block]] = {}
        for block, parent in self.idom.items():
            if parent is not block:
                children.setdefault(parent, []).append(block)
        self.children = children
        self.enter: dict[Block, int] = {}
        self.leave: dict[Block, int] = {}
        if not fn.blocks or fn.entry not in self.idom:
            return
        clock = 0
        stack: list[tuple[Block, bool]] = [(fn.entry, False)]
        while stack:
            block, done = stack.pop()
            if done:
                self.leave[block] = clock
                clock += 1
                continue
            self.enter[block] = clock
            clock += 1
            stack.append((block, True))
            for child in children.get(block, ()):
                stack.append((child, False))

    def dominates(self, a: Block, b: Block) -> bool:
        """Whether block ``a`` dominates block ``b`` (both reachable; a block dominates itself)."""
        if a not in self.enter or b not in self.enter:
            return False
        return self.enter[a] <= self.enter[b] and self.leave[b] <= self.leave[a]
