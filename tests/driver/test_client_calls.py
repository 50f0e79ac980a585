"""Occupancy (gfx942 limits), settable attributes and cache preferences, stream callbacks and host
functions, async memsets, peer access, IPC and the profiler, checked against CUDA's documented
behaviour and the gfx942 resource rules written out here."""

from __future__ import annotations

import ctypes

import numpy as np

from ptx2gcn import cuda
from tests.driver.conftest import KERNELS_PTX, fails, ok

R = cuda.CUresult
F = cuda.CUfunction_attribute


def _function(module: cuda.CUmodule, name: bytes = b"vector_add") -> cuda.CUfunction:
    return ok(cuda.cuModuleGetFunction(module, name))


def _expected_blocks(vgprs: int, static_lds: int, block: int, dynamic: int) -> int:
    """gfx942, from the CDNA3 ISA and LLVM's AMDGPU model: 4 SIMDs x 8 wave slots, 512 VGPRs per
    lane allocated in granules of 8, 64 KiB LDS, 16 barriers for multi-wave work-groups."""
    waves = (block + 63) // 64
    per_simd = min(8, 512 // max(8, (vgprs + 7) // 8 * 8))
    limits = [4 * per_simd // waves, 32 if waves == 1 else 16]
    if static_lds + dynamic:
        limits.append(65536 // (static_lds + dynamic))
    return min(limits)


def test_occupancy_follows_register_and_lds_use(module: cuda.CUmodule) -> None:
    function = _function(module)
    vgprs = ok(cuda.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_NUM_REGS, function))
    static = ok(cuda.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function))
    for block, dynamic in [(64, 0), (256, 0), (1024, 0), (128, 20000), (64, 65536 - static)]:
        got = ok(cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(function, block, dynamic))
        assert got == _expected_blocks(vgprs, static, block, dynamic), (block, dynamic)
    assert ok(cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(function, 2048, 0)) == 0  # above the maximum
    assert ok(cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(function, 64, 65537)) == 0
    assert ok(cuda.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(function, 256, 0, 1)) == ok(
        cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(function, 256, 0)
    )
    fails(cuda.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(function, 256, 0, 4), R.CUDA_ERROR_INVALID_VALUE)
    grid, block = ok(cuda.cuOccupancyMaxPotentialBlockSize(function, None, 0, 0))
    blocks = ok(cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(function, block, 0))
    best = max(s * _expected_blocks(vgprs, static, s, 0) for s in range(64, 1025, 64))
    assert block % 64 == 0 and block * blocks == best and grid == blocks * 304  # MI300X: 304 CUs
    assert ok(cuda.cuOccupancyMaxPotentialBlockSizeWithFlags(function, None, 0, 128, 0))[1] <= 128
    grid, block = ok(cuda.cuOccupancyMaxPotentialBlockSize(function, lambda size: 256 * size, 0, 0))
    assert block * 256 <= 65536  # the callback's dynamic shared memory must fit
    assert ok(cuda.cuOccupancyAvailableDynamicSMemPerBlock(function, 2, 64)) == 32768 - static


def test_settable_attributes_and_cache_preferences(module: cuda.CUmodule) -> None:
    function = _function(module)
    ok(cuda.cuFuncSetAttribute(function, F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1000))
    assert ok(cuda.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, function)) == 1000
    ok(cuda.cuFuncSetAttribute(function, F.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 50))
    fails(cuda.cuFuncSetAttribute(function, F.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 101),
          R.CUDA_ERROR_INVALID_VALUE, "percentage")  # fmt: skip
    fails(cuda.cuFuncSetAttribute(function, F.CU_FUNC_ATTRIBUTE_NUM_REGS, 8), R.CUDA_ERROR_INVALID_VALUE, "read-only")
    fails(cuda.cuFuncSetAttribute(function, F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1 << 20),
          R.CUDA_ERROR_INVALID_VALUE)  # fmt: skip
    library = ok(cuda.cuLibraryLoadData(KERNELS_PTX.read_bytes() + b"\0", [], [], 0, [], [], 0))
    kernel = ok(cuda.cuLibraryGetKernel(library, b"block_sum"))
    ok(cuda.cuKernelSetAttribute(F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 4096, kernel, 0))
    assert ok(cuda.cuKernelGetAttribute(F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, kernel, 0)) == 4096
    fails(cuda.cuKernelSetAttribute(F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1, kernel, 3),
          R.CUDA_ERROR_INVALID_DEVICE)  # fmt: skip
    prefer_l1 = cuda.CUfunc_cache.CU_FUNC_CACHE_PREFER_L1
    ok(cuda.cuFuncSetCacheConfig(function, prefer_l1))
    ok(cuda.cuKernelSetCacheConfig(kernel, prefer_l1, 0))
    ok(cuda.cuCtxSetCacheConfig(prefer_l1))
    assert ok(cuda.cuCtxGetCacheConfig()) == prefer_l1
    fails(cuda.cuFuncSetCacheConfig(function, 9), R.CUDA_ERROR_INVALID_VALUE)
    ok(cuda.cuFuncSetSharedMemConfig(function, 2))
    fails(cuda.cuFuncSetSharedMemConfig(function, 3), R.CUDA_ERROR_INVALID_VALUE)


def test_callbacks_and_host_functions_run_in_stream_order(module: cuda.CUmodule) -> None:
    stream = ok(cuda.cuStreamCreate(0))
    device = ok(cuda.cuMemAlloc(64))
    seen: list[object] = []
    ok(cuda.cuMemsetD32Async(device, 7, 16, stream))
    ok(cuda.cuStreamAddCallback(stream, lambda s, status, data: seen.append((s, status, data)), "user", 0))
    assert seen == [(stream, R.CUDA_SUCCESS, "user")]
    out = np.zeros(16, dtype=np.uint32)
    ok(cuda.cuLaunchHostFunc(stream, lambda data: seen.append(data), 42))
    assert seen[-1] == 42
    # C function pointers, as the C ABI passes them: the callback sees the fill already done.
    host_fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda data: ok(cuda.cuMemcpyDtoH(out, device, 64)))
    ok(cuda.cuLaunchHostFunc(stream, ctypes.cast(host_fn, ctypes.c_void_p).value, 0))
    assert out.tolist() == [7] * 16
    ok(cuda.cuMemsetD8Async(device, 1, 64, cuda.CU_STREAM_LEGACY))
    ok(cuda.cuMemsetD16Async(device, 0x0202, 2, cuda.CU_STREAM_PER_THREAD))
    ok(cuda.cuMemcpyDtoH(out, device, 64))
    assert out[0] == 0x02020202 and out[1] == 0x01010101
    fails(cuda.cuStreamAddCallback(stream, lambda *a: None, None, 1), R.CUDA_ERROR_INVALID_VALUE, "flags")
    fails(cuda.cuLaunchHostFunc(stream, 0, None), R.CUDA_ERROR_INVALID_VALUE, "NULL")
    fails(cuda.cuMemsetD8Async(device, 1, 65, stream), R.CUDA_ERROR_INVALID_VALUE)


def test_peer_access_ipc_and_profiler(context: cuda.CUcontext) -> None:
    assert ok(cuda.cuDeviceCanAccessPeer(0, 0)) == 0
    fails(cuda.cuDeviceCanAccessPeer(0, 1), R.CUDA_ERROR_INVALID_DEVICE)
    fails(cuda.cuCtxEnablePeerAccess(context, 0), R.CUDA_ERROR_PEER_ACCESS_UNSUPPORTED)
    fails(cuda.cuCtxDisablePeerAccess(context), R.CUDA_ERROR_PEER_ACCESS_NOT_ENABLED)
    device = ok(cuda.cuMemAlloc(64))
    fails(cuda.cuIpcGetMemHandle(device), R.CUDA_ERROR_NOT_SUPPORTED, "IPC")
    fails(cuda.cuIpcGetMemHandle(12345), R.CUDA_ERROR_INVALID_VALUE)
    fails(cuda.cuIpcCloseMemHandle(device), R.CUDA_ERROR_INVALID_VALUE)
    event = ok(cuda.cuEventCreate(0))
    fails(cuda.cuIpcGetEventHandle(event), R.CUDA_ERROR_NOT_SUPPORTED)
    ok(cuda.cuProfilerStart())
    ok(cuda.cuProfilerStop())


CONST_PTX = b"""
.version 7.0
.target sm_80
.address_size 64
.const .align 8 .b8 table[80];
.const .align 4 .f32 grid[4][2];
.visible .entry reads_const(.param .u64 out)
{
  .reg .b32 %r<2>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  ld.const.u32 %r1, [table];
  st.global.u32 [%rd1], %r1;
  ret;
}
"""


def test_const_size_counts_the_modules_const_variables(context: cuda.CUcontext) -> None:
    module = ok(cuda.cuModuleLoadData(CONST_PTX + b"\0"))
    function = ok(cuda.cuModuleGetFunction(module, b"reads_const"))
    assert ok(cuda.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, function)) == 80 + 4 * 2 * 4
    plain = ok(cuda.cuModuleGetFunction(ok(cuda.cuModuleLoad(str(KERNELS_PTX))), b"vector_add"))
    assert ok(cuda.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, plain)) == 0
