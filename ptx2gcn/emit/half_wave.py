"""Mode P geometry at the LLVM level, for the lowerings that still expand warp-level work in the
emitter: the warp-level matrix instructions (``matrix_gather``, used by mma/ldmatrix/wmma, and
the MFMA fast path's whole-wave test, ``lower_mma_mfma``).

Invariant: a CUDA warp is one 32-lane half of the wave64 (docs/mode-p.md); every value here is
computed from the lane's own position in the wave, and ``gather`` reads only lanes of the executing
warp's half (``ds_bpermute_b32`` at ``(half_base | j) * 4`` with ``0 <= j < 32``). The warp
collectives themselves (shuffles, votes, barriers) are IR passes (``passes/wave64_*``); these few
helpers move there too once the matrix lowerings become IR expansions.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.llvm_types import I32, I64

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


def bpermute(cx: FnContext, value: ir.Value, wave_lane: ir.Value) -> ir.Value:
    """The i32 ``value`` of wave lane ``wave_lane`` (0..63), through ``ds_bpermute_b32``; the caller
    keeps the source lane inside what it may read (``gather``: its own warp's half)."""
    address = cx.builder.shl(wave_lane, cx.i32(2))
    return cx.call("llvm.amdgcn.ds.bpermute", I32, [address, value], ["convergent"])


def gather(cx: FnContext, value: ir.Value, lane: ir.Value) -> ir.Value:
    """``value`` of lane ``lane`` (0..31) of the executing warp, through ``ds_bpermute_b32``."""
    return bpermute(cx, value, cx.builder.or_(lane, half_base(cx)))


def ballot64(cx: FnContext, pred: ir.Value) -> ir.Value:
    """The wave's 64-bit ballot of ``pred`` (inactive lanes contribute 0)."""
    return cx.call("llvm.amdgcn.ballot.i64", I64, [pred], ["convergent"])
