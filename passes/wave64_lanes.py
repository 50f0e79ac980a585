"""wave64-lanes: the warp-geometry special registers under Mode P (two CUDA warps per gfx942 wave).

``%laneid`` is ``lane64 & 31`` (``lane64`` from ``amdgcn.mbcnt.lo/hi``); ``%lanemask_*`` are
shifts of 1 / -1 / -2 by ``%laneid`` (every shift amount in 0..31, so no shift by 32 is needed:
``le`` is ``(2 << lane) - 1``); ``%warpid`` is the flat thread index (``x + y*ntid.x +
z*ntid.x*ntid.y``) ``>> 5`` — work-items fill waves in flat-id order, so that is the half of a wave
the thread runs in, constant for a warp as PTX requires; ``%nwarpid`` is 32, at least every
``%warpid`` of a CTA of up to 1024 threads (PTX only promises "the maximum number of warp
identifiers"). Design: warp-on-wave64.md §5.1.
Cost: %laneid/%lanemask_* 2 v_mbcnt + 1 VALU; %warpid workitem ids, ntid loads, mad.

Requires: a verified module (phase ``ssa``).
Ensures: no ``special_reg`` op reads ``laneid``, ``warpid``, ``nwarpid`` or ``lanemask_*``; the
module verifies.
Not handled: ``%WARP_SZ`` stays a ``special_reg`` (it is 32 in every warp mapping).
"""

from __future__ import annotations

from dataclasses import dataclass

from ptx2gcn.ir.core import Op, Value
from ptx2gcn.ir.opcodes import WARP_SPECIAL_REGS
from ptx2gcn.ir.rewriter import Cursor
from ptx2gcn.ir.types import I32
from ptx2gcn.ir.wave64 import Wave64Rewrite, lane_id

NWARPID = 32


def _special(at: Cursor, reg: str) -> Value:
    return at.value("special_reg", (), I32, reg=reg)


def _flat_tid(at: Cursor) -> Value:
    """``x + y*ntid.x + z*ntid.x*ntid.y``, the thread's flat index in the CTA."""
    def mul(a: Value, b: Value) -> Value:
        return at.value("mul", (a, b), I32, type="u32", mode="lo")

    plane = mul(_special(at, "ntid.x"), _special(at, "ntid.y"))
    row = at.add(_special(at, "tid.x"), mul(_special(at, "tid.y"), _special(at, "ntid.x")))
    return at.add(row, mul(_special(at, "tid.z"), plane))


def _lanemask(at: Cursor, which: str) -> Value:
    lane = lane_id(at)
    eq = at.shl(at.const(1), lane)
    if which == "eq":
        return eq
    if which == "lt":
        return at.sub(eq, at.const(1))
    if which == "le":
        return at.sub(at.shl(at.const(2), lane), at.const(1))
    if which == "ge":
        return at.shl(at.const(-1), lane)
    assert which == "gt", which
    return at.shl(at.const(-2), lane)


@dataclass(frozen=True)
class Wave64Lanes(Wave64Rewrite):
    name = "wave64-lanes"
    handles = frozenset({"special_reg"})

    def wants(self, op: Op) -> bool:
        return op.attrs.get("reg") in WARP_SPECIAL_REGS

    def rewrite(self, at: Cursor, op: Op) -> tuple[Value, ...]:
        reg = op.attrs["reg"]
        assert isinstance(reg, str)
        if reg == "laneid":
            value = lane_id(at)
        elif reg == "warpid":
            value = at.shr(_flat_tid(at), 5)
        elif reg == "nwarpid":
            value = at.const(NWARPID)
        else:
            value = _lanemask(at, reg.removeprefix("lanemask_"))
        return (value,)
