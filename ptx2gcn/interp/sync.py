"""CTA barriers (``bar``/``barrier`` ``.sync``, ``.arrive``, ``.red``) and the rendezvous of ``.sync``
warp collectives.

Invariant (PTX ISA "Parallel Synchronization and Communication Instructions: bar, barrier"): a
barrier completes when as many threads have arrived as its count says (all non-exited threads of
the CTA without a count); then every thread that waits on it resumes after its instruction, and
``bar.red`` gives each of them the reduction (``.popc`` count, ``.and``, ``.or``) of the predicates of
all arrivals. Threads are counted one by one (PTX's per-thread barrier semantics from sm_70 on).
A ``.sync`` warp collective (``shfl vote match redux elect``, ``bar.warp.sync``) executes once every
non-exited thread of the members' ``membermask`` (its last operand) waits at it; until then its
lanes wait and the rest of the warp runs, so lanes that left the warp's path (exited) drop out, as
``ptx2gcn.reference.warp`` models them. The ``.aligned`` matrix instructions (``interp.matrix``,
``interp.wmma``) wait in the same way for the whole warp. ``WARP_LEVEL`` is the one table of what runs there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.frontend import ast
from ptx2gcn.interp import matrix, wmma
from ptx2gcn.interp.alu import collective
from ptx2gcn.interp.state import EXITED, RUN, WAIT_CTA, WAIT_WARP, WARP, Cta, Value, Warp, unsupported

Handler = Callable[[Cta, Warp, ast.Instruction, list[int]], None]


def _warp_barrier(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    """``bar.warp.sync``: the waiting is all it does."""


WARP_LEVEL: dict[str, Handler] = {
    "shfl": collective, "vote": collective, "match": collective, "redux": collective, "elect": collective,
    "bar": _warp_barrier, "mma": matrix.mma, "ldmatrix": matrix.ldmatrix, "stmatrix": matrix.stmatrix,
    "movmatrix": matrix.movmatrix, "wmma": wmma.wmma,
}
"""Instructions that wait for their warp's members, then run once for all of them (``activemask``
reads who is there and does not wait). The matrix ones wait for the whole warp."""


@dataclass
class Barrier:
    count: int | None = None
    arrived: int = 0
    waiters: list[tuple[Warp, int, ast.Instruction]] = field(default_factory=lambda: [])
    votes: list[Value] = field(default_factory=lambda: [])


def is_warp_sync(ins: ast.Instruction) -> bool:
    """A collective that waits for its membermask (the pre-sm_70 forms without ``.sync`` are not one:
    the reference model refuses them)."""
    return ".sync" in ins.modifiers and ins.opcode in WARP_LEVEL and (ins.opcode != "bar" or ".warp" in ins.modifiers)


def _defined(ins: ast.Instruction, values: list[Value], what: str) -> list[int]:
    if any(v is None for v in values):
        raise Ptx2GcnError.at(ins.span, f"reference interpreter: the {what} is a value PTX leaves unspecified")
    return [int(v) for v in values if v is not None]


def fire_collective(cta: Cta, warp: Warp) -> bool:
    """Execute one warp-level instruction whose members all wait at it; False when none is ready."""
    waiting: dict[tuple[int, ...], list[int]] = {}
    for lane in range(WARP):
        if warp.status[lane] == WAIT_WARP:
            waiting.setdefault(cta.key(warp, lane), []).append(lane)
    for key, lanes in sorted(waiting.items()):
        ins = cta.context(warp, lanes)[0].code[key[-1]]
        required = (1 << WARP) - 1
        if ins.opcode not in matrix.MATRIX and ins.opcode != "wmma":
            required = 0
            for mask in _defined(ins, cta.read(warp, ins.operands[-1], "b32", lanes), "membermask"):
                required |= mask
        ready = all(warp.status[lane] == EXITED or warp.status[lane] == WAIT_WARP and cta.key(warp, lane) == key
                    for lane in range(WARP) if required >> lane & 1)
        if ready:
            WARP_LEVEL[ins.opcode](cta, warp, ins, lanes)
            for lane in lanes:
                warp.status[lane] = RUN
                warp.pc[lane] += 1
            return True
    return False


def barrier(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int], barriers: dict[int, Barrier]) -> None:
    """``bar``/``barrier`` ``.sync``/``.arrive``/``.red`` by ``lanes``."""
    mods = set(ins.modifiers)
    red = ".red" in mods
    arrive = ".arrive" in mods
    operands = list(ins.operands[1:] if red else ins.operands)
    vote_op = operands.pop() if red else None
    if not operands or len(operands) > 2:
        raise unsupported(ins, "this barrier form is not modelled by the reference interpreter")
    ids = _defined(ins, cta.read(warp, operands[0], "u32", lanes), "barrier number")
    counts = (_defined(ins, cta.read(warp, operands[1], "u32", lanes), "thread count")
              if len(operands) == 2 else [None] * len(lanes))
    votes = cta.read(warp, vote_op, "pred", lanes) if vote_op is not None else [None] * len(lanes)
    for lane, number, count, vote in zip(lanes, ids, counts, votes):
        state = barriers.setdefault(number, Barrier())
        state.count = count if count is not None else state.count
        state.arrived += 1
        state.votes.append(vote)
        if arrive:
            warp.pc[lane] += 1
        else:
            warp.status[lane] = WAIT_CTA
            state.waiters.append((warp, lane, ins))


def release(cta: Cta, barriers: dict[int, Barrier]) -> bool:
    """Complete every barrier whose arrivals reached its count; True when one completed."""
    done = False
    for number, state in list(barriers.items()):
        expected = state.count if state.count is not None else cta.live
        if state.arrived < expected:
            continue
        del barriers[number]
        done = True
        for warp, lane, ins in state.waiters:
            warp.status[lane] = RUN
            warp.pc[lane] += 1
            if ".red" in ins.modifiers:
                cta.write(warp, ins.operands[0], "u32" if ".popc" in ins.modifiers else "pred", [lane],
                          [_reduce(ins, state.votes)])
    return done


def _reduce(ins: ast.Instruction, votes: list[Value]) -> Value:
    if any(v is None for v in votes):
        return None
    if ".popc" in ins.modifiers:
        return sum(bool(v) for v in votes)
    if ".and" in ins.modifiers:
        return all(votes)
    if ".or" in ins.modifiers:
        return any(votes)
    raise unsupported(ins, "this bar.red operation is not modelled by the reference interpreter")
