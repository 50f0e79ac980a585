"""Vector addition through the CUDA driver API, written as for cuda-python.

With NVIDIA's cuda-python this script runs with ``from cuda.bindings import driver as cuda`` in
``cuda_check.py``; on ptx2gcn only that import changes. The kernel, ``vector_add.ptx``, is nvcc's PTX
for ``c[i] = a[i] + b[i]`` over ``i < n`` (its CUDA source is in the file's header comment).

Run: ``python examples/vector_add.py [N]`` (PTX2GCN_BACKEND picks emulator, hip or cuda).
"""

import ctypes
import sys

import numpy as np
from cuda_check import check, cuda, kernel_ptx  # the one place that names the driver API

PTX = kernel_ptx("vector_add")


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    nbytes = n * 4
    check(cuda.cuInit(0))
    device = check(cuda.cuDeviceGet(0))
    context = check(cuda.cuCtxCreate(None, 0, device))
    name = check(cuda.cuDeviceGetName(128, device)).split(b"\0")[0].decode()
    module = check(cuda.cuModuleLoadData(PTX))
    kernel = check(cuda.cuModuleGetFunction(module, b"vector_add"))

    rng = np.random.default_rng(0)
    h_a = rng.random(n, dtype=np.float32)
    h_b = rng.random(n, dtype=np.float32)
    h_c = np.zeros(n, dtype=np.float32)
    d_a, d_b, d_c = (check(cuda.cuMemAlloc(nbytes)) for _ in range(3))
    stream = check(cuda.cuStreamCreate(0))
    check(cuda.cuMemcpyHtoDAsync(d_a, h_a, nbytes, stream))
    check(cuda.cuMemcpyHtoDAsync(d_b, h_b, nbytes, stream))

    threads = 256
    blocks = (n + threads - 1) // threads
    args = ((d_a, d_b, d_c, n), (None, None, None, ctypes.c_int))
    start, stop = check(cuda.cuEventCreate(0)), check(cuda.cuEventCreate(0))
    check(cuda.cuEventRecord(start, stream))
    check(cuda.cuLaunchKernel(kernel, blocks, 1, 1, threads, 1, 1, 0, stream, args, 0))
    check(cuda.cuEventRecord(stop, stream))
    check(cuda.cuMemcpyDtoHAsync(h_c, d_c, nbytes, stream))
    check(cuda.cuStreamSynchronize(stream))
    milliseconds = check(cuda.cuEventElapsedTime(start, stop))

    ok = np.array_equal(h_c, h_a + h_b)
    print(f"vector_add of {n} floats on {name}: {'PASS' if ok else 'FAIL'} ({milliseconds:.3f} ms)")
    for pointer in (d_a, d_b, d_c):
        check(cuda.cuMemFree(pointer))
    check(cuda.cuStreamDestroy(stream))
    check(cuda.cuModuleUnload(module))
    check(cuda.cuCtxDestroy(context))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
