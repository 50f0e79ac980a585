"""The hand-written PTX kernels of the special-register, call, global-variable and control tests are
valid PTX by NVIDIA's own assembler (``ptxas -arch=sm_90``): what they test is PTX as CUDA defines
it, not a dialect only ptx2gcn accepts. Skipped without the CUDA toolkit, failed in CI where
``PTX2GCN_REQUIRE_NVCC`` is set."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.codegen import test_api, test_calls, test_misc_control, test_module_globals, test_special_registers

PTXAS = shutil.which("ptxas") or next(
    (p for p in ("/usr/local/cuda/bin/ptxas",) if Path(p).exists()), None)

_SR, _CALLS, _MISC = test_special_registers, test_calls, test_misc_control
KERNELS: dict[str, str] = {
    "smid": _SR.HEADER + _SR.SMID,
    "smem": _SR.HEADER + _SR.SMEM.format(static=100),
    "smem_no_extern": _SR.HEADER + _SR.SMEM_NO_EXTERN,
    "cluster": _SR.HEADER + _SR.CLUSTER,
    "misc": _SR.HEADER + _SR.MISC,
    "exit_in_function": _CALLS.HEADER + _CALLS.EXIT_IN_FUNCTION,
    "exit_then_barrier": _CALLS.HEADER + _CALLS.EXIT_THEN_BARRIER,
    "indirect": _CALLS.HEADER + _CALLS.INDIRECT,
    "exit_then_activemask": _CALLS.HEADER + _CALLS.EXIT_THEN_ACTIVEMASK,
    "hints": _MISC.HEADER + _MISC.HINTS,
    "traps": _MISC.HEADER + _MISC.TRAPS,
    "globals": test_module_globals.PTX,
    "api": test_api.PTX,
}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_ptxas_accepts_the_test_kernel(name: str, tmp_path: Path) -> None:
    if PTXAS is None:
        if os.environ.get("PTX2GCN_REQUIRE_NVCC"):
            pytest.fail("ptxas not found (CUDA toolkit)")
        pytest.skip("ptxas (CUDA toolkit) not installed")
    source = tmp_path / f"{name}.ptx"
    source.write_text(KERNELS[name])
    done = subprocess.run([PTXAS, "-arch=sm_90", str(source), "-o", str(tmp_path / f"{name}.cubin")],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
