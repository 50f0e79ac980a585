"""wave64-mma-uniformity: decide statically, where it can, whether an ``mma`` runs with its whole wave.

The MFMA fast path of ``mma`` (``ptx2gcn/emit/lower_mma_mfma.py``, ``wmma_mfma.py``) needs EXEC full:
both CUDA warps of the wave (Mode P) executing the mma together. Without more knowledge the
emitter tests that at run time (``ballot(true) == ~0``) and emits both the MFMA code and the exact
VALU code. This pass gives each ``mma`` the attribute ``wave``:

* ``wave = whole``: the kernel's ``.reqntid`` is a multiple of 64 threads (every wave holds two
  full warps) and the mma is reached under control flow that is the same for both warps of every
  wave (``wave64_barrier_check.control_levels``: branch conditions CTA- or pair-uniform, a
  warp-dependent ``@p exit`` counting as divergence), so EXEC is full there: MFMA code alone.
* ``wave = split``: ``.reqntid`` is at most 32 threads (one warp per wave): the exact path alone.
* no attribute: unknown (``.maxntid`` or no block size, device functions, calls that might exit
  threads, warp-dependent control flow): the run-time test stays.

Requires: a verified module (phase ``ssa``), before the warp mapping rewrites ``%laneid``/``%warpid``
into target operations (the analysis reads the special registers).
Ensures: only ``wave`` attributes of ``mma`` ops change; the module verifies.
Not handled (left to the run-time test): block sizes known only at launch, values loaded from
memory or returned by calls and collectives (taken as varying), mmas in device functions, and
kernels containing calls (a callee may ``exit`` some threads).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from ptx2gcn.ir.core import Block, Function, Module
from ptx2gcn.ir.passbase import Pass
from ptx2gcn.passes.wave64_barrier_check import Level, control_levels

WAVE = 64
WARP = 32
_MAY_EXIT = frozenset({"call", "call_indirect"})
"""Ops after which a warp may be gone without a visible branch (a callee's ``exit``)."""


def _whole_waves(fn: Function) -> bool | None:
    """True: every wave has both warps; False: none has; None: unknown (module docstring)."""
    dims = fn.directives.get("reqntid")
    if not dims:
        return None
    threads = prod(dims)
    if threads % WAVE == 0:
        return True
    return False if threads <= WARP else None


def whole_wave_blocks(fn: Function) -> frozenset[Block] | None:
    """The blocks of ``fn`` that every wave executes with both warps together (EXEC full), or None
    when the kernel's waves are not known to be whole or a call may exit threads (module docstring)."""
    if _whole_waves(fn) is not True or any(op.name in _MAY_EXIT for op in fn.ops()):
        return None
    control = control_levels(fn)
    return frozenset(block for block in fn.blocks if control.get(block, Level.VARYING) <= Level.PAIR)


@dataclass(frozen=True)
class Wave64MmaUniformity(Pass):
    name = "wave64-mma-uniformity"

    def run(self, module: Module) -> bool:
        changed = False
        for fn in module.functions:
            mmas = [op for op in fn.ops() if op.name == "mma"]
            if not mmas or fn.kind != "kernel":
                continue
            if _whole_waves(fn) is False:
                verdicts = dict.fromkeys(mmas, "split")
            elif (blocks := whole_wave_blocks(fn)) is not None:
                verdicts = {op: "whole" for op in mmas if op.parent in blocks}
            else:
                continue
            for op, verdict in verdicts.items():
                if op.attrs.get("wave") != verdict:
                    op.attrs["wave"] = verdict
                    changed = True
        return changed
