"""The dispatch table: IR op name → lowering function (no isinstance ladders).

Invariant: every op name in ``ptx2gcn.ir.opcodes.OPS`` either has an entry here or is reported as a
located ``unsupported`` error by ``lower_op``; ops shared by integers and floats (``add``, ``setp``
...) dispatch on whether their ``type`` attribute names a float type. The modules in ``DEFERRED``
(ops most kernels never use) are imported on the first op they lower: until then their entries are
stand-ins (``ptx2gcn.deferred``) that import the module, put its real lowering in the table and run it.
"""

from __future__ import annotations

from ptx2gcn.deferred import deferred_entries
from ptx2gcn.emit import (
    lower_control,
    lower_convert,
    lower_float,
    lower_int,
    lower_int_bits,
    lower_int_logic,
    lower_memory,
    lower_special,
    lower_target,
    lower_values,
)
from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.ir.core import Op
from ptx2gcn.ir.types import is_float_name


def _by_type(name: str) -> Lowering:
    int_form, float_form = lower_int.INT_FORMS[name], lower_float.FLOAT_FORMS[name]

    def lower(cx: FnContext, op: Op) -> None:
        (float_form if is_float_name(cx.attr(op, "type")) else int_form)(cx, op)
    return lower


DEFERRED: dict[str, tuple[str, ...]] = {
    "ptx2gcn.emit.lower_video": ("video",),
    "ptx2gcn.emit.lower_cluster": ("mapa", "getctarank", "cvta_cluster"),
    "ptx2gcn.emit.lower_pack": ("cvt_pack",),
    "ptx2gcn.emit.lower_mbarrier": ("mbarrier", "mbarrier_pending_count"),
    "ptx2gcn.emit.lower_texture": ("tex", "txq", "suld", "sust"),
    "ptx2gcn.emit.lower_matrix": ("mma", "mma_nan", "mma_acc", "wmma_load", "wmma_store", "ldmatrix", "stmatrix",
                                  "movmatrix"),
}
"""Lowering modules imported on first use → the op names their ``LOWERINGS`` define (importing the
video, cluster and pack lowerings, with the warp lowerings that are now IR passes, took a small
file's compilation about 7 ms; ``tests/codegen/test_lowerings_deferred.py`` checks these names
against the modules)."""


LOWERINGS: dict[str, Lowering] = {
    **lower_values.LOWERINGS, **lower_int.LOWERINGS, **lower_int_bits.LOWERINGS, **lower_int_logic.LOWERINGS,
    **lower_float.LOWERINGS,
    **lower_convert.LOWERINGS, **lower_memory.LOWERINGS, **lower_control.LOWERINGS,
    **lower_special.LOWERINGS, **lower_target.LOWERINGS,
    **{name: _by_type(name) for name in lower_int.INT_FORMS},
}
for _module, _names in DEFERRED.items():
    LOWERINGS.update(deferred_entries(LOWERINGS, _module, "LOWERINGS", _names))


_NOT_YET: dict[str, str] = {
    **dict.fromkeys(("shfl", "vote", "activemask", "elect", "match", "redux", "fence", "barrier_cluster", "bar",
                     "bar_red"),
                    "warp collectives, fences and CTA barriers are rewritten by the warp-mapping passes "
                    "(wave64-*, warp mode P), which did not run"),
    **dict.fromkeys(("fence_proxy", "cp_async_bulk", "cp_async_bulk_group", "wgmma", "wgmma_mma"),
                    "the asynchronous proxy (TMA bulk copies, warpgroup MMA) has no gfx942 equivalent"),
}


def lower_op(cx: FnContext, op: Op) -> None:
    lowering = LOWERINGS.get(op.name)
    if lowering is None:
        cx.op = op
        raise cx.unsupported(op.name, _NOT_YET.get(op.name, "no gfx942 lowering for this operation yet"))
    cx.op = op
    lowering(cx, op)
