// SPDX-License-Identifier: Apache-2.0
// corpus: atomics on global and shared memory: int/unsigned/64-bit/float/double add, min/max, and/or/xor,
//         exch, inc/dec, CAS loops (float max, double mul), 16-bit CAS (sm_70+), half2/bf16 add,
//         scoped variants (_block, _system), memory fences.

#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void atomics_int(int *i, unsigned *u, unsigned long long *ull, long long *ll, int v) {
    atomicAdd(&i[0], v);
    atomicSub(&i[1], v);
    atomicExch(&i[2], v);
    atomicMin(&i[3], v);
    atomicMax(&i[4], v);
    atomicAnd(&i[5], v);
    atomicOr(&i[6], v);
    atomicXor(&i[7], v);
    atomicInc(&u[0], 17u);
    atomicDec(&u[1], 17u);
    atomicMin(&u[2], (unsigned)v);
    atomicMax(&u[3], (unsigned)v);
    atomicAdd(&ull[0], (unsigned long long)v);
    atomicExch(&ull[1], (unsigned long long)v);
    atomicMin(&ll[0], (long long)v);
    atomicMax(&ll[1], (long long)v);
    atomicAnd(&ull[2], 0xff00ff00ff00ff00ull);
    atomicOr(&ull[3], (unsigned long long)v << 40);
    atomicXor(&ull[4], 0x5555ull);
    // The old value is used: returns the fetched value (atom instead of red).
    int old = atomicCAS(&i[8], 0, v);
    i[9] = old + atomicAdd(&i[10], 1);
}

extern "C" __global__ void atomics_float(float *f, double *d, __half2 *h2, __half *h, __nv_bfloat16 *b,
                                         __nv_bfloat162 *b2, float v) {
    atomicAdd(&f[0], v);
    atomicExch(&f[1], v);
    atomicAdd(&d[0], (double)v);
    atomicAdd(h2, __floats2half2_rn(v, -v));
    atomicAdd(h, __float2half(v));
    atomicAdd(b, __float2bfloat16(v));
    atomicAdd(b2, __floats2bfloat162_rn(v, 2.0f * v));
}

__device__ float atomic_max_float(float *addr, float value) {
    int *a = (int *)addr;
    int old = *a, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= value) break;
        old = atomicCAS(a, assumed, __float_as_int(value));
    } while (assumed != old);
    return __int_as_float(old);
}

__device__ double atomic_mul_double(double *addr, double factor) {
    unsigned long long *a = (unsigned long long *)addr;
    unsigned long long old = *a, assumed;
    do {
        assumed = old;
        old = atomicCAS(a, assumed, __double_as_longlong(__longlong_as_double(assumed) * factor));
    } while (assumed != old);
    return __longlong_as_double(old);
}

extern "C" __global__ void cas_loops(const float *in, float *max_out, double *prod, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomic_max_float(max_out, in[i]);
        atomic_mul_double(prod, 1.0 + in[i] * 1e-3);
    }
}

extern "C" __global__ void cas16(unsigned short *p, unsigned short expect, unsigned short desired, unsigned short *old) {
    old[threadIdx.x] = atomicCAS(p, expect, (unsigned short)(desired + threadIdx.x));
}

extern "C" __global__ void shared_histogram_atomics(const unsigned char *data, unsigned *hist, int n) {
    __shared__ unsigned local[256];
    __shared__ float fsum;
    __shared__ unsigned long long big;
    for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
    if (threadIdx.x == 0) { fsum = 0.0f; big = 0; }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&local[data[i]], 1u);
        atomicAdd(&fsum, (float)data[i]);
        atomicMax(&big, (unsigned long long)data[i] << 32 | i);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&hist[i], local[i]);
    if (threadIdx.x == 0) {
        atomicAdd(&hist[256], (unsigned)fsum);
        atomicExch(&hist[257], (unsigned)(big >> 32));
    }
}

extern "C" __global__ void scoped_atomics(int *p, float *f, volatile int *flag) {
    atomicAdd_block(&p[0], 1);
    atomicAdd_system(&p[1], 1);
    atomicCAS_block(&p[2], 0, 1);
    atomicExch_system(&p[3], 7);
    atomicAdd_block(f, 1.5f);
    atomicMax_system(&p[4], (int)threadIdx.x);
    __threadfence_block();
    __threadfence();
    __threadfence_system();
    if (threadIdx.x == 0) {
        while (*flag == 0) {
        }
        flag[1] = 1;
    }
}

// Ticket lock with a spin loop: a CAS loop whose outcome depends on other threads.
extern "C" __global__ void spin_lock(int *lock, int *counter) {
    if ((threadIdx.x & 31) == 0) {
        while (atomicCAS(lock, 0, 1) != 0) {
        }
        __threadfence();
        *counter += 1;
        __threadfence();
        atomicExch(lock, 0);
    }
}
