// SPDX-License-Identifier: Apache-2.0
// corpus: wide and unusual data: __int128 arithmetic (carry chains, 128-bit multiply/divide/shift), alloca
//         (dynamic stack allocation, the PTX `alloca` instruction), a kernel parameter block of 8 KiB, __managed__
//         and __device__ arrays, char/short/bool packing in structs, and unaligned byte-wise copies.

#include <cstdint>

extern "C" __global__ void int128_ops(const unsigned long long *a, const unsigned long long *b, unsigned long long *out) {
    int i = threadIdx.x;
    unsigned __int128 x = ((unsigned __int128)a[2 * i] << 64) | a[2 * i + 1];
    unsigned __int128 y = ((unsigned __int128)b[2 * i] << 64) | b[2 * i + 1];
    unsigned __int128 s = x + y, d = x - y, p = x * y;
    unsigned __int128 q = y ? x / y : 0, r = y ? x % y : 0;
    __int128 sx = (__int128)x >> (i & 127);
    unsigned long long *o = out + i * 12;
    o[0] = (unsigned long long)(s >> 64); o[1] = (unsigned long long)s;
    o[2] = (unsigned long long)(d >> 64); o[3] = (unsigned long long)d;
    o[4] = (unsigned long long)(p >> 64); o[5] = (unsigned long long)p;
    o[6] = (unsigned long long)(q >> 64); o[7] = (unsigned long long)q;
    o[8] = (unsigned long long)(r >> 64); o[9] = (unsigned long long)r;
    o[10] = (unsigned long long)(sx >> 64); o[11] = (unsigned long long)(x < y) + (x == y);
}

extern "C" __global__ void dynamic_alloca(const int *sizes, int *out) {
    int n = sizes[threadIdx.x] & 63;
    int *buf = (int *)alloca((n + 1) * sizeof(int));
    for (int k = 0; k <= n; ++k) buf[k] = k * k;
    int acc = 0;
    for (int k = n; k >= 0; k -= 3) acc += buf[k];
    out[threadIdx.x] = acc;
}

struct BigParams {
    float weights[2048];  // 8 KiB of kernel parameters (allowed up to 32764 bytes since CUDA 12.1)
    int count;
};

extern "C" __global__ void big_param_block(const BigParams p, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.count) y[i] = p.weights[i & 2047] * x[i];
}

__managed__ int m_counter;
__device__ uint16_t d_table[300] = {1, 2, 3, 5, 8, 13, 21, 34, 55, 89};

struct Packed {
    char c;
    bool flag;
    short s;
    unsigned char bytes[3];
    long long ll;
};

extern "C" __global__ void packed_structs(const Packed *in, Packed *out, int *sum) {
    Packed p = in[threadIdx.x];
    p.c = (char)(p.c + 1);
    p.flag = !p.flag;
    p.s = (short)(p.s * 3);
    p.bytes[threadIdx.x % 3] ^= 0x5a;
    p.ll += d_table[threadIdx.x % 300];
    out[threadIdx.x] = p;
    atomicAdd(&m_counter, p.flag);
    sum[threadIdx.x] = p.c + p.s + p.bytes[0] + p.bytes[1] + p.bytes[2] + (int)p.ll;
}

extern "C" __global__ void unaligned_copy(const unsigned char *src, unsigned char *dst, int offset, int n) {
    for (int i = threadIdx.x; i < n; i += blockDim.x) dst[i] = src[i + offset];
    if (threadIdx.x == 0) {
        unsigned v;
        memcpy(&v, src + offset + 1, sizeof v);  // unaligned 32-bit read as bytes
        memcpy(dst + n, &v, sizeof v);
    }
}
