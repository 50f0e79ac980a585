"""wave64-vote: ``vote`` / ``vote.sync``, ``activemask`` and ``elect.sync`` on a half-wave (Mode P).

Every result is computed from the executing warp's own 32 ballot bits (``half_bits``), masked by
``membermask``; ``.all`` compares with the *active* members (exited or inactive members drop out,
PTX "all non-exited threads in membermask"), never with ``membermask`` itself. Legacy ``vote`` (no
``.sync``) uses the active set as its membermask. ``activemask`` is a fresh ballot at its own site,
so it reflects the control flow that reaches it. ``elect.sync`` elects the lowest active lane of
this warp in membermask (PTX promises one deterministic leader among the active members; the
lowest one is what CUDA does). Design: warp-on-wave64.md §5.3–5.4.
Cost: ballot = 1 v_cmp (or none) + s_lshr_b64 by ``base`` (a VGPR shift when the half is unknown),
vote = that + 1–3 scalar/VALU compares; elect = ballot of the active set + s_and + s_ff1 + v_cmp.

Requires: a verified module (phase ``ssa``).
Ensures: no ``vote``, ``activemask`` or ``elect`` op is left; the module verifies.
Not handled: nothing (a thread outside its membermask is PTX-undefined and gets a value anyway).
"""

from __future__ import annotations

from dataclasses import dataclass

from ptx2gcn.ir.core import Op, Value
from ptx2gcn.ir.rewriter import Cursor
from ptx2gcn.ir.types import I32
from ptx2gcn.ir.wave64 import Wave64Rewrite, half_bits, half_exec, lane_id, membermask


def _vote(at: Cursor, op: Op) -> Value:
    members = membermask(at, op, 1)
    votes = at.and_(half_bits(at, op.operand(0)), members)
    mode = op.attrs["mode"]
    if mode == "ballot":
        return votes
    everyone = at.cmp("eq", votes, at.and_(half_exec(at), members))
    nobody = at.cmp("eq", votes, at.const(0))
    if mode == "all":
        return everyone
    if mode == "any":
        return at.pred_not(nobody)
    assert mode == "uni", mode
    return at.pred_or(nobody, everyone)


def _elect(at: Cursor, op: Op) -> tuple[Value, Value]:
    candidates = at.and_(half_exec(at), membermask(at, op, 0))
    leader = at.value("llvm.cttz", (candidates,), I32, type="b32")
    return leader, at.cmp("eq", lane_id(at), leader)


@dataclass(frozen=True)
class Wave64Vote(Wave64Rewrite):
    name = "wave64-vote"
    handles = frozenset({"vote", "activemask", "elect"})

    def rewrite(self, at: Cursor, op: Op) -> tuple[Value, ...]:
        if op.name == "vote":
            return (_vote(at, op),)
        if op.name == "elect":
            return _elect(at, op)
        return (half_exec(at),)
