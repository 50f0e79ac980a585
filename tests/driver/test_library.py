"""cuLibrary*/cuKernel* (context-independent code) and cuLaunchKernelEx, checked against numpy and
CUDA's documented codes."""

from __future__ import annotations

import ctypes
from types import SimpleNamespace

import numpy as np

from ptx2gcn import cuda
from tests.driver.conftest import KERNELS_PTX, fails, ok

R = cuda.CUresult
N = 200


def _vector_add(function: object, launch_ex: SimpleNamespace | None = None) -> None:
    a, b = np.random.default_rng(3).random((2, N), dtype=np.float32)
    pointers = [ok(cuda.cuMemAlloc(4 * N)) for _ in range(3)]
    ok(cuda.cuMemcpyHtoD(pointers[0], a, 4 * N))
    ok(cuda.cuMemcpyHtoD(pointers[1], b, 4 * N))
    params = ((*pointers, N), (None, None, None, ctypes.c_int))
    if launch_ex is None:
        ok(cuda.cuLaunchKernel(function, 2, 1, 1, 128, 1, 1, 0, 0, params, 0))
    else:
        ok(cuda.cuLaunchKernelEx(launch_ex, function, params, 0))
    out = np.zeros(N, dtype=np.float32)
    ok(cuda.cuMemcpyDtoH(out, pointers[2], 4 * N))
    assert np.array_equal(out, a + b)


def test_library_kernel_function_and_global(context: cuda.CUcontext) -> None:
    ptx = KERNELS_PTX.read_bytes() + b"\0"
    library = ok(cuda.cuLibraryLoadData(ptx, [], [], 0, [], [], 0))
    kernel = ok(cuda.cuLibraryGetKernel(library, b"vector_add"))
    assert ok(cuda.cuLibraryGetKernel(library, b"vector_add")) == kernel  # one handle per name
    assert ok(cuda.cuKernelGetLibrary(kernel)) == library
    function = ok(cuda.cuKernelGetFunction(kernel))
    module = ok(cuda.cuLibraryGetModule(library))
    assert ok(cuda.cuModuleGetFunction(module, b"vector_add")) == function  # the library's module
    assert ok(cuda.cuLibraryGetKernelCount(library)) == 5  # the five __global__ functions of kernels.cu
    threads = cuda.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
    assert ok(cuda.cuKernelGetAttribute(threads, kernel, 0)) == ok(cuda.cuFuncGetAttribute(threads, function))
    _vector_add(function)
    _vector_add(kernel)  # CUDA lets a CUkernel stand for a CUfunction in launches
    fails(cuda.cuLibraryGetKernel(library, b"nope"), R.CUDA_ERROR_NOT_FOUND, "no kernel named 'nope'")
    fails(cuda.cuLibraryGetGlobal(library, b"nope"), R.CUDA_ERROR_NOT_FOUND)
    ok(cuda.cuLibraryUnload(library))
    fails(cuda.cuKernelGetFunction(kernel), R.CUDA_ERROR_INVALID_HANDLE, "kernel")
    fails(cuda.cuLibraryGetModule(library), R.CUDA_ERROR_INVALID_HANDLE, "library")
    fails(cuda.cuModuleGetFunction(module, b"vector_add"), R.CUDA_ERROR_INVALID_HANDLE)  # unloaded with it


def test_library_loaded_without_context_is_loaded_lazily_per_context(driver: None, tmp_path: object) -> None:
    ok(cuda.cuInit(0))
    library = ok(cuda.cuLibraryLoadFromFile(str(KERNELS_PTX).encode(), [], [], 0, [1], [0], 1))
    # Kernels are context-independent (the CUDA runtime asks for them before any context is
    # current): the name is checked against the image's PTX, nothing is compiled.
    kernel = ok(cuda.cuLibraryGetKernel(library, b"vector_add"))
    fails(cuda.cuLibraryGetKernel(library, b"no_such_kernel"), R.CUDA_ERROR_NOT_FOUND)
    first = ok(cuda.cuCtxCreate(0, 0))
    assert ok(cuda.cuLibraryGetKernel(library, b"vector_add")) == kernel
    _vector_add(kernel)
    ok(cuda.cuCtxDestroy(first))
    second = ok(cuda.cuCtxCreate(0, 0))
    _vector_add(kernel)  # a fresh module in the new context, same CUkernel
    ok(cuda.cuCtxDestroy(second))
    ok(cuda.cuLibraryUnload(library))
    fails(cuda.cuLibraryLoadFromFile(b"/no/such/file.ptx", [], [], 0, [], [], 0), R.CUDA_ERROR_FILE_NOT_FOUND)


def test_bad_library_fails_at_load_with_the_log(context: cuda.CUcontext) -> None:
    log = bytearray(512)
    bad = b".version 9.0\n.target sm_80\n.address_size 64\n.visible .entry k() { bogus.u32 %r1; }\0"
    options = [cuda.CUjit_option.CU_JIT_ERROR_LOG_BUFFER, cuda.CUjit_option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES]
    fails(cuda.cuLibraryLoadData(bad, options, [log, len(log)], 2, [], [], 0), R.CUDA_ERROR_INVALID_PTX)
    assert b"undeclared register" in bytes(log)
    fails(cuda.cuLibraryLoadData(bad, [], [], 0, [7], [0], 1), R.CUDA_ERROR_INVALID_VALUE, "CUlibraryOption")


def _config(grid: int, block: int, attrs: list[SimpleNamespace]) -> SimpleNamespace:
    return SimpleNamespace(
        gridDimX=grid, gridDimY=1, gridDimZ=1, blockDimX=block, blockDimY=1, blockDimZ=1,
        sharedMemBytes=0, hStream=0, attrs=attrs, numAttrs=len(attrs),
    )  # fmt: skip


def test_launch_kernel_ex_and_its_attributes(module: cuda.CUmodule) -> None:
    function = ok(cuda.cuModuleGetFunction(module, b"vector_add"))
    priority = SimpleNamespace(id=8, value=SimpleNamespace(priority=1))
    one_cluster = SimpleNamespace(id=4, value=SimpleNamespace(clusterDim=SimpleNamespace(x=1, y=1, z=1)))
    _vector_add(function, _config(2, 128, [priority, one_cluster]))
    params = ((0, 0, 0, 0), (None, None, None, ctypes.c_int))
    cooperative = SimpleNamespace(id=2, value=SimpleNamespace(cooperative=1))
    _vector_add(function, _config(2, 128, [cooperative]))  # a cooperative launch of a plain kernel
    fails(cuda.cuLaunchKernelEx(_config(304 * 33, 64, [cooperative]), function, params, 0),
          R.CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)
    cluster = SimpleNamespace(id=4, value=SimpleNamespace(clusterDim=SimpleNamespace(x=2, y=1, z=1)))
    fails(cuda.cuLaunchKernelEx(_config(2, 64, [cluster]), function, params, 0), R.CUDA_ERROR_NOT_SUPPORTED)
    fails(cuda.cuLaunchKernelEx(None, function, params, 0), R.CUDA_ERROR_INVALID_VALUE, "config")
    fails(cuda.cuLaunchKernelEx(_config(0, 64, []), function, params, 0), R.CUDA_ERROR_INVALID_VALUE, "gridDimX")
