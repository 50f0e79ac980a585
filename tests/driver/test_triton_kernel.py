"""A Triton-generated kernel (corpora/triton/sm_80/add_kernel.ptx: Triton 3.9, BLOCK=1024, 4 warps)
launched the way Triton's CUDA launcher does it: the four user arguments plus Triton's two scratch
pointers (null here), a 128-thread block per 1024 elements. Checked against numpy."""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np

from ptx2gcn import cuda
from tests.driver.conftest import ok

ADD_KERNEL = Path(__file__).resolve().parents[2] / "corpora" / "triton" / "sm_80" / "add_kernel.ptx"


def test_triton_add_kernel(context: cuda.CUcontext) -> None:
    module = ok(cuda.cuModuleLoad(str(ADD_KERNEL)))
    kernel = ok(cuda.cuModuleGetFunction(module, b"add_kernel"))
    assert (
        ok(cuda.cuFuncGetAttribute(cuda.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, kernel))
        == 128
    )
    n = 2500  # not a multiple of BLOCK: the last program is masked
    rng = np.random.default_rng(7)
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    px, py, out = (ok(cuda.cuMemAlloc(4 * n + 64)) for _ in range(3))
    ok(cuda.cuMemcpyHtoD(px, x, 4 * n))
    ok(cuda.cuMemcpyHtoD(py, y, 4 * n))
    ok(cuda.cuMemsetD32(out, 0xDEADBEEF, n + 16))
    types = (None, None, None, ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p)
    ok(
        cuda.cuLaunchKernel(
            kernel, (n + 1023) // 1024, 1, 1, 128, 1, 1, 0, 0, ((px, py, out, n, 0, 0), types), 0
        )
    )
    result = np.zeros(n + 16, dtype=np.float32)
    ok(cuda.cuMemcpyDtoH(result, out, 4 * (n + 16)))
    assert np.array_equal(result[:n], x + y)
    assert (result[n:].view(np.uint32) == 0xDEADBEEF).all()  # nothing written past n
    fails_block = cuda.cuLaunchKernel(kernel, 1, 1, 1, 256, 1, 1, 0, 0, ((px, py, out, n, 0, 0), types), 0)
    assert fails_block[0] == cuda.CUresult.CUDA_ERROR_INVALID_VALUE  # .reqntid 128
