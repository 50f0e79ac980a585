"""``vote`` / ``vote.sync`` and ``activemask`` on a half-wave (Mode P).

Invariant: every result is computed from the executing warp's own 32 ballot bits (``half_bits``),
masked by ``membermask``; ``.all`` compares with the *active* members (exited or inactive members
drop out, PTX "all non-exited threads in membermask"), never with ``membermask`` itself. Legacy
``vote`` (no ``.sync``) uses the active set as its membermask. ``activemask`` is a fresh ballot at
its own site, so it reflects the control flow that reaches it; ``elect.sync`` picks the lowest lane of
that ballot within membermask. Design: docs/mode-p.md, "The collectives".
Cost: ballot = 1 v_cmp (or none) + s_lshr_b64 by ``base`` (a VGPR shift when the half is unknown),
vote = that + 1–3 scalar/VALU compares.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.llvm_types import I1, I32
from ptx2gcn.emit.wave64_geometry import half_bits, half_exec, lane_id
from ptx2gcn.ir.core import Op


def membermask(cx: FnContext, op: Op, index: int) -> ir.Value:
    """The op's ``membermask`` operand, or this warp's active set for the legacy non-``.sync`` forms."""
    if op.name in ("shfl", "vote") and not cx.flag(op, "sync"):
        return half_exec(cx)
    return cx.coerce(cx.operand(op, index), I32)


def lower_vote(cx: FnContext, op: Op) -> None:
    b = cx.builder
    pred = cx.coerce(cx.operand(op, 0), I1)
    members = membermask(cx, op, 1)
    votes = b.and_(half_bits(cx, pred), members)
    mode = cx.attr(op, "mode")
    if mode == "ballot":
        cx.define(op, votes)
        return
    everyone = b.icmp_unsigned("==", votes, b.and_(half_exec(cx), members))
    nobody = b.icmp_unsigned("==", votes, cx.i32(0))
    result = {"all": lambda: everyone, "any": lambda: b.not_(nobody), "uni": lambda: b.or_(nobody, everyone)}
    cx.define(op, result[mode]())


def lower_activemask(cx: FnContext, op: Op) -> None:
    cx.define(op, half_exec(cx))


def lower_elect(cx: FnContext, op: Op) -> None:
    """``elect.sync d|p, membermask``: the leader is the lowest active lane of this warp in membermask.

    PTX promises one deterministic leader among the active members; the lowest one is what CUDA does.
    Cost: the ballot of ``activemask`` + s_and + s_ff1 + one v_cmp.
    """
    b = cx.builder
    candidates = b.and_(half_exec(cx), membermask(cx, op, 0))
    leader = cx.call("llvm.cttz.i32", I32, [candidates, ir.Constant(I1, 0)])
    cx.define(op, leader, b.icmp_unsigned("==", lane_id(cx), leader))
