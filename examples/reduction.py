"""A two-pass sum reduction through the CUDA driver API, written as for cuda-python.

With NVIDIA's cuda-python this script runs with ``from cuda.bindings import driver as cuda``; on
ptx2gcn only that import changes. The kernel (nvcc 13.0's PTX, compute_80) sums 2 * blockDim.x
floats per block in dynamic shared memory with a barrier per tree level::

    extern "C" __global__ void block_sum(const float *in, float *out, unsigned int n)
    {
        extern __shared__ float partial[];
        unsigned int tid = threadIdx.x, i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
        float v = 0.0f;
        if (i < n) v = in[i];
        if (i + blockDim.x < n) v += in[i + blockDim.x];
        partial[tid] = v;
        __syncthreads();
        for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (tid < s) partial[tid] += partial[tid + s];
            __syncthreads();
        }
        if (tid == 0) out[blockIdx.x] = partial[0];
    }

Run: ``python examples/reduction.py [N]``. The data are small integers, so every partial sum is
exact in float32 and the result must equal numpy's exactly.
"""

import ctypes
import sys

import numpy as np

from ptx2gcn import cuda  # with cuda-python: from cuda.bindings import driver as cuda

PTX = b"""
.version 8.0
.target sm_80
.address_size 64
.extern .shared .align 16 .b8 partial[];

.visible .entry block_sum(
	.param .u64 block_sum_param_0,
	.param .u64 block_sum_param_1,
	.param .u32 block_sum_param_2
)
{
	.reg .pred 	%p<7>;
	.reg .f32 	%f<13>;
	.reg .b32 	%r<17>;
	.reg .b64 	%rd<11>;


	ld.param.u64 	%rd3, [block_sum_param_0];
	ld.param.u64 	%rd2, [block_sum_param_1];
	ld.param.u32 	%r10, [block_sum_param_2];
	cvta.to.global.u64 	%rd1, %rd3;
	mov.u32 	%r1, %ntid.x;
	shl.b32 	%r11, %r1, 1;
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %tid.x;
	mad.lo.s32 	%r4, %r11, %r2, %r3;
	setp.ge.u32 	%p1, %r4, %r10;
	mov.f32 	%f12, 0f00000000;
	@%p1 bra 	$L__BB1_2;

	mul.wide.u32 	%rd4, %r4, 4;
	add.s64 	%rd5, %rd1, %rd4;
	ld.global.f32 	%f12, [%rd5];

$L__BB1_2:
	add.s32 	%r5, %r4, %r1;
	setp.ge.u32 	%p2, %r5, %r10;
	@%p2 bra 	$L__BB1_4;

	mul.wide.u32 	%rd6, %r5, 4;
	add.s64 	%rd7, %rd1, %rd6;
	ld.global.f32 	%f6, [%rd7];
	add.f32 	%f12, %f12, %f6;

$L__BB1_4:
	shl.b32 	%r12, %r3, 2;
	mov.u32 	%r13, partial;
	add.s32 	%r6, %r13, %r12;
	st.shared.f32 	[%r6], %f12;
	bar.sync 	0;
	shr.u32 	%r16, %r1, 1;
	setp.eq.s32 	%p3, %r16, 0;
	@%p3 bra 	$L__BB1_8;

$L__BB1_5:
	setp.ge.u32 	%p4, %r3, %r16;
	@%p4 bra 	$L__BB1_7;

	shl.b32 	%r14, %r16, 2;
	add.s32 	%r15, %r6, %r14;
	ld.shared.f32 	%f7, [%r6];
	ld.shared.f32 	%f8, [%r15];
	add.f32 	%f9, %f8, %f7;
	st.shared.f32 	[%r6], %f9;

$L__BB1_7:
	bar.sync 	0;
	shr.u32 	%r16, %r16, 1;
	setp.ne.s32 	%p5, %r16, 0;
	@%p5 bra 	$L__BB1_5;

$L__BB1_8:
	setp.ne.s32 	%p6, %r3, 0;
	@%p6 bra 	$L__BB1_10;

	ld.shared.f32 	%f10, [partial];
	cvta.to.global.u64 	%rd8, %rd2;
	mul.wide.u32 	%rd9, %r2, 4;
	add.s64 	%rd10, %rd8, %rd9;
	st.global.f32 	[%rd10], %f10;

$L__BB1_10:
	ret;

}
"""

THREADS = 128


def check(result):
    err, *values = result
    if err != cuda.CUresult.CUDA_SUCCESS:
        _, name = cuda.cuGetErrorName(err)
        raise RuntimeError(f"CUDA error {name.decode()}")
    return values[0] if len(values) == 1 else values


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
