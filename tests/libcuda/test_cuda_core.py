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

PRELUDE = r"""
import sys
import numpy as np
from cuda.bindings import driver as cu
from cuda.core import Device, LaunchConfig, ObjectCode, launch

dev = Device(0)
dev.set_current()
stream = dev.create_stream()
kernel = ObjectCode.from_ptx(open(sys.argv[1], "rb").read()).get_kernel("vector_add")
n = 256
"""
"""What both scripts start with: the device, a stream, data/kernels.ptx's vector_add."""

SCRIPT = PRELUDE + r"""
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


GRAPH_SCRIPT = PRELUDE + r"""
from cuda.core.graph import GraphDefinition

a, b, c = (dev.allocate(4 * n, stream=stream) for _ in range(3))
config = LaunchConfig(grid=n // 128, block=128)

def read(buffer):
    out = np.zeros(n, dtype=np.float32)
    assert cu.cuMemcpyDtoH(out, int(buffer.handle), 4 * n)[0] == cu.CUresult.CUDA_SUCCESS
    return out

# explicit nodes: two fills joined, the kernel, a host callback
definition = GraphDefinition()
calls = []
fills = definition.memset(a, np.float32(1.5), n), definition.memset(b, np.float32(2.0), n)
definition.join(*fills).launch(config, kernel, a, b, c, np.int32(n)).callback(lambda: calls.append(1))
assert (len(definition.nodes()), len(definition.edges())) == (5, 4)
graph = definition.instantiate()
graph.launch(stream)
stream.sync()
assert (read(c) == 3.5).all() and calls == [1], (read(c)[:4], calls)

# stream capture through the graph builder, replayed twice (c = c + c each time)
builder = dev.create_graph_builder()
builder.begin_building()
launch(builder, config, kernel, c, c, c, np.int32(n))
captured = builder.end_building().complete()
captured.launch(stream)
captured.launch(stream)
stream.sync()
assert (read(c) == 14.0).all(), read(c)[:4]
print("cuda.core graphs: definition and capture ok")
"""


def test_cuda_core_graphs(run_exec: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    pytest.importorskip("cuda.core", reason="cuda.core is not installed (pip install cuda-core cuda-bindings)")
    done = run_exec(sys.executable, "-c", GRAPH_SCRIPT, str(KERNELS_PTX))
    assert done.returncode == 0, done.stderr
    assert "cuda.core graphs: definition and capture ok" in done.stdout
