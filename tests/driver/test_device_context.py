"""cuInit, devices and contexts: success paths and every error path (uninitialised driver, invalid
devices and handles, wrong argument counts, unavailable backends)."""

from __future__ import annotations

import os
import threading

import pytest

from ptx2gcn import cuda
from ptx2gcn.runtime.driver.state import DriverConfig, reset
from tests.driver.conftest import fails, ok

R = cuda.CUresult
A = cuda.CUdevice_attribute


def test_before_init(driver: None) -> None:
    assert ok(cuda.cuDriverGetVersion()) == 13000  # works before cuInit, as in CUDA
    fails(cuda.cuDeviceGetCount(), R.CUDA_ERROR_NOT_INITIALIZED, "cuInit")
    fails(cuda.cuDeviceGet(0), R.CUDA_ERROR_NOT_INITIALIZED)
    fails(cuda.cuCtxCreate(0, 0), R.CUDA_ERROR_NOT_INITIALIZED)
    fails(cuda.cuMemAlloc(16), R.CUDA_ERROR_NOT_INITIALIZED)
    fails(cuda.cuCtxGetCurrent(), R.CUDA_ERROR_NOT_INITIALIZED)


def test_init_arguments(driver: None) -> None:
    fails(cuda.cuInit(1), R.CUDA_ERROR_INVALID_VALUE, "Flags must be 0")
    fails(cuda.cuInit(), R.CUDA_ERROR_INVALID_VALUE, "Flags")
    fails(cuda.cuInit(0, 0), R.CUDA_ERROR_INVALID_VALUE)
    ok(cuda.cuInit(0))
    ok(cuda.cuInit(0))  # idempotent


def test_devices(driver: None) -> None:
    ok(cuda.cuInit(0))
    assert ok(cuda.cuDeviceGetCount()) == 1
    device = ok(cuda.cuDeviceGet(0))
    assert isinstance(device, cuda.CUdevice) and int(device) == 0
    fails(cuda.cuDeviceGet(1), R.CUDA_ERROR_INVALID_DEVICE, "device 1")
    fails(cuda.cuDeviceGet(-1), R.CUDA_ERROR_INVALID_DEVICE)
    fails(cuda.cuDeviceGet("0"), R.CUDA_ERROR_INVALID_VALUE, "integer")
    name = ok(cuda.cuDeviceGetName(128, device))
    assert len(name) == 128 and name.split(b"\0")[0] == b"AMD Instinct MI300X (gfx942, ptx2gcn emulator)"
    assert ok(cuda.cuDeviceGetName(4, device)) == b"AMD\0"
    fails(cuda.cuDeviceGetName(0, device), R.CUDA_ERROR_INVALID_VALUE)
    fails(cuda.cuDeviceGetName(64, cuda.CUdevice(3)), R.CUDA_ERROR_INVALID_DEVICE)
    assert ok(cuda.cuDeviceTotalMem(device)) > 0


def test_attributes(driver: None) -> None:
    ok(cuda.cuInit(0))
    device = ok(cuda.cuDeviceGet(0))
    expected = {
        A.CU_DEVICE_ATTRIBUTE_WARP_SIZE: 32,
        A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: 1024,
        A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: 65536,
        A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: 304,  # MI300X compute units
        A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: 8,
        A.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: 65535,
        # The emulator shares the host's address space: mapped, registered and managed memory.
        A.CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: 1,
        A.CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: 1,
        A.CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED: 1,
        A.CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: 1,  # the emulator keeps a grid's blocks resident
        # MI300X hardware values (AMD's data sheet; ROCm reports the same through hipDeviceProp_t):
        A.CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: 1,
        A.CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: 8192,  # 8 HBM3 stacks x 1024 bits
        A.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: 4 * 1024 * 1024,  # per XCD
        A.CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: 1,
    }
    for attribute, value in expected.items():
        assert ok(cuda.cuDeviceGetAttribute(attribute, device)) == value, attribute.name
    assert ok(cuda.cuDeviceGetAttribute(int(A.CU_DEVICE_ATTRIBUTE_WARP_SIZE), 0)) == 32
    fails(cuda.cuDeviceGetAttribute(9999, device), R.CUDA_ERROR_INVALID_VALUE, "CUdevice_attribute")
    fails(cuda.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_WARP_SIZE, 7), R.CUDA_ERROR_INVALID_DEVICE)
    fails(cuda.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_WARP_SIZE), R.CUDA_ERROR_INVALID_VALUE)


def test_context_lifecycle(driver: None) -> None:
    ok(cuda.cuInit(0))
    assert int(ok(cuda.cuCtxGetCurrent())) == 0
    device = ok(cuda.cuDeviceGet(0))
    first = ok(cuda.cuCtxCreate(None, 0, device))  # cuda-python 13 form
    assert ok(cuda.cuCtxGetCurrent()) == first
    second = ok(cuda.cuCtxCreate(0, device))  # cuda-python 12 form
    assert ok(cuda.cuCtxGetCurrent()) == second and second != first
    ok(cuda.cuCtxSetCurrent(first))
    assert ok(cuda.cuCtxGetCurrent()) == first
    ok(cuda.cuCtxSynchronize())
    ok(cuda.cuCtxDestroy(first))
    assert int(ok(cuda.cuCtxGetCurrent())) == 0
    fails(cuda.cuCtxSynchronize(), R.CUDA_ERROR_INVALID_CONTEXT, "no current context")
    fails(cuda.cuCtxDestroy(first), R.CUDA_ERROR_INVALID_CONTEXT, "destroyed")
    fails(cuda.cuCtxSetCurrent(first), R.CUDA_ERROR_INVALID_CONTEXT)
    fails(cuda.cuCtxSetCurrent(cuda.CUmodule(5)), R.CUDA_ERROR_INVALID_HANDLE, "CUcontext")
    ok(cuda.cuCtxSetCurrent(second))
    ok(cuda.cuCtxSetCurrent(None))
    assert int(ok(cuda.cuCtxGetCurrent())) == 0
    ok(cuda.cuCtxDestroy(second))


def test_context_create_errors(driver: None) -> None:
    ok(cuda.cuInit(0))
    fails(cuda.cuCtxCreate(0, 5), R.CUDA_ERROR_INVALID_DEVICE)
    fails(cuda.cuCtxCreate(0x100, 0), R.CUDA_ERROR_INVALID_VALUE, "CU_CTX_FLAGS_MASK")
    fails(cuda.cuCtxCreate(object(), 0, 0), R.CUDA_ERROR_NOT_SUPPORTED, "ctxCreateParams")
    fails(cuda.cuCtxCreate(0), R.CUDA_ERROR_INVALID_VALUE, "got 1 arguments")


def test_current_context_is_per_thread(context: cuda.CUcontext) -> None:
    seen: list[cuda.CUcontext] = []
    thread = threading.Thread(target=lambda: seen.append(ok(cuda.cuCtxGetCurrent())))
    thread.start()
    thread.join()
    assert int(seen[0]) == 0
    assert ok(cuda.cuCtxGetCurrent()) == context


def test_unknown_backend() -> None:
    reset(DriverConfig(backend="vulkan"))
    try:
        fails(cuda.cuInit(0), R.CUDA_ERROR_NO_DEVICE, "unknown backend 'vulkan'")
    finally:
        reset()


@pytest.mark.skipif(os.path.exists("/dev/kfd"), reason="an AMD GPU is present")
def test_hip_backend_without_gpu_fails_cleanly() -> None:
    reset(DriverConfig(backend="hip"))
    try:
        message = fails(cuda.cuInit(0), R.CUDA_ERROR_NO_DEVICE, "hip backend")
        assert "HIP runtime not found" in message or "no AMD GPU found" in message
        fails(cuda.cuDeviceGetCount(), R.CUDA_ERROR_NOT_INITIALIZED)
    finally:
        reset()


def test_cuda_backend_without_cuda_python_or_gpu() -> None:
    reset(DriverConfig(backend="cuda"))
    try:
        result = cuda.cuInit(0)
        if result[0] == R.CUDA_SUCCESS:
            pytest.skip("cuda-python and an NVIDIA GPU are present")
        message = fails(result, R.CUDA_ERROR_NO_DEVICE, "cuda backend")
        assert "cuda-python is not installed" in message or "NVIDIA" in message
    finally:
        reset()


def test_primary_context_and_push_pop(driver: None) -> None:
    ok(cuda.cuInit(0))
    primary = ok(cuda.cuDevicePrimaryCtxRetain(0))
    assert ok(cuda.cuDevicePrimaryCtxRetain(cuda.CUdevice(0))) == primary  # the same context, retained twice
    assert int(ok(cuda.cuCtxGetCurrent())) == 0  # retaining does not make it current
    fails(cuda.cuCtxGetDevice(), R.CUDA_ERROR_INVALID_CONTEXT)
    ok(cuda.cuCtxPushCurrent(primary))
    assert int(ok(cuda.cuCtxGetDevice())) == 0
    other = ok(cuda.cuCtxCreate(0, 0))
    assert ok(cuda.cuCtxPopCurrent()) == other
    assert ok(cuda.cuCtxPopCurrent()) == primary
    fails(cuda.cuCtxPopCurrent(), R.CUDA_ERROR_INVALID_CONTEXT, "no current context")
    fails(cuda.cuCtxDestroy(primary), R.CUDA_ERROR_INVALID_CONTEXT, "cuDevicePrimaryCtxRelease")
    ok(cuda.cuDevicePrimaryCtxRelease(0))
    ok(cuda.cuCtxSetCurrent(primary))  # still retained once
    ok(cuda.cuDevicePrimaryCtxRelease(0))
    fails(cuda.cuDevicePrimaryCtxRelease(0), R.CUDA_ERROR_INVALID_CONTEXT, "not retained")
    fails(cuda.cuCtxSetCurrent(primary), R.CUDA_ERROR_INVALID_CONTEXT)
    assert ok(cuda.cuDevicePrimaryCtxRetain(0)) != primary  # a new one after the last release
    fails(cuda.cuDevicePrimaryCtxRetain(2), R.CUDA_ERROR_INVALID_DEVICE)
    fails(cuda.cuCtxPushCurrent(cuda.CUcontext(0x77)), R.CUDA_ERROR_INVALID_CONTEXT)


def test_primary_context_flags(driver: None) -> None:
    ok(cuda.cuInit(0))
    assert ok(cuda.cuDevicePrimaryCtxGetState(0)) == (0, 0)
    ok(cuda.cuDevicePrimaryCtxSetFlags(0, 0x08 | 0x04))  # CU_CTX_MAP_HOST | CU_CTX_SCHED_BLOCKING_SYNC
    assert ok(cuda.cuDevicePrimaryCtxGetState(0)) == (0x0C, 0)  # kept for the context not created yet
    primary = ok(cuda.cuDevicePrimaryCtxRetain(0))
    ok(cuda.cuCtxSetCurrent(primary))
    assert ok(cuda.cuCtxGetFlags()) == 0x0C
    ok(cuda.cuDevicePrimaryCtxSetFlags(0, 0x01))  # allowed while active (CUDA 11 and later)
    assert ok(cuda.cuDevicePrimaryCtxGetState(0)) == (0x01, 1)
    fails(cuda.cuDevicePrimaryCtxSetFlags(0, 0x03), R.CUDA_ERROR_INVALID_VALUE, "scheduling mode")
    fails(cuda.cuDevicePrimaryCtxSetFlags(0, 0x20), R.CUDA_ERROR_INVALID_VALUE)
    fails(cuda.cuDevicePrimaryCtxSetFlags(3, 0), R.CUDA_ERROR_INVALID_DEVICE)
    ok(cuda.cuDevicePrimaryCtxRelease(0))


def test_backend_selection() -> None:
    from ptx2gcn.runtime.backends.protocol import BackendUnavailable, select_backend

    assert select_backend(environ={"PTX2GCN_BACKEND": " Emulator "}).name == "emulator"
    assert select_backend("cuda", environ={"PTX2GCN_BACKEND": "emulator"}).name == "cuda"  # explicit wins
    if not os.path.exists("/dev/kfd"):
        assert select_backend(environ={}).name == "emulator"  # no AMD GPU visible
    with pytest.raises(BackendUnavailable, match="unknown backend 'metal'"):
        select_backend(environ={"PTX2GCN_BACKEND": "metal"})


def test_device_uuid_is_stable_and_per_device(driver: None) -> None:
    ok(cuda.cuInit(0))
    first = ok(cuda.cuDeviceGetUuid(0))
    assert isinstance(first, cuda.CUuuid) and len(first.bytes) == 16
    assert ok(cuda.cuDeviceGetUuid(cuda.CUdevice(0))) == first
    assert first.bytes[6] >> 4 == 5  # RFC 4122 version 5
    fails(cuda.cuDeviceGetUuid(7), R.CUDA_ERROR_INVALID_DEVICE)


def test_a_forked_child_gets_not_initialized(context: object) -> None:
    """CUDA does not survive fork: in the child every call, cuInit included, is NOT_INITIALIZED."""
    import os

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report the codes through the pipe, then leave without cleanup
        codes = [int(cuda.cuInit(0)[0]), int(cuda.cuMemAlloc(16)[0]), int(cuda.cuDeviceGetCount()[0])]
        os.write(write, bytes(codes))
        os._exit(0)
    os.close(write)
    codes = list(os.read(read, 16))
    os.waitpid(pid, 0)
    assert codes == [R.CUDA_ERROR_NOT_INITIALIZED] * 3
    assert ok(cuda.cuMemAlloc(16))  # the parent is unaffected
