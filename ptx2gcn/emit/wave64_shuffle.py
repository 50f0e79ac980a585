"""``shfl.sync`` / legacy ``shfl`` on a half-wave (Mode P).

Invariant: the source lane ``j`` is computed with the PTX ISA formula ("shfl.sync" pseudocode:
``b[4:0]``, clamp ``c[4:0]``, segment mask ``c[12:8]``, a *signed* bound check for ``.up``), falls
back to the own lane when out of range, and is then always in 0..31; the ``ds_bpermute`` address is
``(base | j) * 4`` so the read never leaves the executing warp's half of the wave. ``membermask``
only states which lanes take part (the sm_6x contract: every member executes the shuffle
convergently); it does not change the data movement. Design: docs/mode-p.md, "The collectives".
Fast paths for compile-time ``b``/``c`` (``p`` is then the constant true):

- ``bfly`` whose lane mask stays inside its segment (``bval & seg == 0``, ``(cval | seg) == 31``,
  e.g. every CUDA ``__shfl_xor_sync`` with ``laneMask < width``): ``ds_swizzle_b32`` in bit mode,
  ``offset = bval << 10 | 0x1f``, which permutes inside each 32-lane group only (CDNA3 ISA,
  DS_SWIZZLE_B32) — no address VGPR.
- ``idx`` with ``seg == 0`` and ``cval == 31`` (CUDA ``__shfl_sync(m, v, k)`` at full width): the
  source lane ``s = b & 31`` is the same in the whole warp: ``base == 0 ? readlane(a, s) :
  readlane(a, 32 + s)`` — 2 v_readlane_b32 + v_cndmask, no LDS access.

General-path cost: 2 v_mbcnt + ~10 VALU for ``j``/``p`` + 1 ds_bpermute_b32 (+ lgkmcnt wait).
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.llvm_types import I32
from ptx2gcn.emit.wave64_geometry import WARP_SIZE, half_base, lane_id
from ptx2gcn.ir.core import Op

_LANE_BITS = WARP_SIZE - 1


def source_lane(cx: FnContext, mode: str, lane: ir.Value, b: ir.Value,
                c: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(j, p): the in-half source lane (0..31; the own lane when out of range) and the in-range bit."""
    bld = cx.builder
    bval = bld.and_(b, cx.i32(_LANE_BITS))
    cval = bld.and_(c, cx.i32(_LANE_BITS))
    seg = bld.and_(bld.lshr(c, cx.i32(8)), cx.i32(_LANE_BITS))
    nseg = bld.xor(seg, cx.i32(_LANE_BITS))
    min_lane = bld.and_(lane, seg)
    max_lane = bld.or_(min_lane, bld.and_(cval, nseg))
    if mode == "up":
        j = bld.sub(lane, bval)
        p = bld.icmp_signed(">=", j, max_lane)
    elif mode == "down":
        j = bld.add(lane, bval)
        p = bld.icmp_signed("<=", j, max_lane)
    elif mode == "bfly":
        j = bld.xor(lane, bval)
        p = bld.icmp_unsigned("<=", j, max_lane)
    else:
        assert mode == "idx", mode
        j = bld.or_(min_lane, bld.and_(bval, nseg))
        p = bld.icmp_unsigned("<=", j, max_lane)
    return bld.select(p, j, lane), p


def gather(cx: FnContext, value: ir.Value, lane: ir.Value) -> ir.Value:
    """``value`` of lane ``lane`` (0..31) of the executing warp, through ``ds_bpermute_b32``."""
    bld = cx.builder
    address = bld.shl(bld.or_(lane, half_base(cx)), cx.i32(2))
    return cx.call("llvm.amdgcn.ds.bpermute", I32, [address, value], ["convergent"])


def _constant(op: Op, index: int) -> int | None:
    source = op.operand(index)
    defining = getattr(source, "op", None)
    if defining is not None and defining.name == "const":
        value = defining.attrs.get("value")
        return value if isinstance(value, int) else None
    return None


def _fast_path(cx: FnContext, op: Op, a: ir.Value) -> ir.Value | None:
    """The shuffle through ds_swizzle or v_readlane when ``b`` and ``c`` allow it (module docstring)."""
    mode, b, c = cx.attr(op, "mode"), _constant(op, 1), _constant(op, 2)
    if b is None or c is None:
        return None
    bval, cval, seg = b & _LANE_BITS, c & _LANE_BITS, c >> 8 & _LANE_BITS
    if mode == "bfly" and bval & seg == 0 and (cval | seg) == _LANE_BITS:
        return cx.call("llvm.amdgcn.ds.swizzle", I32, [a, cx.i32(bval << 10 | _LANE_BITS)], ["convergent"])
    if mode == "idx" and seg == 0 and cval == _LANE_BITS:
        bld = cx.builder
        low = cx.call("llvm.amdgcn.readlane.i32", I32, [a, cx.i32(bval)], ["convergent"])
        high = cx.call("llvm.amdgcn.readlane.i32", I32, [a, cx.i32(WARP_SIZE + bval)], ["convergent"])
        return bld.select(bld.icmp_unsigned("==", half_base(cx), cx.i32(0)), low, high)
    return None


def lower_shfl(cx: FnContext, op: Op) -> None:
    a, b, c = (cx.coerce(cx.operand(op, i), I32) for i in range(3))
    fast = _fast_path(cx, op, a)
    if fast is not None:
        cx.define(op, *(fast, ir.Constant(ir.IntType(1), 1))[:len(op.results)])
        return
    j, p = source_lane(cx, cx.attr(op, "mode"), lane_id(cx), b, c)
    d = gather(cx, a, j)
    cx.define(op, *(d, p)[:len(op.results)])
