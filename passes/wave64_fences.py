"""wave64-fences: PTX ``fence``/``membar`` as LLVM fences with AMDGPU sync scopes (Mode P).

``fence.sem.scope`` (and ``membar.level``, which the builder makes ``fence.sc``) becomes one
``llvm.fence`` with the LLVM ordering of ``sem`` (``sc`` → ``seq_cst``, ``acq_rel``, ``acquire``,
``release``; a relaxed or weak fence orders nothing in LLVM's model, so it is made ``seq_cst`` as
PTX's ``membar`` is) and the sync scope of ``scope``: ``cta`` → ``workgroup`` (a CTA is one
workgroup, whichever half of a wave its warps run in), ``gpu`` → ``agent``, ``cluster`` →
``agent`` (clusters are one CTA, but a wider scope is always correct), ``sys`` → ``system``
(AMDGPUUsage "Memory Scopes"). The mapping lives in ``ptx2gcn.memory_model``, shared with atomics.

Requires: a verified module (phase ``ssa``).
Ensures: no ``fence`` op is left; the module verifies.
Not handled: ``fence.proxy`` (``fence_proxy``: the asynchronous proxy has no gfx942 equivalent).
"""

from __future__ import annotations

from dataclasses import dataclass

from ptx2gcn.ir.core import Op, Value
from ptx2gcn.ir.rewriter import Cursor
from ptx2gcn.ir.wave64 import Wave64Rewrite
from ptx2gcn.memory_model import SYNCSCOPE, fence_ordering


@dataclass(frozen=True)
class Wave64Fences(Wave64Rewrite):
    name = "wave64-fences"
    handles = frozenset({"fence"})

    def rewrite(self, at: Cursor, op: Op) -> tuple[Value, ...]:
        sem, scope = op.attrs.get("sem", "sc"), op.attrs.get("scope", "sys")
        assert isinstance(sem, str) and isinstance(scope, str)
        at.op("llvm.fence", ordering=fence_ordering(sem), syncscope=SYNCSCOPE[scope] or "system")
        return ()
