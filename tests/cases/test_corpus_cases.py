"""Every corpus launch case (``corpora/cases/**/case.toml``) runs with ``ptx2gcn run --check`` on the
emulator and its outputs match the independent numpy model written by ``corpora/cases/make_cases.py``.

``case_outcomes.json`` (written by ``case_outcomes.py --write``) pins each case's outcome: ``passes``,
or the exact first line its failing run prints and why (a known compiler/emulator limitation). A
pinned failure must still fail with exactly that line and is then reported as an expected failure; a
case that starts passing, or fails differently, fails the test, so the table is regenerated with the
change that caused it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cases.case_outcomes import (
    CASES,
    PASSES,
    case_files,
    case_name,
    expected_line,
    failure_line,
    load_table,
    run_case,
)

CASE_FILES = case_files()
TABLE = load_table()
REGENERATE = ".venv/bin/python tests/cases/case_outcomes.py --write"
# Cases that take minutes (a hang running into the emulator's step budget): run only with -m slow.
SLOW = {"atomics/spin_lock_two_warps_per_wave"}


def _params() -> list[object]:
    params = []
    for path in CASE_FILES:
        name = case_name(path)
        params.append(pytest.param(path, id=name, marks=[pytest.mark.slow] if name in SLOW else []))
    return params


def test_table_covers_exactly_the_cases() -> None:
    assert sorted(TABLE) == sorted(case_name(p) for p in CASE_FILES), f"cases added or removed: `{REGENERATE}`"
    failures = {name: entry for name, entry in TABLE.items() if entry != PASSES}
    assert all(isinstance(e, dict) and e["fails"] and e["why"] for e in failures.values()), \
        "every pinned failure needs its exact line and a reviewed 'why'"
    assert set(TABLE) >= SLOW


def test_cases_exist() -> None:
    assert len(CASE_FILES) >= 100


@pytest.fixture(scope="module")
def emulator_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("jit-cases")


def test_generator_reproduces_committed_cases() -> None:
    """make_cases.py --check rebuilds every case into a temporary folder and compares byte for byte."""
    done = subprocess.run(
        [sys.executable, str(CASES / "make_cases.py"), "--check"],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert " 0 differ" in done.stdout


@pytest.mark.parametrize("case_file", _params())
def test_corpus_case(case_file: Path, emulator_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTX2GCN_CACHE_DIR", str(emulator_env))
    monkeypatch.setenv("PTX2GCN_BACKEND", "emulator")
    entry = TABLE[case_name(case_file)]
    status, printed = run_case(case_file)
    if entry == PASSES:
        assert status == 0, printed
        return
    assert isinstance(entry, dict)
    assert status != 0, f"now passes: pinned as failing with {entry['fails']!r}; regenerate with `{REGENERATE}`"
    got = failure_line(case_file, printed)
    assert got == expected_line(entry), f"fails differently:\n    expected: {entry['fails']}\n    got:      {got}"
    pytest.xfail(entry["why"])


ADVERSARIAL_SAMPLE = 8
"""The default suite runs every ``ADVERSARIAL_SAMPLE``-th case (in path order) under the adversarial
approximation policy; ``-m slow`` runs the rest."""


def _adversarial_params() -> list[object]:
    params = []
    for index, path in enumerate(CASE_FILES):
        name = case_name(path)
        entry = TABLE.get(name, PASSES)
        marks = [] if entry == PASSES else [pytest.mark.xfail(strict=True, reason=str(entry["why"]))]
        if name in SLOW or index % ADVERSARIAL_SAMPLE:
            marks.append(pytest.mark.slow)
        params.append(pytest.param(path, id=name, marks=marks))
    return params


@pytest.mark.parametrize("case_file", _adversarial_params())
def test_corpus_case_adversarial(case_file: Path, emulator_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same check with every approximate instruction (v_rcp, v_sqrt, v_exp, ...) answering a
    seeded pseudo-random value within its documented bound (``ptx2gcn.runtime.emulator.approx``):
    exact PTX forms must still give identical bits, ``.approx`` ones stay within the case's tolerance.
    A case pinned as failing (``case_outcomes.json``) is a strict expected failure here too."""
    monkeypatch.setenv("PTX2GCN_CACHE_DIR", str(emulator_env))
    monkeypatch.setenv("PTX2GCN_BACKEND", "emulator")
    monkeypatch.setenv("PTX2GCN_EMU_APPROX", "nominal")  # restored after ``--emu-approx`` sets it
    monkeypatch.setenv("PTX2GCN_EMU_APPROX_SEED", "0")
    status, printed = run_case(case_file, "--emu-approx", "adversarial", "--emu-approx-seed", "1")
    assert status == 0, printed
