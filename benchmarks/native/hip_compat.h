// SPDX-License-Identifier: Apache-2.0
// hip_compat.h: the CUDA spellings used by corpora/src/cuda/*.cu, mapped onto clang's own AMDGPU
// builtins, so that `clang-22 -x hip --offload-arch=gfx942 -nogpulib -nogpuinc -include hip_compat.h`
// compiles those sources natively for gfx942 without ROCm (no HIP headers, no device libraries).
//
// Invariant: every mapping here is what a hand port to HIP would use on a wave64 target (the HIP
// runtime headers' own lowering: COV5 hidden arguments for blockDim/gridDim, agent-scope atomics,
// fence + s_barrier + fence for __syncthreads, ds_bpermute shuffles within 32-lane segments). A CUDA
// function with no mapping is simply undeclared, so a source using it fails to compile and the
// benchmark leaves that source out with clang's message; nothing falls back silently.
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...) __attribute__((amdgpu_flat_work_group_size(1, 1024)))
#define __managed__ __attribute__((device))
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict
#define __CUDACC__ 1

#define __CD__ static __device__ inline __attribute__((always_inline))

#include <stddef.h>
#include <stdint.h>

typedef unsigned long long __u64_t;

// --- built-in variables (COV5: group size and block count are hidden kernel arguments) ---
#define __COMPAT_DIM3(type, fetch)                                                                   \
    struct type {                                                                                  \
        __declspec(property(get = __gx)) unsigned x;                                               \
        __declspec(property(get = __gy)) unsigned y;                                               \
        __declspec(property(get = __gz)) unsigned z;                                               \
        __CD__ unsigned __gx() { return fetch##x(); }                                              \
        __CD__ unsigned __gy() { return fetch##y(); }                                              \
        __CD__ unsigned __gz() { return fetch##z(); }                                              \
    };
__COMPAT_DIM3(__compat_tid, __builtin_amdgcn_workitem_id_)
__COMPAT_DIM3(__compat_bid, __builtin_amdgcn_workgroup_id_)
__COMPAT_DIM3(__compat_bdim, __builtin_amdgcn_workgroup_size_)
__CD__ unsigned __block_count(int i) {  // hidden_block_count_{x,y,z}: the first dwords of the implicit args
    return ((const __attribute__((address_space(4))) unsigned *)__builtin_amdgcn_implicitarg_ptr())[i];
}
__CD__ unsigned __block_count_x() { return __block_count(0); }
__CD__ unsigned __block_count_y() { return __block_count(1); }
__CD__ unsigned __block_count_z() { return __block_count(2); }
__COMPAT_DIM3(__compat_gdim, __block_count_)
extern const __device__ __attribute__((weak)) __compat_tid threadIdx;
extern const __device__ __attribute__((weak)) __compat_bid blockIdx;
extern const __device__ __attribute__((weak)) __compat_bdim blockDim;
extern const __device__ __attribute__((weak)) __compat_gdim gridDim;
#define warpSize 32

// --- vector types ---
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
struct __attribute__((aligned(8))) float2 { float x, y; };
struct __attribute__((aligned(16))) int4 { int x, y, z, w; };
struct __attribute__((aligned(8))) int2 { int x, y; };
struct __attribute__((aligned(16))) uint4 { unsigned x, y, z, w; };
struct __attribute__((aligned(8))) uint2 { unsigned x, y; };
struct __attribute__((aligned(16))) double2 { double x, y; };
struct __attribute__((aligned(16))) longlong2 { long long x, y; };
struct __attribute__((aligned(16))) ulonglong2 { unsigned long long x, y; };
struct float3 { float x, y, z; };
struct __attribute__((aligned(4))) uchar4 { unsigned char x, y, z, w; };
struct __attribute__((aligned(2))) uchar2 { unsigned char x, y; };
__CD__ float3 make_float3(float x, float y, float z) { return float3{x, y, z}; }
__CD__ uchar4 make_uchar4(unsigned char x, unsigned char y, unsigned char z, unsigned char w) {
    return uchar4{x, y, z, w};
}
__CD__ float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
__CD__ float2 make_float2(float x, float y) { return float2{x, y}; }
__CD__ int4 make_int4(int x, int y, int z, int w) { return int4{x, y, z, w}; }
__CD__ int2 make_int2(int x, int y) { return int2{x, y}; }
__CD__ uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }
__CD__ uint2 make_uint2(unsigned x, unsigned y) { return uint2{x, y}; }
__CD__ double2 make_double2(double x, double y) { return double2{x, y}; }

// --- synchronisation and fences ---
__CD__ void __syncthreads() {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
__CD__ int __syncthreads_count(int p) {
    __shared__ unsigned __count;
    if (__builtin_amdgcn_workitem_id_x() == 0 && __builtin_amdgcn_workitem_id_y() == 0 &&
        __builtin_amdgcn_workitem_id_z() == 0)
        __count = 0;
    __syncthreads();
    if (p) __hip_atomic_fetch_add(&__count, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
    __syncthreads();
    unsigned r = __count;
    __syncthreads();
    return (int)r;
}
__CD__ int __syncthreads_and(int p) { return __syncthreads_count(!p) == 0; }
__CD__ int __syncthreads_or(int p) { return __syncthreads_count(p) != 0; }
__CD__ void __threadfence_block() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }
__CD__ void __threadfence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
__CD__ void __threadfence_system() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, ""); }
__CD__ void __syncwarp(unsigned mask = 0xffffffffu) { __builtin_amdgcn_wave_barrier(); }

// --- warp functions: a CUDA warp is one 32-lane half of the wave64 (HIP's width = 32) ---
__CD__ unsigned __lane_id() { return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)); }
__CD__ int __shfl_int(int v, int src_in_segment) {
    int lane = (int)__lane_id();
    return __builtin_amdgcn_ds_bpermute(((lane & ~31) + (src_in_segment & 31)) << 2, v);
}
__CD__ int __shfl_sync(unsigned, int v, int src, int w = 32) {
    int lane = (int)__lane_id() & 31;
    return __shfl_int(v, (lane & ~(w - 1)) + (src & (w - 1)));
}
__CD__ int __shfl_xor_sync(unsigned, int v, int m, int w = 32) {
    int lane = (int)__lane_id() & 31;
    int s = lane ^ m;
    return __shfl_int(v, s >= ((lane & ~(w - 1)) + w) ? lane : s);
}
__CD__ int __shfl_down_sync(unsigned, int v, int d, int w = 32) {
    int lane = (int)__lane_id() & 31;
    int s = lane + d;
    return __shfl_int(v, ((s & ~(w - 1)) != (lane & ~(w - 1))) ? lane : s);
}
__CD__ int __shfl_up_sync(unsigned, int v, int d, int w = 32) {
    int lane = (int)__lane_id() & 31;
    int s = lane - d;
    return __shfl_int(v, s < (lane & ~(w - 1)) ? lane : s);
}
#define __COMPAT_SHFL_F(name)                                                                          \
    __CD__ float name(unsigned m, float v, int s, int w = 32) {                                       \
        return __builtin_bit_cast(float, name(m, __builtin_bit_cast(int, v), s, w));                 \
    }                                                                                                  \
    __CD__ unsigned name(unsigned m, unsigned v, int s, int w = 32) {                                 \
        return (unsigned)name(m, (int)v, s, w);                                                        \
    }                                                                                                  \
    __CD__ double name(unsigned m, double v, int s, int w = 32) {                                     \
        __u64_t b = __builtin_bit_cast(__u64_t, v);                                                    \
        __u64_t lo = (unsigned)name(m, (int)(unsigned)b, s, w);                                        \
        __u64_t hi = (unsigned)name(m, (int)(unsigned)(b >> 32), s, w);                                \
        return __builtin_bit_cast(double, lo | hi << 32);                                              \
    }                                                                                                  \
    __CD__ long long name(unsigned m, long long v, int s, int w = 32) {                               \
        return __builtin_bit_cast(long long, name(m, __builtin_bit_cast(double, v), s, w));          \
    }
__COMPAT_SHFL_F(__shfl_sync)
__COMPAT_SHFL_F(__shfl_xor_sync)
__COMPAT_SHFL_F(__shfl_down_sync)
__COMPAT_SHFL_F(__shfl_up_sync)
__CD__ unsigned __ballot_sync(unsigned, int p) {
    return (unsigned)(__builtin_amdgcn_ballot_w64(p != 0) >> (__lane_id() & 32));
}
__CD__ int __all_sync(unsigned m, int p) { return (__ballot_sync(m, !p) & m) == 0; }
__CD__ int __any_sync(unsigned m, int p) { return (__ballot_sync(m, p) & m) != 0; }
__CD__ unsigned __activemask() { return (unsigned)(__builtin_amdgcn_read_exec() >> (__lane_id() & 32)); }

__CD__ int __uni_sync(unsigned m, int v) {
    return __all_sync(m, v == __builtin_amdgcn_readfirstlane(v)) ;
}
__CD__ unsigned __match_any_sync(unsigned m, int v) {
    unsigned r = 0;
    for (int l = 0; l < 32; ++l) r |= (unsigned)(__shfl_sync(m, v, l) == v) << l;
    return r & m;
}
__CD__ unsigned __match_all_sync(unsigned m, int v, int *pred) {
    unsigned eq = __match_any_sync(m, v);
    *pred = eq == m;
    return eq == m ? m : 0;
}

// --- atomics (device scope, relaxed, as CUDA's) ---
#define __COMPAT_ATOMIC(name, builtin, T)                                                              \
    __CD__ T name(T *p, T v) { return builtin(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); }
#define __COMPAT_ATOMIC_INT(name, builtin)                                                             \
    __COMPAT_ATOMIC(name, builtin, int)                                                                \
    __COMPAT_ATOMIC(name, builtin, unsigned)                                                           \
    __COMPAT_ATOMIC(name, builtin, unsigned long long)                                                 \
    __COMPAT_ATOMIC(name, builtin, long long)
__COMPAT_ATOMIC_INT(atomicAdd, __hip_atomic_fetch_add)
__COMPAT_ATOMIC(atomicAdd, __hip_atomic_fetch_add, float)
__COMPAT_ATOMIC(atomicAdd, __hip_atomic_fetch_add, double)
__COMPAT_ATOMIC_INT(atomicMin, __hip_atomic_fetch_min)
__COMPAT_ATOMIC_INT(atomicMax, __hip_atomic_fetch_max)
__COMPAT_ATOMIC_INT(atomicAnd, __hip_atomic_fetch_and)
__COMPAT_ATOMIC_INT(atomicOr, __hip_atomic_fetch_or)
__COMPAT_ATOMIC_INT(atomicXor, __hip_atomic_fetch_xor)
__COMPAT_ATOMIC_INT(atomicExch, __hip_atomic_exchange)
__COMPAT_ATOMIC(atomicExch, __hip_atomic_exchange, float)
__CD__ int atomicSub(int *p, int v) { return atomicAdd(p, -v); }
__CD__ unsigned atomicSub(unsigned *p, unsigned v) { return atomicAdd(p, 0u - v); }
__CD__ unsigned atomicInc(unsigned *p, unsigned v) {
    return __builtin_amdgcn_atomic_inc32(p, v, __ATOMIC_RELAXED, "agent");
}
__CD__ unsigned atomicDec(unsigned *p, unsigned v) {
    return __builtin_amdgcn_atomic_dec32(p, v, __ATOMIC_RELAXED, "agent");
}
#define __COMPAT_CAS(T)                                                                                \
    __CD__ T atomicCAS(T *p, T expected, T desired) {                                                 \
        __hip_atomic_compare_exchange_strong(p, &expected, desired, __ATOMIC_RELAXED, __ATOMIC_RELAXED, \
                                             __HIP_MEMORY_SCOPE_AGENT);                                \
        return expected;                                                                               \
    }
__COMPAT_CAS(int)
__COMPAT_CAS(unsigned)
__COMPAT_CAS(unsigned long long)

// --- integer intrinsics ---
__CD__ int __popc(unsigned x) { return __builtin_popcount(x); }
__CD__ int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
__CD__ int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
__CD__ int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
__CD__ int __ffs(int x) { return __builtin_ffs(x); }
__CD__ int __ffsll(long long x) { return __builtin_ffsll(x); }
__CD__ unsigned __brev(unsigned x) { return __builtin_bitreverse32(x); }
__CD__ unsigned long long __brevll(unsigned long long x) { return __builtin_bitreverse64(x); }
__CD__ unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
    return __builtin_amdgcn_perm(x, y, /* CUDA selector nibbles → v_perm selector bytes */
                                 ((((s >> 0) & 7) ^ 4) | ((((s >> 4) & 7) ^ 4) << 8) |
                                  ((((s >> 8) & 7) ^ 4) << 16) | ((((s >> 12) & 7) ^ 4) << 24)));
}
__CD__ int __mul24(int x, int y) { return ((x << 8) >> 8) * ((y << 8) >> 8); }
__CD__ unsigned __umul24(unsigned x, unsigned y) { return (x & 0xffffff) * (y & 0xffffff); }
__CD__ int __mulhi(int x, int y) { return (int)(((long long)x * y) >> 32); }
__CD__ unsigned __umulhi(unsigned x, unsigned y) { return (unsigned)(((__u64_t)x * y) >> 32); }
__CD__ long long __mul64hi(long long x, long long y) { return (long long)(((__int128)x * y) >> 64); }
__CD__ unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
    return (unsigned long long)(((unsigned __int128)x * y) >> 64);
}
__CD__ unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
    return __builtin_amdgcn_alignbit(hi, lo, 32 - (s & 31)) ;
}
__CD__ unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) {
    s = s > 32 ? 32 : s;
    return (unsigned)((((__u64_t)hi << 32) | lo) >> s);
}
__CD__ int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
__CD__ unsigned __sad(int x, int y, unsigned z) { return z + (unsigned)(x > y ? x - y : y - x); }

// --- float/bit conversions ---
__CD__ float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
__CD__ float __uint_as_float(unsigned x) { return __builtin_bit_cast(float, x); }
__CD__ int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
__CD__ unsigned __float_as_uint(float x) { return __builtin_bit_cast(unsigned, x); }
__CD__ double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
__CD__ long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
__CD__ int __double2hiint(double x) { return (int)(__builtin_bit_cast(__u64_t, x) >> 32); }
__CD__ int __double2loint(double x) { return (int)__builtin_bit_cast(__u64_t, x); }
__CD__ double __hiloint2double(int hi, int lo) {
    return __builtin_bit_cast(double, ((__u64_t)(unsigned)hi << 32) | (unsigned)lo);
}
__CD__ int __float2int_rz(float x) { return (int)x; }
__CD__ int __float2int_rn(float x) { return (int)__builtin_rintf(x); }
__CD__ unsigned __float2uint_rn(float x) {
    float r = __builtin_rintf(x);
    return r <= 0.0f ? 0u : r >= 4294967296.0f ? 0xffffffffu : (unsigned)r;
}

// --- address spaces ---
__CD__ unsigned __isShared(const void *p) { return __builtin_amdgcn_is_shared((const void *)p); }
__CD__ unsigned __isLocal(const void *p) { return __builtin_amdgcn_is_private((const void *)p); }
__CD__ unsigned __isGlobal(const void *p) { return !__isShared(p) && !__isLocal(p); }
__CD__ size_t __cvta_generic_to_shared(const void *p) {
    return (size_t)(const __attribute__((address_space(3))) char *)p;
}

// --- load through the read-only path ---
template <typename T> __CD__ T __ldg(const T *p) { return *p; }

// --- math (clang builtins the AMDGPU back end lowers without a device library) ---
__CD__ float sqrtf(float x) { return __builtin_sqrtf(x); }
__CD__ double sqrt(double x) { return __builtin_sqrt(x); }
__CD__ float rsqrtf(float x) { return 1.0f / __builtin_sqrtf(x); }
__CD__ float fabsf(float x) { return __builtin_fabsf(x); }
__CD__ double fabs(double x) { return __builtin_fabs(x); }
__CD__ float fminf(float x, float y) { return __builtin_fminf(x, y); }
__CD__ float fmaxf(float x, float y) { return __builtin_fmaxf(x, y); }
__CD__ double fmin(double x, double y) { return __builtin_fmin(x, y); }
__CD__ double fmax(double x, double y) { return __builtin_fmax(x, y); }
__CD__ float fmaf(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
__CD__ double fma(double x, double y, double z) { return __builtin_fma(x, y, z); }
__CD__ float floorf(float x) { return __builtin_floorf(x); }
__CD__ float ceilf(float x) { return __builtin_ceilf(x); }
__CD__ float truncf(float x) { return __builtin_truncf(x); }
__CD__ float rintf(float x) { return __builtin_rintf(x); }
__CD__ double floor(double x) { return __builtin_floor(x); }
__CD__ double ceil(double x) { return __builtin_ceil(x); }
__CD__ float expf(float x) { return __builtin_expf(x); }
__CD__ float exp2f(float x) { return __builtin_exp2f(x); }
__CD__ float logf(float x) { return __builtin_logf(x); }
__CD__ float log2f(float x) { return __builtin_log2f(x); }
__CD__ float __expf(float x) { return __builtin_amdgcn_exp2f(x * 1.4426950408889634f); }
__CD__ float __logf(float x) { return __builtin_amdgcn_logf(x) * 0.6931471805599453f; }
__CD__ float __fdividef(float x, float y) { return x * __builtin_amdgcn_rcpf(y); }
__CD__ float __saturatef(float x) { return __builtin_fminf(__builtin_fmaxf(x, 0.0f), 1.0f); }
__CD__ void sincospif(float x, float *s, float *c) {
    *s = __builtin_sinf(x * 3.14159265358979f);
    *c = __builtin_cosf(x * 3.14159265358979f);
}
template <typename T> __CD__ T min(T a, T b) { return b < a ? b : a; }
template <typename T> __CD__ T max(T a, T b) { return a < b ? b : a; }
#define INFINITY __builtin_inff()
#define alloca __builtin_alloca
#define memcpy __builtin_memcpy
#define memset __builtin_memset
__CD__ bool isinf(float x) { return __builtin_isinf(x); }
__CD__ bool isnan(float x) { return __builtin_isnan(x); }
__CD__ bool isinf(double x) { return __builtin_isinf(x); }
__CD__ bool isnan(double x) { return __builtin_isnan(x); }
