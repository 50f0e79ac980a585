"""ldmatrix-mfma-layout: an ``ldmatrix`` whose registers only feed MFMA-path mmas loads the MFMA operands.

On the MFMA fast path an m16n8k16 ``.f32.f16.f16.f32`` mma (``ptx2gcn/emit/lower_mma_mfma.py``; and
``.bf16``, whose ``mfma_forms`` plan moves A and B the same way) builds its MFMA A and B operands
from the PTX fragments with ``ds_bpermute_b32`` (8 for A, 2 for B per mma pair of the wave).
``ldmatrix`` already fetches, per lane, the row address a fragment element
comes from; loading in the operand layout instead costs the same and the operand permutes go away:

* ``layout = mfma_b`` (any ``.x1/.x2/.x4``, ``.trans`` or not): register m of lane L holds what
  register m of wave lane ``32 (c >= 8) + 4 (c % 8) + q`` holds in the PTX layout (c = L % 16,
  q = L / 16): the lane the MFMA B operand reads, the same for both B registers;
* ``layout = mfma_a`` (``.x4`` only): the four registers are the two MFMAs' A operands, register
  ``2w + d`` = dword d of MFMA w's A: PTX register ``2d + (r & 2 != 0)`` of wave lane
  ``32w + 4 (2 (r >> 2) + (r & 1)) + q`` (r = L % 16);

and the mmas reading them get ``aop = mfma`` / ``bop = mfma``. An ldmatrix qualifies when it is in a
block both warps of every wave execute together (its loads then read other lanes' row addresses over
the whole wave) and every use of its registers is such an mma operand: for ``mfma_a`` register j as A
operand j, all four A operands of the mma from the one ldmatrix; for ``mfma_b`` both B operands of the
mma from qualifying ldmatrices. The mmas: m16n8k16 ``.f32.f16.f16.f32`` or ``.f32.bf16.bf16.f32``
row/col, ``wave = whole``.

Whether the layout is real is the emitter's choice with the rule of the mma's path
(``lower_mma_mfma.stacked_layout``); elsewhere both attributes mean the PTX layout.

Requires: a verified module (phase ``ssa``), after ``wave64-mma-uniformity`` (reads ``wave``).
Ensures: only ``layout`` attributes of ``ldmatrix`` and ``aop``/``bop`` attributes of ``mma`` change; the
module verifies.
Not handled: ldmatrix registers with any other use (a copy, a ``movmatrix``, an mma on the exact
path), the other mma forms (their MFMA plans take other operand layouts), wmma.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptx2gcn.ir.core import Function, Module, Op, OpResult, Use
from ptx2gcn.ir.passbase import Pass
from ptx2gcn.passes.wave64_mma_uniformity import whole_wave_blocks

_FORM = {"shape": "m16n8k16", "ctype": "f32", "dtype": "f32", "alayout": "row", "blayout": "col", "a": 4, "b": 2,
         "c": 4}


def _mfma_mma(op: Op) -> bool:
    """m16n8k16 ``.f32.f16.f16.f32`` or ``.f32.bf16.bf16.f32`` (whose plan moves A and B the same way)."""
    return op.name == "mma" and all(op.attrs.get(key) == value for key, value in _FORM.items()) and \
        op.attrs.get("atype") in ("f16", "bf16") and op.attrs.get("btype") == op.attrs.get("atype") and \
        op.attrs.get("wave") == "whole" and not op.attrs.get("wmma")


def _ldmatrix(value: object) -> Op | None:
    if isinstance(value, OpResult) and value.op.name == "ldmatrix":
        return value.op
    return None


def _a_from(op: Op) -> Op | None:
    """The ldmatrix whose registers 0..3 are ``op``'s A operands 0..3, if one is."""
    source = _ldmatrix(op.operand(0))
    for j in range(4):
        value = op.operand(j)
        if source is None or not isinstance(value, OpResult) or value.op is not source or value.index != j:
            return None
    return source


def _uses(op: Op) -> list[Use]:
    return [use for result in op.results for use in result.uses]


def _slot(use: Use) -> int:
    return next(i for i, u in enumerate(use.owner.operands) if u is use)


@dataclass(frozen=True)
class LdmatrixMfmaLayout(Pass):
    name = "ldmatrix-mfma-layout"

    def run(self, module: Module) -> bool:
        changed = False
        for fn in module.functions:
            if fn.kind == "kernel" and any(_mfma_mma(op) for op in fn.ops()):
                changed |= self._function(fn)
        return changed

    @staticmethod
    def _function(fn: Function) -> bool:
        whole = whole_wave_blocks(fn) or frozenset()
        loads = [op for op in fn.ops() if op.name == "ldmatrix" and op.parent in whole and
                 op.attrs.get("shape") == "m8n8" and op.attrs.get("type") == "b16" and _uses(op)]
        a_loads = {op for op in loads if op.attrs.get("num") == "x4" and
                   all(_mfma_mma(use.owner) and _slot(use) < 4 and _a_from(use.owner) is op for use in _uses(op))}
        b_loads = {op for op in loads if all(_mfma_mma(use.owner) and _slot(use) in (4, 5) for use in _uses(op))}
        while True:  # an mma needs both B operands from qualifying ldmatrices
            broken = {load for load in b_loads for use in _uses(load)
                      if not all(_ldmatrix(use.owner.operand(i)) in b_loads for i in (4, 5))}
            if not broken:
                break
            b_loads -= broken
        changed = False
        marks = [*((op, "mfma_a", "aop") for op in a_loads), *((op, "mfma_b", "bop") for op in b_loads)]
        for load, layout, attr in marks:
            load.attrs["layout"] = layout
            for use in _uses(load):
                use.owner.attrs[attr] = "mfma"
            changed = True
        return changed
