"""Shrinking a failing fuzz program to a small one that fails the same way (delta debugging).

Candidates, tried greedily until none applies: delete one statement (anywhere in the tree), replace
an ``If``/``Loop`` by one of its bodies, inline a ``Call`` as its ``Op``, drop an ``Op``'s guard,
drop a ``Warp``'s predicate destination or widen its membermask to the full warp.
Every candidate is a valid program because statements only overwrite pre-loaded registers
(``ptx2gcn.fuzz.program``). The inputs are kept as they are.

Invariant: ``shrink`` returns a program whose verdict has the same ``signature`` as the original's,
and no larger than it; it stops after ``budget`` judged candidates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

from ptx2gcn.fuzz.oracle import Verdict
from ptx2gcn.fuzz.program import FULL_MASK, Call, If, Loop, Op, Program, Statement, Warp

Body = tuple[Statement, ...]


def _variants(body: Body) -> Iterator[Body]:
    """Smaller bodies, largest cuts first."""
    n = len(body)
    chunk = n // 2
    while chunk >= 1:
        for start in range(0, n, chunk):
            yield body[:start] + body[start + chunk :]
        chunk //= 2
    for i, st in enumerate(body):
        for inner in _statement_variants(st):
            yield body[:i] + inner + body[i + 1 :]


def _statement_variants(st: Statement) -> Iterator[Body]:  # noqa: C901
    if isinstance(st, If):
        yield st.then
        yield st.otherwise
        for then in _variants(st.then):
            yield (If(st.cond, then, st.otherwise),)
        for other in _variants(st.otherwise):
            yield (If(st.cond, st.then, other),)
    elif isinstance(st, Loop):
        yield st.body
        for body in _variants(st.body):
            yield (Loop(st.count, body),)
    elif isinstance(st, Call):
        yield (st.op,)
    elif isinstance(st, Op) and st.guard is not None:
        yield (replace(st, guard=None),)
    elif isinstance(st, Warp):
        if st.pred_dest is not None:
            yield (replace(st, pred_dest=None),)
        if st.membermask != FULL_MASK:  # still top level: the whole warp may take part
            yield (replace(st, membermask=FULL_MASK),)


def size(body: Body) -> int:
    total = 0
    for st in body:
        total += 1
        if isinstance(st, If):
            total += size(st.then) + size(st.otherwise)
        elif isinstance(st, Loop):
            total += size(st.body)
    return total


def shrink(
    program: Program, verdict: Verdict, judge: Callable[[Program], Verdict], budget: int = 400
) -> Program:
    target = verdict.signature
    best = program
    tries = 0
    improved = True
    while improved and tries < budget:
        improved = False
        for body in _variants(best.body):
            if tries >= budget:
                break
            if body == best.body:
                continue
            tries += 1
            candidate = replace(best, body=body)
            if judge(candidate).signature == target:
                best = candidate
                improved = True
                break
    return best
