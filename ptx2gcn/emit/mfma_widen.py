"""One f16 MFMA, or the same product through f32-input MFMAs of the same block layout ("widened").

Invariant: ``f16_mfma(cx, intrinsic, a, b, acc, cbsz, abid, widen)`` returns the accumulator of
``intrinsic`` (an f16 MFMA of ``WIDE``) applied to the ``<4 x half>`` operands ``a``, ``b``; with
``widen`` the product is computed by the ``Wide`` MFMA of ``WIDE`` in ``4 / per_step`` steps, step s
multiplying elements ``s * per_step ...`` of every lane's operands converted exactly to f32, chained
through the accumulator. Each wide MFMA has the block layout of its f16 MFMA with ``per_step`` K
elements per lane, and element e of the f16 form's lane holds K index ``(lane group) * 4 + e``
(16x16x16: groups of 16 lanes; 4x4x4_16b: K = e), which is the wide form's lane group K index
``(lane group) * per_step + e % per_step`` of step ``e // per_step``: no data moves, ``cbsz``/``abid``
mean the same.

Why (docs/tensor-cores.md, "Subnormal A/B elements"): CDNA3's f16 MFMAs align a group's products to
the largest nominal product exponent, counting a subnormal with f16's smallest normal exponent, so a
subnormal times a large value can cost other products of its group up to 10 bits, beyond the
reference model's bound. f16 values, subnormals included, are normal in f32 and in tf32 (f32's
exponent range, f16's 10 fraction bits), and a product of two is exact. The f32 MFMA is a chain of
correctly rounded f32 FMAs (CDNA3, MMA-Sim; the emulator's ``mfma_arith.f32_chain``): each step
rounds once, as the exact path's FMA chain. The xf32 MFMA aligns groups of 4 products like the f16
one, but with every input normal nominal and actual exponents agree: the arithmetic the f16 MFMA
has on normal data (and the tf32 plans of ``mfma_forms``), within the model's bound.

Hazards: a chain of widened products ends with ``SETTLE`` wait states (``s_nop 7`` behind a
``sched_barrier`` that keeps the chain's MFMAs before it). LLVM 22's hazard recognizer, at a block
reached from both branches of the subnormal test, takes the wait states of the MFMA on the last
predecessor it searched for every path. Measured on the emulator: an f32 4x4x1 needs 4 before a
VALU read where the f16 4x4x4 of the other branch needs 5 (a read 4 after the f16 one faulted), and
in Triton's attention, with the accumulators in MFMA layout across the loop, a VALU overwrote the
dead destination of an xf32 16x16x8 5 wait states after it where 7 are needed. ``SETTLE`` is the
most any CDNA3 rule asks after an MFMA of at most 4 passes, so nothing the chain wrote is in
flight at the join, whichever predecessor LLVM looked at; it costs 8 wait states on the rare
subnormal path only.
"""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.llvm_types import FLOAT

V4FLOAT = ir.VectorType(FLOAT, 4)
SETTLE = 8
"""Wait states (one ``s_nop 7``) after a widened chain: the most any CDNA3 rule asks after an MFMA of
at most 4 passes (an XDL result read or overwritten by a VALU: passes + 3 = 7)."""


@dataclass(frozen=True)
class Wide:
    """The f32-input MFMA standing in for an f16 one: its intrinsic and K elements per lane and step."""

    intrinsic: str
    per_step: int


WIDE = {"llvm.amdgcn.mfma.f32.16x16x16f16": Wide("llvm.amdgcn.mfma.f32.16x16x8.xf32", 2),
        "llvm.amdgcn.mfma.f32.4x4x4f16": Wide("llvm.amdgcn.mfma.f32.4x4x1f32", 1)}
"""f16 MFMA (K = 4 elements per lane) -> the MFMA of its block layout on f32 (xf32) elements
(``v_mfma_f32_16x16x8_xf32``, ``v_mfma_f32_4x4x1_16b_f32``; there is no 4x4 xf32 MFMA)."""


def f16_mfma(cx: FnContext, intrinsic: str, a: ir.Value, b: ir.Value, acc: ir.Value, cbsz: int = 0,
             abid: int = 0, widen: bool = False, last: bool = True) -> ir.Value:
    """``intrinsic(a, b, acc)`` with ``cbsz``/``abid`` (blgp 0), or with ``widen`` its ``Wide`` twin
    (module docstring), followed where ``last`` (the end of a chain of them) by ``SETTLE`` wait
    states ("Hazards"). EXEC must be full."""
    bld = cx.builder
    if not widen:
        return cx.call(intrinsic, V4FLOAT, [a, b, acc, cx.i32(cbsz), cx.i32(abid), cx.i32(0)], ["convergent"])
    wide = WIDE[intrinsic]
    for step in range(4 // wide.per_step):
        operands = []
        for v in (a, b):
            elements = [bld.fpext(bld.extract_element(v, cx.i32(step * wide.per_step + e)), FLOAT)
                        for e in range(wide.per_step)]
            if wide.per_step == 1:
                operands.append(elements[0])
                continue
            pair: ir.Value = ir.Constant(ir.VectorType(FLOAT, wide.per_step), None)
            for e, element in enumerate(elements):
                pair = bld.insert_element(pair, element, cx.i32(e))
            operands.append(pair)
        acc = cx.call(wide.intrinsic, V4FLOAT, [*operands, acc, cx.i32(cbsz), cx.i32(abid), cx.i32(0)],
                      ["convergent"])
    if not last:
        return acc
    # every MFMA of the chain settled before the branch joins; see the module docstring, "Hazards"
    cx.call("llvm.amdgcn.sched.barrier", ir.VoidType(), [cx.i32(0)], ["convergent"])
    cx.call("llvm.amdgcn.s.nop", ir.VoidType(), [ir.Constant(ir.IntType(16), SETTLE - 1)])
    return acc
