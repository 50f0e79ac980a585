// The CUDA runtime API's first program: cudaMalloc, cudaMemcpy, a <<<>>> launch, cudaFree.
#include "check.cuh"

__global__ void vector_add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main() {
    const int n = 1000;
    float ha[n], hb[n], hc[n];
    for (int i = 0; i < n; i++) { ha[i] = 0.5f * i; hb[i] = 3.0f - i; }
    float *a, *b, *c;
    CHECK(cudaMalloc(&a, n * sizeof(float)));
    CHECK(cudaMalloc(&b, n * sizeof(float)));
    CHECK(cudaMalloc(&c, n * sizeof(float)));
    CHECK(cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice));
    vector_add<<<(n + 127) / 128, 128>>>(a, b, c, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += hc[i] != ha[i] + hb[i];
    CHECK(cudaFree(a)); CHECK(cudaFree(b)); CHECK(cudaFree(c));
    if (bad) { std::printf("vector_add: %d wrong sums\n", bad); return 1; }
    std::printf("vector_add: %d sums correct\n", n);
    return 0;
}
