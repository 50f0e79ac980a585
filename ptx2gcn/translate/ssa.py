"""On-the-fly SSA construction for PTX registers (Braun et al., CC 2013), with block arguments.

Invariant: ``read(var, block)`` returns the value of ``var`` reaching the current end of
``block``: the last ``write`` in it, else a block argument merging the predecessors' values
(removed again when trivial), else ``undef`` when no write reaches it (ptxas treats reads of
never-written registers the same way). A block is sealed (``seal``) once every predecessor edge
into it is known (``add_edge``); arguments created before that are completed then.

While a function is built, the incoming values of each block argument live in a detached
container op (one operand per predecessor, in ``preds`` order), so trivial-argument removal and
``replace_all_uses_with`` work on real use lists; ``finish`` moves them onto the predecessors'
terminators as successor arguments.

A block may be an *alias* of another (``alias``): it inherits every variable it does not write
from that block. The builder uses this for the join block after a guarded instruction, so lookups
stay iterative over long runs of guarded instructions.

Nothing here recurses: a lookup keeps its pending merges on an explicit stack of ``_Merge``
frames and trivial-argument removal keeps a work list, so the depth of Python's stack does not
grow with the function. Termination: a lookup for one variable pushes a frame only for a block
with no definition of it, and every frame either defines the variable in its block before it
looks at the predecessors (an argument, for blocks that may lie on a cycle) or belongs to a
*closed* block, which lies on no cycle (see ``seal``), so no block is pushed twice while it is
on the stack and at most one frame per block is ever pushed for a variable; a walk through
blocks with one predecessor stops once it has passed more blocks than there are (it went round
a cycle of such blocks, which nothing enters: ``undef``).
"""

from __future__ import annotations

from collections.abc import Hashable

from ptx2gcn.ir.core import Block, BlockArg, Op, Use, Value
from ptx2gcn.ir.types import Type


class _Merge:
    """A pending lookup at a sealed block with several predecessors: ``arg`` is the block argument
    receiving their values, or None for a closed block (the values are compared first, in
    ``values``); ``visited``: the pass-through blocks that led here, given the result too."""

    __slots__ = ("block", "arg", "values", "visited", "next")

    def __init__(self, block: Block, arg: BlockArg | None, visited: list[Block]) -> None:
        self.block = block
        self.arg = arg
        self.values: list[Value] = []
        self.visited = visited
        self.next = 0
        """The index of the next predecessor to read."""


class SsaBuilder:
    """SSA values of variables (hashable keys, each with a fixed type) across the blocks of a function."""

    def __init__(self, entry: Block) -> None:
        self.entry = entry
        self.defs: dict[Block, dict[Hashable, Value]] = {}
        self.types: dict[Hashable, Type] = {}
        self.names: dict[Hashable, str] = {}
        self.preds: dict[Block, list[Block]] = {entry: []}
        self.edges: set[tuple[Block, Block]] = set()
        """The (predecessor, block) pairs in ``preds`` (a join may have very many predecessors)."""
        self.sealed: set[Block] = {entry}
        self.aliases: dict[Block, Block] = {}
        self.incomplete: dict[Block, list[BlockArg]] = {}
        self.undefs: dict[Hashable, Value] = {}
        self.phis: dict[BlockArg, Op] = {}
        self.phi_arg: dict[Op, BlockArg] = {}
        self.phi_var: dict[BlockArg, Hashable] = {}
        self.forward: dict[Value, Value] = {}
        self.closed: set[Block] = {entry}
        """Sealed blocks whose predecessors were all closed when they were sealed: every block from
        which a closed block can be reached is closed, sealed and gains no edge, so a closed block
        lies on no cycle (its merges may read the predecessors before making an argument)."""
        self.filling: set[BlockArg] = set()
        """Arguments whose incoming values are being collected (not yet judged trivial)."""

    def declare(self, var: Hashable, type: Type, name: str) -> None:
        self.types[var] = type
        self.names[var] = name

    def new_block(self, block: Block, sealed: bool = False) -> None:
        self.preds.setdefault(block, [])
        if sealed:
            self.seal(block)

    def alias(self, block: Block, source: Block) -> None:
        self.aliases[block] = source

    def add_edge(self, pred: Block, block: Block) -> None:
        assert block not in self.sealed, "adding an edge into a sealed block"
        if (pred, block) not in self.edges:
            self.edges.add((pred, block))
            self.preds.setdefault(block, []).append(pred)

    def write(self, var: Hashable, block: Block, value: Value) -> None:
        self.defs.setdefault(block, {})[var] = value

    def read(self, var: Hashable, block: Block) -> Value:
        found = self._walk(var, block)
        value = self._run(var, found) if isinstance(found, _Merge) else found
        # Removing a trivial argument may have forwarded the value just found.
        return self._resolve(value)

    def merge(self, var: Hashable, block: Block) -> Value:
        """A fresh merge of ``var`` at sealed ``block`` (from all its predecessors), then simplified."""
        found = self._merge_at(var, block, [])
        value = self._run(var, found) if isinstance(found, _Merge) else found
        return self._resolve(value)

    def _resolve(self, value: Value) -> Value:
        while value in self.forward:
            value = self.forward[value]
        return value

    def _walk(self, var: Hashable, block: Block) -> Value | _Merge:
        """Follow ``block``'s aliases and single predecessors up to a definition of ``var`` (then
        the value, also written into every block passed) or to a merge point (then what
        ``_merge_at`` makes of it)."""
        visited: list[Block] = []
        current = block
        while True:
            local = self.defs.get(current)
            if local is not None and var in local:
                value = self._resolve(local[var])
                break
            source = self.aliases.get(current)
            preds = self.preds.get(current, ())
            if source is None and not (current in self.sealed and len(preds) == 1):
                found = self._merge_at(var, current, visited)
                if isinstance(found, _Merge):
                    return found
                value = found
                break
            if len(visited) > len(self.preds):
                # Round a cycle of pass-through blocks: nothing enters it, so it is unreachable.
                value = self._undef(var)
                break
            visited.append(current)
            current = source if source is not None else preds[0]
        for seen in visited:
            self.write(var, seen, value)
        return value

    def _merge_at(self, var: Hashable, block: Block, visited: list[Block]) -> Value | _Merge:
        """The value of ``var`` at merge point ``block`` when known at once (an incomplete argument
        of an unsealed block, ``undef`` without predecessors), else a frame that collects it."""
        if block not in self.sealed:
            arg = self._new_arg(var, block)
            self.incomplete.setdefault(block, []).append(arg)
            return arg
        if not self.preds.get(block):
            value = self._undef(var)
            self.write(var, block, value)
            return value
        if block in self.closed:
            return _Merge(block, None, visited)
        arg = self._new_arg(var, block)
        self.filling.add(arg)
        return _Merge(block, arg, visited)

    def _run(self, var: Hashable, frame: _Merge) -> Value:
        """Complete ``frame`` and every merge it leads to, innermost first; the value at its block."""
        stack = [frame]
        while True:
            top = stack[-1]
            preds = self.preds[top.block]
            if top.next < len(preds):
                found = self._walk(var, preds[top.next])
                top.next += 1
                if isinstance(found, _Merge):
                    # Each block is on the stack at most once (see the module docstring).
                    assert len(stack) < len(self.preds), "an SSA lookup went round a cycle"
                    stack.append(found)
                    continue
                value = found
            else:
                stack.pop()
                value = self._finish(var, top)
                if not stack:
                    return value
                top = stack[-1]
            if top.arg is not None:
                phi = self.phis[top.arg]
                phi.operands.append(Use(phi, self._resolve(value)))
            else:
                top.values.append(value)

    def _finish(self, var: Hashable, frame: _Merge) -> Value:
        """The value of a completed frame, written into its block and the blocks that led to it."""
        block = frame.block
        if frame.arg is not None:
            self.filling.discard(frame.arg)
            value = self._remove_if_trivial(frame.arg)
        else:
            # A closed block: no lookup it led to came back to it, so it has no argument yet.
            # Values read early may have been forwarded by a later trivial-argument removal.
            values = [self._resolve(v) for v in frame.values]
            if all(v is values[0] for v in values):
                value = values[0]
                self.write(var, block, value)
            else:
                arg = self._new_arg(var, block)
                phi = self.phis[arg]
                phi.operands.extend(Use(phi, v) for v in values)
                value = arg
        for seen in frame.visited:
            self.write(var, seen, value)
        return value

    def _new_arg(self, var: Hashable, block: Block) -> BlockArg:
        arg = block.add_arg(self.types[var], self.names[var])
        phi = Op("phi")
        self.phis[arg] = phi
        self.phi_arg[phi] = arg
        self.phi_var[arg] = var
        self.write(var, block, arg)
        return arg

    def _undef(self, var: Hashable) -> Value:
        value = self.undefs.get(var)
        if value is None:
            op = Op("undef", (), (self.types[var],))
            op.results[0].name = self.names[var]
            self.entry.insert(0, op)
            value = self.undefs[var] = op.results[0]
        return value

    def seal(self, block: Block) -> None:
        """Declare every predecessor edge of ``block`` known, and complete its pending arguments.

        The block is *closed* when all its predecessors are: then no later edge can make it reach
        one of them. Being built before it is not enough: a loop body entered only from the
        loop's test below it comes first, yet reaches its own predecessor through the back edge.
        """
        if block in self.sealed:
            return
        self.sealed.add(block)
        closed = self.closed
        if all(pred in closed for pred in self.preds.get(block, ())):
            closed.add(block)
        for arg in self.incomplete.pop(block, []):
            if arg in self.phis:
                self.filling.add(arg)
                self._run(self.phi_var[arg], _Merge(block, arg, []))

    def _remove_if_trivial(self, arg: BlockArg) -> Value:
        """Replace ``arg`` by the one value it merges, if so, then do the same for the arguments
        that used it; returns what ``arg`` stands for now."""
        work = [arg]
        while work:
            candidate = work.pop()
            if candidate not in self.phis:
                continue  # removed already
            same = self._trivial_value(candidate)
            if same is None:
                continue
            followers = [self.phi_arg[use.owner] for use in candidate.uses if use.owner in self.phi_arg]
            candidate.replace_all_uses_with(same)
            # A dict keeps its size when emptied, and ``forward`` keeps the argument: in deep loop
            # nests uses pass down a chain of trivial arguments, so that would hold O(depth^2).
            candidate.uses = {}
            self.forward[candidate] = same
            self._drop(candidate)
            work.extend(f for f in followers if f is not candidate)
        return self._resolve(arg)

    def _trivial_value(self, arg: BlockArg) -> Value | None:
        """The one value other than itself ``arg`` merges (``undef`` if none), or None when it
        merges several or may still gain incoming values."""
        if arg.block not in self.sealed or arg in self.filling or arg in self.incomplete.get(arg.block, ()):
            return None
        same: Value | None = None
        for use in self.phis[arg].operands:
            value = use.value
            if value is same or value is arg:
                continue
            if same is not None:
                return None
            same = value
        return same if same is not None else self._undef(self.phi_var[arg])

    def _drop(self, arg: BlockArg) -> None:
        phi = self.phis.pop(arg)
        del self.phi_arg[phi]
        phi.detach()
        block = arg.block
        block.args.pop(arg.index)
        for i, other in enumerate(block.args):
            other.index = i

    def finish(self) -> None:
        """Move every block argument's incoming values onto its predecessors' terminators."""
        position: dict[Block, dict[Block, int]] = {
            block: {pred: k for k, pred in enumerate(preds)} for block, preds in self.preds.items() if block.args}
        done: set[Block] = set()
        for block in position:
            for pred in self.preds[block]:
                if pred in done:
                    continue
                done.add(pred)
                term = pred.terminator
                assert term is not None, "a predecessor without a terminator"
                # One pass over the terminator's successors (a switch may have very many).
                for succ in term.successors:
                    target = succ.block
                    k = position.get(target, {}).get(pred)
                    if k is not None:
                        succ.args = [Use(term, self.phis[arg].operands[k].value) for arg in target.args]
        for phi in self.phis.values():
            phi.detach()
        self.phis.clear()
        self.phi_arg.clear()
