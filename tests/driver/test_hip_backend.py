"""The hip backend behind the driver API, against the host-side fake libamdhip64 of the runtime tests
(tests/runtime/data/fake_hip.c: host memory, any AMDGPU ELF loads, launching ``add_scalar`` adds a
value to a u32 buffer on the host from the packed parameter buffer or the per-argument pointers, and
every call is logged with its arguments). The code object is ptx2gcn's real compilation of the PTX
below, so the parameter layout comes from its own metadata."""

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


def _calls(library: str, since: int = 0) -> list[tuple[str, list[int]]]:
    """The fake's call log from entry ``since``: (function name, its 12 logged argument slots)."""
    lib = ctypes.CDLL(library)
    name, args = ctypes.create_string_buffer(56), (ctypes.c_uint64 * 12)()
    entries = []
    for index in range(since, lib.fake_call_count()):
        lib.fake_call(index, name, args)
        entries.append((name.value.decode(), list(args)))
    return entries


def _log_position(library: str) -> int:
    return int(ctypes.CDLL(library).fake_call_count())


def _add_scalar_params(pointer: object) -> tuple[tuple[object, ...], tuple[object, ...]]:
    return (pointer, 100, 1000), (None, ctypes.c_uint, ctypes.c_uint)


def test_cooperative_launch_through_hip(hip_context: str) -> None:
    """cuLaunchCooperativeKernel reaches hipModuleLaunchCooperativeKernel with the launch shape and one
    pointer per argument (the fake reads the values through them and logs them); the co-residency
    limit is HIP's occupancy answer (2 blocks of <= 256 work-items per CU) x HIP's CU count (4)."""
    A = cuda.CUdevice_attribute
    assert ok(cuda.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0)) == 4
    assert ok(cuda.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 0)) == 1
    module = ok(cuda.cuModuleLoadData(ADD_SCALAR))
    function = ok(cuda.cuModuleGetFunction(module, b"add_scalar"))
    assert ok(cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(function, 64, 0)) == 2  # HIP's, not the model's
    assert ok(cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(function, 512, 0)) == 1
    data = np.arange(100, dtype=np.uint32) * 3
    pointer = ok(cuda.cuMemAlloc(400))
    ok(cuda.cuMemcpyHtoD(pointer, data, 400))
    start = _log_position(hip_context)
    ok(cuda.cuLaunchCooperativeKernel(function, 8, 1, 1, 64, 1, 1, 128, 0, _add_scalar_params(pointer)))
    launches = [args for name, args in _calls(hip_context, start) if name.startswith("hipModuleLaunch")]
    names = [name for name, _args in _calls(hip_context, start)]
    assert "hipModuleLaunchKernel" not in names
    # grid, block, dynamic shared bytes, stream (null), then the three argument values via kernelParams
    assert launches == [[8, 1, 1, 64, 1, 1, 128, 0, int(pointer), 100, 1000, 0]]
    occupancy = [args[1:4] for name, args in _calls(hip_context, start) if "Occupancy" in name]
    assert occupancy == [[64, 128, 0]]  # block size, dynamic shared bytes of the co-residency check
    out = np.zeros(100, dtype=np.uint32)
    ok(cuda.cuMemcpyDtoH(out, pointer, 400))
    assert out.tolist() == (data + 1000).tolist()
    start = _log_position(hip_context)
    for grid, block, fit in ((9, 64, 2), (5, 512, 1)):  # 2 x 4 and 1 x 4 blocks fit at once
        fails(
            cuda.cuLaunchCooperativeKernel(function, grid, 1, 1, block, 1, 1, 0, 0, _add_scalar_params(pointer)),
            R.CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
            f"fits {fit} such blocks per compute unit, {fit * 4} on the device's 4",
        )
    assert not [name for name, _args in _calls(hip_context, start) if name.startswith("hipModuleLaunch")]
    ok(cuda.cuModuleUnload(module))


def _launch_add_scalar(function: object, pointer: object) -> None:
    ok(cuda.cuLaunchKernel(function, 2, 1, 1, 64, 1, 1, 0, 0, _add_scalar_params(pointer), 0))


def test_mapped_host_memory_through_hip(hip_context: str) -> None:
    """Page-locked, registered and managed memory become hipHostMalloc(hipHostMallocMapped),
    hipHostRegister(hipHostRegisterMapped) and hipMallocManaged with CUDA's flags carried over; a
    kernel writes them at the host's own address; freeing them calls HIP's matching release."""
    A = cuda.CUdevice_attribute
    for attribute in ("CAN_MAP_HOST_MEMORY", "HOST_REGISTER_SUPPORTED", "MANAGED_MEMORY"):
        assert ok(cuda.cuDeviceGetAttribute(getattr(A, f"CU_DEVICE_ATTRIBUTE_{attribute}"), 0)) == 1
    module = ok(cuda.cuModuleLoadData(ADD_SCALAR))
    function = ok(cuda.cuModuleGetFunction(module, b"add_scalar"))
    expected = (np.arange(100, dtype=np.uint32) + 1000).tolist()

    start = _log_position(hip_context)
    host = int(ok(cuda.cuMemHostAlloc(400, cuda.CU_MEMHOSTALLOC_PORTABLE)))
    assert _calls(hip_context, start) == [
        ("hipHostMalloc", [400, 0x1 | 0x2, host] + [0] * 9),  # portable | hipHostMallocMapped
        ("hipHostGetDevicePointer", [host, 0] + [0] * 10),
    ]
    assert int(ok(cuda.cuMemHostGetDevicePointer(host, 0))) == host
    view = np.ctypeslib.as_array((ctypes.c_uint32 * 100).from_address(host))
    view[:] = np.arange(100, dtype=np.uint32)
    _launch_add_scalar(function, ok(cuda.cuMemHostGetDevicePointer(host, 0)))
    assert view.tolist() == expected
    start = _log_position(hip_context)
    ok(cuda.cuMemFreeHost(host))
    assert _calls(hip_context, start) == [("hipHostFree", [host] + [0] * 11)]

    array = np.arange(100, dtype=np.uint32)
    address = array.ctypes.data
    start = _log_position(hip_context)
    ok(cuda.cuMemHostRegister(address, 400, cuda.CU_MEMHOSTREGISTER_PORTABLE))
    assert _calls(hip_context, start)[0] == ("hipHostRegister", [address, 400, 0x1 | 0x2] + [0] * 9)
    fails(cuda.cuMemHostRegister(address, 400, 0), R.CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
    _launch_add_scalar(function, ok(cuda.cuMemHostGetDevicePointer(address, 0)))
    assert array.tolist() == expected
    start = _log_position(hip_context)
    ok(cuda.cuMemHostUnregister(address))
    assert _calls(hip_context, start) == [("hipHostUnregister", [address] + [0] * 11)]

    start = _log_position(hip_context)
    managed = ok(cuda.cuMemAllocManaged(400, cuda.CUmemAttach_flags.CU_MEM_ATTACH_HOST))
    assert _calls(hip_context, start) == [("hipMallocManaged", [400, 0x2, int(managed)] + [0] * 9)]
    ok(cuda.cuMemcpyHtoD(managed, np.arange(100, dtype=np.uint32), 400))
    _launch_add_scalar(function, managed)
    assert np.ctypeslib.as_array((ctypes.c_uint32 * 100).from_address(int(managed))).tolist() == expected
    assert ok(cuda.cuPointerGetAttribute(cuda.CUpointer_attribute.CU_POINTER_ATTRIBUTE_IS_MANAGED, managed))
    start = _log_position(hip_context)
    ok(cuda.cuMemFree(managed))
    assert _calls(hip_context, start) == [("hipFree", [int(managed)] + [0] * 11)]
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
