"""Session fixtures of the conformance suite: the form table (compiled once per session) and the
summary ``conformance: X forms covered / Y supported / Z rejected by the compiler (...)``.

A form counts as covered when its test ran it and compared every lane with the reference model;
the summary says how many of those match, how many are known mismatches (strict xfails) and how
many are new, and lists the forms that do not match.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ptx2gcn.conformance.forms import Form, model_forms
from ptx2gcn.conformance.matrix_forms import matrix_forms
from ptx2gcn.conformance.matrix_table import MatrixTable, counts
from ptx2gcn.conformance.run import run_all, summary_lines
from ptx2gcn.conformance.table import FormTable, classify

DEFAULT_LANES = 64
SEED = 20260

_state: dict[str, object] = {}


@pytest.fixture(scope="session")
def form_table() -> FormTable:
    if "table" not in _state:
        _state["table"] = classify(model_forms())
    return _state["table"]  # type: ignore[return-value]


@pytest.fixture(scope="session")
def default_results(form_table: FormTable) -> dict[str, list[str]]:
    """spelling -> failing lanes, over ``DEFAULT_LANES`` edge-biased lanes per form."""
    return run_all(form_table, DEFAULT_LANES, SEED)


@pytest.fixture(scope="session")
def covered() -> Iterator[dict[str, str]]:
    """spelling -> verdict (``conformance.run.MATCH``/``KNOWN``/``MISMATCH``) of every form run."""
    verdicts: dict[str, str] = {}
    _state["covered"] = verdicts
    yield verdicts


@pytest.fixture(scope="session")
def matrix_table() -> MatrixTable:
    """Verdicts of the warp-matrix forms (``test_matrix_forms.py``) run in this session."""
    if "matrix" not in _state:
        _state["matrix"] = MatrixTable()
    return _state["matrix"]  # type: ignore[return-value]


def _with_matrix(table: FormTable, verdicts: dict[str, str]) -> tuple[FormTable, dict[str, str]]:
    """The form table and verdicts with the warp-matrix forms run in this session added."""
    matrix = _state.get("matrix")
    if not isinstance(matrix, MatrixTable):
        return table, verdicts
    merged = FormTable(
        supported=table.supported + [Form(s, (), ()) for s in sorted(matrix.supported)],
        rejected={**table.rejected, **matrix.rejected},
        invalid=table.invalid,
    )
    return merged, {**verdicts, **matrix.covered}


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    matrix = _state.get("matrix")
    if isinstance(matrix, MatrixTable):
        terminalreporter.write_line(
            f"conformance: warp-matrix forms: {counts(matrix, matrix.covered)} by the compiler "
            f"(of {len(matrix_forms())} forms ptxas accepts; a default run samples them)"
        )
    table = _state.get("table")
    if isinstance(table, FormTable):
        verdicts = _state.get("covered")
        if not isinstance(verdicts, dict):  # only the sweeps or table tests ran: nothing to count
            terminalreporter.write_line(
                f"conformance: {len(table.supported)} supported / {len(table.rejected)} rejected by the "
                "compiler (no per-form test ran in this session)"
            )
        else:
            merged, all_verdicts = _with_matrix(table, verdicts)
            for line in summary_lines(all_verdicts, merged):
                terminalreporter.write_line(line)
        if table.invalid:
            terminalreporter.write_line(
                f"conformance: {len(table.invalid)} modelled forms the frontend "
                f"calls invalid: {', '.join(sorted(table.invalid))}"
            )
