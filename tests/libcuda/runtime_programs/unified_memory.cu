// Managed memory: one pointer written by the host, updated by a kernel, read by the host after
// cudaDeviceSynchronize; cudaMemPrefetchAsync / cudaMemAdvise accepted as hints.
#include "check.cuh"

__global__ void square_plus(long long *x, int n, int add) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] = x[i] * x[i] + add;
}

int main() {
    const int n = 3000;
    long long *x;
    CHECK(cudaMallocManaged(&x, n * sizeof(long long)));
    for (int i = 0; i < n; i++) x[i] = i - 1500;
    square_plus<<<4, 128>>>(x, n, 7);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int bad = 0;
    for (int i = 0; i < n; i++) bad += x[i] != (long long)(i - 1500) * (i - 1500) + 7;
    CHECK(cudaFree(x));
    if (bad) { std::printf("unified_memory: %d wrong\n", bad); return 1; }
    std::printf("unified_memory: %d managed values correct\n", n);
    return 0;
}
