"""Replay every saved fuzz failure (``corpora/regressions/*/case.toml``) and CUDA golden case
(``corpora/golden/*/case.toml``) on the emulator, comparing the slots their ``mask.npy`` marks.

A case whose ``fuzz.json`` carries ``known_bug`` is a strict xfail with that reason (its bug is not
fixed yet); every other case must match.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ptx2gcn.fuzz.case import case_directories, read_case
from ptx2gcn.fuzz.oracle import describe_slots, emulator_device

ROOT = Path(__file__).resolve().parents[2] / "corpora"
CASES = case_directories(ROOT / "regressions") + case_directories(ROOT / "golden")


def _params() -> list[object]:
    params: list[object] = []
    for directory in CASES:
        meta = read_case(directory).meta
        bug = meta.get("known_bug")
        marks = [pytest.mark.xfail(strict=True, reason=str(bug))] if bug else []
        params.append(pytest.param(directory, id=f"{directory.parent.name}/{directory.name}", marks=marks))
    return params


@pytest.mark.parametrize("directory", _params())
def test_replay(directory: Path) -> None:
    case = read_case(directory)
    raw = emulator_device(case.ptx, case.inputs.astype("<u8").tobytes(), case.expected.size * 8)
    got = np.frombuffer(raw, dtype="<u8")
    bad = (got != case.expected) & case.mask
    assert not bad.any(), "\n".join(describe_slots(bad, got, case.expected))


def test_regression_corpus_is_present() -> None:
    assert (ROOT / "regressions").is_dir()
