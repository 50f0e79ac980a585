"""cuCtxSetLimit/cuCtxGetLimit (the printf FIFO size), and the emulator's %smid and %gridid as a
program sees them through the driver API: each work-group's compute unit follows the documented
MI300X placement model (runtime/emulator/placement.py), and launches are numbered per device."""

from __future__ import annotations

from typing import Any

import numpy as np

from ptx2gcn import cuda
from tests.driver.conftest import fails, ok

IDS_PTX = b"""
.version 8.0
.target sm_80
.address_size 64
.visible .entry ids(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %smid;
    mov.u32 %r3, %nsmid;
    mov.u64 %rd2, %gridid;
    mul.wide.u32 %rd3, %r1, 16;
    add.s64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4], %r2;
    st.global.u32 [%rd4+4], %r3;
    st.global.u64 [%rd4+8], %rd2;
    ret;
}
"""


def test_printf_fifo_limit(context: cuda.CUcontext) -> None:
    limit = cuda.CUlimit.CU_LIMIT_PRINTF_FIFO_SIZE
    assert ok(cuda.cuCtxGetLimit(limit)) == 1 << 20  # CUDA's default cudaLimitPrintfFifoSize
    ok(cuda.cuCtxSetLimit(limit, 4 << 20))
    assert ok(cuda.cuCtxGetLimit(limit)) == 4 << 20
    ok(cuda.cuCtxSetLimit(limit, 1001))
    assert ok(cuda.cuCtxGetLimit(limit)) == 1008  # whole 8-byte records
    fails(cuda.cuCtxSetLimit(limit, 0), cuda.CUresult.CUDA_ERROR_INVALID_VALUE, "outside")
    fails(cuda.cuCtxGetLimit(cuda.CUlimit.CU_LIMIT_MALLOC_HEAP_SIZE), cuda.CUresult.CUDA_ERROR_UNSUPPORTED_LIMIT)
    fails(cuda.cuCtxSetLimit(99, 1), cuda.CUresult.CUDA_ERROR_INVALID_VALUE)


def test_limits_need_a_context(driver: None) -> None:
    ok(cuda.cuInit(0))
    fails(cuda.cuCtxGetLimit(cuda.CUlimit.CU_LIMIT_PRINTF_FIFO_SIZE), cuda.CUresult.CUDA_ERROR_INVALID_CONTEXT)


def _run_ids(function: Any, blocks: int) -> np.ndarray:
    out = ok(cuda.cuMemAlloc(16 * blocks))
    ok(cuda.cuLaunchKernel(function, blocks, 1, 1, 1, 1, 1, 0, 0, ((out,), (None,)), 0))
    raw = np.zeros(4 * blocks, dtype=np.uint32)
    ok(cuda.cuMemcpyDtoH(raw.ctypes.data, out, 16 * blocks))
    ok(cuda.cuMemFree(out))
    return raw.reshape(blocks, 4)


def test_smid_follows_the_placement_model_and_gridid_counts_launches(context: cuda.CUcontext) -> None:
    function = ok(cuda.cuModuleGetFunction(ok(cuda.cuModuleLoadData(IDS_PTX)), b"ids"))
    first = _run_ids(function, 305)
    smid, nsmid = first[:, 0], first[:, 1]
    # hand-computed from the model: block b on XCC b % 8, CU c = (b // 8) % 38 of it, encoded as
    # XCC << 8 | SE (c // 10) << 5 | CU-in-SE (c % 10)
    expected = {0: 0x000, 1: 0x100, 7: 0x700, 8: 0x001, 9: 0x101, 80: 0x020, 87: 0x720, 299: 0x367, 304: 0x000}
    assert {b: int(smid[b]) for b in expected} == expected
    assert len(set(smid[:304].tolist())) == 304  # 304 work-groups fill MI300X's 304 CUs once
    assert (smid < nsmid).all() and (nsmid == 4096).all()
    assert (first[:, 2] == 0).all() and (first[:, 3] == 0).all()  # %gridid of the first launch
    for launch in (1, 2):
        again = _run_ids(function, 3)
        assert (again[:, 2] == launch).all() and (again[:, 3] == 0).all()
        assert again[:, 0].tolist() == smid[:3].tolist()  # placement is deterministic


def test_gridid_restarts_in_a_new_context(context: cuda.CUcontext) -> None:
    ok(cuda.cuCtxDestroy(context))
    fresh = ok(cuda.cuCtxCreate(0, 0))
    function = ok(cuda.cuModuleGetFunction(ok(cuda.cuModuleLoadData(IDS_PTX)), b"ids"))
    assert _run_ids(function, 1)[0, 2] == 0
    ok(cuda.cuCtxDestroy(fresh))
