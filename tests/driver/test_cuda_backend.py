"""The cuda backend's calls into cuda-python, against a fake ``cuda.bindings.driver`` (no NVIDIA GPU
here): the PTX reaches cuModuleLoadData unchanged and NUL-terminated, parameter layouts come from
cuFuncGetParamInfo, and launches pass the packed buffer through ``extra`` (cooperative ones one
pointer per parameter through ``kernelParams``). The fake "runs"
vector_add on the host from that buffer, so a wrong layout gives wrong sums."""

from __future__ import annotations

import ctypes
from collections.abc import Iterator

import numpy as np
import pytest

from ptx2gcn import cuda
from ptx2gcn.runtime.driver.enums import CUdevice_attribute, CUresult
from ptx2gcn.runtime.driver.state import DriverConfig, reset
from tests.driver.conftest import KERNELS_PTX, fails, ok, run_vector_add
from tests.driver.fake_cuda import FakeDriver, install_fake_cuda


@pytest.fixture
def fake_cuda(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDriver]:
    fake = install_fake_cuda(monkeypatch)
    reset(DriverConfig(backend="cuda"))
    yield fake
    reset()


def test_vector_add_on_the_cuda_backend(fake_cuda: FakeDriver) -> None:
    ok(cuda.cuInit(0))
    context = ok(cuda.cuCtxCreate(0, 0))
    assert ok(cuda.cuDeviceGetName(64, 0)).split(b"\0")[0] == b"NVIDIA H200"
    assert ok(cuda.cuDeviceGetAttribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 0)) == 64
    module = ok(cuda.cuModuleLoad(str(KERNELS_PTX)))
    assert fake_cuda.modules == [KERNELS_PTX.read_bytes() + b"\0"]  # the original PTX, unchanged
    function = ok(cuda.cuModuleGetFunction(module, b"vector_add"))
    a, b = np.arange(10, dtype=np.float32), np.full(10, 0.5, dtype=np.float32)
    pointers = [ok(cuda.cuMemAlloc(40)) for _ in range(3)]
    ok(cuda.cuMemcpyHtoD(pointers[0], a, 40))
    ok(cuda.cuMemcpyHtoD(pointers[1], b, 40))
    ok(
        cuda.cuLaunchKernel(
            function, 1, 1, 1, 32, 1, 1, 0, 0, ((*pointers, 10), (None, None, None, ctypes.c_int)), 0
        )
    )
    out = np.zeros(10, dtype=np.float32)
    ok(cuda.cuMemcpyDtoH(out, pointers[2], 40))
    assert out.tolist() == (a + b).tolist()
    grid, block, shared, buffer = fake_cuda.launches[0]
    assert (grid, block, shared, len(buffer)) == ((1, 1, 1), (32, 1, 1), 0, 28)
    fails(
        cuda.cuLaunchKernel(
            function, 1, 1, 1, 32, 1, 128, 0, 0, ((*pointers, 10), (None,) * 3 + (ctypes.c_int,)), 0
        ),
        CUresult.CUDA_ERROR_INVALID_VALUE,
        "blockDimZ = 128 is outside 1..64",
    )
    fails(
        cuda.cuModuleLoadData(b"\x7fELF" + bytes(14) + (224).to_bytes(2, "little") + bytes(44)),
        CUresult.CUDA_ERROR_NO_BINARY_FOR_GPU,
        "cuda backend",
    )
    ok(cuda.cuCtxDestroy(context))


def test_cooperative_launch_on_the_cuda_backend(fake_cuda: FakeDriver) -> None:
    """cuLaunchCooperativeKernel reaches cuda-python's with one pointer per parameter (the fake reads
    the values through them); the co-residency limit is NVIDIA's occupancy (2) x 132 SMs."""
    ok(cuda.cuInit(0))
    context = ok(cuda.cuCtxCreate(0, 0))
    assert ok(cuda.cuDeviceGetAttribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 0)) == 1
    function = ok(cuda.cuModuleGetFunction(ok(cuda.cuModuleLoad(str(KERNELS_PTX))), b"vector_add"))
    a, b = np.arange(10, dtype=np.float32), np.full(10, 2.0, dtype=np.float32)
    pointers = [ok(cuda.cuMemAlloc(40)) for _ in range(3)]
    ok(cuda.cuMemcpyHtoD(pointers[0], a, 40))
    ok(cuda.cuMemcpyHtoD(pointers[1], b, 40))
    params = ((*pointers, 10), (None, None, None, ctypes.c_int))
    ok(cuda.cuLaunchCooperativeKernel(function, 264, 1, 1, 32, 1, 1, 16, 0, params))
    out = np.zeros(10, dtype=np.float32)
    ok(cuda.cuMemcpyDtoH(out, pointers[2], 40))
    assert out.tolist() == (a + b).tolist()
    grid, block, shared, values, how = fake_cuda.launches[-1]
    assert (grid, block, shared, how) == ((264, 1, 1), (32, 1, 1), 16, "cooperative")
    assert values == b"".join(int(p).to_bytes(8, "little") for p in pointers) + (10).to_bytes(4, "little")
    fails(
        cuda.cuLaunchCooperativeKernel(function, 265, 1, 1, 32, 1, 1, 0, 0, params),
        CUresult.CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
        "fits 2 such blocks per compute unit, 264 on the device's 132",
    )
    ok(cuda.cuCtxDestroy(context))


@pytest.mark.gpu
def test_vector_add_on_a_real_nvidia_gpu() -> None:
    """Differential check on an NVIDIA machine: the cuda backend and the emulator agree bit for bit."""
    from ptx2gcn.runtime.backends.cuda import FACTORY
    from ptx2gcn.runtime.backends.protocol import BackendUnavailable

    try:
        FACTORY.device_count()
    except BackendUnavailable as error:
        pytest.skip(str(error))
    results = []
    for backend in ("cuda", "emulator"):
        reset(DriverConfig(backend=backend))
        try:
            results.append(run_vector_add(4096, seed=9)[0])
        finally:
            reset()
    assert results[0].tobytes() == results[1].tobytes()
