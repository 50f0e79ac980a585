"""Warp- and block-collective operations under Mode P (two CUDA warps per gfx942 wave).

Invariant: this module only routes IR ops to their wave64 lowerings (``wave64_*`` modules) and
owns the plain barriers: ``bar.sync k`` / ``barrier.sync k`` without a thread count become a
workgroup-scope release fence, ``llvm.amdgcn.s.barrier`` and an acquire fence (AMDGPUUsage's
workgroup barrier sequence: shared-memory writes before the barrier are visible after it; exited
waves do not hold ``s_barrier`` up, as PTX's exited threads release barriers);
``bar.warp.sync`` is a wavefront-scope acq_rel fence plus ``llvm.amdgcn.wave.barrier`` (both warps
of a wave execute in lock step, so no wait is needed, only ordering). Counted/named barriers,
``bar.arrive`` and ``bar.red`` go to ``wave64_barrier``. Design: /work/shared/docs/warp-on-wave64.md.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit import wave64_barrier
from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_atomics import fence
from ptx2gcn.emit.wave64_match import lower_match, lower_redux
from ptx2gcn.emit.wave64_shuffle import lower_shfl
from ptx2gcn.emit.wave64_vote import lower_activemask, lower_vote
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
    "match": lower_match,
    "redux": lower_redux,
}
