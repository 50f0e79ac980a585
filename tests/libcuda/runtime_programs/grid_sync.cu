// Grid-wide cooperative groups through the runtime: cudaLaunchCooperativeKernel and grid.sync()
// (three phases that read what other blocks wrote before the barrier), the device attribute, and a
// grid too large to be resident at once refused as CUDA documents.
#include <cooperative_groups.h>
#include "check.cuh"
namespace cg = cooperative_groups;

__global__ void phases(int *data, int *out, int n) {
    cg::grid_group grid = cg::this_grid();
    int i = grid.thread_rank();
    if (i < n) data[i] = i;
    grid.sync();
    int a = i < n ? data[(i + 37) % n] : 0;
    grid.sync();
    if (i < n) data[i] = a * 3;
    grid.sync();
    if (i < n) out[i] = data[n - 1 - i];
}

int main() {
    int cooperative = 0;
    CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, 0));
    if (!cooperative) { std::printf("grid_sync: device reports no cooperative launch\n"); return 1; }
    int blocks = 6, threads = 96, n = blocks * threads;
    int *data, *out;
    CHECK(cudaMalloc(&data, n * sizeof(int)));
    CHECK(cudaMalloc(&out, n * sizeof(int)));
    void *args[] = {&data, &out, &n};
    CHECK(cudaLaunchCooperativeKernel((void *)phases, blocks, threads, args, 0, 0));
    int host[6 * 96];
    CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += host[i] != 3 * ((n - 1 - i + 37) % n);
    int per_sm = 0, sms = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, phases, threads, 0));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaError_t too_large = cudaLaunchCooperativeKernel((void *)phases, per_sm * sms + 1, threads, args, 0, 0);
    cudaGetLastError();
    if (bad || too_large != cudaErrorCooperativeLaunchTooLarge) {
        std::printf("grid_sync: %d wrong, oversized launch gave %s\n", bad, cudaGetErrorName(too_large));
        return 1;
    }
    std::printf("grid_sync: %d values correct after 3 grid barriers; %d blocks refused\n", n, per_sm * sms + 1);
    return 0;
}
