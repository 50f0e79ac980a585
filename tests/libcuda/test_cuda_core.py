"""NVIDIA's own Python clients against ptx2gcn's ``libcuda.so.1`` under ``ptx2gcn exec``: cuda-bindings
(Cython over C function pointers from ``cuGetProcAddress_v2``) and cuda.core (libraries, kernels,
``cuLaunchKernelEx``). They are not dependencies of ptx2gcn: without them these tests skip
(``pip install cuda-core cuda-bindings`` to run them; no NVIDIA GPU or driver is needed)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

KERNELS_PTX = Path(__file__).resolve().parent / "programs" / "kernels.ptx"

SCRIPT = r"""
import sys
import numpy as np
from cuda.bindings import driver as cu
from cuda.core import Device, LaunchConfig, ObjectCode, launch

dev = Device(0)
dev.set_current()
stream = dev.create_stream()
kernel = ObjectCode.from_ptx(open(sys.argv[1], "rb").read()).get_kernel("vector_add")
n = 256
a = np.arange(n, dtype=np.float32)
b = np.full(n, 0.5, dtype=np.float32)
buffers = [dev.allocate(4 * n, stream=stream) for _ in range(3)]
for buffer, host in zip(buffers, (a, b)):
    assert cu.cuMemcpyHtoD(int(buffer.handle), host, 4 * n)[0] == cu.CUresult.CUDA_SUCCESS
launch(stream, LaunchConfig(grid=n // 128, block=128), kernel, *buffers, np.int32(n))
stream.sync()
c = np.zeros(n, dtype=np.float32)
assert cu.cuMemcpyDtoH(c, int(buffers[2].handle), 4 * n)[0] == cu.CUresult.CUDA_SUCCESS
assert (c == a + b).all(), c[:8]
print("cuda.core: vector add ok on", dev.name)
"""


def test_cuda_core_loads_and_launches(run_exec: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    pytest.importorskip("cuda.core", reason="cuda.core is not installed (pip install cuda-core cuda-bindings)")
    done = run_exec(sys.executable, "-c", SCRIPT, str(KERNELS_PTX))
    assert done.returncode == 0, done.stderr
    assert "cuda.core: vector add ok on AMD Instinct MI300X" in done.stdout
