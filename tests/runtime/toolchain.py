"""External tools the runtime, driver and run tests build inputs with: CUDA's nvcc and a C compiler
(for the host-side fake libamdhip64 in data/fake_hip.c).

Invariant: ``require_nvcc`` and ``nvcc_run`` skip the calling test when nvcc is absent, except under
``PTX2GCN_REQUIRE_NVCC=1`` (CI), where its absence fails the test, so no nvcc check passes unrun there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"


def find_nvcc() -> str | None:
    for candidate in (os.environ.get("NVCC", ""), "/usr/local/cuda/bin/nvcc", "nvcc"):
        if candidate and (found := shutil.which(candidate)):
            return found
    return None


def require_nvcc() -> str:
    """nvcc's path; skips the test without it (fails it under ``PTX2GCN_REQUIRE_NVCC``)."""
    found = find_nvcc()
    if found is None:
        if os.environ.get("PTX2GCN_REQUIRE_NVCC"):
            pytest.fail("nvcc not found")
        pytest.skip("nvcc not found (CUDA toolkit)")
    return found


def nvcc_run(*args: str, cwd: Path | None = None) -> None:
    """``nvcc args…``; a failing build fails the test with nvcc's messages."""
    command = [require_nvcc(), *args]
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        pytest.fail(f"nvcc failed: {' '.join(command)}\n{result.stderr}")


def build_fake_hip(folder: Path) -> str:
    """Compile data/fake_hip.c into ``folder``/libfakehip.so; skips the test without a C compiler."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to build the fake HIP library")
    output = folder / "libfakehip.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-O1", "-o", str(output), str(DATA / "fake_hip.c")], check=True)
    return str(output)
