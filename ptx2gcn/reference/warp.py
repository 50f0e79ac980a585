"""Warp-level instructions on a 32-lane warp with an active mask: shfl.sync, vote.sync, match.sync,
redux.sync, activemask, elect.sync.

Invariant: every operand is a per-lane array broadcast to shape (32,) (a scalar means "the same in
every lane"); the active mask (bit i = lane i executes the instruction) is an extra, last, scalar
operand, all lanes when omitted. A lane's result is defined only if the lane is active and in its
``membermask`` (the manual: behaviour is undefined for an executing thread not in membermask).
Collectives combine "all non-exited threads in membermask": inactive lanes are modelled as exited
threads, so they drop out of vote/match/redux (a diverged-but-live thread would make the others
wait, which a single-instruction model cannot express).
``shfl.sync`` results read from an inactive source lane are undefined ("unpredictable"), while its
predicate stays defined. ``elect.sync``: the manual only promises one deterministic leader among the
active members; the model's values pick the lowest such lane, and ``elect_matches`` checks the
property itself for an implementation that picks another.
Sections: PTX ISA 9.7.9.6 "Data Movement and Conversion Instructions: shfl.sync" and "Parallel
Synchronization and Communication Instructions" (vote.sync, match.sync, redux.sync, activemask,
elect.sync; numbered 9.7.13/9.7.15 depending on the manual version).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ptx2gcn.reference.errors import OperandCountError, ReferenceInputError
from ptx2gcn.reference.floatformat import F32
from ptx2gcn.reference.floats import select_min_max
from ptx2gcn.reference.ptxtypes import PtxType, mask, ptx_type, to_bits_array, to_signed
from ptx2gcn.reference.result import Result
from ptx2gcn.reference.spelling import UNDEFINED, LaneValue, Spelling, build_result

Handler = Callable[[Spelling, Sequence[object]], Result]
WARP = 32
B32, U32, PRED = ptx_type("b32"), ptx_type("u32"), ptx_type("pred")


def _lanes(value: object, t: PtxType, sp: Spelling) -> list[int]:
    arr = to_bits_array(value, t)
    try:
        return list(np.broadcast_to(arr, (WARP,)))
    except ValueError:
        raise ReferenceInputError(f"{sp.text}: a warp operand must be a scalar or 32 lanes") from None


def _split_active(sp: Spelling, inputs: Sequence[object], count: int) -> tuple[Sequence[object], int]:
    if sp.opcode in ("shfl", "vote", "match", "redux") and not sp.has("sync"):
        raise ReferenceInputError(f"{sp.text}: only the .sync form is modelled")
    if len(inputs) == count:
        return inputs, mask(WARP)
    if len(inputs) == count + 1:
        active = np.asarray(inputs[count])
        if active.size != 1 or active.dtype.kind not in "iub":
            raise ReferenceInputError(f"{sp.text}: the active mask must be one integer")
        return inputs[:count], int(active.item()) & mask(WARP)
    raise OperandCountError(f"{sp.text}: expected {count} source operands (plus an optional active mask)",
                            (count, count + 1))


def _active(active: int, lane: int) -> bool:
    return bool(active >> lane & 1)


def _participants(active: int, member: int, lane: int) -> int | None:
    """The lanes a collective combines, seen from ``lane``: the non-exited (active) lanes of its
    membermask; None when ``lane`` itself is not an executing member (undefined behaviour)."""
    if not (_active(active, lane) and member >> lane & 1):
        return None
    return member & active


def _shfl(sp: Spelling, inputs: Sequence[object]) -> Result:
    sp.require({"sync", "up", "down", "bfly", "idx"}, ("b32",))
    mode = sp.one_of(("up", "down", "bfly", "idx"))
    ops, active = _split_active(sp, inputs, 4)
    a, b, c, member = (_lanes(x, B32, sp) for x in ops)
    lanes: list[tuple[LaneValue, LaneValue]] = []
    for lane in range(WARP):
        bval, cval, seg = b[lane] & 0x1F, c[lane] & 0x1F, c[lane] >> 8 & 0x1F
        max_lane = (lane & seg) | (cval & ~seg & 0x1F)
        min_lane = lane & seg
        if mode == "up":
            j = lane - bval
            pval = j >= max_lane
        elif mode == "down":
            j = lane + bval
            pval = j <= max_lane
        elif mode == "bfly":
            j = lane ^ bval
            pval = j <= max_lane
        else:
            j = min_lane | (bval & ~seg & 0x1F)
            pval = j <= max_lane
        if not pval:
            j = lane
        if not (_active(active, lane) and member[lane] >> lane & 1):
            lanes.append((UNDEFINED, UNDEFINED))
            continue
        # "results are undefined if a thread sources a register from an inactive thread or a
        # thread that is not in membermask" (9.7.9.6 shfl.sync)
        source_ok = _active(active, j) and bool(member[lane] >> j & 1)
        lanes.append((a[j] if source_ok else UNDEFINED, pval))
    return build_result([B32, PRED], lanes, (WARP,),
                        ["a source lane that is inactive or outside membermask gives an undefined d"],
                        [B32, B32, B32, B32])


LaneCombine = Callable[[int, int, list[int]], tuple[LaneValue, ...]]


def _collective(sp: Spelling, inputs: Sequence[object], t: PtxType, outputs: int,
                combine: LaneCombine) -> list[tuple[LaneValue, ...]]:
    """Per-lane destinations of a collective whose operands are a value of type ``t`` and the
    membermask: ``combine(lane, participants, values)`` for each executing member, ``outputs``
    undefined values for every other lane."""
    ops, active = _split_active(sp, inputs, 2)
    values = _lanes(ops[0], t, sp)
    member = _lanes(ops[1], B32, sp)
    lanes: list[tuple[LaneValue, ...]] = []
    for lane in range(WARP):
        m = _participants(active, member[lane], lane)
        lanes.append((UNDEFINED,) * outputs if m is None else combine(lane, m, values))
    return lanes


def _vote(sp: Spelling, inputs: Sequence[object]) -> Result:
    sp.require({"sync", "all", "any", "uni", "ballot"}, ("pred", "b32"))
    mode = sp.one_of(("all", "any", "uni", "ballot"))

    def combine(lane: int, m: int, pred: list[int]) -> tuple[LaneValue]:
        votes = [bool(pred[i]) for i in range(WARP) if m >> i & 1]
        if mode == "ballot":
            return (sum(1 << i for i in range(WARP) if m >> i & 1 and pred[i]),)
        if mode == "all":
            return (all(votes),)
        if mode == "any":
            return (any(votes),)
        return (all(votes) or not any(votes),)

    lanes = _collective(sp, inputs, PRED, 1, combine)
    return build_result([B32 if mode == "ballot" else PRED], lanes, (WARP,), (), [PRED, B32])


def _match(sp: Spelling, inputs: Sequence[object]) -> Result:
    """match.any: mask of lanes in membermask holding the same value; match.all: membermask if all
    hold the same value (else 0), with the predicate destination."""
    sp.require({"sync", "any", "all"}, ("b32", "b64"))
    t = sp.type
    mode = sp.one_of(("any", "all"))

    def combine(lane: int, m: int, values: list[int]) -> tuple[LaneValue, LaneValue]:
        same = sum(1 << i for i in range(WARP) if m >> i & 1 and values[i] == values[lane])
        return (same, UNDEFINED) if mode == "any" else (m if same == m else 0, same == m)

    lanes = _collective(sp, inputs, t, 2, combine)
    return build_result([B32, PRED], lanes, (WARP,), ["match.any has no predicate destination"], [t, B32])


_REDUX: dict[str, Callable[[list[int]], int]] = {
    "add": lambda xs: sum(xs), "min": min, "max": max,
    "and": lambda xs: _fold(xs, lambda x, y: x & y), "or": lambda xs: _fold(xs, lambda x, y: x | y),
    "xor": lambda xs: _fold(xs, lambda x, y: x ^ y),
}


def _fold(xs: list[int], fn: Callable[[int, int], int]) -> int:
    out = xs[0]
    for x in xs[1:]:
        out = fn(out, x)
    return out


def _redux(sp: Spelling, inputs: Sequence[object]) -> Result:
    """Integer add/min/max/and/or/xor, and f32 min/max with ``.abs``/``.NaN`` ("+0.0 > -0.0";
    canonical NaN when any input is NaN under ``.NaN``, or when all are NaN without it)."""
    sp.require({"sync", "abs", "NaN", *_REDUX}, ("u32", "s32", "b32", "f32"))
    t = sp.type
    op = sp.one_of(_REDUX)
    bitwise = op in ("and", "or", "xor")
    if bitwise != (t.name == "b32") or (t.is_float and op not in ("min", "max")):
        raise ReferenceInputError(f"{sp.text}: .{op} is not defined for .{t.name}")
    if (sp.has("abs") or sp.has("NaN")) and not t.is_float:
        raise ReferenceInputError(f"{sp.text}: .abs/.NaN need .f32")

    def combine(lane: int, m: int, values: list[int]) -> tuple[LaneValue]:
        chosen = [values[i] for i in range(WARP) if m >> i & 1]
        if t.is_float:
            if sp.has("abs"):
                chosen = [F32.magnitude(x) for x in chosen]
            return (_redux_float(chosen, op == "min", sp.has("NaN")),)
        xs = [to_signed(x, 32) if t.signed else x for x in chosen]
        return (_REDUX[op](xs) & mask(32),)

    lanes = _collective(sp, inputs, t, 1, combine)
    return build_result([t], lanes, (WARP,), (), [t, B32])


def _redux_float(values: list[int], want_min: bool, nan_wins: bool) -> LaneValue:
    """redux.sync f32: "the result will be canonical NaN when all inputs are NaNs"."""
    if all(F32.is_nan(x) for x in values):
        return F32.canonical_nan
    result = select_min_max(F32, values, want_min, nan_wins)
    assert isinstance(result, int)
    return result


def _activemask(sp: Spelling, inputs: Sequence[object]) -> Result:
    sp.require(set(), ("b32",))
    _, active = _split_active(sp, inputs, 0)
    lanes = [((active,) if _active(active, lane) else (UNDEFINED,)) for lane in range(WARP)]
    return build_result([B32], lanes, (WARP,))


def _elect(sp: Spelling, inputs: Sequence[object]) -> Result:
    if sp.modifiers != ("sync",):
        raise ReferenceInputError(f"{sp.text}: expected elect.sync")
    ops, active = _split_active(sp, inputs, 1)
    member = _lanes(ops[0], B32, sp)
    lanes: list[tuple[LaneValue, LaneValue]] = []
    for lane in range(WARP):
        m = member[lane]
        if not (_active(active, lane) and m >> lane & 1):
            lanes.append((UNDEFINED, UNDEFINED))
            continue
        leader = (m & active & -(m & active)).bit_length() - 1
        lanes.append((leader, lane == leader))
    return build_result([U32, PRED], lanes, (WARP,), (), [B32])


def elect_matches(d: object, p: object, membermask: int, active: int = mask(WARP)) -> bool:
    """Does a warp's ``elect.sync d|p, membermask`` output satisfy the manual? One leader, an active
    member, named in ``d`` by every executing member, whose ``p`` alone is true."""
    executing = [lane for lane in range(WARP) if active >> lane & 1 and membermask >> lane & 1]
    if not executing:
        return True
    d_lanes = np.broadcast_to(np.asarray(d), (WARP,))
    p_lanes = np.broadcast_to(np.asarray(p, dtype=np.bool_), (WARP,))
    leader = int(d_lanes[executing[0]])
    return (leader in executing and all(int(d_lanes[lane]) == leader for lane in executing)
            and all(bool(p_lanes[lane]) == (lane == leader) for lane in executing))


HANDLERS: dict[str, Handler] = {
    "shfl": _shfl, "vote": _vote, "match": _match, "redux": _redux, "activemask": _activemask,
    "elect": _elect,
}
