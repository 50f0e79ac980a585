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
"""

from __future__ import annotations

from collections.abc import Hashable

from ptx2gcn.ir.core import Block, BlockArg, Op, Use, Value
from ptx2gcn.ir.types import Type


class SsaBuilder:
    """SSA values of variables (hashable keys, each with a fixed type) across the blocks of a function."""

    def __init__(self, entry: Block) -> None:
        self.entry = entry
        self.defs: dict[Block, dict[Hashable, Value]] = {}
        self.types: dict[Hashable, Type] = {}
        self.names: dict[Hashable, str] = {}
        self.preds: dict[Block, list[Block]] = {entry: []}
        self.sealed: set[Block] = {entry}
        self.aliases: dict[Block, Block] = {}
        self.incomplete: dict[Block, list[BlockArg]] = {}
        self.undefs: dict[Hashable, Value] = {}
        self.phis: dict[BlockArg, Op] = {}
        self.phi_arg: dict[Op, BlockArg] = {}
        self.phi_var: dict[BlockArg, Hashable] = {}
        self.forward: dict[Value, Value] = {}
        self.acyclic: set[Block] = set()
        """Sealed blocks all of whose predecessors were complete before them (no back edges)."""
        self.filling: set[BlockArg] = set()
        """Arguments whose incoming values are being collected (not yet judged trivial)."""

    def declare(self, var: Hashable, type: Type, name: str) -> None:
        self.types[var] = type
        self.names[var] = name

    def new_block(self, block: Block, sealed: bool = False) -> None:
        self.preds.setdefault(block, [])
        if sealed:
            self.sealed.add(block)

    def alias(self, block: Block, source: Block) -> None:
        self.aliases[block] = source

    def add_edge(self, pred: Block, block: Block) -> None:
        assert block not in self.sealed, "adding an edge into a sealed block"
        preds = self.preds.setdefault(block, [])
        if pred not in preds:
            preds.append(pred)

    def write(self, var: Hashable, block: Block, value: Value) -> None:
        self.defs.setdefault(block, {})[var] = value

    def read(self, var: Hashable, block: Block) -> Value:
        visited: list[Block] = []
        current = block
        while True:
            local = self.defs.get(current)
            if local is not None and var in local:
                value = self._resolve(local[var])
                break
            source = self.aliases.get(current)
            if source is not None:
                visited.append(current)
                current = source
                continue
            preds = self.preds.get(current, [])
            if current in self.sealed and len(preds) == 1:
                visited.append(current)
                current = preds[0]
                continue
            value = self._merge(var, current)
            break
        # Removing a trivial argument may have forwarded the value just found.
        value = self._resolve(value)
        for seen in visited:
            self.write(var, seen, value)
        return value

    def merge(self, var: Hashable, block: Block) -> Value:
        """A fresh merge of ``var`` at sealed ``block`` (from all its predecessors), then simplified."""
        return self._resolve(self._merge(var, block))

    def _resolve(self, value: Value) -> Value:
        while value in self.forward:
            value = self.forward[value]
        return value

    def _new_arg(self, var: Hashable, block: Block) -> BlockArg:
        arg = block.add_arg(self.types[var], self.names[var])
        phi = Op("phi")
        self.phis[arg] = phi
        self.phi_arg[phi] = arg
        self.phi_var[arg] = var
        self.write(var, block, arg)
        return arg

    def _merge(self, var: Hashable, block: Block) -> Value:
        if block not in self.sealed:
            arg = self._new_arg(var, block)
            self.incomplete.setdefault(block, []).append(arg)
            return arg
        if not self.preds.get(block):
            value = self._undef(var)
            self.write(var, block, value)
            return value
        if block in self.acyclic:
            # No path leads from here back into a predecessor, so reading them cannot recurse into
            # this block: look first, and create an argument only when the values differ.
            values = [self.read(var, pred) for pred in self.preds[block]]
            if all(v is values[0] for v in values):
                self.write(var, block, values[0])
                return values[0]
            arg = self._new_arg(var, block)
            phi = self.phis[arg]
            phi.operands.extend(Use(phi, v) for v in values)
            return arg
        return self._complete(self._new_arg(var, block))

    def _undef(self, var: Hashable) -> Value:
        value = self.undefs.get(var)
        if value is None:
            op = Op("undef", (), (self.types[var],))
            op.results[0].name = self.names[var]
            self.entry.insert(0, op)
            value = self.undefs[var] = op.results[0]
        return value

    def _complete(self, arg: BlockArg) -> Value:
        var = self.phi_var[arg]
        phi = self.phis[arg]
        self.filling.add(arg)
        for pred in self.preds[arg.block]:
            phi.operands.append(Use(phi, self.read(var, pred)))
        self.filling.discard(arg)
        return self._remove_if_trivial(arg)

    def seal(self, block: Block, acyclic: bool = False) -> None:
        """Declare every predecessor edge of ``block`` known; ``acyclic``: all of them come from
        blocks already complete (so no later block can reach a predecessor through ``block``)."""
        if block in self.sealed:
            return
        self.sealed.add(block)
        if acyclic and block not in self.incomplete:
            self.acyclic.add(block)
        for arg in self.incomplete.pop(block, []):
            if arg in self.phis:
                self._complete(arg)

    def _remove_if_trivial(self, arg: BlockArg) -> Value:
        if arg.block not in self.sealed or arg in self.filling or arg in self.incomplete.get(arg.block, ()):
            return arg
        same: Value | None = None
        for use in self.phis[arg].operands:
            value = use.value
            if value is same or value is arg:
                continue
            if same is not None:
                return arg
            same = value
        if same is None:
            same = self._undef(self.phi_var[arg])
        followers = [self.phi_arg[use.owner] for use in arg.uses if use.owner in self.phi_arg]
        arg.replace_all_uses_with(same)
        self.forward[arg] = same
        self._drop(arg)
        for follower in followers:
            if follower in self.phis and follower is not arg:
                self._remove_if_trivial(follower)
        return self._resolve(same)

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
        for block, preds in self.preds.items():
            if not block.args:
                continue
            for k, pred in enumerate(preds):
                term = pred.terminator
                assert term is not None, "a predecessor without a terminator"
                values = [self.phis[arg].operands[k].value for arg in block.args]
                for succ in term.successors:
                    if succ.block is block:
                        succ.args = [Use(term, v) for v in values]
        for phi in self.phis.values():
            phi.detach()
        self.phis.clear()
        self.phi_arg.clear()
