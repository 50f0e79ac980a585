// SPDX-License-Identifier: Apache-2.0
// corpus: single-precision math: libdevice sinf/cosf/expf/logf/powf/tanhf/erff, fast intrinsics (__sinf, __expf,
//         __fdividef, __frsqrt_rn), explicit rounding (__fadd_rz ...), saturate, min/max/abs, ftz behaviour.
//         The fast_math variant is the same file compiled with -use_fast_math (ftz, approx div/sqrt, ex2.approx).
// corpus-variants: fast_math=-use_fast_math

extern "C" __global__ void float_math(const float *a, float *out) {
    int i = threadIdx.x;
    float x = a[i];
    float *o = out + i * 20;
    o[0] = sinf(x);
    o[1] = cosf(x);
    o[2] = tanf(x);
    o[3] = expf(x);
    o[4] = exp2f(x);
    o[5] = exp10f(x);
    o[6] = logf(x);
    o[7] = log2f(x);
    o[8] = log10f(x);
    o[9] = powf(x, 1.7f);
    o[10] = sqrtf(x);
    o[11] = rsqrtf(x);
    o[12] = tanhf(x);
    o[13] = erff(x);
    o[14] = atan2f(x, 2.0f);
    o[15] = asinf(x * 0.1f) + acosf(x * 0.1f);
    o[16] = x / (x + 3.0f);
    o[17] = fmodf(x, 1.25f);
    o[18] = cbrtf(x) + hypotf(x, 3.0f);
    float s, c;
    sincosf(x, &s, &c);
    o[19] = s * c;
}

extern "C" __global__ void float_intrinsics(const float *a, const float *b, float *out) {
    int i = threadIdx.x;
    float x = a[i], y = b[i];
    float *o = out + i * 16;
    o[0] = __sinf(x);
    o[1] = __cosf(x);
    o[2] = __expf(x);
    o[3] = __logf(x);
    o[4] = __powf(x, y);
    o[5] = __fdividef(x, y);
    o[6] = __frsqrt_rn(x);
    o[7] = __fsqrt_rd(x);
    o[8] = __fadd_rz(x, y);
    o[9] = __fmul_ru(x, y);
    o[10] = __fdiv_rn(x, y);
    o[11] = __fmaf_rd(x, y, 1.0f);
    o[12] = __saturatef(x);
    o[13] = __frcp_rz(y);
    o[14] = __tanf(x);
    o[15] = __exp10f(x);
}

extern "C" __global__ void float_misc(const float *a, float *out, int *ints, unsigned *bits) {
    int i = threadIdx.x;
    float x = a[i];
    out[i * 8 + 0] = fminf(x, 0.5f) + fmaxf(x, -0.5f);
    out[i * 8 + 1] = fabsf(x) + copysignf(1.0f, x);
    out[i * 8 + 2] = floorf(x) + ceilf(x) + truncf(x) + roundf(x) + rintf(x) + nearbyintf(x);
    out[i * 8 + 3] = fmaf(x, x, -1.0f);
    out[i * 8 + 4] = ldexpf(x, 3) + scalbnf(x, -2);
    int e;
    float mant = frexpf(x, &e);
    out[i * 8 + 5] = mant + (float)e;
    out[i * 8 + 6] = fdimf(x, 1.0f) + modff(x, &out[i * 8 + 7]);
    ints[i * 4 + 0] = __float2int_rn(x);
    ints[i * 4 + 1] = __float2int_rz(x);
    ints[i * 4 + 2] = (int)__float2uint_ru(x);
    ints[i * 4 + 3] = isnan(x) + 2 * isinf(x) + 4 * signbit(x) + 8 * ilogbf(x);
    bits[i * 2 + 0] = __float_as_uint(x) ^ __float_as_uint(__uint_as_float(0x7f800000u));
    bits[i * 2 + 1] = (unsigned)__float2ll_rd(x * 1e10f);
}

// Softmax row kernel: expf + warp max/sum reductions, typical of ML code.
extern "C" __global__ void softmax_rows(const float *in, float *out, int cols) {
    const float *row = in + blockIdx.x * cols;
    float *orow = out + blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += 32) m = fmaxf(m, row[c]);
    for (int off = 16; off; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += 32) s += expf(row[c] - m);
    for (int off = 16; off; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
    float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += 32) orow[c] = expf(row[c] - m) * inv;
}

// Layer norm with rsqrtf and Welford-free two-pass mean/variance.
extern "C" __global__ void layernorm(const float *x, const float *gamma, const float *beta, float *y, int d,
                                     float eps) {
    __shared__ float red[2][32];
    const float *r = x + blockIdx.x * d;
    float s = 0.0f, ss = 0.0f;
    for (int c = threadIdx.x; c < d; c += blockDim.x) {
        float v = r[c];
        s += v;
        ss += v * v;
    }
    for (int off = 16; off; off >>= 1) {
        s += __shfl_xor_sync(0xffffffffu, s, off);
        ss += __shfl_xor_sync(0xffffffffu, ss, off);
    }
    if ((threadIdx.x & 31) == 0) {
        red[0][threadIdx.x >> 5] = s;
        red[1][threadIdx.x >> 5] = ss;
    }
    __syncthreads();
    s = 0.0f;
    ss = 0.0f;
    for (int w = 0; w < (int)blockDim.x / 32; ++w) {
        s += red[0][w];
        ss += red[1][w];
    }
    float mean = s / d;
    float rstd = rsqrtf(ss / d - mean * mean + eps);
    for (int c = threadIdx.x; c < d; c += blockDim.x) y[blockIdx.x * d + c] = (r[c] - mean) * rstd * gamma[c] + beta[c];
}
