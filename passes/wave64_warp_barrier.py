"""wave64-warp-barrier: ``bar.warp.sync membermask`` under Mode P.

Both warps of a wave execute in lock step (one PC, one EXEC), so the members of a warp are always
converged at a ``bar.warp.sync``: no wait is needed, only PTX's memory ordering among the
participating threads ("store; bar.warp.sync; load of other lanes' stores is safe"). That is a
wavefront-scope ``acq_rel`` fence plus ``amdgcn.wave.barrier``, which keeps LLVM from moving memory
operations or cross-lane operations across it. Design: warp-on-wave64.md §5.8.
Cost: no instruction on gfx942 (the fence needs no cache maintenance at wavefront scope).

Requires: a verified module (phase ``ssa``).
Ensures: no ``bar`` op with ``mode = warp`` is left; the module verifies.
Not handled: nothing (membermask only names the participants; it is not checked).
"""

from __future__ import annotations

from dataclasses import dataclass

from ptx2gcn.ir.core import Op, Value
from ptx2gcn.ir.rewriter import Cursor
from ptx2gcn.ir.wave64 import Wave64Rewrite


@dataclass(frozen=True)
class Wave64WarpBarrier(Wave64Rewrite):
    name = "wave64-warp-barrier"
    handles = frozenset({"bar"})

    def wants(self, op: Op) -> bool:
        return op.attrs.get("mode") == "warp"

    def rewrite(self, at: Cursor, op: Op) -> tuple[Value, ...]:
        at.op("llvm.fence", ordering="acq_rel", syncscope="wavefront")
        at.op("amdgcn.wave.barrier")
        return ()
