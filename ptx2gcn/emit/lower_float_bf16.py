"""Correctly rounded bf16 results that LLVM would otherwise round twice (through f32).

Invariant: each function returns the exact result rounded once to nearest-even in bf16. The exact
value is held as an f64 pair ``s + e`` (TwoSum; a product of two bf16 values has 16 significant
bits and is exact in f64, as is every f64 or 64-bit integer source), rounded to f32 by
round-to-odd and then to bf16 by LLVM's f32 → bf16 conversion (round to nearest even): 24 ≥ 8 + 2
bits make that pair of roundings equal to one (``ptx2gcn.emit.float_rounding.round_to_odd``).
Rounding to nearest twice would not be: a·b can be a bf16 midpoint and c far below its ulp, so
that f64 (or f32) rounds a·b + c to the midpoint and the second rounding ties to even on the wrong
side.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.float_rounding import round_to_odd, two_sum
from ptx2gcn.emit.llvm_types import BFLOAT, DOUBLE, FLOAT


def bf16_from_parts(cx: FnContext, s: ir.Value, e: ir.Value) -> ir.Value:
    """The exact f64 value ``s + e`` rounded to nearest-even bf16."""
    return cx.builder.fptrunc(round_to_odd(cx, FLOAT, s, e), BFLOAT)


def bf16_fma(cx: FnContext, a: ir.Value, b_: ir.Value, c: ir.Value) -> ir.Value:
    """fma.rn.bf16 of scalar bf16 operands: a·b + c rounded once."""
    b = cx.builder
    product = b.fmul(b.fpext(a, DOUBLE), b.fpext(b_, DOUBLE))  # exact: 8 + 8 significant bits
    s, e = two_sum(cx, product, b.fpext(c, DOUBLE))
    return bf16_from_parts(cx, s, e)
