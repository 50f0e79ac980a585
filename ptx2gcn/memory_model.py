"""PTX memory-model words → LLVM/AMDGPU ones, the one place this mapping lives.

Invariant: ``SYNCSCOPE`` maps every PTX scope to the AMDGPU sync scope that is at least as wide
(AMDGPUUsage "Memory Scopes"; '' is LLVM's system scope; a cluster is one CTA in ptx2gcn, but
``agent`` is always correct); ``ORDERING`` maps PTX semantics to LLVM atomic orderings. Read by
the atomics lowering (``ptx2gcn.emit.lower_memory``) and the fence pass (``passes/wave64_fences``).
"""

from __future__ import annotations

SYNCSCOPE: dict[str, str] = {"cta": "workgroup", "cluster": "agent", "gpu": "agent", "sys": ""}
"""PTX scope → AMDGPU sync scope (AMDGPUUsage "Memory Scopes"); '' is LLVM's system scope."""

ORDERING: dict[str, str] = {"relaxed": "monotonic", "acquire": "acquire", "release": "release",
                            "acq_rel": "acq_rel", "sc": "seq_cst"}
"""PTX memory-ordering semantics → LLVM atomic ordering."""


def fence_ordering(sem: str) -> str:
    """The LLVM ordering of ``fence.sem``: a relaxed or weak fence orders nothing in LLVM's model,
    so it is made ``seq_cst``, as PTX's ``membar`` is."""
    return ORDERING.get(sem, "seq_cst") if sem not in ("relaxed", "weak") else "seq_cst"
