"""Directed rounding (.rz/.rm/.rp) without touching the MODE register, by exact error terms.

Invariant: for an operation whose exact result is ``s + e`` (``s`` the round-to-nearest result in a
wide type W, ``e`` an exact error term or one with the exact error's sign), ``directed`` returns
the exact result rounded toward zero, −∞ or +∞ in the narrow type T: it rounds ``s`` to T to the
nearest, then steps one ulp (integer ±1 on the bit pattern) when that lies on the wrong side of
the exact value. For T = f16 W = f32 and for T = f32 W = f64 the W operations are exact or their
errors are (TwoSum, fma-based TwoProduct/division/square-root residuals; Boldo & Muller, "Exact and
Approximated Error of the FMA", IEEE TC 2011, and Knuth TAOCP 4.2.2), so the result is exact;
for T = f64 the residuals are made exact by scaling (``ptx2gcn.emit.lower_float_exact``).
Overflow of a finite exact result is handled: round-to-nearest gave ±inf, so |s| > |exact|.
"""

from __future__ import annotations

import struct

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.llvm_types import int_of, scalar_bits


def fconst(t: ir.Type, value: float) -> ir.Constant:
    """Float constant ``value`` of type ``t`` (bfloat: from the top half of the f32 pattern, so
    only values exact in bf16 may be asked for)."""
    if str(t) == "bfloat":
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
        assert bits & 0xFFFF == 0, f"{value} is not exact in bf16"
        return ir.Constant(ir.IntType(16), bits >> 16).bitcast(t)
    return ir.Constant(t, value)


def _fpclass(cx: FnContext, x: ir.Value, mask: int) -> ir.Value:
    name = f"llvm.is.fpclass.{_suffix(x.type)}"
    return cx.call(name, ir.IntType(1), [x, ir.Constant(ir.IntType(32), mask)])


def is_inf(cx: FnContext, x: ir.Value) -> ir.Value:
    return _fpclass(cx, x, 0x204)


def is_finite(cx: FnContext, x: ir.Value) -> ir.Value:
    return _fpclass(cx, x, 0x1F8)


def _suffix(t: ir.Type) -> str:
    return {"half": "f16", "bfloat": "bf16", "float": "f32", "double": "f64"}[str(t)]


def wide_of(t: ir.Type) -> ir.Type:
    """The type the exact parts are computed in."""
    return {"half": ir.FloatType(), "float": ir.DoubleType()}.get(str(t), t)


def two_sum(cx: FnContext, a: ir.Value, b_: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(s, e) with s = fl(a + b) and a + b = s + e exactly (Knuth's TwoSum, no branches)."""
    b = cx.builder
    s = b.fadd(a, b_)
    bb = b.fsub(s, a)
    e = b.fadd(b.fsub(a, b.fsub(s, bb)), b.fsub(b_, bb))
    return s, e


def fma(cx: FnContext, a: ir.Value, b_: ir.Value, c: ir.Value) -> ir.Value:
    return cx.call(f"llvm.fma.{_suffix(a.type)}", a.type, [a, b_, c])


def _step(cx: FnContext, r: ir.Value, down: ir.Value, up: ir.Value) -> ir.Value:
    """r moved one ulp toward −∞ where ``down``, toward +∞ where ``up`` (never both)."""
    b = cx.builder
    it = int_of(r.type)
    bits = b.bitcast(r, it)
    sign = ir.Constant(it, 1 << (it.width - 1))
    negative = b.icmp_unsigned("!=", b.and_(bits, sign), ir.Constant(it, 0))
    magnitude_zero = b.icmp_unsigned("==", b.and_(bits, ir.Constant(it, (1 << (it.width - 1)) - 1)),
                                     ir.Constant(it, 0))
    one = ir.Constant(it, 1)
    # toward −∞: positive nonzero → bits − 1; ±0 → −min_subnormal; negative → bits + 1
    down_bits = b.select(b.or_(negative, magnitude_zero), b.add(b.or_(bits, sign), one), b.sub(bits, one))
    # toward +∞: negative nonzero → bits − 1; ±0 → +min_subnormal; positive → bits + 1
    up_bits = b.select(magnitude_zero, one, b.select(negative, b.sub(bits, one), b.add(bits, one)))
    stepped = b.select(down, down_bits, b.select(up, up_bits, bits))
    return b.bitcast(stepped, r.type)


def directed(cx: FnContext, mode: str, to: ir.Type, s: ir.Value, e: ir.Value,
             overflowed: ir.Value | None = None) -> ir.Value:
    """Round the exact value ``s + e`` (type W) to ``to`` toward zero (rz), −∞ (rm) or +∞ (rp).

    ``overflowed``: the exact value is finite although ``s`` is infinite (W == T overflow).
    """
    b = cx.builder
    r = b.fptrunc(s, to) if scalar_bits(to) < scalar_bits(s.type) else s
    wide = b.fpext(r, s.type) if r.type != s.type else r
    d = b.fsub(wide, s)
    zero_w = fconst(s.type, 0.0)
    same = b.fcmp_ordered("==", d, zero_w)
    above = b.or_(b.fcmp_ordered(">", d, zero_w), b.and_(same, b.fcmp_ordered("<", e, fconst(e.type, 0.0))))
    below = b.or_(b.fcmp_ordered("<", d, zero_w), b.and_(same, b.fcmp_ordered(">", e, fconst(e.type, 0.0))))
    if overflowed is not None:
        positive = b.fcmp_ordered(">", s, zero_w)
        above = b.or_(above, b.and_(overflowed, positive))
        below = b.or_(below, b.and_(overflowed, b.not_(positive)))
    zero_t = fconst(to, 0.0)
    if mode == "rz":
        down = b.and_(above, b.fcmp_ordered(">", r, zero_t))
        up = b.and_(below, b.fcmp_ordered("<", r, zero_t))
    elif mode == "rm":
        down, up = above, ir.Constant(ir.IntType(1), 0)
    else:
        down, up = ir.Constant(ir.IntType(1), 0), below
    return _step(cx, r, down, up)


def round_to_odd(cx: FnContext, to: ir.Type, s: ir.Value, e: ir.Value) -> ir.Value:
    """The exact value ``s + e`` (type W) rounded to ``to`` by round-to-odd: toward zero, then the
    last bit set if that was inexact. Rounding the result again to nearest in a format with at
    least two bits fewer gives the exact value's correct rounding there (Boldo & Melquiond,
    "Emulation of FMA and Correctly Rounded Sums: Proved Algorithms Using Rounding to Odd",
    IEEE TC 57(4), 2008, Theorem 3); infinities and NaNs pass through."""
    b = cx.builder
    truncated = directed(cx, "rz", to, s, e)
    back = b.fpext(truncated, s.type) if scalar_bits(to) < scalar_bits(s.type) else truncated
    zero = fconst(e.type, 0.0)
    inexact = b.or_(b.fcmp_ordered("one", back, s), b.fcmp_ordered("one", e, zero))
    it = int_of(to)
    odd = b.or_(b.bitcast(truncated, it), b.zext(inexact, it))
    return b.bitcast(odd, to)
