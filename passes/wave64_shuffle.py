"""wave64-shuffle: ``shfl.sync`` / legacy ``shfl`` on a half-wave (Mode P).

The source lane ``j`` is computed with the PTX ISA formula ("shfl.sync" pseudocode: ``b[4:0]``,
clamp ``c[4:0]``, segment mask ``c[12:8]``, a *signed* bound check for ``.up``), falls back to the
own lane when out of range, and is then always in 0..31; the ``amdgcn.ds.bpermute`` address is
``(base | j) * 4`` so the read never leaves the executing warp's half of the wave. ``membermask``
only states which lanes take part (the sm_6x contract: every member executes the shuffle
convergently); it does not change the data movement. Design: warp-on-wave64.md §5.2.
Fast paths for compile-time ``b``/``c`` (``p`` is then the constant true):

- ``bfly`` whose lane mask stays inside its segment (``bval & seg == 0``, ``(cval | seg) == 31``,
  e.g. every CUDA ``__shfl_xor_sync`` with ``laneMask < width``): ``amdgcn.ds.swizzle`` in bit
  mode, ``offset = bval << 10 | 0x1f``, which permutes inside each 32-lane group only (CDNA3 ISA,
  DS_SWIZZLE_B32) — no address VGPR.
- ``idx`` with ``seg == 0`` and ``cval == 31`` (CUDA ``__shfl_sync(m, v, k)`` at full width): the
  source lane ``s = b & 31`` is the same in the whole warp: ``base == 0 ? readlane(a, s) :
  readlane(a, 32 + s)`` — 2 v_readlane_b32 + v_cndmask, no LDS access.

General-path cost: 2 v_mbcnt + ~10 VALU for ``j``/``p`` + 1 ds_bpermute_b32 (+ lgkmcnt wait).

Requires: a verified module (phase ``ssa``); constants folded (the fast paths look for ``const``
operands).
Ensures: no ``shfl`` op is left; the module verifies.
Not handled: nothing; shuffles from lanes outside membermask read whatever that lane holds (PTX:
undefined).
"""

from __future__ import annotations

from dataclasses import dataclass

from ptx2gcn.ir.core import Op, Value
from ptx2gcn.ir.rewriter import Cursor
from ptx2gcn.ir.types import I32, PRED
from ptx2gcn.ir.wave64 import LANE_BITS, WARP_SIZE, Wave64Rewrite, constant_operand, gather, half_base, lane_id


def source_lane(at: Cursor, mode: str, lane: Value, b: Value, c: Value) -> tuple[Value, Value]:
    """(j, p): the in-half source lane (0..31; the own lane when out of range) and the in-range bit."""
    bval = at.and_(b, at.const(LANE_BITS))
    cval = at.and_(c, at.const(LANE_BITS))
    seg = at.and_(at.shr(c, 8), at.const(LANE_BITS))
    nseg = at.xor(seg, at.const(LANE_BITS))
    min_lane = at.and_(lane, seg)
    max_lane = at.or_(min_lane, at.and_(cval, nseg))
    if mode == "up":
        j = at.sub(lane, bval)
        p = at.cmp("ge", j, max_lane, signed=True)
    elif mode == "down":
        j = at.add(lane, bval)
        p = at.cmp("le", j, max_lane, signed=True)
    elif mode == "bfly":
        j = at.xor(lane, bval)
        p = at.cmp("le", j, max_lane)
    else:
        assert mode == "idx", mode
        j = at.or_(min_lane, at.and_(bval, nseg))
        p = at.cmp("le", j, max_lane)
    return at.select(p, j, lane), p


def _fast_path(at: Cursor, op: Op, mode: str) -> Value | None:
    """The shuffle through ds_swizzle or v_readlane when ``b`` and ``c`` allow it (module docstring)."""
    b, c = constant_operand(op, 1), constant_operand(op, 2)
    if b is None or c is None:
        return None
    a = op.operand(0)
    bval, cval, seg = b & LANE_BITS, c & LANE_BITS, c >> 8 & LANE_BITS
    if mode == "bfly" and bval & seg == 0 and (cval | seg) == LANE_BITS:
        return at.value("amdgcn.ds.swizzle", (a,), I32, offset=bval << 10 | LANE_BITS)
    if mode == "idx" and seg == 0 and cval == LANE_BITS:
        low = at.value("amdgcn.readlane", (a, at.const(bval)), I32)
        high = at.value("amdgcn.readlane", (a, at.const(WARP_SIZE + bval)), I32)
        return at.select(at.cmp("eq", half_base(at), at.const(0)), low, high)
    return None


@dataclass(frozen=True)
class Wave64Shuffle(Wave64Rewrite):
    name = "wave64-shuffle"
    handles = frozenset({"shfl"})

    def rewrite(self, at: Cursor, op: Op) -> tuple[Value, ...]:
        mode = op.attrs["mode"]
        assert isinstance(mode, str)
        fast = _fast_path(at, op, mode)
        if fast is not None:
            return fast, at.const(1, PRED)
        j, p = source_lane(at, mode, lane_id(at), op.operand(1), op.operand(2))
        return gather(at, op.operand(0), j), p
