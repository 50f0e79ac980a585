"""Counted and named CTA barriers under Mode P: routes ``bar`` (with a thread count, or
``bar.arrive``) and ``bar.red`` to the LDS emulation in ``wave64_barrier``.

Invariant: the other warp and CTA collectives never reach the emitter: the warp-mapping passes
(``passes/wave64_*.py``) rewrite shuffles, votes, match/redux, ``elect``, ``activemask``, the
warp-geometry registers, ``bar.warp.sync``, full-CTA barriers and fences into target ops
(``ptx2gcn.emit.lower_target``). A plain ``bar.sync k`` left here (only when those passes did not
run) is an ``unsupported`` error, as the other collectives are. Design:
/work/shared/docs/warp-on-wave64.md.

Measured cost (gfx942 instructions added to a one-op kernel at -O3):

======================================  =====  ==============================================
op                                      instr  key instructions
======================================  =====  ==============================================
bar.sync k, b                           53     LDS CAS arrive + ds_bpermute + s_sleep spin
bar.arrive k, b                         32     LDS CAS arrive
bar.red (no count)                      61     LDS atomics + 2 s_barrier
bar.red k, b                            98     LDS accumulator + CAS arrive + spin
======================================  =====  ==============================================

Kernels using the LDS barrier emulation also get a 64-word LDS block zeroed at entry (1 ds_write
per lane + 1 s_barrier). The costs of the ops the passes rewrite are in their pass docstrings.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit import wave64_barrier
from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_atomics import fence
from ptx2gcn.ir.core import Op


def cta_barrier(cx: FnContext) -> None:
    """The full-CTA barrier: release fence, ``s_barrier``, acquire fence (all workgroup scope);
    the same sequence ``passes/wave64_cta_barrier`` produces for ``bar.sync k``."""
    fence(cx.builder, "release", "workgroup")
    cx.call("llvm.amdgcn.s.barrier", ir.VoidType(), [], ["convergent"])
    fence(cx.builder, "acquire", "workgroup")


def lower_bar(cx: FnContext, op: Op) -> None:
    mode = cx.attr(op, "mode")
    if mode != "arrive" and len(op.operands) < 2:
        raise cx.unsupported(f"bar.{mode}", "warp and full-CTA barriers are rewritten by the warp-mapping "
                             "passes (wave64-*, warp mode P), which did not run")
    wave64_barrier.lower_counted_bar(cx, op, cta_barrier)


LOWERINGS: dict[str, Lowering] = {
    "bar": lower_bar,
    "bar_red": lambda cx, op: wave64_barrier.lower_bar_red(cx, op, cta_barrier),
}
