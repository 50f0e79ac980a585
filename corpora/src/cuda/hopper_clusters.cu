// SPDX-License-Identifier: Apache-2.0
// corpus: sm_90 features: thread-block clusters (__cluster_dims__, %cluster_ctarank, barrier.cluster),
//         distributed shared memory (mapa, ld.shared::cluster), elect.sync, mbarrier try_wait with
//         expect_tx and cp.async.bulk (1D TMA) global->shared, fence.proxy.async, cluster exchange through
//         cg::cluster_group, and a cuda::barrier (libcu++) in shared memory.
// corpus-min-arch: 90

#include <cooperative_groups.h>
#include <cuda/barrier>

namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_exchange(const int *in, int *out) {
    __shared__ int smem[128];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    smem[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    cluster.sync();
    int *peer = cluster.map_shared_rank(smem, rank ^ 1);
    int v = peer[(threadIdx.x + 1) % blockDim.x];
    cluster.sync();
    out[blockIdx.x * blockDim.x + threadIdx.x] = v + (int)cluster.num_blocks() * 1000 + (int)rank;
}

extern "C" __global__ void cluster_special_regs(unsigned *out) {
    unsigned ctarank, nctarank, cid, ncid, is_explicit;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(ctarank));
    asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(nctarank));
    asm("mov.u32 %0, %%clusterid.x;" : "=r"(cid));
    asm("mov.u32 %0, %%nclusterid.x;" : "=r"(ncid));
    asm("{\n\t.reg .pred p;\n\tmov.pred p, %%is_explicit_cluster;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(is_explicit));
    asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
    unsigned *o = out + (blockIdx.x * blockDim.x + threadIdx.x) * 5;
    o[0] = ctarank;
    o[1] = nctarank;
    o[2] = cid;
    o[3] = ncid;
    o[4] = is_explicit;
}

extern "C" __global__ void elect_one(int *counter) {
    unsigned is_elected;
    asm volatile(
        "{\n\t.reg .pred p;\n\t.reg .b32 leader;\n\t"
        "elect.sync leader|p, 0xffffffff;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(is_elected));
    if (is_elected) atomicAdd(counter, 1);
}

// One-dimensional bulk copy (TMA without a tensor map) completed through an mbarrier transaction count.
extern "C" __global__ void bulk_copy(const float4 *src, float4 *dst) {
    __shared__ __align__(128) float4 tile[256];
    __shared__ __align__(8) unsigned long long bar;
    unsigned bar_addr = (unsigned)__cvta_generic_to_shared(&bar);
    unsigned tile_addr = (unsigned)__cvta_generic_to_shared(tile);
    const unsigned bytes = sizeof(tile);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_addr));
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_addr), "r"(bytes) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                         tile_addr),
                     "l"(src + blockIdx.x * 256), "r"(bytes), "r"(bar_addr)
                     : "memory");
    }
    __syncthreads();
    unsigned ready = 0;
    while (!ready) {
        asm volatile(
            "{\n\t.reg .pred p;\n\t"
            "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
            "selp.u32 %0, 1, 0, p;\n\t}"
            : "=r"(ready)
            : "r"(bar_addr)
            : "memory");
    }
    dst[blockIdx.x * 256 + threadIdx.x] = tile[255 - threadIdx.x];
}

// A block-scope cuda::barrier in static shared memory, initialised by one thread: the warning about its
// dynamic initialisation is expected (the same suppression as in NVIDIA's documentation examples).
#pragma nv_diag_suppress static_var_with_dynamic_init
extern "C" __global__ void cuda_barrier_sync(float *data) {
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    data[threadIdx.x] *= 2.0f;
    bar.arrive_and_wait();
    data[threadIdx.x] += data[(threadIdx.x + 1) % blockDim.x];
}
