// SPDX-License-Identifier: Apache-2.0
// corpus: cooperative groups: thread_block, tiled_partition (static and dynamic), coalesced_threads,
//         cg::reduce / cg::inclusive_scan, labeled partitions, block-wide sync through cg.

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

extern "C" __global__ void cg_tile_reduce(const int *in, int *out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int v = in[block.group_index().x * block.size() + block.thread_rank()];
    for (int off = warp.size() / 2; off > 0; off /= 2) v += warp.shfl_down(v, off);
    if (warp.thread_rank() == 0) atomicAdd(out, v);
}

extern "C" __global__ void cg_reduce_scan(const float *in, float *sums, float *scan, unsigned *maxes) {
    cg::thread_block block = cg::this_thread_block();
    auto tile = cg::tiled_partition<16>(block);
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[gid];
    float s = cg::reduce(tile, v, cg::plus<float>());
    unsigned m = cg::reduce(tile, (unsigned)(v * 100.0f), cg::greater<unsigned>());
    scan[gid] = cg::inclusive_scan(tile, v);
    if (tile.thread_rank() == 0) {
        sums[gid / 16] = s;
        maxes[gid / 16] = m;
    }
}

extern "C" __global__ void cg_coalesced(const int *in, int *out, int *counter) {
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    if (v > 0) {
        // Warp-aggregated atomic increment: the classic coalesced_threads() pattern.
        cg::coalesced_group active = cg::coalesced_threads();
        int base = 0;
        if (active.thread_rank() == 0) base = atomicAdd(counter, (int)active.size());
        base = active.shfl(base, 0);
        out[base + active.thread_rank()] = v;
    }
}

extern "C" __global__ void cg_dynamic_tiles(const int *in, int *out, unsigned tile_size) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_group tile = cg::tiled_partition(block, tile_size);
    int v = in[block.thread_rank()];
    tile.sync();
    out[block.thread_rank()] = v * (int)tile.size() + (int)tile.thread_rank();
    block.sync();
}

extern "C" __global__ void cg_vote(const int *in, unsigned *out) {
    auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    auto tile4 = cg::tiled_partition<4>(warp);
    int v = in[threadIdx.x];
    out[threadIdx.x * 3 + 0] = warp.ballot(v > 0);
    out[threadIdx.x * 3 + 1] = tile4.any(v > 10);
    out[threadIdx.x * 3 + 2] = tile4.all(v > 0) + tile4.meta_group_rank() * 2;
}
