"""Which ``mbarrier`` spellings are PTX for the module's ``.target``/``.version``: the forms of PTX ISA
9.7.13.15 and the target and PTX version each needs, as ptxas 13.0 enforces them (checked by hand on
sm_80/sm_90 with PTX 7.0 … 8.8; ``tests/warp/test_mbarrier.py`` holds the translator to those verdicts).

Invariant: ``check_mbarrier_form`` raises a located ``Ptx2GcnError`` (worded like ptxas where its wording
is known) for a spelling ptxas rejects and returns otherwise; whether a valid form has a gfx942 lowering
is not decided here.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptx2gcn.frontend import ast
from ptx2gcn.translate.emitter import FnCtx
from ptx2gcn.translate.target_gates import require_target

_TX_OPS = frozenset({"expect_tx", "complete_tx"})
_CLUSTER_OPS = frozenset({"arrive", "arrive_drop", "expect_tx", "complete_tx"})
"""Operations PTX allows on a ``.shared::cluster`` mbarrier (an arrive there returns no state)."""
_ARRIVES = frozenset({"arrive", "arrive_drop"})
_EXTRA = {"init": (1, 1), "inval": (0, 0), "arrive": (0, 1), "arrive_drop": (0, 1), "expect_tx": (1, 1),
          "complete_tx": (1, 1), "test_wait": (1, 1), "try_wait": (1, 2)}
"""Operation -> (fewest, most) operands after ``[addr]`` (try_wait: the state or parity, then the
optional suspendTimeHint)."""
_SEMS = {"arrive": ("release", "relaxed"), "arrive_drop": ("release", "relaxed"), "expect_tx": ("relaxed",),
         "complete_tx": ("relaxed",), "test_wait": ("acquire", "relaxed"), "try_wait": ("acquire", "relaxed")}
"""Operation -> the ``.sem`` qualifiers it takes (init and inval take none)."""
_SEM_GATES = {"release": (8, 0), "acquire": (8, 0), "relaxed": (8, 6)}
"""``.sem`` qualifier -> the PTX version ptxas wants for it (all sm_90); the tx-count operations,
themselves PTX 8.0, take ``.relaxed`` from 8.0."""


@dataclass(frozen=True)
class MbarrierForm:
    """One ``mbarrier`` instruction's spelling, as the translator read it."""

    op: str
    expect_tx: bool
    parity: bool
    no_complete: bool
    sem: str | None
    space: str
    cta_spelled: bool
    """The state space was written ``.shared::cta`` (PTX 7.8) rather than ``.shared``."""
    dest: ast.Operand | None
    n_extra: int
    """Operands after ``[addr]``."""


def check_mbarrier_form(ctx: FnCtx, ins: ast.Instruction, form: MbarrierForm) -> None:
    name = f"mbarrier.{form.op}"
    _check_tx(ctx, ins, form, name)
    _check_operands(ctx, ins, form, name)
    if form.no_complete and form.n_extra != 1:
        raise ctx.error(ins.span, f"{name}.noComplete takes a count operand")
    if form.sem is not None and form.sem not in _SEMS.get(form.op, ()):
        raise ctx.error(ins.span, f"Modifier '.{form.sem}' not allowed on '{name}'")
    if form.space == "shared_cluster":
        if form.op not in _CLUSTER_OPS:
            raise ctx.error(ins.span, f"{name} takes .shared or .shared::cta, not .shared::cluster")
        if form.dest is not None and not isinstance(form.dest, ast.Sink):
            raise ctx.error(ins.span, f"{name} on .shared::cluster returns no state: write '_'")
    _check_gates(ctx, ins, form, name)


def _check_gates(ctx: FnCtx, ins: ast.Instruction, form: MbarrierForm, name: str) -> None:
    """The targets and PTX versions of the later forms (mbarrier itself: sm_80, PTX 7.0)."""
    if form.op in _ARRIVES and form.n_extra == 1 and not form.no_complete and not form.expect_tx:
        require_target(ctx, ins, f"{name} with a count", 90, (7, 8))
    if form.op == "try_wait":
        require_target(ctx, ins, name, 90, (7, 8))
    if form.parity:
        require_target(ctx, ins, f"{name}.parity", 80, (7, 1))
    if form.sem is not None:
        version = (8, 0) if form.op in _TX_OPS else _SEM_GATES[form.sem]
        require_target(ctx, ins, f"{name}.{form.sem}", 90, version)
    if form.cta_spelled:
        require_target(ctx, ins, f"{name}.shared::cta", 80, (7, 8))
    if isinstance(form.dest, ast.Sink) and form.space != "shared_cluster":
        require_target(ctx, ins, f"{name} with sink '_' destination", 80, (7, 1))


def _check_operands(ctx: FnCtx, ins: ast.Instruction, form: MbarrierForm, name: str) -> None:
    """Operand counts, and a destination exactly where the operation returns one (arrives: the state,
    ``_`` allowed; waits: the predicate)."""
    fewest, most = _EXTRA[form.op]
    wants_dest = form.op in _ARRIVES or form.op in ("test_wait", "try_wait")
    if not fewest <= form.n_extra <= most or wants_dest != (form.dest is not None):
        raise ctx.error(ins.span, f"Arguments mismatch for instruction '{name}'")


def _check_tx(ctx: FnCtx, ins: ast.Instruction, form: MbarrierForm, name: str) -> None:
    """The transaction-count forms (PTX ISA 9.7.13.15.11 expect_tx, .12 complete_tx, .13 arrive):
    sm_90, PTX 8.0; exactly one tx-count operand; no ``.noComplete`` with ``.expect_tx``."""
    if form.op not in _TX_OPS and not form.expect_tx:
        return
    name = f"{name}{'.expect_tx' if form.expect_tx else ''}"
    require_target(ctx, ins, name, 90, (8, 0))
    if form.n_extra != 1:
        raise ctx.error(ins.span, f"{name} takes [addr] and one tx-count operand")
    if form.no_complete:
        raise ctx.error(ins.span, f"{name} does not take .noComplete")
    if form.op in _TX_OPS and form.dest is not None:
        raise ctx.error(ins.span, f"{name} has no destination")
