"""Vector addition through the CUDA driver API, written as for cuda-python.

With NVIDIA's cuda-python this script runs with ``from cuda.bindings import driver as cuda``; on
ptx2gcn only that import changes. The kernel is nvcc's PTX for::

    extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
    { int i = blockDim.x * blockIdx.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }

Run: ``python examples/vector_add.py [N]`` (PTX2GCN_BACKEND picks emulator, hip or cuda).
"""

import ctypes
import sys

import numpy as np

from ptx2gcn import cuda  # with cuda-python: from cuda.bindings import driver as cuda

PTX = b"""
.version 8.0
.target sm_80
.address_size 64

.visible .entry vector_add(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .f32 %f<4>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<11>;

    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.param.u64 %rd3, [c];
    ld.param.u32 %r2, [n];
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %ctaid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r1, %r3, %r4, %r5;
    setp.ge.s32 %p1, %r1, %r2;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd4, %rd1;
    mul.wide.s32 %rd5, %r1, 4;
    add.s64 %rd6, %rd4, %rd5;
    cvta.to.global.u64 %rd7, %rd2;
    add.s64 %rd8, %rd7, %rd5;
    ld.global.f32 %f1, [%rd8];
    ld.global.f32 %f2, [%rd6];
    add.f32 %f3, %f2, %f1;
    cvta.to.global.u64 %rd9, %rd3;
    add.s64 %rd10, %rd9, %rd5;
    st.global.f32 [%rd10], %f3;
DONE:
    ret;
}
"""


def check(result):
    err, *values = result
    if err != cuda.CUresult.CUDA_SUCCESS:
        _, name = cuda.cuGetErrorName(err)
        raise RuntimeError(f"CUDA error {name.decode()}")
    return values[0] if len(values) == 1 else values


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
