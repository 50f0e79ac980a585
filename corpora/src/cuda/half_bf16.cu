// SPDX-License-Identifier: Apache-2.0
// corpus: 16-bit floating point from cuda_fp16.h / cuda_bf16.h: __half and __half2 arithmetic, fma, comparisons,
//         conversions with rounding modes, half math (hsin/hexp/hsqrt/hrcp), bf16 and bf162 arithmetic.

#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void half_arith(const __half *a, const __half *b, __half *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half x = a[i], y = b[i];
    __half r = __hfma(x, y, __hadd(x, __float2half(1.0f)));
    r = __hmul(r, __hsub(x, y));
    r = __hdiv(r, __hadd(y, __float2half(2.0f)));
    if (__hlt(r, __float2half(0.0f))) r = __hneg(r);
    r = __hmax(r, __hmin(x, y));
    out[i] = __habs(r);
}

extern "C" __global__ void half2_arith(const __half2 *a, const __half2 *b, __half2 *out, float *dotp, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half2 x = a[i], y = b[i];
    __half2 r = __hfma2(x, y, __hmul2(x, x));
    r = __hadd2_sat(r, __hsub2(y, x));
    r = __hfma2_relu(r, y, x);
    __half2 m = __hmax2(r, __hmin2(x, y));
    out[i] = __hbeq2(m, r) ? __lowhigh2highlow(m) : m;
    float2 f = __half22float2(r);
    dotp[i] = f.x * f.y;
}

extern "C" __global__ void half_math(const __half *a, __half *out, const __half2 *a2, __half2 *out2) {
    int i = threadIdx.x;
    __half x = a[i];
    out[i * 6 + 0] = hsin(x);
    out[i * 6 + 1] = hcos(x);
    out[i * 6 + 2] = hexp(x);
    out[i * 6 + 3] = hlog(x);
    out[i * 6 + 4] = hsqrt(x);
    out[i * 6 + 5] = hrcp(x);
    __half2 y = a2[i];
    out2[i * 3 + 0] = h2exp2(y);
    out2[i * 3 + 1] = h2rsqrt(y);
    out2[i * 3 + 2] = h2floor(y);
}

extern "C" __global__ void half_conversions(const float *f, const double *d, const int *k, __half *h, float *back,
                                           int *ints, unsigned short *bits) {
    int i = threadIdx.x;
    h[i * 6 + 0] = __float2half_rn(f[i]);
    h[i * 6 + 1] = __float2half_rz(f[i]);
    h[i * 6 + 2] = __float2half_rd(f[i]);
    h[i * 6 + 3] = __float2half_ru(f[i]);
    h[i * 6 + 4] = __double2half(d[i]);
    h[i * 6 + 5] = __int2half_rn(k[i]);
    back[i] = __half2float(h[i * 6]);
    ints[i * 3 + 0] = __half2int_rz(h[i * 6]);
    ints[i * 3 + 1] = __half2int_rn(h[i * 6 + 1]);
    ints[i * 3 + 2] = __half2short_rd(h[i * 6 + 2]);
    bits[i] = __half_as_ushort(h[i * 6 + 3]) ^ __half_as_ushort(__ushort_as_half(0x7bff));
}

extern "C" __global__ void bf16_ops(const __nv_bfloat16 *a, const __nv_bfloat16 *b, __nv_bfloat16 *out,
                                   const __nv_bfloat162 *a2, __nv_bfloat162 *out2, float *f) {
    int i = threadIdx.x;
    __nv_bfloat16 x = a[i], y = b[i];
    out[i * 4 + 0] = __hadd(x, y);
#if __CUDA_ARCH__ >= 800
    out[i * 4 + 1] = __hfma(x, y, __float2bfloat16(0.5f));  // fma.rn.bf16
#else
    out[i * 4 + 1] = __float2bfloat16(__bfloat162float(x) * __bfloat162float(y) + 0.5f);
#endif
    out[i * 4 + 2] = __hmax(x, y);
    out[i * 4 + 3] = __float2bfloat16_rz(__bfloat162float(x) / 3.0f);
    __nv_bfloat162 p = a2[i];
    out2[i * 2 + 0] = __hmul2(p, p);
#if __CUDA_ARCH__ >= 800
    out2[i * 2 + 1] = __hfma2(p, p, __bfloat162bfloat162(y));  // fma.rn.bf16x2
#else
    out2[i * 2 + 1] = __hadd2(__hmul2(p, p), __bfloat162bfloat162(y));
#endif
    f[i] = __low2float(p) + __high2float(p) + __bfloat162float(hsqrt(x));
}

// Mixed-precision accumulate: half inputs, float accumulator (common in inference kernels).
extern "C" __global__ void half_dot(const __half2 *a, const __half2 *b, float *out, int n2) {
    float acc = 0.0f;
    for (int i = threadIdx.x; i < n2; i += blockDim.x) {
        float2 p = __half22float2(__hmul2(a[i], b[i]));
        acc += p.x + p.y;
    }
    for (int off = 16; off; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, acc);
}
