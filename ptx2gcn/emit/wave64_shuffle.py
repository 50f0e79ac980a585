"""``shfl.sync`` / legacy ``shfl`` on a half-wave (Mode P).

Invariant: the source lane ``j`` is computed with the PTX ISA formula ("shfl.sync" pseudocode:
``b[4:0]``, clamp ``c[4:0]``, segment mask ``c[12:8]``, a *signed* bound check for ``.up``), falls
back to the own lane when out of range, and is then always in 0..31; the ``ds_bpermute`` address is
``(base | j) * 4`` so the read never leaves the executing warp's half of the wave. ``membermask``
only states which lanes take part (the sm_6x contract: every member executes the shuffle
convergently); it does not change the data movement. Design: warp-on-wave64.md §5.2.
Cost: 2 v_mbcnt + ~10 VALU for ``j``/``p`` + 1 ds_bpermute_b32 (+ lgkmcnt wait).
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.llvm_types import I32
from ptx2gcn.emit.wave64_geometry import WARP_SIZE, half_base, lane_id
from ptx2gcn.ir.core import Op

_LANE_BITS = WARP_SIZE - 1


def source_lane(cx: FnContext, mode: str, lane: ir.Value, b: ir.Value, c: ir.Value) -> tuple[ir.Value, ir.Value]:
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


def lower_shfl(cx: FnContext, op: Op) -> None:
    a, b, c = (cx.coerce(cx.operand(op, i), I32) for i in range(3))
    j, p = source_lane(cx, cx.attr(op, "mode"), lane_id(cx), b, c)
    d = gather(cx, a, j)
    cx.define(op, *(d, p)[:len(op.results)])
