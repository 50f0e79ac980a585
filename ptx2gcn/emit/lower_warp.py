"""Warp- and block-collective operations under Mode P (two CUDA warps per gfx942 wave).

Invariant: this module only routes IR ops to their wave64 lowerings (``wave64_*`` modules) and
owns the plain barriers: ``bar.sync k`` / ``barrier.sync k`` without a thread count become a
workgroup-scope release fence, ``llvm.amdgcn.s.barrier`` and an acquire fence (AMDGPUUsage's
workgroup barrier sequence: shared-memory writes before the barrier are visible after it; exited
waves do not hold ``s_barrier`` up, as PTX's exited threads release barriers);
``bar.warp.sync`` is a wavefront-scope acq_rel fence plus ``llvm.amdgcn.wave.barrier`` (both warps
of a wave execute in lock step, so no wait is needed, only ordering). Counted/named barriers,
``bar.arrive`` and ``bar.red`` go to ``wave64_barrier``. Design: docs/mode-p.md.

Lowering and measured cost (gfx942 instructions added to a one-op kernel at -O3; the two
v_mbcnt computing ``lane64`` are shared by every warp op of a function):

======================================  =====  ==============================================
op                                      instr  key instructions
======================================  =====  ==============================================
%laneid, %lanemask_*                    3      2 v_mbcnt + 1 VALU
%warpid (flat tid >> 5)                 9      workitem ids, ntid loads, mad
shfl.sync dynamic b, c                  17     ds_bpermute_b32 at (base | j) * 4
shfl.sync.down/up constant b            10     ds_bpermute_b32
shfl.sync.bfly constant in-segment      1      ds_swizzle_b32 (bit mode, 32-lane groups)
shfl.sync.idx constant, full width      10     2 v_readlane_b32 + v_cndmask
vote.sync.ballot / activemask           4–6    ballot (v_cmp/exec) >> base
elect.sync                              ~8     activemask & membermask, s_ff1, v_cmp with %laneid
vote.sync.all/any/uni                   10     ballot, exec ballot, s_cmp
match.any.sync.b32/b64                  20+    waterfall: per (warp, value) class s_ff1 +
                                               v_readlane + v_cmp + ballot (loop, ≤ 64 rounds)
match.all.sync                          15     cttz of own active members + ds_bpermute + ballot
redux.sync (integer), constant mask     20     WWM + 5 ds_swizzle_b32 (xor 1/2/4/8/16) + 5 VALU
redux.sync, register mask (cg tiles)    64     + per-lane tile size, one v_cndmask per step
bar.warp.sync                           0      wave.barrier (scheduling only) + wavefront fence
bar.sync k (no count)                   1      s_barrier (+ fences: no code on gfx942)
bar.sync k, b                           53     LDS CAS arrive + ds_bpermute + s_sleep spin
bar.arrive k, b                         32     LDS CAS arrive
bar.red (no count)                      61     LDS atomics + 2 s_barrier
bar.red k, b                            98     LDS accumulator + CAS arrive + spin
======================================  =====  ==============================================

Kernels using the LDS barrier emulation also get a 64-word LDS block zeroed at entry (1 ds_write
per lane + 1 s_barrier).
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit import wave64_barrier
from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_atomics import fence
from ptx2gcn.emit.wave64_match import lower_match, lower_redux
from ptx2gcn.emit.wave64_shuffle import lower_shfl
from ptx2gcn.emit.wave64_vote import lower_activemask, lower_elect, lower_vote
from ptx2gcn.ir.core import Op


def cta_barrier(cx: FnContext) -> None:
    """The full-CTA barrier: release fence, ``s_barrier``, acquire fence (all workgroup scope)."""
    fence(cx.builder, "release", "workgroup")
    cx.call("llvm.amdgcn.s.barrier", ir.VoidType(), [], ["convergent"])
    fence(cx.builder, "acquire", "workgroup")


def lower_bar(cx: FnContext, op: Op) -> None:
    mode = cx.attr(op, "mode")
    if mode == "warp":
        fence(cx.builder, "acq_rel", "wavefront")
        cx.call("llvm.amdgcn.wave.barrier", ir.VoidType(), [], ["convergent"])
    elif mode == "sync" and len(op.operands) == 1:
        cta_barrier(cx)
    else:
        wave64_barrier.lower_counted_bar(cx, op, cta_barrier)


LOWERINGS: dict[str, Lowering] = {
    "bar": lower_bar,
    "bar_red": lambda cx, op: wave64_barrier.lower_bar_red(cx, op, cta_barrier),
    "shfl": lower_shfl,
    "vote": lower_vote,
    "activemask": lower_activemask,
    "elect": lower_elect,
    "match": lower_match,
    "redux": lower_redux,
}
