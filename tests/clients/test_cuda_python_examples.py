"""cuda.core's and cuda-python's own examples, unmodified, through ptx2gcn's libcuda on the emulator (slow suite).

The examples are NVIDIA's (https://github.com/NVIDIA/cuda-python), not part of ptx2gcn and not
committed here: ``PTX2GCN_CUDA_PYTHON_CHECKOUT`` names a checkout (``cuda_core/examples``,
``cuda_bindings/examples`` and ``cuda_bindings/cuda/bindings/_example_helpers``), and
``PTX2GCN_CUDA_PYTHON_PYTHON`` an interpreter with cuda-core, cuda-bindings and an NVRTC wheel (cupy
for most cuda.core examples; else this interpreter). Without them the test is skipped, a skip of a
slow-suite item, never a pass. Every failing example must be pinned with its reason in
``benchmarks/clients/cuda_python_expected_failures.json``. The unit tests below check the runner's
reading of outcomes, in the default suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.clients.runner_loader import load_runner

RUNNER = Path(__file__).resolve().parents[2] / "benchmarks" / "clients" / "cuda_python_examples.py"


def _runner() -> ModuleType:
    return load_runner(RUNNER)


def test_classify_reads_exit_status_and_missing_packages() -> None:
    runner = _runner()
    assert runner.classify(0, "done\n") == ("ok", "")
    early = "TMA requires compute capability >= 9.0 (Hopper or later)\n"
    assert runner.classify(0, early) == ("skipped", early.strip())
    assert runner.classify(None, "partial") == ("timeout", "partial")
    assert runner.classify(100, "P2P needs two devices\n") == ("skipped", "P2P needs two devices")
    missing = "Traceback ...\nModuleNotFoundError: No module named 'cupy.cuda'\n"
    assert runner.classify(1, missing) == ("skipped", "needs cupy")
    assert runner.classify(1, "cffi is not installed, this example requires cffi\n") == ("skipped", "needs cffi")
    assert runner.classify(1, "Install it with:  pip install pyglet\n") == ("skipped", "needs pyglet")
    assert runner.classify(1, "x\nRuntimeError: boom\n") == ("FAIL", "exit status 1: RuntimeError: boom")
    assert runner.classify(-11, "") == ("FAIL", "exit status -11: ")


def test_discover_names_examples_by_package_and_skips_tests(tmp_path: Path) -> None:
    for relative in ("cuda_core/examples/a.py", "cuda_bindings/examples/0_Intro/b.py",
                     "cuda_bindings/examples/0_Intro/b_test.py", "cuda_bindings/examples/common/c.py"):  # fmt: skip
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text("")
    assert list(_runner().discover(tmp_path)) == ["cuda_core/a.py", "cuda_bindings/0_Intro/b.py"]


def test_pinned_failures_have_reasons() -> None:
    table = json.loads(RUNNER.with_name("cuda_python_expected_failures.json").read_text())
    assert table and all(isinstance(reason, str) and reason for reason in table.values())
    assert all(name.startswith(("cuda_core/", "cuda_bindings/")) and name.endswith(".py") for name in table)


@pytest.mark.slow
def test_cuda_python_examples_have_no_unpinned_failure(tmp_path: Path) -> None:
    checkout = os.environ.get("PTX2GCN_CUDA_PYTHON_CHECKOUT", "")
    if not checkout or not (Path(checkout) / "cuda_core" / "examples").is_dir():
        pytest.skip(
            "cuda-python's examples are not here: set PTX2GCN_CUDA_PYTHON_CHECKOUT to a checkout of "
            "github.com/NVIDIA/cuda-python matching the installed cuda-core/cuda-bindings"
        )
    python = os.environ.get("PTX2GCN_CUDA_PYTHON_PYTHON") or sys.executable
    probe = subprocess.run([python, "-c", "import cuda.core, cuda.bindings.nvrtc"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip(
            "cuda.core is not installed for this slow-suite item: set PTX2GCN_CUDA_PYTHON_PYTHON to an "
            "interpreter with cuda-core, cuda-bindings, nvidia-cuda-nvrtc, numpy (and cupy-cuda13x; no GPU needed)"
        )
    done = subprocess.run(
        [sys.executable, str(RUNNER), "--checkout", checkout, "--python", python,
         "--json", str(tmp_path / "outcomes.json")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-20000:] + done.stderr[-5000:]
