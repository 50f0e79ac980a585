// Cooperative groups: a block tiled into 32-thread partitions reducing with shfl (tile.shfl_down),
// and a thread_block sync; the result combined with atomicAdd.
#include <cooperative_groups.h>
#include "check.cuh"
namespace cg = cooperative_groups;

__global__ void tile_sums(const int *in, int *total, int *per_tile, int n) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    for (int offset = tile.size() / 2; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
    block.sync();
    if (tile.thread_rank() == 0) {
        per_tile[i / 32] = v;
        atomicAdd(total, v);
    }
}

int main() {
    const int n = 1024, threads = 256;
    int host[n];
    for (int i = 0; i < n; i++) host[i] = (i % 17) * (i % 5) - 20;
    int *in, *total, *per_tile;
    CHECK(cudaMalloc(&in, sizeof host));
    CHECK(cudaMalloc(&total, sizeof(int)));
    CHECK(cudaMalloc(&per_tile, n / 32 * sizeof(int)));
    CHECK(cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(total, 0, sizeof(int)));
    tile_sums<<<n / threads, threads>>>(in, total, per_tile, n);
    CHECK(cudaGetLastError());
    int got = 0, tiles[n / 32];
    CHECK(cudaMemcpy(&got, total, sizeof got, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(tiles, per_tile, sizeof tiles, cudaMemcpyDeviceToHost));
    int expect = 0, bad = 0;
    for (int t = 0; t < n / 32; t++) {
        int s = 0;
        for (int i = t * 32; i < (t + 1) * 32; i++) s += host[i];
        bad += tiles[t] != s;
        expect += s;
    }
    bad += got != expect;
    if (bad) { std::printf("cooperative_groups: %d wrong (total %d, expected %d)\n", bad, got, expect); return 1; }
    std::printf("cooperative_groups: %d tile sums and total %d correct\n", n / 32, expect);
    return 0;
}
