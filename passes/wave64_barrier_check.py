"""wave64-barrier-check: reject barriers Mode P cannot run, where warp-dependent control flow reaches them.

In Mode P two CUDA warps share one gfx942 wave and one program counter. A named or counted barrier
(``bar.sync k, b``, ``barrier.sync k, b``, ``bar.arrive``, counted ``bar.red``) reached under control
flow that differs between the two warps of a wave can deadlock: the wave runs one arm first, and a
warp waiting there for its partner (still in the other arm) never wakes up (docs/mode-p.md,
"Barriers").

Requires: a verified module (phase ``ssa``).
Ensures: the module is unchanged; every such barrier is reached only under branches whose
conditions are CTA-uniform (constants, kernel parameters, ``%ctaid``, ``%ntid``, ``%nctaid``...) or
warp-pair-uniform (``%warpid >> k`` with k >= 1, ``%warpid`` compared with an even bound), else a
located ``UnsupportedError`` "unsupported: bar.sync: barrier id K: reached under warp-dependent
control flow; on gfx942 two CUDA warps share one wave and may deadlock".
Branches to a block that only ends the thread (``@p exit``, early ``ret``) do not count: exited
threads wait for nobody.
Not handled: (conservatively rejected) values loaded from global/shared memory, results of calls
and collectives, and thread indices other than ``%warpid`` (a ``%tid.x / 32`` warp index is pair
uniform only for some block shapes, which the IR does not know). Barriers without a count are
not checked: ``bar.sync``/``barrier.sync.aligned`` already require CTA-uniform control flow in PTX,
and a non-aligned ``barrier.sync k`` (``s_barrier``) is accepted because the analysis cannot see
through cooperative-groups dispatch (``thread_group::sync()`` switches on a group-type field
loaded from memory); such a barrier reached in *different* arms by the two warps of a wave makes
that wave execute ``s_barrier`` once per arm, which hangs unless every wave does the same
(ROCm/hcc#902) — the one Mode P hazard this pass does not report.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from ptx2gcn.diagnostics import UnsupportedError
from ptx2gcn.ir.cfg import reverse_postorder
from ptx2gcn.ir.core import Block, Function, Module, Op, OpResult, Value
from ptx2gcn.ir.passbase import Pass
from ptx2gcn.ir.types import PtrType


class Level(IntEnum):
    """How much a value can differ between threads (ordered: the join is ``max``)."""

    UNIFORM = 0
    """The same in every thread of the CTA."""
    PAIR = 1
    """The same in both warps of every wave."""
    WARP = 2
    """The same within a warp, different between the two warps of a wave (``%warpid``)."""
    VARYING = 3


_UNIFORM_REGS = ("ctaid", "ntid", "nctaid", "nwarpid", "nsmid", "gridid", "WARP_SZ", "total_smem_size",
                 "dynamic_smem_size", "aggr_smem_size", "envreg", "pm")
_UNIFORM_SPACES = frozenset({"kparam", "param", "const"})
_RESULT_VARYING = frozenset({"ld", "atom", "call", "call_indirect", "shfl", "vote", "match", "redux",
                             "bar_red", "activemask", "alloca", "mbarrier_pending_count"})
"""Ops whose result differs between threads whatever their operands (``mbarrier_pending_count``: each
arrive-on saw another pending count, though the token's phase, all a wait reads, is the same)."""

_ENDS = frozenset({"ret", "exit", "trap"})
MESSAGE = ("barrier id {k}: reached under warp-dependent control flow; on gfx942 two CUDA warps share "
           "one wave and may deadlock")


MBARRIER_MESSAGE = ("reached under warp-dependent control flow; on gfx942 two CUDA warps share one wave, and "
                    "a warp waiting on the mbarrier there keeps its partner warp from arriving")
_MBARRIER_CHECKED = frozenset({"test_wait", "try_wait"})


def needs_check(op: Op) -> bool:
    """Barriers emulated per warp: with a thread count, ``bar.arrive``, counted ``bar.red``; and the
    mbarrier waits (a warp spinning under warp-dependent flow keeps its partner warp, parked in the
    other arm, from arriving; an arrive there only delays nobody). A wait's result is as uniform as
    its operands, so a spin loop on a wait at a pair-uniform point passes."""
    if op.name == "mbarrier":
        return op.attrs.get("op") in _MBARRIER_CHECKED
    if op.name == "bar":
        mode = op.attrs.get("mode")
        return mode == "arrive" or (mode == "sync" and len(op.operands) > 1)
    return op.name == "bar_red" and len(op.operands) > 2


def _const(value: Value) -> int | None:
    if isinstance(value, OpResult) and value.op.name == "const":
        v = value.op.attrs.get("value")
        return v if isinstance(v, int) else None
    return None


class _Analysis:
    """Per-value levels and per-block control levels of one function, to a fixpoint."""

    def __init__(self, fn: Function, exits_wait: bool = False) -> None:
        self.fn = fn
        self.exits_wait = exits_wait
        """Whether a branch to an exit-only block counts like any other (``control_levels``)."""
        self.order = reverse_postorder(fn)
        self.level: dict[Value, Level] = {}
        self.control: dict[Block, Level] = dict.fromkeys(self.order, Level.UNIFORM)
        self.deps = _control_dependences(self.order)

        if fn.kind != "kernel":  # a device function's parameters may differ per thread
            self.level.update(dict.fromkeys(fn.entry.args, Level.VARYING))

    def of(self, value: Value) -> Level:
        return self.level.get(value, Level.UNIFORM)

    def run(self) -> None:
        changed = True
        while changed:
            changed = False
            for block in self.order:
                changed |= self._block(block)

    def _raise(self, value: Value, level: Level) -> bool:
        if level > self.level.get(value, Level.UNIFORM):
            self.level[value] = level
            return True
        return False

    def _block(self, block: Block) -> bool:
        changed = False
        control = max((max(self.control[a], Level.UNIFORM if _exit_branch(a) and not self.exits_wait
                           else self._condition(a))
                       for a in self.deps.get(block, ())), default=Level.UNIFORM)
        if control > self.control[block]:
            self.control[block], changed = control, True
        for op in block.ops:
            level = self._transfer(op)
            for result in op.results:
                changed |= self._raise(result, level)
            for succ in op.successors:
                edge = max(self.control[block], self._condition(block) if len(set(block.successors())) > 1
                           else Level.UNIFORM)
                for arg, value in zip(succ.block.args, succ.arg_values):
                    changed |= self._raise(arg, max(edge, self.of(value)))
        return changed

    def _condition(self, block: Block) -> Level:
        term = block.terminator
        if term is None or not term.operands:
            return Level.UNIFORM
        return max(self.of(v) for v in term.operand_values)

    def _transfer(self, op: Op) -> Level:
        values = op.operand_values
        if op.name == "special_reg":
            reg = str(op.attrs.get("reg", ""))
            if reg == "warpid":
                return Level.WARP
            return Level.UNIFORM if reg.split(".")[0] in _UNIFORM_REGS else Level.VARYING
        if op.name == "ld":
            space = values[0].type.space.value if isinstance(values[0].type, PtrType) else ""
            return self.of(values[0]) if space in _UNIFORM_SPACES else Level.VARYING
        if op.name in _RESULT_VARYING:
            return Level.VARYING
        level = max((self.of(v) for v in values), default=Level.UNIFORM)
        if level == Level.WARP and _pairs_warps(op):
            return Level.PAIR
        return level


def _exit_branch(block: Block) -> bool:
    """A branch one of whose targets only ends the thread: threads leaving there wait for nobody."""
    return any(all(op.name in _ENDS for op in s.ops) for s in block.successors())


def _pairs_warps(op: Op) -> bool:
    """Whether ``op`` maps a warp index to a value equal for warps 2m and 2m+1."""
    values = op.operand_values
    bound = _const(values[1]) if len(values) > 1 else None
    if bound is None:
        return False
    if op.name == "shr" or (op.name == "div" and bound % 2 == 0):
        return bound >= 1
    if op.name == "and":
        return bound & 1 == 0
    if op.name == "setp":
        cmp = str(op.attrs.get("cmp", ""))
        below_even = cmp in ("lt", "ge", "lo", "hs") and bound % 2 == 0
        return below_even or (cmp in ("le", "gt", "ls", "hi") and bound % 2 == 1)
    return False


def _control_dependences(order: list[Block]) -> dict[Block, list[Block]]:  # noqa: C901
    """Block → the branching blocks it is control dependent on (post-dominance frontier)."""
    index = {b: i for i, b in enumerate(order)}
    everything = (1 << len(order)) - 1
    pdom = {b: everything for b in order}
    changed = True
    while changed:
        changed = False
        for block in reversed(order):
            succs = [s for s in block.successors() if s in index]
            meet = everything
            for s in succs:
                meet &= pdom[s]
            new = (meet if succs else 0) | 1 << index[block]
            if new != pdom[block]:
                pdom[block], changed = new, True
    deps: dict[Block, list[Block]] = {}
    for a in order:
        succs = set(a.successors())
        if len(succs) < 2:
            continue
        strict = pdom[a] & ~(1 << index[a])
        for s in succs:
            if s not in index:
                continue
            for b in order:  # b post-dominates s and does not strictly post-dominate a
                bit = 1 << index[b]
                if pdom[s] & bit and not strict & bit:
                    deps.setdefault(b, []).append(a)
    return deps


def control_levels(fn: Function) -> dict[Block, Level]:
    """How much the control flow reaching each block of ``fn`` can differ between threads, with a
    thread that leaves (``@p exit``) counting as one that went elsewhere: a block at ``Level.PAIR``
    or below is reached by both warps of a wave together, or by neither, given that both entered
    the function together (a kernel whose blocks fill whole waves)."""
    analysis = _Analysis(fn, exits_wait=True)
    analysis.run()
    return analysis.control


@dataclass(frozen=True)
class Wave64BarrierCheck(Pass):
    name = "wave64-barrier-check"

    def run(self, module: Module) -> bool:
        for fn in module.functions:
            checked = [op for block in fn.blocks for op in block.ops if needs_check(op)]
            if not checked:
                continue
            analysis = _Analysis(fn)
            analysis.run()
            for op in checked:
                assert op.parent is not None
                if analysis.control.get(op.parent, Level.UNIFORM) > Level.PAIR:
                    if op.name == "mbarrier":
                        raise UnsupportedError.feature(op.loc, f"mbarrier.{op.attrs.get('op')}", MBARRIER_MESSAGE)
                    k = _const(op.operand(0))
                    what = f"bar.{op.attrs.get('mode', 'red')}" if op.name == "bar" else "bar.red"
                    why = MESSAGE.format(k=k if k is not None else "(register)")
                    raise UnsupportedError.feature(op.loc, what, why)
        return False
