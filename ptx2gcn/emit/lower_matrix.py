"""Warp-level matrix operations (Mode P): routes the IR ops to their lowerings.

Invariant: this module only dispatches: ``mma`` to ``lower_mma_mfma`` (PTX fragment layouts; the MFMA
fast path or ``lower_mma``'s exact path) or, when
the op comes from ``wmma.mma``, to ``lower_wmma`` (ptx2gcn's wmma fragment layout); ``wmma_load`` /
``wmma_store`` to ``lower_wmma``; ``ldmatrix`` / ``stmatrix`` / ``movmatrix`` to ``lower_ldmatrix``.
Layouts, accumulation order and costs: docs/tensor-cores.md.
"""

from __future__ import annotations

from ptx2gcn.emit import lower_ldmatrix, lower_mma_mfma, lower_wmma
from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.ir.core import Op


def lower_mma_op(cx: FnContext, op: Op) -> None:
    (lower_wmma.lower_wmma_mma if cx.flag(op, "wmma") else lower_mma_mfma.lower_mma)(cx, op)


LOWERINGS: dict[str, Lowering] = {
    "mma": lower_mma_op,
    "mma_nan": lower_mma_mfma.lower_mma_nan,
    "mma_acc": lower_mma_mfma.lower_mma_acc,
    "wmma_load": lower_wmma.lower_wmma_load,
    "wmma_store": lower_wmma.lower_wmma_store,
    "ldmatrix": lower_ldmatrix.lower_ldmatrix,
    "stmatrix": lower_ldmatrix.lower_stmatrix,
    "movmatrix": lower_ldmatrix.lower_movmatrix,
}
