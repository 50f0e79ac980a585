"""Mode P warp geometry: two 32-lane CUDA warps share one 64-lane gfx942 wave.

Invariant: warp ``w`` of a CTA is half ``w & 1`` of wave ``w >> 1`` (work-items fill waves in
flat-id order), so ``lane64 = mbcnt_hi(-1, mbcnt_lo(-1, 0))``, ``%laneid = lane64 & 31`` and the
half's first wave lane ``base = lane64 & 32``. Every value a warp collective reads from the wave
(ballots, EXEC) goes through ``half_bits``, which returns only the executing warp's 32 bits; every
cross-lane index is formed as ``base | j`` with ``0 <= j <= 31``. Nothing here turns a warp-uniform
value into a wave-uniform assumption (no readfirstlane, no uniformity metadata). Design:
/work/shared/docs/warp-on-wave64.md §5.0–5.1.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.llvm_types import I1, I32, I64

WARP_SIZE = 32


def lane64(cx: FnContext) -> ir.Value:
    """This lane's index in the wave, 0..63."""
    lo = cx.call("llvm.amdgcn.mbcnt.lo", I32, [cx.i32(-1), cx.i32(0)])
    return cx.call("llvm.amdgcn.mbcnt.hi", I32, [cx.i32(-1), lo])


def lane_id(cx: FnContext) -> ir.Value:
    """``%laneid``: the lane within the CUDA warp, 0..31."""
    return cx.builder.and_(lane64(cx), cx.i32(WARP_SIZE - 1))


def half_base(cx: FnContext) -> ir.Value:
    """0 for the even warp of the wave, 32 for the odd one."""
    return cx.builder.and_(lane64(cx), cx.i32(WARP_SIZE))


def ballot64(cx: FnContext, pred: ir.Value) -> ir.Value:
    """The wave's 64-bit ballot of ``pred`` (inactive lanes contribute 0)."""
    return cx.call("llvm.amdgcn.ballot.i64", I64, [pred], ["convergent"])


def own_half(cx: FnContext, wave_mask: ir.Value) -> ir.Value:
    """The executing warp's 32 bits of a 64-bit wave mask."""
    b = cx.builder
    return b.trunc(b.lshr(wave_mask, b.zext(half_base(cx), I64)), I32)


def half_bits(cx: FnContext, pred: ir.Value) -> ir.Value:
    """The executing warp's ballot of ``pred``: bit i = lane i of this warp is active and ``pred``."""
    return own_half(cx, ballot64(cx, pred))


def half_exec(cx: FnContext) -> ir.Value:
    """The executing warp's active mask here (recomputed at every site: EXEC follows control flow)."""
    return half_bits(cx, ir.Constant(I1, 1))


def gather(cx: FnContext, value: ir.Value, lane: ir.Value) -> ir.Value:
    """``value`` of lane ``lane`` (0..31) of the executing warp, through ``ds_bpermute_b32``."""
    bld = cx.builder
    address = bld.shl(bld.or_(lane, half_base(cx)), cx.i32(2))
    return cx.call("llvm.amdgcn.ds.bpermute", I32, [address, value], ["convergent"])
