"""mma-mfma-layout: f32 accumulators of whole-wave mmas stay in the MFMA layout between mmas.

On the MFMA fast path (``ptx2gcn/emit/lower_mma_mfma.py``) an m16n8k16 ``.f32.f16.f16.f32`` mma moves
its PTX C fragment into the MFMA C layout and the MFMA result back into the PTX D fragment (16
``ds_bpermute_b32`` per mma pair of the wave); so do the other ``pair`` plans with f32 C and D
(``lower_mfma_forms``: m16n8k16/m16n8k8 ``.bf16``, m16n8k8 ``.f16``, m16n8k8/m16n8k4 ``.tf32``).
The two MFMAs (chains) of the wave, one per CUDA warp, read the same C, the *stacked* layout:
lane (c = lane % 16, q = lane / 16) element i holds ``C_{c >= 8}[rho(4q + i)][c % 8]``. The useful
columns of MFMA w's result are the lanes with ``c >= 8`` exactly when w = 1, so
``select(c >= 8, D_1, D_0)`` is again the stacked layout and can be the C of the next mma as it is.
This pass marks where that happens and inserts the conversions:

* an accumulator *tuple* is four values in order: the D results of an mma, or four arguments of one
  block that receive tuples (the C operands of an mma, or where a tuple is passed on); tuples are
  linked (an mma to its D and C tuples, a block-argument tuple to the tuples its edges pass) into
  *webs*;
* a web is stacked when every mma in it is one of those forms (``_SHAPES``) with ``wave = whole``
  (pass ``wave64-mma-uniformity``), no block argument belongs to two tuples, and every conversion it
  needs sits in a block both warps of every wave execute together (EXEC full: the conversions are
  full-wave lane permutes). Its mmas get ``acc = mfma`` (C read and D written in the stacked layout);
* conversions (``mma_acc``, four values in, four out): ``to = mfma`` before a stacked mma whose C is
  not a stacked tuple, and before the branch of an edge passing a non-stacked tuple to a stacked
  block-argument tuple; ``to = ptx`` before every other use of a stacked value (stores, arithmetic,
  ``mma_nan``, branches to non-stacked arguments), one per tuple and block. Four equal constants need
  no conversion (every lane and register holds the same value in either layout).

Whether the stacked layout is real is the emitter's choice with the same rule as the mma's: where
the mma takes the MFMA path (``--mma auto/mfma`` on gfx942) ``acc = mfma`` and ``mma_acc`` are the
layout and its conversions, elsewhere (``--mma exact``, other targets) both mean the PTX layout and
``mma_acc`` is a copy.

Requires: a verified module (phase ``ssa``), after ``wave64-mma-uniformity`` (reads ``wave``) and
``mma-accumulators`` (``rawnan``: a stacked D is canonicalised by its mma unless ``rawnan``; the
``mma_nan`` at a chain's exit then reads the ``to = ptx`` conversion).
Ensures: every op other than a stacked mma, a branch between stacked tuples and the conversions reads
the values it read before (in the PTX layout); the module verifies.
Not handled: ``.f16`` accumulators (two elements per register), the ``diag`` (m8n8) and integer plans,
mmas without a whole-wave verdict (their run-time test may take the exact path with part of the wave),
wmma (its own layouts), and accumulators passed between functions.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptx2gcn.ir.core import Block, BlockArg, Function, Module, Op, OpResult, Successor, Use, Value
from ptx2gcn.ir.passbase import Pass
from ptx2gcn.passes.wave64_mma_uniformity import whole_wave_blocks

Tuple = tuple[Value, Value, Value, Value]
_FORM = {"ctype": "f32", "dtype": "f32", "alayout": "row", "blayout": "col", "c": 4}
_SHAPES = frozenset({("m16n8k16", "f16"), ("m16n8k16", "bf16"), ("m16n8k8", "f16"), ("m16n8k8", "bf16"),
                     ("m16n8k8", "tf32"), ("m16n8k4", "tf32")})
"""(shape, A/B type) of the forms whose MFMA plan stacks the two warps' accumulators this way
(``lower_mma_mfma.mfma_form``, ``lower_mfma_forms.stackable``; the emitter asserts the agreement)."""


def _stackable(op: Op) -> bool:
    """An mma whose accumulator can be stacked (module docstring)."""
    attrs = op.attrs
    return op.name == "mma" and all(attrs.get(key) == value for key, value in _FORM.items()) and \
        (attrs.get("shape"), attrs.get("atype")) in _SHAPES and attrs.get("atype") == attrs.get("btype") and \
        attrs.get("wave") == "whole" and not attrs.get("wmma")


def _accumulator_mma(op: Op) -> bool:
    """An mma with a four-register C and D (a web member, stackable or not)."""
    return op.name == "mma" and op.attrs.get("c") == 4 and len(op.results) == 4 and len(op.operands) >= 4


def _c(op: Op) -> Tuple:
    values = op.operand_values[-4:]
    return (values[0], values[1], values[2], values[3])


def _same_constant(values: Tuple) -> bool:
    first = values[0]
    if not isinstance(first, OpResult) or first.op.name != "const":
        return False
    return all(isinstance(v, OpResult) and v.op.name == "const" and v.type == first.type and
               v.op.attrs.get("value") == first.op.attrs.get("value") for v in values)


def _edges_into(block: Block) -> list[Successor]:
    found = []
    for pred in block.predecessors():
        term = pred.terminator
        assert term is not None
        found += [succ for succ in term.successors if succ.block is block]
    return found


class _Webs:
    """The accumulator tuples of one function and their webs (module docstring)."""

    def __init__(self, fn: Function) -> None:
        self.mmas = [op for op in fn.ops() if _accumulator_mma(op)]
        self.tuples: dict[Tuple, None] = {}
        self.owner: dict[Value, Tuple] = {}
        self.conflict: set[Tuple] = set()
        work: list[Tuple] = []
        for op in self.mmas:
            work.append((op.results[0], op.results[1], op.results[2], op.results[3]))
            c = _c(op)
            if self._args_tuple(c):
                work.append(c)
        while work:
            values = work.pop()
            if values not in self.tuples:
                self._add(values)
                work += self._passed_on(values)
        self.parent: dict[object, object] = {}
        self._link()

    def _link(self) -> None:
        """Union the mmas with their D and C tuples and block-argument tuples with what edges pass them."""
        for op in self.mmas:
            self._union(op, self._d(op))
            if _c(op) in self.tuples:
                self._union(op, _c(op))
        for values in self.tuples:
            if isinstance(values[0], BlockArg):
                for succ in _edges_into(values[0].block):
                    incoming = self.incoming(values, succ)
                    if incoming in self.tuples:
                        self._union(values, incoming)

    @staticmethod
    def _d(op: Op) -> Tuple:
        return (op.results[0], op.results[1], op.results[2], op.results[3])

    @staticmethod
    def _args_tuple(values: Tuple) -> bool:
        block = values[0].block if isinstance(values[0], BlockArg) else None
        return block is not None and len(set(values)) == 4 and \
            all(isinstance(v, BlockArg) and v.block is block for v in values)

    def _add(self, values: Tuple) -> None:
        self.tuples[values] = None
        for value in values:
            other = self.owner.setdefault(value, values)
            if other != values:
                self.conflict |= {other, values}

    @staticmethod
    def _passed_on(values: Tuple) -> list[Tuple]:
        """The block-argument tuples that branches pass ``values`` to, all four in one successor."""
        found = []
        for use in values[0].uses:
            for succ in use.owner.successors:
                positions = []
                for value in values:
                    where = [i for i, arg in enumerate(succ.args) if arg.value is value]
                    if len(where) != 1:
                        break
                    positions.append(where[0])
                else:
                    args = succ.block.args
                    found.append((args[positions[0]], args[positions[1]], args[positions[2]], args[positions[3]]))
        return found

    @staticmethod
    def incoming(values: Tuple, succ: Successor) -> Tuple:
        """What edge ``succ`` passes to the block-argument tuple ``values``."""
        passed = [succ.args[v.index].value for v in values if isinstance(v, BlockArg)]
        return (passed[0], passed[1], passed[2], passed[3])

    def find(self, node: object) -> object:
        root = node
        while self.parent.get(root, root) != root:
            root = self.parent[root]
        while node != root:
            following = self.parent[node]
            self.parent[node] = root
            node = following
        return root

    def _union(self, one: object, two: object) -> None:
        first, second = self.find(one), self.find(two)
        if first != second:
            self.parent[first] = second


@dataclass
class _Plan:
    """The conversions one stacked web needs (where, and what they read)."""

    mmas: list[Op]
    to_mfma_at_mma: list[Op]
    to_mfma_at_edge: list[tuple[Successor, Tuple]]
    to_ptx: dict[tuple[Tuple, Block], list[Use]]

    def blocks(self) -> set[Block | None]:
        at: set[Block | None] = {op.parent for op in self.to_mfma_at_mma}
        at |= {succ_owner(succ) for succ, _ in self.to_mfma_at_edge}
        return at | {block for _, block in self.to_ptx}


def succ_owner(succ: Successor) -> Block | None:
    """The block whose terminator holds ``succ`` (from one of its argument uses or the block's ops)."""
    return succ.args[0].owner.parent if succ.args else None


def _plan(webs: _Webs, members: list[object]) -> _Plan | None:
    """The conversions of the web ``members`` (mmas and tuples), or None when it cannot be stacked."""
    mmas = [m for m in members if isinstance(m, Op)]
    tuples = [m for m in members if isinstance(m, tuple)]
    if not all(_stackable(op) for op in mmas) or any(t in webs.conflict for t in tuples):
        return None
    stacked = set(tuples)
    plan = _Plan(mmas, [], [], {})
    accepted: set[Use] = set()
    for op in mmas:
        c = _c(op)
        if c in stacked:
            accepted |= set(op.operands[-4:])
        elif not _same_constant(c):
            plan.to_mfma_at_mma.append(op)
    accepted |= _edges(webs, tuples, plan)
    for values in tuples:
        for value in values:
            for use in value.uses:
                if use not in accepted:
                    block = use.owner.parent
                    assert block is not None
                    plan.to_ptx.setdefault((values, block), []).append(use)
    return plan


def _edges(webs: _Webs, tuples: list[Tuple], plan: _Plan) -> set[Use]:
    """The branch-argument uses passing stacked tuples to the stacked block-argument tuples of the
    web; the other edges into those get a ``to = mfma`` conversion in ``plan``."""
    stacked = set(tuples)
    accepted: set[Use] = set()
    for values in tuples:
        if not isinstance(values[0], BlockArg):
            continue
        for succ in _edges_into(values[0].block):
            incoming = webs.incoming(values, succ)
            uses = [succ.args[v.index] for v in values if isinstance(v, BlockArg)]
            if incoming in stacked:
                accepted |= set(uses)
            elif not _same_constant(incoming):
                plan.to_mfma_at_edge.append((succ, values))
    return accepted


def _convert(block: Block, anchor: Op, values: list[Value], to: str) -> Op:
    op = Op("mma_acc", values, [v.type for v in values], {"to": to}, loc=anchor.loc)
    block.insert_before(anchor, op)
    return op


def _rewrite(plan: _Plan) -> None:
    for op in plan.mmas:
        op.attrs["acc"] = "mfma"
    for op in plan.to_mfma_at_mma:
        assert op.parent is not None
        conversion = _convert(op.parent, op, list(_c(op)), "mfma")
        for use, value in zip(op.operands[-4:], conversion.results, strict=True):
            use.set(value)
    for succ, values in plan.to_mfma_at_edge:
        uses = [succ.args[v.index] for v in values if isinstance(v, BlockArg)]
        term = uses[0].owner
        assert term.parent is not None
        conversion = _convert(term.parent, term, [use.value for use in uses], "mfma")
        for use, value in zip(uses, conversion.results, strict=True):
            use.set(value)
    for (values, block), uses in plan.to_ptx.items():
        first = min((use.owner for use in uses), key=block.ops.index)
        conversion = _convert(block, first, list(values), "ptx")
        for use in uses:
            use.set(conversion.results[values.index(use.value)])


@dataclass(frozen=True)
class MmaMfmaLayout(Pass):
    name = "mma-mfma-layout"

    def run(self, module: Module) -> bool:
        changed = False
        for fn in module.functions:
            if fn.kind == "kernel" and any(_stackable(op) for op in fn.ops()):
                changed |= self._function(fn)
        return changed

    @staticmethod
    def _function(fn: Function) -> bool:
        webs = _Webs(fn)
        groups: dict[object, list[object]] = {}
        for node in [*webs.mmas, *webs.tuples]:
            groups.setdefault(webs.find(node), []).append(node)
        plans = [plan for members in groups.values() if (plan := _plan(webs, members)) is not None]
        if not plans:
            return False
        whole = whole_wave_blocks(fn) or frozenset()
        plans = [plan for plan in plans if plan.blocks() <= whole]
        for plan in plans:
            _rewrite(plan)
        return bool(plans)
