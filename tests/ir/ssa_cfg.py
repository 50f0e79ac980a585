"""Random control-flow graphs driven through ``SsaBuilder`` the way the IR builder drives it, and
the independent checks its result must pass.

A ``Program`` is a list of label blocks in layout order; each holds writes, reads and guarded
writes of a few variables, and ends by falling through, ``br``, ``cbr`` (target + fall-through),
``switch`` or ``ret``. ``build`` lays it out as the builder does (a block is sealed when it is
reached and every branch into it has been built, or later when ``delay`` says so) and returns
the IR blocks. The checks never look at how the SSA values were made:

- ``path_semantics``: one random walk interpreting the program twice, once with a variable
  environment (what the PTX means) and once on the SSA values and block arguments; every read
  must see the same definition (or both nothing);
- ``reaching_definitions``: a classic data-flow fixpoint on the variable program, against the set
  of definitions each SSA value may stand for (closure over the reachable edges);
- ``dominance``: a set-intersection dominator fixpoint; every use in a reachable block must be
  dominated by its definition;
- ``trivial_arguments``: no block argument merges only one value besides itself (Braun et al.'s
  minimality condition).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ptx2gcn.ir.core import Block, BlockArg, Op, OpResult, Value
from ptx2gcn.ir.types import I32
from ptx2gcn.translate.ssa import SsaBuilder

UNDEF = -1


@dataclass
class Label:
    ops: list[tuple[str, int]] = field(default_factory=list)
    """("w" write | "r" read | "g" guarded write, variable)."""
    term: tuple = ("fall",)
    """("fall",), ("br", t), ("cbr", t), ("switch", (t, ...)), ("ret",)."""


@dataclass
class Built:
    entry: Block
    blocks: list[Block]
    reads: dict[int, Op]
    """read id -> the ``use`` op holding the value the read got."""


def _targets(term: tuple) -> list[int]:
    if term[0] in ("br", "cbr"):
        return [term[1]]
    if term[0] == "switch":
        return list(dict.fromkeys(term[1]))
    return []


def build(program: list[Label], delay: frozenset[int] = frozenset(), variables: int = 3) -> Built:  # noqa: C901
    entry = Block("entry")
    blocks = [entry]
    ssa = SsaBuilder(entry)
    for v in range(variables):
        ssa.declare(v, I32, f"v{v}")
    labels = [Block(f"L{i}") for i in range(len(program))]
    pending = [0] * len(program)
    for label in program:
        for t in _targets(label.term):
            pending[t] += 1
    reached: set[int] = set()
    reads: dict[int, Op] = {}
    counter = [0]

    def fresh() -> int:
        counter[0] += 1
        return counter[0]

    def done(t: int) -> None:
        pending[t] -= 1
        if pending[t] == 0 and t in reached and t not in delay:
            ssa.seal(labels[t])

    def define(block: Block, var: int) -> None:
        op = Op("def", (), (I32,), {"id": fresh(), "var": var})
        block.append(op)
        ssa.write(var, block, op.result)

    current: Block | None = entry
    for i, label in enumerate(program):
        block = labels[i]
        ssa.new_block(block)
        if current is not None:
            current.append(Op("br")).add_successor(block)
            ssa.add_edge(current, block)
        blocks.append(block)
        reached.add(i)
        current = block
        if pending[i] == 0 and i not in delay:
            ssa.seal(block)
        for kind, var in label.ops:
            if kind == "w":
                define(current, var)
            elif kind == "r":
                use = Op("use", (ssa.read(var, current),), (), {"id": fresh(), "var": var})
                current.append(use)
                reads[int(use.attrs["id"])] = use
            else:
                before, then, join = current, Block(), Block()
                cbr = before.append(Op("cbr"))
                cbr.add_successor(then)
                cbr.add_successor(join)
                ssa.new_block(then)
                ssa.add_edge(before, then)
                ssa.seal(then)
                ssa.new_block(join)
                ssa.add_edge(before, join)
                define(then, var)
                then.append(Op("br")).add_successor(join)
                ssa.add_edge(then, join)
                ssa.seal(join)
                ssa.alias(join, before)
                blocks += [then, join]
                current = join
                ssa.merge(var, join)
        kind = label.term[0]
        if kind == "br":
            current.append(Op("br")).add_successor(labels[label.term[1]])
            ssa.add_edge(current, labels[label.term[1]])
            done(label.term[1])
            current = None
        elif kind == "cbr":
            fall = Block()
            cbr = current.append(Op("cbr"))
            cbr.add_successor(labels[label.term[1]])
            cbr.add_successor(fall)
            ssa.add_edge(current, labels[label.term[1]])
            ssa.new_block(fall)
            ssa.add_edge(current, fall)
            ssa.seal(fall)
            blocks.append(fall)
            done(label.term[1])
            current = fall
        elif kind == "switch":
            switch = current.append(Op("switch"))
            for t in label.term[1]:
                switch.add_successor(labels[t])
            for t in _targets(label.term):
                ssa.add_edge(current, labels[t])
            current = None
            for t in _targets(label.term):
                done(t)
        elif kind == "ret":
            current.append(Op("ret"))
            current = None
    if current is not None:
        current.append(Op("ret"))
    for block in labels:
        ssa.seal(block)
    ssa.finish()
    return Built(entry, blocks, reads)


def _successors(block: Block) -> list[Block]:
    return block.successors()


def reachable(built: Built) -> set[Block]:
    seen = {built.entry}
    work = [built.entry]
    while work:
        for succ in _successors(work.pop()):
            if succ not in seen:
                seen.add(succ)
                work.append(succ)
    return seen


def path_semantics(built: Built, seed: int, steps: int = 300) -> list[tuple[int, int, int]]:
    """Walk one random path; the (read id, definition seen by the variables, by the SSA values)
    of every read on it."""
    rng = random.Random(seed)
    env: dict[int, int] = {}
    values: dict[Value, int] = {}
    seen: list[tuple[int, int, int]] = []
    block = built.entry
    for _ in range(steps):
        for op in block.ops:
            if op.name == "undef":
                values[op.result] = UNDEF
            elif op.name == "def":
                env[int(op.attrs["var"])] = int(op.attrs["id"])
                values[op.result] = int(op.attrs["id"])
            elif op.name == "use":
                ssa_value = values.get(op.operand(0))
                assert ssa_value is not None, f"read {op.attrs['id']} uses a value not defined on this path"
                seen.append((int(op.attrs["id"]), env.get(int(op.attrs["var"]), UNDEF), ssa_value))
        term = block.ops[-1]
        if term.name == "ret":
            break
        succ = term.successors[rng.randrange(len(term.successors))]
        incoming = []
        for v in succ.arg_values:
            assert v in values, "a branch passes a value not defined on this path"
            incoming.append(values[v])
        assert len(incoming) == len(succ.block.args)
        for arg, bits in zip(succ.block.args, incoming):
            values[arg] = bits
        block = succ.block
    return seen


def _transfer(block: Block, env: dict[int, frozenset[int]],
              record: dict[int, frozenset[int]] | None = None) -> dict[int, frozenset[int]]:
    """The variable environment after ``block``; ``record``: collects what each read sees."""
    env = dict(env)
    for op in block.ops:
        if op.name == "def":
            env[int(op.attrs["var"])] = frozenset({int(op.attrs["id"])})
        elif op.name == "use" and record is not None:
            record[int(op.attrs["id"])] = env.get(int(op.attrs["var"]), frozenset())
    return env


def reaching_definitions(built: Built, live: set[Block]) -> dict[int, frozenset[int]]:
    """Classic forward data flow on the variable program: read id -> definitions that may reach it."""
    variables = {int(op.attrs["var"]) for b in live for op in b.ops if "var" in op.attrs}
    state_in: dict[Block, dict[int, frozenset[int]]] = {b: {} for b in live}
    state_in[built.entry] = {v: frozenset({UNDEF}) for v in variables}
    changed = True
    while changed:
        changed = False
        for block in live:
            out = _transfer(block, state_in[block])
            for succ in _successors(block):
                target = state_in[succ]
                for v, defs in out.items():
                    merged = target.get(v, frozenset()) | defs
                    if merged != target.get(v):
                        target[v] = merged
                        changed = True
    result: dict[int, frozenset[int]] = {}
    for block in live:
        _transfer(block, state_in[block], result)
    return result


def value_sets(built: Built, live: set[Block]) -> dict[Value, frozenset[int]]:
    """The definitions each SSA value may stand for, through block arguments on reachable edges."""
    sets: dict[Value, frozenset[int]] = {}
    for block in live:
        for op in block.ops:
            if op.name == "undef":
                sets[op.result] = frozenset({UNDEF})
            elif op.name == "def":
                sets[op.result] = frozenset({int(op.attrs["id"])})
    changed = True
    while changed:
        changed = False
        for block in live:
            for succ in block.ops[-1].successors:
                for arg, value in zip(succ.block.args, succ.arg_values):
                    merged = sets.get(arg, frozenset()) | sets.get(value, frozenset())
                    if merged != sets.get(arg):
                        sets[arg] = merged
                        changed = True
    return sets


def dominators(built: Built, live: set[Block]) -> dict[Block, set[Block]]:
    preds: dict[Block, list[Block]] = {b: [] for b in live}
    for block in live:
        for succ in _successors(block):
            preds[succ].append(block)
    dom = {b: set(live) for b in live}
    dom[built.entry] = {built.entry}
    changed = True
    while changed:
        changed = False
        for block in live:
            if block is built.entry:
                continue
            new = set.intersection(*(dom[p] for p in preds[block])) | {block}
            if new != dom[block]:
                dom[block] = new
                changed = True
    return dom


def check_dominance(built: Built, live: set[Block]) -> None:
    dom = dominators(built, live)

    def home(value: Value) -> tuple[Block, int]:
        if isinstance(value, BlockArg):
            return value.block, -1
        assert isinstance(value, OpResult) and value.op.parent is not None, "a value outside the function"
        return value.op.parent, value.op.parent.ops.index(value.op)

    for block in live:
        for position, op in enumerate(block.ops):
            used = list(op.operand_values) + [v for s in op.successors for v in s.arg_values]
            for value in used:
                where, at = home(value)
                assert where in dom[block], f"a use in {block.label or id(block)} not dominated by its definition"
                if where is block:
                    assert at < position, "a use before its definition in the same block"


def check_no_trivial_arguments(built: Built) -> None:
    incoming: dict[BlockArg, set[Value]] = {}
    for block in built.blocks:
        term = block.ops[-1]
        for succ in term.successors:
            for arg, value in zip(succ.block.args, succ.arg_values):
                incoming.setdefault(arg, set()).add(value)
    for block in built.blocks:
        for arg in block.args:
            others = incoming.get(arg, set()) - {arg}
            assert len(others) > 1, f"block argument {arg.name} of {block.label or id(block)} is trivial"
