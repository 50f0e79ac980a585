"""One f16 MFMA, or the same product through f32 MFMAs of the same block layout ("widened").

Invariant: ``f16_mfma(cx, intrinsic, a, b, acc, cbsz, abid, widen)`` returns the accumulator of
``intrinsic`` (an f16 MFMA of ``WIDE``) applied to the ``<4 x half>`` operands ``a``, ``b``; with
``widen`` the product is computed by four f32 MFMAs, step s multiplying element s of every lane's
operands converted exactly to f32, chained through the accumulator. Each f32 MFMA of ``WIDE`` has the
block layout of its f16 MFMA with one K element per lane, and element s of the f16 form's lane holds
K index ``(lane group) * 4 + s`` (16x16x16: groups of 16 lanes; 4x4x4_16b: K = s), which is the f32
form's lane group K index of step s: no data moves, ``cbsz``/``abid`` mean the same.

Why (docs/tensor-cores.md, "Subnormal f16 elements"): CDNA3's f16 MFMAs align a group's products to
the largest nominal product exponent, counting a subnormal with f16's smallest normal exponent, so a
subnormal times a large value can cost other products of its group up to 10 bits, beyond the
reference model's bound. The f32 MFMA is a chain of correctly rounded f32 FMAs (CDNA3, MMA-Sim; the
emulator's ``mfma_arith.f32_chain``); f16 values, subnormals included, are normal in f32, and a
product of two is exact in f32, so every step rounds once: within the model's bound, as the exact
path's FMA chain.

Hazards: a chain of widened products ends with one f16 MFMA of zero operands (its products are 0, so the
accumulator passes unchanged, except that a zero result is +0 as every f16 MFMA zero is). Both
branches of ``lower_mma_mfma.f16_gated`` then leave their results written by the same MFMA kind:
LLVM 22's hazard recognizer, at a block reached from both, takes the wait states of the MFMA on the
last predecessor it searched for every path (an f32 4x4x1 needs 4 before a VALU read, the f16 4x4x4
5: the emulator faulted on a read 4 after the f16 one).
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.llvm_types import FLOAT

V4FLOAT = ir.VectorType(FLOAT, 4)
WIDE = {"llvm.amdgcn.mfma.f32.16x16x16f16": "llvm.amdgcn.mfma.f32.16x16x4f32",
        "llvm.amdgcn.mfma.f32.4x4x4f16": "llvm.amdgcn.mfma.f32.4x4x1f32"}
"""f16 MFMA (K = 4 elements per lane) -> the f32 MFMA with its block layout and one K element per lane."""


def f16_mfma(cx: FnContext, intrinsic: str, a: ir.Value, b: ir.Value, acc: ir.Value, cbsz: int = 0,
             abid: int = 0, widen: bool = False, last: bool = True) -> ir.Value:
    """``intrinsic(a, b, acc)`` with ``cbsz``/``abid`` (blgp 0), or with ``widen`` its f32 twin in four
    steps (module docstring), followed where ``last`` (the end of a chain of them) by the zero f16
    MFMA ("Hazards"). EXEC must be full."""
    bld = cx.builder
    if not widen:
        return cx.call(intrinsic, V4FLOAT, [a, b, acc, cx.i32(cbsz), cx.i32(abid), cx.i32(0)], ["convergent"])
    for step in range(4):
        a_s, b_s = (bld.fpext(bld.extract_element(v, cx.i32(step)), FLOAT) for v in (a, b))
        acc = cx.call(WIDE[intrinsic], V4FLOAT, [a_s, b_s, acc, cx.i32(cbsz), cx.i32(abid), cx.i32(0)],
                      ["convergent"])
    if not last:
        return acc
    # the result last written by the f16 MFMA itself (zero products: acc unchanged, a zero becomes +0);
    # see the module docstring, "Hazards"
    zero = ir.Constant(a.type, None)
    return cx.call(intrinsic, V4FLOAT, [zero, zero, acc, cx.i32(cbsz), cx.i32(abid), cx.i32(0)], ["convergent"])
