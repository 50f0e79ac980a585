"""A two-pass sum reduction through the CUDA driver API, written as for cuda-python.

With NVIDIA's cuda-python this script runs with ``from cuda.bindings import driver as cuda`` in
``cuda_check.py``; on ptx2gcn only that import changes. The kernel, ``reduction.ptx`` (nvcc 13.0's
PTX, compute_80, its CUDA source in the file's header comment), sums 2 * blockDim.x floats per block
in dynamic shared memory with a barrier per tree level.

Run: ``python examples/reduction.py [N]``. The data are small integers, so every partial sum is
exact in float32 and the result must equal numpy's exactly.
"""

import ctypes
import sys

import numpy as np
from cuda_check import check, cuda, kernel_ptx  # the one place that names the driver API

PTX = kernel_ptx("reduction")

THREADS = 128


def reduce_once(kernel, d_in, n):
    """One pass: n values -> ceil(n / (2 * THREADS)) partial sums; returns (device pointer, count)."""
    blocks = (n + 2 * THREADS - 1) // (2 * THREADS)
    d_out = check(cuda.cuMemAlloc(4 * blocks))
    args = ((d_in, d_out, n), (None, None, ctypes.c_uint))
    check(cuda.cuLaunchKernel(kernel, blocks, 1, 1, THREADS, 1, 1, 4 * THREADS, 0, args, 0))
    return d_out, blocks


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    check(cuda.cuInit(0))
    context = check(cuda.cuCtxCreate(None, 0, check(cuda.cuDeviceGet(0))))
    module = check(cuda.cuModuleLoadData(PTX))
    kernel = check(cuda.cuModuleGetFunction(module, b"block_sum"))

    data = np.random.default_rng(1).integers(0, 16, n).astype(np.float32)
    d_data = check(cuda.cuMemAlloc(4 * n))
    check(cuda.cuMemcpyHtoD(d_data, data, 4 * n))
    pointer, count = d_data, n
    while count > 1:
        next_pointer, count = reduce_once(kernel, pointer, count)
        check(cuda.cuMemFree(pointer))
        pointer = next_pointer
    check(cuda.cuCtxSynchronize())
    total = np.zeros(1, dtype=np.float32)
    check(cuda.cuMemcpyDtoH(total, pointer, 4))
    check(cuda.cuMemFree(pointer))

    expected = float(data.sum(dtype=np.float64))
    ok = float(total[0]) == expected
    print(f"sum of {n} values: {total[0]:.1f} (numpy {expected:.1f}): {'PASS' if ok else 'FAIL'}")
    check(cuda.cuModuleUnload(module))
    check(cuda.cuCtxDestroy(context))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
