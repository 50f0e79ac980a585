"""Host memory the device addresses (one address space on the emulator), address ranges and pointer
attributes, checked against numpy and CUDA's documented behaviour."""

from __future__ import annotations

import ctypes

import numpy as np

from ptx2gcn import cuda
from tests.driver.conftest import fails, ok

R = cuda.CUresult
P = cuda.CUpointer_attribute
N = 96


def _vector_add(module: cuda.CUmodule, a: int, b: int, c: int) -> None:
    function = ok(cuda.cuModuleGetFunction(module, b"vector_add"))
    params = ((a, b, c, N), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int))
    ok(cuda.cuLaunchKernel(function, 1, 1, 1, 128, 1, 1, 0, 0, params, 0))


def _floats(address: int) -> np.ndarray:
    return np.ctypeslib.as_array((ctypes.c_float * N).from_address(address))


def test_mapped_host_memory_is_read_and_written_by_kernels(module: cuda.CUmodule) -> None:
    flags = cuda.CU_MEMHOSTALLOC_DEVICEMAP | cuda.CU_MEMHOSTALLOC_PORTABLE
    hosts = [ok(cuda.cuMemHostAlloc(4 * N, flags)) for _ in range(3)]
    devices = [int(ok(cuda.cuMemHostGetDevicePointer(h, 0))) for h in hosts]
    assert devices == hosts  # unified addressing: one address for host and device
    assert ok(cuda.cuMemHostGetFlags(hosts[0])) == flags
    a, b, c = (_floats(h) for h in hosts)
    a[:] = np.arange(N)
    b[:] = 0.5
    _vector_add(module, *devices)
    assert c.tolist() == (np.arange(N) + 0.5).tolist()  # the kernel wrote host memory, no copy
    copied = np.zeros(N, dtype=np.float32)
    ok(cuda.cuMemcpyDtoH(copied, devices[2], 4 * N))  # and copies see it as device memory
    assert copied.tolist() == c.tolist()
    for h in hosts:
        ok(cuda.cuMemFreeHost(h))
    fails(cuda.cuMemHostGetDevicePointer(hosts[0], 0), R.CUDA_ERROR_INVALID_VALUE, "not host memory mapped")
    fails(cuda.cuMemHostAlloc(16, 0x10), R.CUDA_ERROR_INVALID_VALUE, "Flags")


def test_registered_numpy_arrays_and_managed_memory(module: cuda.CUmodule) -> None:
    a = np.arange(N, dtype=np.float32)
    b = np.full(N, 2.0, dtype=np.float32)
    for array in (a, b):
        ok(cuda.cuMemHostRegister(array.ctypes.data, array.nbytes, cuda.CU_MEMHOSTREGISTER_DEVICEMAP))
    fails(cuda.cuMemHostRegister(a.ctypes.data + 8, 8, 0), R.CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
    c = ok(cuda.cuMemAllocManaged(4 * N, cuda.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL))
    _vector_add(module, a.ctypes.data, b.ctypes.data, int(c))
    assert _floats(int(c)).tolist() == (a + b).tolist()  # managed memory read directly by the host
    _floats(int(c))[:] = 1.0  # and written by the host, seen by the next kernel
    _vector_add(module, int(c), b.ctypes.data, a.ctypes.data)
    assert a.tolist() == [3.0] * N
    for array in (a, b):
        ok(cuda.cuMemHostUnregister(array.ctypes.data))
    fails(cuda.cuMemHostUnregister(a.ctypes.data), R.CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)
    ok(cuda.cuMemFree(c))
    fails(cuda.cuMemAllocManaged(16, cuda.CUmemAttach_flags.CU_MEM_ATTACH_SINGLE), R.CUDA_ERROR_INVALID_VALUE)
    fails(cuda.cuMemAllocManaged(0, 1), R.CUDA_ERROR_INVALID_VALUE)
    fails(cuda.cuMemHostRegister(a.ctypes.data, a.nbytes, cuda.CU_MEMHOSTREGISTER_IOMEMORY),
          R.CUDA_ERROR_NOT_SUPPORTED)  # fmt: skip


def test_address_range(context: cuda.CUcontext) -> None:
    block = int(ok(cuda.cuMemAlloc(1000)))
    base, size = ok(cuda.cuMemGetAddressRange(block + 999))
    assert (int(base), size) == (block, 1000)
    host = ok(cuda.cuMemAllocHost(64))
    assert [int(v) for v in ok(cuda.cuMemGetAddressRange(host + 10))] == [host, 64]
    fails(cuda.cuMemGetAddressRange(block + 1000 + (1 << 20)), R.CUDA_ERROR_NOT_FOUND)


def test_pointer_attributes(context: cuda.CUcontext) -> None:
    device = int(ok(cuda.cuMemAlloc(256)))
    host = ok(cuda.cuMemAllocHost(256))
    managed = int(ok(cuda.cuMemAllocManaged(256, cuda.CUmemAttach_flags.CU_MEM_ATTACH_HOST)))
    memory_type = P.CU_POINTER_ATTRIBUTE_MEMORY_TYPE
    type_of = {p: ok(cuda.cuPointerGetAttribute(memory_type, p)) for p in (device, host, managed)}
    M = cuda.CUmemorytype
    assert type_of == {device: M.CU_MEMORYTYPE_DEVICE, host: M.CU_MEMORYTYPE_HOST, managed: M.CU_MEMORYTYPE_DEVICE}
    assert ok(cuda.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_CONTEXT, device + 5)) == context
    assert ok(cuda.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_IS_MANAGED, managed)) is True
    assert ok(cuda.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_IS_MANAGED, device)) is False
    assert int(ok(cuda.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_DEVICE_POINTER, host + 3))) == host + 3
    assert int(ok(cuda.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, device + 9))) == device
    assert ok(cuda.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_RANGE_SIZE, device + 9)) == 256
    assert ok(cuda.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, device)) == 0
    fails(cuda.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_HOST_POINTER, device), R.CUDA_ERROR_INVALID_VALUE)
    # An address the driver does not know: an error for one attribute, zeros for the list form.
    stray = ctypes.create_string_buffer(8)
    fails(cuda.cuPointerGetAttribute(P.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ctypes.addressof(stray)),
          R.CUDA_ERROR_INVALID_VALUE)  # fmt: skip
    attributes = [P.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, P.CU_POINTER_ATTRIBUTE_IS_MANAGED]
    assert ok(cuda.cuPointerGetAttributes(2, attributes, ctypes.addressof(stray))) == [0, 0]
    assert ok(cuda.cuPointerGetAttributes(2, attributes, managed)) == [M.CU_MEMORYTYPE_DEVICE, True]
    fails(cuda.cuPointerGetAttributes(3, attributes, managed), R.CUDA_ERROR_INVALID_VALUE, "numAttributes")
