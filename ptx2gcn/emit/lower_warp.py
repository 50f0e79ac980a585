"""Block barriers and the warp-level operations that wait for the wave64 mode-P lowering.

Invariant: ``bar.sync 0`` / ``barrier.sync 0`` without a thread count become a workgroup-scope
release fence, ``llvm.amdgcn.s.barrier`` and an acquire fence (the sequence AMDGPUUsage's memory
model gives for a workgroup barrier, so shared-memory writes before the barrier are visible after
it). Every other warp- or block-collective op (shfl, vote, match, redux, activemask, bar.red,
bar.arrive, named barriers, bar.warp.sync) raises a located ``unsupported: <instr>: warp-level
operations are not lowered yet`` (see /work/shared/docs/warp-on-wave64.md).
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_atomics import fence
from ptx2gcn.ir.core import Op

WARP_LEVEL_WHY = "warp-level operations are not lowered yet"


def _constant_int(cx: FnContext, op: Op, index: int) -> int | None:
    source = op.operand(index)
    defining = getattr(source, "op", None)
    if defining is not None and defining.name == "const":
        value = defining.attrs.get("value")
        return value if isinstance(value, int) else None
    return None


def lower_bar(cx: FnContext, op: Op) -> None:
    mode = cx.attr(op, "mode")
    if mode != "sync" or len(op.operands) != 1 or _constant_int(cx, op, 0) != 0:
        what = {"sync": "bar.sync", "arrive": "bar.arrive", "warp": "bar.warp.sync"}.get(mode, "bar")
        raise cx.unsupported(f"{what} (named barrier, thread count or warp barrier)", WARP_LEVEL_WHY)
    fence(cx.builder, "release", "workgroup")
    cx.call("llvm.amdgcn.s.barrier", ir.VoidType(), [], ["convergent"])
    fence(cx.builder, "acquire", "workgroup")


def _warp_level(name: str) -> Lowering:
    def lower(cx: FnContext, op: Op) -> None:
        detail = f".{cx.attr(op, 'mode')}" if cx.attr(op, "mode") else (
            f".{cx.attr(op, 'op')}" if cx.attr(op, "op") else "")
        raise cx.unsupported(f"{name}{detail}", WARP_LEVEL_WHY)
    return lower


LOWERINGS: dict[str, Lowering] = {
    "bar": lower_bar,
    **{name: _warp_level(name) for name in ("bar_red", "shfl", "vote", "activemask", "match", "redux")},
}
