// Device printf through the runtime: each thread prints one line; the host checks the launch.
#include "check.cuh"

__global__ void hello(int tag, double x) {
    printf("hello from block %d thread %d tag %d x %.2f\n", blockIdx.x, threadIdx.x, tag, x);
}

int main() {
    hello<<<2, 3>>>(42, 1.25);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::printf("device_printf: launched\n");
    return 0;
}
