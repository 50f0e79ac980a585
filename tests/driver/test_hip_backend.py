"""The hip backend behind the driver API, against the host-side fake libamdhip64 of the runtime tests
(tests/runtime/data/fake_hip.c: host memory, any AMDGPU ELF loads, and launching ``add_scalar`` adds a
value to a u32 buffer on the host from the packed parameter buffer). The code object is ptx2gcn's
real compilation of the PTX below, so the parameter layout comes from its own metadata."""

from __future__ import annotations

import ctypes
from collections.abc import Iterator

import numpy as np
import pytest

from ptx2gcn import cuda
from ptx2gcn.runtime.backends.hip import HipFactory
from ptx2gcn.runtime.cache.jit_cache import JitCache
from ptx2gcn.runtime.driver.state import DriverConfig, reset
from tests.driver.conftest import fails, ok, run_vector_add
from tests.runtime.toolchain import DATA, build_fake_hip

R = cuda.CUresult
ADD_SCALAR = (DATA / "add_scalar.ptx").read_bytes()  # add_scalar(u32* data, u32 n, u32 value)


@pytest.fixture(scope="module")
def fake_hip_library(tmp_path_factory: pytest.TempPathFactory) -> str:
    return build_fake_hip(tmp_path_factory.mktemp("fakehip"))


@pytest.fixture
def hip_context(fake_hip_library: str, jit_cache: JitCache) -> Iterator[str]:
    reset(DriverConfig(factory=HipFactory(fake_hip_library), cache=jit_cache))
    ok(cuda.cuInit(0))
    context = ok(cuda.cuCtxCreate(0, 0))
    yield fake_hip_library
    cuda.cuCtxDestroy(context)
    reset()


def test_launch_through_hip(hip_context: str) -> None:
    assert ok(cuda.cuDeviceGetName(32, 0)).split(b"\0")[0] == b"Fake gfx942"
    assert (
        ok(cuda.cuDeviceGetAttribute(cuda.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 0)) == 1
    )
    module = ok(cuda.cuModuleLoadData(ADD_SCALAR))
    function = ok(cuda.cuModuleGetFunction(module, b"add_scalar"))
    data = np.arange(100, dtype=np.uint32) * 7
    pointer = ok(cuda.cuMemAlloc(400))
    ok(cuda.cuMemcpyHtoD(pointer, data, 400))
    ok(
        cuda.cuLaunchKernel(
            function,
            2,
            1,
            1,
            64,
            1,
            1,
            256,
            0,
            ((pointer, 100, 1000), (None, ctypes.c_uint, ctypes.c_uint)),
            0,
        )
    )
    out = np.zeros(100, dtype=np.uint32)
    ok(cuda.cuMemcpyDtoH(out, pointer, 400))
    assert out.tolist() == (data + 1000).tolist()
    launch = (ctypes.c_uint * 8)()
    ctypes.CDLL(hip_context).fake_last_launch(launch)
    assert list(launch) == [2, 1, 1, 64, 1, 1, 256, 16]  # grid, block, shared bytes, parameter bytes
    ok(cuda.cuMemsetD32(pointer, 5, 100))  # fills and device copies go through host memory
    other = ok(cuda.cuMemAlloc(400))
    ok(cuda.cuMemcpyDtoD(other, pointer, 400))
    ok(cuda.cuMemcpyDtoH(out, other, 400))
    assert out.tolist() == [5] * 100
    fails(cuda.cuModuleGetGlobal(module, b"anything"), R.CUDA_ERROR_NOT_FOUND)
    ok(cuda.cuModuleUnload(module))


def test_no_device(fake_hip_library: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_HIP_DEVICES", "0")
    reset(DriverConfig(factory=HipFactory(fake_hip_library)))
    try:
        fails(
            cuda.cuInit(0),
            R.CUDA_ERROR_NO_DEVICE,
            "hip backend: no AMD GPU found: hipGetDeviceCount returned hipErrorNoDevice",
        )
    finally:
        reset()


@pytest.mark.gpu
def test_vector_add_on_a_real_amd_gpu(jit_cache: JitCache) -> None:
    factory = HipFactory()
    try:
        factory.device_count()
    except Exception as error:  # noqa: BLE001 - any reason HIP cannot run here means: no GPU test
        pytest.skip(f"no AMD GPU: {error}")
    reset(DriverConfig(factory=factory, cache=jit_cache))
    try:
        out, expected = run_vector_add(10000, seed=2)
        assert np.array_equal(out, expected)
    finally:
        reset()
