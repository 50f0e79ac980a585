"""Mode P warp geometry as IR: two 32-lane CUDA warps share one 64-lane gfx942 wave.

Invariant: warp ``w`` of a CTA is half ``w & 1`` of wave ``w >> 1`` (work-items fill waves in
flat-id order), so ``lane64 = mbcnt.hi(-1, mbcnt.lo(-1, 0))``, ``%laneid = lane64 & 31`` and the
half's first wave lane ``base = lane64 & 32``. Every value a warp collective reads from the wave
(ballots, EXEC) goes through ``half_bits``, which returns only the executing warp's 32 bits; every
cross-lane index is formed as ``base | j`` with ``0 <= j <= 31`` (``gather``). Nothing here turns a
warp-uniform value into a wave-uniform assumption. Each helper inserts its ops at the cursor and
recomputes ``lane64`` there (LLVM merges the copies; EXEC-dependent values such as ``half_exec``
must be recomputed at each site anyway). Design: docs/mode-p.md ("Geometry", "The collectives");
the passes using these are ``passes/wave64_*.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ptx2gcn.ir.core import Module, Op, Value
from ptx2gcn.ir.passbase import Pass
from ptx2gcn.ir.rewriter import Cursor, expand_ops
from ptx2gcn.ir.types import I32, I64, PRED

WARP_SIZE = 32
LANE_BITS = WARP_SIZE - 1


def lane64(at: Cursor) -> Value:
    """This lane's index in the wave, 0..63."""
    low = at.value("amdgcn.mbcnt.lo", (at.const(-1), at.const(0)), I32)
    return at.value("amdgcn.mbcnt.hi", (at.const(-1), low), I32)


def lane_id(at: Cursor) -> Value:
    """``%laneid``: the lane within the CUDA warp, 0..31."""
    return at.and_(lane64(at), at.const(LANE_BITS))


def half_base(at: Cursor) -> Value:
    """0 for the even warp of the wave, 32 for the odd one."""
    return at.and_(lane64(at), at.const(WARP_SIZE))


def ballot64(at: Cursor, pred: Value) -> Value:
    """The wave's 64-bit ballot of ``pred`` (inactive lanes contribute 0)."""
    return at.value("amdgcn.ballot", (pred,), I64)


def own_half(at: Cursor, wave_mask: Value) -> Value:
    """The executing warp's 32 bits of a 64-bit wave mask."""
    return at.trunc(at.shr(wave_mask, half_base(at)))


def half_bits(at: Cursor, pred: Value) -> Value:
    """The executing warp's ballot of ``pred``: bit i = lane i of this warp is active and ``pred``."""
    return own_half(at, ballot64(at, pred))


def half_exec(at: Cursor) -> Value:
    """The executing warp's active mask here (recomputed at every site: EXEC follows control flow)."""
    return half_bits(at, at.const(1, PRED))


def gather(at: Cursor, value: Value, lane: Value) -> Value:
    """``value`` (i32) of lane ``lane`` (0..31) of the executing warp, through ``ds_bpermute``."""
    address = at.shl(at.or_(lane, half_base(at)), 2)
    return at.value("amdgcn.ds.bpermute", (address, value), I32)


def leader(at: Cursor) -> tuple[Value, Value]:
    """(lane of this warp's leader = its lowest active lane, whether this lane is it)."""
    first = at.value("llvm.cttz", (half_exec(at),), I32, type="b32", zero_poison=True)
    return first, at.cmp("eq", lane_id(at), first)


def cta_barrier(at: Cursor) -> None:
    """The full-CTA barrier: release fence, ``s_barrier``, acquire fence (all workgroup scope;
    AMDGPUUsage's workgroup barrier sequence)."""
    at.op("llvm.fence", ordering="release", syncscope="workgroup")
    at.op("amdgcn.s.barrier")
    at.op("llvm.fence", ordering="acquire", syncscope="workgroup")


def split64(at: Cursor, value: Value) -> tuple[Value, Value]:
    """(low, high) 32-bit halves of an i64."""
    return at.trunc(value), at.trunc(at.shr(value, 32))


def join64(at: Cursor, low: Value, high: Value) -> Value:
    return at.or_(at.zext(low), at.shl(at.zext(high), 32))


def constant_operand(op: Op, index: int) -> int | None:
    """The value of operand ``index`` when a ``const`` op defines it."""
    defining = getattr(op.operand(index), "op", None)
    if defining is not None and defining.name == "const":
        value = defining.attrs.get("value")
        return value if isinstance(value, int) else None
    return None


def membermask(at: Cursor, op: Op, index: int) -> Value:
    """The op's ``membermask`` operand, or this warp's active set for the legacy non-``.sync`` forms."""
    if op.name in ("shfl", "vote") and not op.attrs.get("sync"):
        return half_exec(at)
    return op.operand(index)


@dataclass(frozen=True)
class Wave64Rewrite(Pass):
    """A Mode P pass: every op named in ``handles`` (and accepted by ``wants``) is replaced by
    ``rewrite``'s ops (``ptx2gcn.ir.rewriter.expand_ops``: the cursor is at the end of the ops
    before it; the rest of the block follows wherever the cursor ends)."""

    handles: ClassVar[frozenset[str]] = frozenset()

    def wants(self, op: Op) -> bool:
        return True

    def rewrite(self, at: Cursor, op: Op) -> tuple[Value, ...]:
        """The values replacing ``op``'s results, in order (as many as it has results)."""
        raise NotImplementedError

    def run(self, module: Module) -> bool:
        def wanted(op: Op) -> bool:
            return op.name in self.handles and self.wants(op)

        changed = False
        for fn in module.functions:
            for block in [b for b in fn.blocks if any(wanted(op) for op in b.ops)]:
                expand_ops(block, wanted, lambda at, op: self.rewrite(at, op)[:len(op.results)])
                changed = True
        return changed
