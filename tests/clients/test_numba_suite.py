"""numba-cuda's own test suite through ptx2gcn's libcuda on the emulator (slow suite).

numba-cuda is not a ptx2gcn dependency: the suite runs in an interpreter that has it, named by
``PTX2GCN_NUMBA_PYTHON`` (else this interpreter, if it imports ``numba.cuda``); without one the test
is skipped, which is a skip of a slow-suite item, never a pass. Every failure must be pinned with its
reason in ``benchmarks/clients/numba_expected_failures.json``; a pinned failure that passes is
reported by the runner (remove it from the table). The unit tests below check the runner's reading
of unittest's output, in the default suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.clients.runner_loader import load_runner

RUNNER = Path(__file__).resolve().parents[2] / "benchmarks" / "clients" / "numba_suite.py"


def _runner() -> ModuleType:
    return load_runner(RUNNER)


def _numba_python() -> str:
    chosen = os.environ.get("PTX2GCN_NUMBA_PYTHON") or sys.executable
    probe = subprocess.run([chosen, "-c", "import numba.cuda, cuda.core"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip(
            "numba-cuda is not installed for this slow-suite item: set PTX2GCN_NUMBA_PYTHON to an interpreter "
            "with numba-cuda, cuda-bindings, cuda-core, nvidia-cuda-nvrtc and filecheck (no GPU needed)"
        )
    return chosen


def test_parse_reads_outcomes_across_warning_lines_and_finds_the_crashed_test() -> None:
    log = (
        "test_a (numba.cuda.tests.cudapy.test_x.T.test_a) ... ok\n"
        "test_b (numba.cuda.tests.cudapy.test_x.T.test_b) ... /x.py:1: RuntimeWarning: w\n  warn(w)\nFAIL\n"
        "test_c (numba.cuda.tests.cudapy.test_x.T.test_c)\nDocstring line ... skipped 'no cupy'\n"
        "test_d (numba.cuda.tests.cudapy.test_x.T.test_d) ... "
    )
    outcomes, started = _runner().parse(log)
    prefix = "numba.cuda.tests.cudapy.test_x.T."
    assert outcomes == {prefix + "test_a": "ok", prefix + "test_b": "FAIL", prefix + "test_c": "skipped"}
    assert started == prefix + "test_d"


def test_pinned_failures_match_by_test_or_prefix() -> None:
    runner = _runner()
    expected = {"cudapy.test_ipc": "IPC", "cudapy.test_x.T.test_b": "reason b"}
    assert runner.pinned_reason("cudapy.test_ipc.T.test_open", expected) == "IPC"
    assert runner.pinned_reason("cudapy.test_x.T.test_b", expected) == "reason b"
    assert runner.pinned_reason("cudapy.test_x.T.test_bb", expected) is None
    table = json.loads(RUNNER.with_name("numba_expected_failures.json").read_text())
    assert all(isinstance(reason, str) and reason for reason in table.values())


@pytest.mark.slow
def test_numba_cuda_suite_has_no_unpinned_failure(tmp_path: Path) -> None:
    python = _numba_python()
    done = subprocess.run(
        [sys.executable, str(RUNNER), "--python", python, "--json", str(tmp_path / "outcomes.json")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-20000:] + done.stderr[-5000:]
