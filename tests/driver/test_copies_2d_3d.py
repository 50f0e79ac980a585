"""Pitched 2D and 3D copies between host and device memory, checked against numpy slicing of the
same layouts (cuda.h's addressing: base + (z * height + y) * pitch + x)."""

from __future__ import annotations

import numpy as np

from ptx2gcn import cuda
from tests.driver.conftest import fails, ok

R = cuda.CUresult
M = cuda.CUmemorytype


def test_2d_copy_host_to_pitched_device_and_back(context: cuda.CUcontext) -> None:
    host = np.arange(6 * 10, dtype=np.uint8).reshape(6, 10)  # 6 rows of 10 bytes
    pitch = 16
    device = int(ok(cuda.cuMemAlloc(pitch * 6)))
    ok(cuda.cuMemsetD8(device, 0xEE, pitch * 6))
    up = cuda.CUDA_MEMCPY2D(
        srcMemoryType=M.CU_MEMORYTYPE_HOST, srcHost=host.ctypes.data, srcPitch=10, srcXInBytes=2, srcY=1,
        dstMemoryType=M.CU_MEMORYTYPE_DEVICE, dstDevice=device, dstPitch=pitch, dstXInBytes=3,
        WidthInBytes=5, Height=4,
    )  # fmt: skip
    ok(cuda.cuMemcpy2D(up))
    raw = np.zeros(pitch * 6, dtype=np.uint8)
    ok(cuda.cuMemcpyDtoH(raw, device, raw.nbytes))
    expected = np.full((6, pitch), 0xEE, dtype=np.uint8)
    expected[0:4, 3:8] = host[1:5, 2:7]
    assert (raw.reshape(6, pitch) == expected).all()
    back = np.zeros((4, 5), dtype=np.uint8)
    down = cuda.CUDA_MEMCPY2D(
        srcMemoryType=M.CU_MEMORYTYPE_UNIFIED, srcDevice=device, srcPitch=pitch, srcXInBytes=3,
        dstMemoryType=M.CU_MEMORYTYPE_UNIFIED, dstDevice=back.ctypes.data, dstPitch=5, WidthInBytes=5, Height=4,
    )  # fmt: skip
    ok(cuda.cuMemcpy2DAsync(down, ok(cuda.cuStreamCreate(0))))
    assert (back == host[1:5, 2:7]).all()
    up.WidthInBytes = 20  # wider than the source pitch
    fails(cuda.cuMemcpy2D(up), R.CUDA_ERROR_INVALID_VALUE, "srcPitch")
    up.WidthInBytes, up.Height = 5, 7  # the last rows fall outside the allocation: nothing is written
    ok(cuda.cuMemsetD8(device, 0, pitch * 6))
    fails(cuda.cuMemcpy2DUnaligned(up), R.CUDA_ERROR_INVALID_VALUE, "not inside device memory")
    ok(cuda.cuMemcpyDtoH(raw, device, raw.nbytes))
    assert not raw.any()
    up.dstMemoryType = M.CU_MEMORYTYPE_ARRAY  # no dstArray: copies to arrays are in test_textures.py
    fails(cuda.cuMemcpy2D(up), R.CUDA_ERROR_INVALID_HANDLE, "dstArray")


def test_3d_copy_of_a_sub_box(context: cuda.CUcontext) -> None:
    host = np.arange(4 * 5 * 6, dtype=np.uint8).reshape(4, 5, 6)  # z, y, x
    device = int(ok(cuda.cuMemAlloc(host.nbytes)))
    ok(cuda.cuMemsetD8(device, 0, host.nbytes))
    copy = cuda.CUDA_MEMCPY3D(
        srcMemoryType=M.CU_MEMORYTYPE_HOST, srcHost=host.ctypes.data, srcPitch=6, srcHeight=5,
        srcXInBytes=1, srcY=2, srcZ=1,
        dstMemoryType=M.CU_MEMORYTYPE_DEVICE, dstDevice=device, dstPitch=6, dstHeight=5,
        dstXInBytes=1, dstY=2, dstZ=1,
        WidthInBytes=4, Height=3, Depth=2,
    )  # fmt: skip
    ok(cuda.cuMemcpy3D(copy))
    out = np.zeros_like(host)
    ok(cuda.cuMemcpyDtoH(out, device, out.nbytes))
    expected = np.zeros_like(host)
    expected[1:3, 2:5, 1:5] = host[1:3, 2:5, 1:5]
    assert (out == expected).all()
    copy.srcLOD = 1
    fails(cuda.cuMemcpy3DAsync(copy, 0), R.CUDA_ERROR_INVALID_VALUE, "srcLOD")
