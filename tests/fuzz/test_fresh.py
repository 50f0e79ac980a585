"""A few hundred fresh fuzz programs (fixed seed, so a failure reproduces) must all match the model."""

from __future__ import annotations

import io

import pytest

from ptx2gcn.fuzz.runner import FuzzConfig, fuzz

FRESH = 200
SEED = 424242


def test_fresh_programs_match_the_model() -> None:
    stream = io.StringIO()
    summary = fuzz(FuzzConfig(count=FRESH, seed=SEED, save=None), stream, show_progress=False)
    assert summary.programs == FRESH
    assert (summary.mismatches, summary.errors) == (0, 0), stream.getvalue()


@pytest.mark.slow
def test_two_thousand_programs_match_the_model() -> None:
    stream = io.StringIO()
    summary = fuzz(FuzzConfig(count=2000, seed=1, save=None, jobs=2), stream, show_progress=False)
    assert (summary.mismatches, summary.errors) == (0, 0), stream.getvalue()


def _adversarial(count: int, seed: int, jobs: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fuzz programs with the emulator's approximate instructions adversarial
    (``ptx2gcn.runtime.emulator.approx``): the compiled programs must still match the model."""
    monkeypatch.setenv("PTX2GCN_EMU_APPROX", "adversarial")
    monkeypatch.setenv("PTX2GCN_EMU_APPROX_SEED", str(seed))
    stream = io.StringIO()
    summary = fuzz(FuzzConfig(count=count, seed=seed, save=None, jobs=jobs), stream, show_progress=False)
    assert summary.programs == count
    assert (summary.mismatches, summary.errors) == (0, 0), stream.getvalue()


def test_fresh_programs_under_adversarial_approximations(monkeypatch: pytest.MonkeyPatch) -> None:
    _adversarial(100, SEED + 1, 1, monkeypatch)


@pytest.mark.slow
def test_two_thousand_programs_under_adversarial_approximations(monkeypatch: pytest.MonkeyPatch) -> None:
    _adversarial(2000, 1, 2, monkeypatch)
