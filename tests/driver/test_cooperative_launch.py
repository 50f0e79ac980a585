"""``cuLaunchCooperativeKernel`` and ``cuLaunchKernelEx``'s cooperative attribute on the emulator:
nvcc's grid-wide barrier (``tests/emu/data/grid_sync.ptx``, from ``grid_sync.cu``) completes only
when every block is resident and the grid-sync workspace is passed; a plain launch of the same kernel
traps, as on CUDA (``grid.sync()`` on a null workspace); a grid larger than the device holds at the
kernel's occupancy is ``CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE``."""

from __future__ import annotations

import ctypes
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ptx2gcn import cuda
from tests.driver.conftest import fails, ok

R = cuda.CUresult
PTX = Path(__file__).resolve().parents[1] / "emu" / "data" / "grid_sync.ptx"


def _setup(blocks: int, threads: int) -> tuple[object, list[int], tuple[tuple[object, ...], tuple[object, ...]], int]:
    module = ok(cuda.cuModuleLoadData(PTX.read_bytes() + b"\0"))
    function = ok(cuda.cuModuleGetFunction(module, b"three_phases"))
    n = blocks * threads
    pointers = [ok(cuda.cuMemAlloc(4 * n)) for _ in range(2)]
    return function, pointers, ((*pointers, n), (None, None, ctypes.c_int)), n


def _expected(n: int) -> np.ndarray:
    i = np.arange(n)
    return 3 * ((n - 1 - i + 37) % n) + 1


def test_cooperative_launch_runs_grid_barriers(context: cuda.CUcontext) -> None:
    function, pointers, params, n = _setup(5, 64)
    ok(cuda.cuLaunchCooperativeKernel(function, 5, 1, 1, 64, 1, 1, 0, 0, params))
    out = np.zeros(n, dtype=np.int32)
    ok(cuda.cuMemcpyDtoH(out, pointers[1], 4 * n))
    np.testing.assert_array_equal(out, _expected(n))


def test_cooperative_attribute_of_launch_kernel_ex(context: cuda.CUcontext) -> None:
    function, pointers, params, n = _setup(3, 128)
    attrs = [SimpleNamespace(id=2, value=SimpleNamespace(cooperative=1))]
    config = SimpleNamespace(gridDimX=3, gridDimY=1, gridDimZ=1, blockDimX=128, blockDimY=1, blockDimZ=1,
                             sharedMemBytes=0, hStream=0, attrs=attrs, numAttrs=1)  # fmt: skip
    ok(cuda.cuLaunchKernelEx(config, function, params, 0))
    out = np.zeros(n, dtype=np.int32)
    ok(cuda.cuMemcpyDtoH(out, pointers[1], 4 * n))
    np.testing.assert_array_equal(out, _expected(n))


def test_plain_launch_of_a_grid_sync_kernel_traps(context: cuda.CUcontext) -> None:
    function, _pointers, params, _n = _setup(2, 64)
    fails(cuda.cuLaunchKernel(function, 2, 1, 1, 64, 1, 1, 0, 0, params, 0), R.CUDA_ERROR_LAUNCH_FAILED)


def test_oversized_cooperative_grid_is_refused_before_running(context: cuda.CUcontext) -> None:
    function, _pointers, params, _n = _setup(1, 64)
    per_cu = ok(cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(function, 64, 0))
    units = ok(cuda.cuDeviceGetAttribute(cuda.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0))
    assert per_cu > 0
    fails(cuda.cuLaunchCooperativeKernel(function, per_cu * units + 1, 1, 1, 64, 1, 1, 0, 0, params),
          R.CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)
