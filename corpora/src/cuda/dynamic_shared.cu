// SPDX-License-Identifier: Apache-2.0
// corpus: dynamic shared memory (extern __shared__, .extern .shared .align), several arrays carved out of one
//         allocation, static + dynamic together, 64-bit and 128-bit aligned types, generic<->shared addressing.

extern "C" __global__ void dyn_shared_float(const float *in, float *out) {
    extern __shared__ float s[];
    s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}

extern "C" __global__ void dyn_shared_carved(const int *in, int *out, int n_ints) {
    extern __shared__ __align__(16) unsigned char smem[];
    int *ints = (int *)smem;
    double *doubles = (double *)(smem + ((n_ints * sizeof(int) + 15) & ~15));
    __shared__ int static_counter;
    if (threadIdx.x == 0) static_counter = 0;
    __syncthreads();
    ints[threadIdx.x] = in[threadIdx.x];
    doubles[threadIdx.x] = in[threadIdx.x] * 0.5;
    atomicAdd(&static_counter, ints[threadIdx.x] & 1);
    __syncthreads();
    out[threadIdx.x] = ints[(threadIdx.x + 1) % blockDim.x] + (int)doubles[threadIdx.x] + static_counter;
}

extern "C" __global__ void dyn_shared_float4(const float4 *in, float4 *out) {
    extern __shared__ float4 s4[];
    s4[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    float4 v = s4[threadIdx.x ^ 1];
    out[threadIdx.x] = v;
}

// Address-space predicates and conversions.
extern "C" __global__ void address_spaces(const int *g, int *out) {
    extern __shared__ int sh[];
    int local[4] = {1, 2, 3, 4};
    sh[threadIdx.x] = g[threadIdx.x];
    __syncthreads();
    int *p = (threadIdx.x & 1) ? &sh[threadIdx.x] : (threadIdx.x & 2) ? (int *)&g[threadIdx.x] : &local[threadIdx.x & 3];
    out[threadIdx.x * 4 + 0] = __isShared(p);
    out[threadIdx.x * 4 + 1] = __isGlobal(p);
    out[threadIdx.x * 4 + 2] = __isLocal(p);
    out[threadIdx.x * 4 + 3] = *p + (int)__cvta_generic_to_shared(sh);
}
