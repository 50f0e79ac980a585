"""mma-accumulators: NaN canonicalisation moves out of mma chains, to where an accumulator leaves them.

PTX's mma gives NVIDIA's canonical NaN (0x7fffffff) for a NaN f32 result; the MFMA code makes it
with two VALU operations per element after the MFMAs, which inside a K loop sit between every step.
Along a chain (D of one mma is C of the next, directly or through the block arguments of a loop)
the canonicalisation only matters where the value leaves the chain: a NaN C gives a NaN D in every
mma lowering (an FMA chain and an MFMA both propagate NaN), and the last mma of the chain, or the
``mma_nan`` this pass inserts, makes it canonical.

The pass follows each ``.f32`` mma's results through block arguments (the *web* of values they can
reach). A web value is *pure* when every definition reaching it is an ``.f32`` mma result or a
non-NaN constant. An mma gets ``rawnan`` (its D may hold any NaN) when no web value it reaches is
impure and used outside the chain, and every use outside the chain of a pure web value that a
``rawnan`` mma reaches reads ``mma_nan`` of it, inserted just before that use (so after the loop,
not in it). Uses inside a chain: C operands of floating-point mmas (``.f32``/``.f16`` D), and
branch arguments.

Requires: a verified module (phase ``ssa``).
Ensures: the values every op other than an mma C operand reads are bit for bit what they were
(``mma_nan`` turns a NaN into the canonical NaN the mma would have produced); the module verifies.
Not handled: ``.f16`` D registers (two halves per register: they keep their own canonicalisation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ptx2gcn.ir.core import BlockArg, Function, Module, Op, OpResult, Use, Value
from ptx2gcn.ir.passbase import Pass


def _f32_mma(op: Op) -> bool:
    return op.name == "mma" and op.attrs.get("dtype") == "f32"


def _c_slot(use: Use) -> bool:
    """Whether ``use`` is a C operand of a floating-point mma (inside a chain)."""
    user = use.owner
    if user.name != "mma" or user.attrs.get("dtype") not in ("f16", "f32"):
        return False
    first_c = sum(int(user.attrs.get(x, 0) or 0) for x in ("a", "b"))
    return any(u is use for u in user.operands[first_c:])


def _edges(use: Use) -> list[BlockArg]:
    """The block arguments a successor-argument ``use`` feeds (none for an operand)."""
    return [succ.block.args[i] for succ in use.owner.successors for i, u in enumerate(succ.args) if u is use]


def _not_nan_constant(value: Value) -> bool:
    if not isinstance(value, OpResult) or value.op.name != "const":
        return False
    constant = value.op.attrs.get("value")
    return isinstance(constant, int | float) and not (isinstance(constant, float) and math.isnan(constant))


class _Webs:
    """The webs of one function's ``.f32`` mma results (module docstring)."""

    def __init__(self, fn: Function) -> None:
        self.mmas = [op for op in fn.ops() if _f32_mma(op)]
        self.reach = {op: self._forward(op.results) for op in self.mmas}
        values = {value for reach in self.reach.values() for value in reach}
        self.pure = self._pure(values)

    @staticmethod
    def _forward(start: list[OpResult]) -> dict[Value, None]:
        """The values reachable from ``start``, in a deterministic order (an ordered set)."""
        seen: dict[Value, None] = {}
        work: list[Value] = list(reversed(start))
        while work:
            value = work.pop()
            if value not in seen:
                seen[value] = None
                for use in value.uses:
                    work.extend(reversed(_edges(use)))
        return seen

    @staticmethod
    def _incoming(arg: BlockArg) -> list[Value]:
        """The values every incoming edge passes to ``arg``."""
        found: list[Value] = []
        for pred in arg.block.predecessors():
            term = pred.terminator
            assert term is not None
            found.extend(succ.arg_values[arg.index] for succ in term.successors if succ.block is arg.block)
        return found

    def _pure(self, values: set[Value]) -> set[Value]:
        pure = set(values)
        changed = True
        while changed:
            changed = False
            for value in list(pure):
                if isinstance(value, OpResult):
                    ok = _f32_mma(value.op)
                else:
                    assert isinstance(value, BlockArg)
                    ok = all(v in pure or _not_nan_constant(v) for v in self._incoming(value))
                if not ok:
                    pure.discard(value)
                    changed = True
        return pure


def _outside(value: Value) -> list[Use]:
    """Uses of ``value`` that leave the chain (neither an mma C operand nor a branch argument)."""
    return [use for use in value.uses if not _c_slot(use) and not _edges(use)]


@dataclass(frozen=True)
class MmaAccumulators(Pass):
    name = "mma-accumulators"

    def run(self, module: Module) -> bool:
        changed = False
        for fn in module.functions:
            if any(_f32_mma(op) for op in fn.ops()):
                changed |= self._function(fn)
        return changed

    @staticmethod
    def _function(fn: Function) -> bool:
        webs = _Webs(fn)
        raw = [op for op in webs.mmas
               if all(value in webs.pure or not _outside(value) for value in webs.reach[op])]
        leaving = dict.fromkeys(value for op in raw for value in webs.reach[op] if _outside(value))
        changed = False
        for op in raw:
            if not op.attrs.get("rawnan"):
                op.attrs["rawnan"] = True
                changed = True
        for value in leaving:
            for use in _outside(value):
                user = use.owner
                block = user.parent
                assert block is not None
                canon = Op("mma_nan", [value], [value.type], loc=user.loc)
                block.insert_before(user, canon)
                use.set(canon.result)
                changed = True
        return changed
