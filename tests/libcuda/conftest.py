"""Fixtures for the libcuda tests: the shim built into a temporary cache, the C test programs
compiled against it, and ``run_exec`` (a command under ``ptx2gcn exec`` on the emulator).

A C compiler is needed. Without one the tests skip, except under ``PTX2GCN_REQUIRE_LLVM_TOOLS=1``
(CI, which installs gcc), where they fail: a missing compiler there is an error, not a pass.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

PROGRAMS = Path(__file__).resolve().parent / "programs"
EXEC_TIMEOUT = 600


def _compiler() -> str:
    found = shutil.which(os.environ.get("CC") or "cc")
    if found is None:
        message = "no C compiler (cc) to build the libcuda shim and the C test programs"
        if os.environ.get("PTX2GCN_REQUIRE_LLVM_TOOLS"):
            pytest.fail(message)
        pytest.skip(message)
    return found


@pytest.fixture(scope="session")
def libcuda_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment for ``ptx2gcn exec`` runs: a private cache (shim and JIT), the emulator."""
    _compiler()
    cache = tmp_path_factory.mktemp("libcuda-cache")
    env = {**os.environ, "PTX2GCN_CACHE_DIR": str(cache), "PTX2GCN_BACKEND": "emulator"}
    env.pop("PTX2GCN_TRACEBACK", None)
    return env


@pytest.fixture(scope="session")
def shim_dir(libcuda_env: dict[str, str]) -> Path:
    from ptx2gcn.runtime.libcuda.build import shim_library

    return shim_library(libcuda_env)


def embed_ptx(ptx: Path, header: Path) -> None:
    """Write ``ptx`` into ``header`` as ``kernels_ptx``, a NUL-terminated byte array."""
    data = ptx.read_bytes() + b"\0"
    rows = ",\n".join(",".join(str(b) for b in data[i : i + 32]) for i in range(0, len(data), 32))
    header.write_text(f"static const unsigned char kernels_ptx[] = {{\n{rows}\n}};\n")


@pytest.fixture(scope="session")
def build_program(tmp_path_factory: pytest.TempPathFactory, shim_dir: Path) -> Callable[..., Path]:
    """Compile ``programs/<name>.c`` (with the kernels' PTX embedded) and link it to ``-lcuda``."""
    folder = tmp_path_factory.mktemp("programs")
    embed_ptx(PROGRAMS / "kernels.ptx", folder / "kernels_ptx.h")
    built: dict[str, Path] = {}

    def build(name: str, *defines: str) -> Path:
        """``defines``: ``-D`` names, e.g. ``CUDA_API_PER_THREAD_DEFAULT_STREAM`` (nvcc's
        ``--default-stream per-thread``); the executable's name records them."""
        key = "-".join((name, *defines))
        if key not in built:
            out = folder / key
            command = [
                _compiler(), "-O1", "-Wall", "-Werror", "-pthread", f"-I{PROGRAMS}", f"-I{folder}",
                *(f"-D{d}" for d in defines),
                "-o", str(out), str(PROGRAMS / f"{name}.c"), f"-L{shim_dir}", "-lcuda",
            ]  # fmt: skip
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            assert done.returncode == 0, done.stderr
            built[key] = out
        return built[key]

    return build


@pytest.fixture(scope="session")
def run_exec(libcuda_env: dict[str, str], shim_dir: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``ptx2gcn exec --backend emulator -- ARGS...`` as a subprocess (text output captured)."""

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "ptx2gcn", "exec", "--backend", "emulator", "--", *args]
        return subprocess.run(
            command, capture_output=True, text=True, env=libcuda_env, timeout=EXEC_TIMEOUT, check=False
        )

    return run
