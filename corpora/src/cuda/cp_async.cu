// SPDX-License-Identifier: Apache-2.0
// corpus: asynchronous copies: cp.async (4/8/16 bytes, .ca/.cg, zero-fill), commit/wait groups, cuda_pipeline.h
//         primitives, double-buffered tiles, a raw mbarrier arrive/test_wait loop. All of it needs sm_80+.
// corpus-min-arch: 80

#include <cuda_pipeline.h>

extern "C" __global__ void cp_async_raw(const float4 *src, float4 *dst, const int *isrc, int *idst, int valid) {
    __shared__ __align__(16) float4 tile[128];
    __shared__ __align__(16) int itile[128];
    unsigned t = threadIdx.x;
    unsigned s_addr = (unsigned)__cvta_generic_to_shared(&tile[t]);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s_addr), "l"(&src[t]));
    unsigned i_addr = (unsigned)__cvta_generic_to_shared(&itile[t]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(i_addr), "l"(&isrc[t]), "r"(valid ? 4 : 0));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    __syncthreads();
    dst[t] = tile[127 - t];
    idst[t] = itile[(t + 1) & 127];
}

extern "C" __global__ void cp_async_pipeline(const float *in, float *out, int n_tiles) {
    __shared__ __align__(16) float buf[2][256];
    int t = threadIdx.x;
    float acc = 0.0f;
    __pipeline_memcpy_async(&buf[0][t], &in[t], sizeof(float));
    __pipeline_commit();
    for (int tile = 0; tile < n_tiles; ++tile) {
        int cur = tile & 1;
        if (tile + 1 < n_tiles) {
            __pipeline_memcpy_async(&buf[cur ^ 1][t], &in[(tile + 1) * 256 + t], sizeof(float));
        }
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        acc += buf[cur][(t * 7) & 255];
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + t] = acc;
}

extern "C" __global__ void cp_async_8byte_zfill(const double *src, double *dst, int n) {
    __shared__ __align__(16) double s[64];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&s[t], &src[t < n ? t : 0], sizeof(double), t < n ? 0 : sizeof(double));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    dst[t] = s[63 - t];
}

extern "C" __global__ void mbarrier_raw(const int *in, int *out) {
    __shared__ __align__(8) unsigned long long bar;
    __shared__ int data[32];
    unsigned bar_addr = (unsigned)__cvta_generic_to_shared(&bar);
    if (threadIdx.x == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(bar_addr), "r"(blockDim.x));
    __syncthreads();
    data[threadIdx.x] = in[threadIdx.x];
    unsigned long long state;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(bar_addr) : "memory");
    unsigned done = 0;
    while (!done) {
        asm volatile(
            "{\n\t.reg .pred p;\n\t"
            "mbarrier.test_wait.shared.b64 p, [%1], %2;\n\t"
            "selp.u32 %0, 1, 0, p;\n\t}"
            : "=r"(done)
            : "r"(bar_addr), "l"(state)
            : "memory");
    }
    out[threadIdx.x] = data[(threadIdx.x + 1) % blockDim.x];
}
