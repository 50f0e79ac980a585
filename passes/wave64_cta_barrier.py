"""wave64-cta-barrier: full-CTA barriers under Mode P (``bar.sync k`` / ``barrier.sync k`` without a
thread count, ``barrier.cluster``).

A barrier every thread of the CTA takes part in is gfx942's one hardware barrier: a
workgroup-scope release fence, ``amdgcn.s.barrier`` and an acquire fence (AMDGPUUsage's workgroup
barrier sequence: shared-memory writes before the barrier are visible after it). ``s_barrier``
counts waves, and a wave holds both warps of a pair, which both reach the barrier in a CTA-uniform
(aligned) program; exited waves do not hold ``s_barrier`` up, as PTX's exited threads release
barriers. A cluster is always one CTA in ptx2gcn (``ptx2gcn/emit/lower_cluster.py``), so
``barrier.cluster.wait`` is this barrier and ``barrier.cluster.arrive.release`` its release fence
(``.relaxed``: nothing). Design: warp-on-wave64.md §5.9(a).
Cost: 1 s_barrier (the fences need no code on gfx942 at workgroup scope).

Requires: a verified module (phase ``ssa``); ``wave64-barrier-check`` has run (it reads ``bar``).
Ensures: no ``barrier_cluster`` op and no ``bar`` op with ``mode = sync`` and only an id is left;
the module verifies.
Not handled: barriers with a thread count, ``bar.arrive`` and ``bar.red`` (``wave64-named-barrier``),
and ``bar.warp.sync`` (``wave64-warp-barrier``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ptx2gcn.ir.core import Op, Value
from ptx2gcn.ir.rewriter import Cursor
from ptx2gcn.ir.wave64 import Wave64Rewrite, cta_barrier


@dataclass(frozen=True)
class Wave64CtaBarrier(Wave64Rewrite):
    name = "wave64-cta-barrier"
    handles = frozenset({"bar", "barrier_cluster"})

    def wants(self, op: Op) -> bool:
        return op.name == "barrier_cluster" or (op.attrs.get("mode") == "sync" and len(op.operands) == 1)

    def rewrite(self, at: Cursor, op: Op) -> tuple[Value, ...]:
        if op.name == "bar" or op.attrs.get("mode") == "wait":
            cta_barrier(at)
        elif op.attrs.get("sem") == "release":
            at.op("llvm.fence", ordering="release", syncscope="workgroup")
        return ()
