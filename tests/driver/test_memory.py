"""Memory calls: allocation, the three copy directions (+Async), memsets, host allocations, and their
error paths (sizes, ranges, freed blocks, read-only or short host buffers, bad streams)."""

from __future__ import annotations

import ctypes

import numpy as np

from ptx2gcn import cuda
from tests.driver.conftest import fails, ok

R = cuda.CUresult


def test_round_trip_and_device_copy(context: cuda.CUcontext) -> None:
    data = np.arange(64, dtype=np.uint32) * 3
    a, b = ok(cuda.cuMemAlloc(256)), ok(cuda.cuMemAlloc(256))
    assert isinstance(a, cuda.CUdeviceptr) and int(a) % 256 == 0
    ok(cuda.cuMemcpyHtoD(a, data, 256))
    ok(cuda.cuMemcpyDtoD(b, a, 256))
    back = np.zeros(64, dtype=np.uint32)
    ok(cuda.cuMemcpyDtoH(back, b, 256))
    assert back.tolist() == data.tolist()
    ok(cuda.cuMemcpyHtoD(int(a) + 16, bytes(range(8)), 8))  # interior address, bytes source
    raw = bytearray(24)
    ok(cuda.cuMemcpyDtoH(raw, int(a) + 8, 24))
    assert raw[8:16] == bytes(range(8)) and raw[:8] == data[2:4].tobytes()
    ok(cuda.cuMemFree(a))
    ok(cuda.cuMemFree(b))


def test_async_copies_on_a_stream(context: cuda.CUcontext) -> None:
    stream = ok(cuda.cuStreamCreate(0))
    d = ok(cuda.cuMemAlloc(16))
    ok(cuda.cuMemcpyHtoDAsync(d, np.array([1.5, 2.5], dtype=np.float64), 16, stream))
    e = ok(cuda.cuMemAlloc(16))
    ok(cuda.cuMemcpyDtoDAsync(e, d, 16, stream))
    out = np.zeros(2)
    ok(cuda.cuMemcpyDtoHAsync(out, e, 16, stream))
    ok(cuda.cuStreamSynchronize(stream))
    assert out.tolist() == [1.5, 2.5]
    fails(
        cuda.cuMemcpyHtoDAsync(d, b"x" * 16, 16, cuda.CUstream(0x1234)), R.CUDA_ERROR_INVALID_HANDLE, "stream"
    )


def test_memset(context: cuda.CUcontext) -> None:
    d = ok(cuda.cuMemAlloc(64))
    ok(cuda.cuMemsetD8(d, 0xAB, 64))
    ok(cuda.cuMemsetD32(int(d) + 8, 0x01020304, 4))
    out = bytearray(64)
    ok(cuda.cuMemcpyDtoH(out, d, 64))
    assert out == b"\xab" * 8 + bytes([4, 3, 2, 1]) * 4 + b"\xab" * 40
    fails(cuda.cuMemsetD32(int(d) + 2, 0, 1), R.CUDA_ERROR_INVALID_VALUE, "4-byte aligned")
    fails(cuda.cuMemsetD8(d, 256, 1), R.CUDA_ERROR_INVALID_VALUE, "uc = 256")
    fails(cuda.cuMemsetD32(d, 0, 17), R.CUDA_ERROR_INVALID_VALUE, "not inside device memory")


def test_allocation_errors(context: cuda.CUcontext) -> None:
    fails(cuda.cuMemAlloc(0), R.CUDA_ERROR_INVALID_VALUE, "greater than 0")
    fails(cuda.cuMemAlloc(-1), R.CUDA_ERROR_INVALID_VALUE)
    fails(cuda.cuMemAlloc(1 << 60), R.CUDA_ERROR_OUT_OF_MEMORY)
    d = ok(cuda.cuMemAlloc(32))
    fails(cuda.cuMemFree(int(d) + 4), R.CUDA_ERROR_INVALID_VALUE, "not the start")
    ok(cuda.cuMemFree(d))
    fails(cuda.cuMemFree(d), R.CUDA_ERROR_INVALID_VALUE, "freed already")
    ok(cuda.cuMemFree(0))  # free(NULL) semantics, as NVIDIA's driver: cudaFree(0) forwards here
    ok(cuda.cuMemFreeHost(0))
    fails(cuda.cuMemcpyHtoD(d, b"1234", 4), R.CUDA_ERROR_INVALID_VALUE, "not inside device memory")


def test_copy_errors(context: cuda.CUcontext) -> None:
    d = ok(cuda.cuMemAlloc(32))
    fails(cuda.cuMemcpyHtoD(d, b"x" * 64, 64), R.CUDA_ERROR_INVALID_VALUE, "dstDevice")  # past the end
    fails(cuda.cuMemcpyHtoD(d, b"x" * 8, 16), R.CUDA_ERROR_INVALID_VALUE, "holds 8 bytes")
    fails(cuda.cuMemcpyDtoH(b"y" * 16, d, 16), R.CUDA_ERROR_INVALID_VALUE, "read-only")
    fails(cuda.cuMemcpyDtoH(None, d, 16), R.CUDA_ERROR_INVALID_VALUE, "None")
    fails(cuda.cuMemcpyDtoH(np.zeros(8)[::2], d, 16), R.CUDA_ERROR_INVALID_VALUE, "contiguous")
    fails(cuda.cuMemcpyDtoD(d, 0x1000, 4), R.CUDA_ERROR_INVALID_VALUE, "srcDevice")
    fails(cuda.cuMemcpyHtoD(cuda.CUcontext(1), b"1234", 4), R.CUDA_ERROR_INVALID_HANDLE, "CUdeviceptr")
    fails(cuda.cuMemcpyHtoD(d, b"1234"), R.CUDA_ERROR_INVALID_VALUE, "ByteCount")
    ok(cuda.cuMemcpyHtoD(d, b"", 0))
    # 0 bytes: nothing is copied and neither pointer is checked (numba-cuda copies 0-sized arrays so)
    ok(cuda.cuMemcpyDtoH(0, 0, 0))
    ok(cuda.cuMemcpyHtoD(0, None, 0))
    ok(cuda.cuMemcpyDtoD(0, 0, 0))


def test_host_allocation(context: cuda.CUcontext) -> None:
    host = ok(cuda.cuMemAllocHost(16))
    assert isinstance(host, int)
    ctypes.memmove(host, b"0123456789abcdef", 16)
    d = ok(cuda.cuMemAlloc(16))
    ok(cuda.cuMemcpyHtoD(d, host, 16))  # an integer address is host memory, as in C
    out = bytearray(16)
    ok(cuda.cuMemcpyDtoH(out, d, 16))
    assert bytes(out) == b"0123456789abcdef"
    ok(cuda.cuMemFreeHost(host))
    fails(cuda.cuMemFreeHost(host), R.CUDA_ERROR_INVALID_VALUE, "cuMemAllocHost")
    fails(cuda.cuMemAllocHost(0), R.CUDA_ERROR_INVALID_VALUE)


def test_memory_needs_a_context(driver: None) -> None:
    ok(cuda.cuInit(0))
    fails(cuda.cuMemAlloc(16), R.CUDA_ERROR_INVALID_CONTEXT, "no current context")
    context = ok(cuda.cuCtxCreate(0, 0))
    d = ok(cuda.cuMemAlloc(16))
    ok(cuda.cuCtxDestroy(context))
    fails(cuda.cuMemFree(d), R.CUDA_ERROR_INVALID_CONTEXT)


def test_memset_d16_and_mem_get_info(context: cuda.CUcontext) -> None:
    free_before, total = ok(cuda.cuMemGetInfo())
    d = ok(cuda.cuMemAlloc(1 << 20))
    free_after, total_after = ok(cuda.cuMemGetInfo())
    assert total_after == total and free_before - free_after == 1 << 20
    ok(cuda.cuMemsetD16(int(d) + 2, 0xBEEF, 3))
    out = np.zeros(4, dtype=np.uint16)
    ok(cuda.cuMemcpyDtoH(out, d, 8))
    assert out.tolist() == [0, 0xBEEF, 0xBEEF, 0xBEEF]
    fails(cuda.cuMemsetD16(int(d) + 1, 0, 1), R.CUDA_ERROR_INVALID_VALUE, "2-byte aligned")
    fails(cuda.cuMemsetD16(d, 1 << 16, 1), R.CUDA_ERROR_INVALID_VALUE, "us = 65536")


def test_unified_copies_infer_the_direction(context: cuda.CUcontext) -> None:
    # UNIFIED_ADDRESSING is 1: cuMemcpy takes host and device addresses alike.
    data = np.arange(32, dtype=np.int32) - 7
    a, b = ok(cuda.cuMemAlloc(128)), ok(cuda.cuMemAlloc(128))
    ok(cuda.cuMemcpy(a, data.ctypes.data, 128))  # host -> device
    ok(cuda.cuMemcpyAsync(b, a, 128, 0))  # device -> device
    back = np.zeros(32, dtype=np.int32)
    ok(cuda.cuMemcpy(back.ctypes.data, b, 128))  # device -> host
    assert back.tolist() == data.tolist()
    copy = np.zeros(32, dtype=np.int32)
    ok(cuda.cuMemcpy(copy.ctypes.data, back.ctypes.data, 128))  # host -> host
    assert copy.tolist() == data.tolist()
    fails(cuda.cuMemcpy(0, back.ctypes.data, 128), R.CUDA_ERROR_INVALID_VALUE, "null")
    fails(cuda.cuMemcpyAsync(b, a, 128, cuda.CUstream(0x42)), R.CUDA_ERROR_INVALID_HANDLE)


def test_context_api_version_and_flags(context: cuda.CUcontext) -> None:
    assert ok(cuda.cuCtxGetApiVersion(context)) == 3020  # CUDA documents 3010 or 3020; _v2 contexts are 3020
    assert ok(cuda.cuCtxGetApiVersion(None)) == 3020  # NULL: the current context
    assert ok(cuda.cuCtxGetFlags()) == 0
    fails(cuda.cuCtxGetApiVersion(cuda.CUcontext(0x42)), R.CUDA_ERROR_INVALID_CONTEXT)
