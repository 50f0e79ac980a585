"""The slow conformance sweep: 8- and 16-bit input spaces exhaustively (every pattern of each narrow
source operand, 2^16 lanes per launch), and 4096 edge-biased lanes for every other form."""

from __future__ import annotations

import pytest

from ptx2gcn.conformance.run import run_all
from ptx2gcn.conformance.sweep import is_narrow, run_sweep
from ptx2gcn.conformance.table import FormTable
from ptx2gcn.fuzz.known import KNOWN_FAILURES

pytestmark = pytest.mark.slow
WIDE_LANES = 4096


def _report(results: dict[str, list[str]]) -> list[str]:
    return [
        line
        for spelling, lines in sorted(results.items())
        if spelling not in KNOWN_FAILURES
        for line in lines[:3]
    ]


def test_narrow_forms_exhaustively(form_table: FormTable) -> None:
    keys = [
        key
        for key, kernel in form_table.kernels.items()
        if not any(inst.form.harness_gap for inst in kernel.instances)
        and any(is_narrow(inst.form) for inst in kernel.instances)
    ]
    results: dict[str, list[str]] = {}
    for key in keys:
        for spelling, lines in run_sweep(form_table, key, seed=99).items():
            results.setdefault(spelling, []).extend(lines)
    failures = _report(results)
    assert not failures, "\n".join(failures)


def test_all_forms_on_many_lanes(form_table: FormTable) -> None:
    failures = _report(run_all(form_table, WIDE_LANES, seed=31337))
    assert not failures, "\n".join(failures)
