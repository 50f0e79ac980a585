// SPDX-License-Identifier: Apache-2.0
// corpus: reductions: shared-memory tree, warp-shuffle, two-stage with atomics, min/max with index, double sum.
// corpus-variants: debug=-G

#include <cfloat>

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

extern "C" __global__ void reduce_shared(const float *in, float *out, unsigned n) {
    extern __shared__ float sdata[];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    float v = 0.0f;
    if (i < n) v = in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] = v = v + sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        if (blockDim.x >= 64) v += sdata[tid + 32];
        v = warp_sum(v);
    }
    if (tid == 0) out[blockIdx.x] = v;
}

extern "C" __global__ void reduce_warp_atomic(const float *in, float *total, int n) {
    __shared__ float partial[32];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
    v = warp_sum(v);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = (lane < (blockDim.x + 31) / 32) ? partial[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) atomicAdd(total, v);
    }
}

struct MinLoc {
    float value;
    int index;
};

__device__ MinLoc min_loc(MinLoc a, MinLoc b) {
    return (b.value < a.value || (b.value == a.value && b.index < a.index)) ? b : a;
}

extern "C" __global__ void argmin(const float *in, int n, float *out_value, int *out_index) {
    MinLoc best{FLT_MAX, -1};
    for (int i = threadIdx.x; i < n; i += blockDim.x) best = min_loc(best, MinLoc{in[i], i});
    for (int off = 16; off > 0; off >>= 1) {
        MinLoc other{__shfl_xor_sync(0xffffffffu, best.value, off), __shfl_xor_sync(0xffffffffu, best.index, off)};
        best = min_loc(best, other);
    }
    __shared__ MinLoc per_warp[32];
    if ((threadIdx.x & 31) == 0) per_warp[threadIdx.x >> 5] = best;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < (int)(blockDim.x + 31) / 32; ++w) best = min_loc(best, per_warp[w]);
        *out_value = best.value;
        *out_index = best.index;
    }
}

extern "C" __global__ void reduce_f64(const double *in, double *out, int n) {
    __shared__ double s[256];
    double v = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

// Block-wide predicates: bar.red.popc / bar.red.and / bar.red.or.
extern "C" __global__ void count_positive(const int *in, int *count, int *all_pos, int *any_pos) {
    int pred = in[blockIdx.x * blockDim.x + threadIdx.x] > 0;
    int c = __syncthreads_count(pred);
    int a = __syncthreads_and(pred);
    int o = __syncthreads_or(pred);
    if (threadIdx.x == 0) {
        count[blockIdx.x] = c;
        all_pos[blockIdx.x] = a;
        any_pos[blockIdx.x] = o;
    }
}
