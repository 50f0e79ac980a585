"""Lowering of PTX thread-block-cluster ops for gfx942: ``mapa``, ``getctarank`` and ``cvta_cluster``
(the ``.shared::cluster`` window); ``barrier_cluster`` is rewritten by ``passes/wave64_cta_barrier``.

Invariant (the one-CTA cluster): ptx2gcn never launches thread-block clusters, so every cluster
consists of exactly one CTA, rank 0 (PTX ISA 2.2.2 "Cluster of Cooperative Thread Arrays": a grid
launched without a cluster shape behaves as a grid of 1x1x1 clusters; ``%cluster_nctarank`` is 1,
``%cluster_ctarank`` 0 — ``lower_special`` relies on the same invariant). Under it, each op below is
exact:

- ``.shared::cluster`` window (PTX ISA 5.1.5.1): the window holds the shared memory of every CTA
  of the cluster, and a CTA's own ``.shared::cta`` addresses are valid in it and name its own
  memory. With one CTA the window *is* the CTA's shared memory, so ``cvta_cluster`` is
  ``cvta.shared`` (LDS address <-> flat address) and a window address is an LDS offset.
- ``mapa`` (9.7.9.23) maps an address to the same variable in CTA ``rank``; the only CTA is rank 0,
  for which the result is the address itself. Other ranks name no CTA (undefined in PTX); the
  address is returned unchanged for them too, a defined choice.
- ``getctarank`` (9.7.9.24) is the rank of the CTA owning the address: always 0.
- ``barrier.cluster`` (9.7.13.3): ``arrive`` signals this thread's arrival (with release semantics
  unless ``.relaxed``) and does not wait; ``wait`` blocks until every non-exited thread of the
  cluster has arrived, then acquires. The cluster is the CTA, so ``arrive`` is a workgroup-scope
  release fence (nothing for ``.relaxed``) and ``wait`` is the full-CTA barrier (release fence,
  ``s_barrier``, acquire fence; the pass ``wave64-cta-barrier`` rewrites both). Each thread executes its ``arrive``
  before its ``wait`` (PTX requires that order), so when every wave has reached the ``s_barrier``
  every thread has arrived: ``wait`` never completes early, and the fences give exactly the
  release/acquire pairing PTX defines. The one difference is liveness, not ordering: a thread's
  ``wait`` also waits for the others to *reach their wait*, not just their ``arrive``; that only
  matters to a program where a thread, between its ``arrive`` and ``wait``, blocks on something
  another thread does after its own ``wait`` (nvcc's ``cluster.sync()``, ``barrier_arrive()`` +
  ``barrier_wait()`` pairs and every corpus kernel keep arrive and wait adjacent or independent).
  Exited waves do not hold ``s_barrier`` up, matching "non-exited threads".
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_types import I32, pointer
from ptx2gcn.ir.core import Op

_LDS, _FLAT = 3, 0


def lower_mapa(cx: FnContext, op: Op) -> None:
    cx.define(op, cx.operand(op, 0))


def lower_getctarank(cx: FnContext, op: Op) -> None:
    cx.define(op, cx.i32(0))


def lower_cvta_cluster(cx: FnContext, op: Op) -> None:
    """Window address (an LDS offset, see the invariant) <-> generic (flat) address."""
    b = cx.builder
    value = cx.operand(op, 0)
    to = ir.IntType(op.result.type.bits)
    if cx.flag(op, "to"):
        flat = b.inttoptr(cx.coerce(value, ir.IntType(64)), pointer(_FLAT))
        local = b.ptrtoint(b.addrspacecast(flat, pointer(_LDS)), I32)
        cx.define(op, cx.coerce(local, to))
        return
    lds = b.inttoptr(cx.coerce(value, I32), pointer(_LDS))
    cx.define(op, cx.coerce(b.ptrtoint(b.addrspacecast(lds, pointer(_FLAT)), ir.IntType(64)), to))


LOWERINGS: dict[str, Lowering] = {
    "mapa": lower_mapa, "getctarank": lower_getctarank,
    "cvta_cluster": lower_cvta_cluster,
}
