"""Session fixtures of the conformance suite: the form table (compiled once per session) and the
summary line ``conformance: X forms covered / Y supported / Z rejected by the compiler``.

A form counts as covered only when its test ran and every lane matched the reference model.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ptx2gcn.conformance import FormTable, classify, model_forms, run_all, summary_line

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
def covered() -> Iterator[set[str]]:
    forms: set[str] = set()
    _state["covered"] = forms
    yield forms


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    table = _state.get("table")
    if isinstance(table, FormTable):
        forms = _state.get("covered", set())
        assert isinstance(forms, set)
        terminalreporter.write_line(summary_line(len(forms), table))
        if table.invalid:
            terminalreporter.write_line(
                f"conformance: {len(table.invalid)} modelled forms the frontend "
                f"calls invalid: {', '.join(sorted(table.invalid))}"
            )
