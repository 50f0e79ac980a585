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

Hazards: where the wide MFMA is not of the f16 one's unit (the f32 4x4x1 is not XDL, the f16 4x4x4
and xf32 16x16x8 are), a chain of widened products ends with one f16 MFMA of zero operands (its
products are 0, so the accumulator passes unchanged, except that a zero result is +0 as every f16
MFMA zero is). Both branches of the subnormal test then leave their results written by the same
MFMA kind: LLVM 22's hazard recognizer, at a block reached from both, takes the wait states of the
MFMA on the last predecessor it searched for every path (an f32 4x4x1 needs 4 before a VALU read,
the f16 4x4x4 5: the emulator faulted on a read 4 after the f16 one).
"""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.llvm_types import FLOAT

V4FLOAT = ir.VectorType(FLOAT, 4)


@dataclass(frozen=True)
class Wide:
    """The f32-input MFMA standing in for an f16 one: its intrinsic, K elements per lane and step,
    and whether it is of the f16 MFMA's unit (XDL; else the chain closes with a zero f16 MFMA)."""

    intrinsic: str
    per_step: int
    same_unit: bool


WIDE = {"llvm.amdgcn.mfma.f32.16x16x16f16": Wide("llvm.amdgcn.mfma.f32.16x16x8.xf32", 2, True),
        "llvm.amdgcn.mfma.f32.4x4x4f16": Wide("llvm.amdgcn.mfma.f32.4x4x1f32", 1, False)}
"""f16 MFMA (K = 4 elements per lane) -> the MFMA of its block layout on f32 (xf32) elements
(``v_mfma_f32_16x16x8_xf32``, ``v_mfma_f32_4x4x1_16b_f32``; there is no 4x4 xf32 MFMA)."""


def f16_mfma(cx: FnContext, intrinsic: str, a: ir.Value, b: ir.Value, acc: ir.Value, cbsz: int = 0,
             abid: int = 0, widen: bool = False, last: bool = True) -> ir.Value:
    """``intrinsic(a, b, acc)`` with ``cbsz``/``abid`` (blgp 0), or with ``widen`` its ``Wide`` twin
    (module docstring), followed where ``last`` (the end of a chain of them) and needed by the zero
    f16 MFMA ("Hazards"). EXEC must be full."""
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
    if not last or wide.same_unit:
        return acc
    # the result last written by the f16 MFMA itself (zero products: acc unchanged, a zero becomes +0);
    # see the module docstring, "Hazards"
    zero = ir.Constant(a.type, None)
    return cx.call(intrinsic, V4FLOAT, [zero, zero, acc, cx.i32(cbsz), cx.i32(abid), cx.i32(0)], ["convergent"])
