"""The warp-matrix conformance units and the compiler's verdict on each warp-matrix form.

A *unit* is one kernel: an mma/ldmatrix/stmatrix/movmatrix form alone, or a wmma pipeline
(``matrix_forms.WmmaPipe``) whose five spellings ptxas all accepts. Running a unit gives
``ok`` (every element of both warps accepted by the model), ``mismatch`` (with the elements),
``rejected`` (the compiler's located ``unsupported: ...``) or ``invalid`` (any other compiler
error: a bug, reported, never hidden).

Invariant: a form's verdict is derived from the units that spell it only: *supported* when some
unit spelling it compiled, *rejected* when every such unit was rejected, *covered* when some unit
spelling it ran and was compared, with verdict ``match`` only if every such unit matched.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from ptx2gcn.conformance.matrix_forms import matrix_forms, ptxas_verdicts, wmma_pipes
from ptx2gcn.conformance.matrix_kernel import run_ldst, run_mma, run_wmma
from ptx2gcn.diagnostics import Ptx2GcnError, UnsupportedError

OK, MISMATCH, REJECTED, INVALID = "ok", "mismatch", "rejected", "invalid"


@dataclass(frozen=True)
class Unit:
    name: str
    spellings: tuple[str, ...]
    run: Callable[[int], list[str]] = field(compare=False, repr=False)


@dataclass
class UnitOutcome:
    kind: str
    details: list[str]


def units() -> list[Unit]:
    """Every runnable unit, in a fixed order (forms in ``matrix_forms`` order, then pipelines)."""
    out: list[Unit] = []
    for form in matrix_forms():
        if form.family == "mma":
            out.append(Unit(form.spelling, (form.spelling,), lambda seed, s=form.spelling: run_mma(s, seed)))
        elif form.family != "wmma":
            out.append(Unit(form.spelling, (form.spelling,), lambda seed, s=form.spelling: run_ldst(s, seed)))
    verdicts = ptxas_verdicts()
    for pipe in wmma_pipes():
        spellings = tuple(pipe.spellings().values())
        if all(verdicts.get(s, {}).get("accepted") for s in spellings):
            t = pipe.types
            name = (f"wmma.{t.shape}.{t.mma_types}{'.satfinite' if t.satfinite else ''}."
                    f"{''.join(x[0] for x in pipe.layouts)}.{pipe.space or 'generic'}")
            out.append(Unit(name, spellings, lambda seed, p=pipe: run_wmma(p, seed)))
    return out


def run_unit(unit: Unit, seed: int) -> UnitOutcome:
    try:
        failures = unit.run(seed)
    except UnsupportedError as error:
        return UnitOutcome(REJECTED, [str(error).splitlines()[0]])
    except Ptx2GcnError as error:
        return UnitOutcome(INVALID, [str(error)])
    return UnitOutcome(MISMATCH if failures else OK, failures)


@dataclass
class MatrixTable:
    """Per-form verdicts from the units run so far."""

    supported: set[str] = field(default_factory=set)
    rejected: dict[str, str] = field(default_factory=dict)
    covered: dict[str, str] = field(default_factory=dict)
    """spelling -> ``match`` / ``new mismatch``."""

    def record(self, unit: Unit, outcome: UnitOutcome) -> None:
        for spelling in unit.spellings:
            if outcome.kind == REJECTED:
                if spelling not in self.supported:
                    self.rejected.setdefault(spelling, outcome.details[0])
                continue
            if outcome.kind == INVALID:
                continue
            self.supported.add(spelling)
            self.rejected.pop(spelling, None)
            verdict = "match" if outcome.kind == OK else "new mismatch"
            if self.covered.get(spelling) != "new mismatch":
                self.covered[spelling] = verdict


def uncovered(all_forms: Iterable[str], table: MatrixTable) -> list[str]:
    return sorted(set(all_forms) - set(table.covered) - set(table.rejected))


def counts(table: MatrixTable, verdicts: Mapping[str, str]) -> str:
    bad = sorted(s for s, v in verdicts.items() if v != "match")
    return (f"{len(verdicts)} covered / {len(table.supported)} supported / {len(table.rejected)} rejected"
            + (f"; mismatches: {', '.join(bad)}" if bad else ""))
