// A shared-memory block reduction over two streams, timed with events; a __constant__ scale set
// with cudaMemcpyToSymbol and a __device__ counter read back with cudaMemcpyFromSymbol.
#include "check.cuh"

__constant__ int scale;
__device__ unsigned int blocks_done;

__global__ void block_sums(const int *in, long long *out, int n) {
    __shared__ long long partial[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? (long long)in[i] * scale : 0;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        out[blockIdx.x] = partial[0];
        atomicAdd(&blocks_done, 1u);
    }
}

int main() {
    const int n = 4096, threads = 256, blocks = n / threads, halves = 2;
    int *host_in;
    CHECK(cudaMallocHost(&host_in, n * sizeof(int)));
    for (int i = 0; i < n; i++) host_in[i] = (i * 7919) % 1000 - 500;
    const int three = 3;
    CHECK(cudaMemcpyToSymbol(scale, &three, sizeof three));
    int *in; long long *out;
    CHECK(cudaMalloc(&in, n * sizeof(int)));
    CHECK(cudaMalloc(&out, blocks * sizeof(long long)));
    cudaStream_t streams[halves];
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    for (int s = 0; s < halves; s++) CHECK(cudaStreamCreate(&streams[s]));
    CHECK(cudaEventRecord(start, streams[0]));
    const int per = n / halves, per_blocks = blocks / halves;
    for (int s = 0; s < halves; s++) {
        CHECK(cudaMemcpyAsync(in + s * per, host_in + s * per, per * sizeof(int), cudaMemcpyHostToDevice, streams[s]));
        block_sums<<<per_blocks, threads, 0, streams[s]>>>(in + s * per, out + s * per_blocks, per);
        CHECK(cudaGetLastError());
    }
    // stream 0 waits for stream 1's work before 'stop' is recorded on it
    cudaEvent_t second_done;
    CHECK(cudaEventCreateWithFlags(&second_done, cudaEventDisableTiming));
    CHECK(cudaEventRecord(second_done, streams[1]));
    CHECK(cudaStreamWaitEvent(streams[0], second_done, 0));
    CHECK(cudaEventRecord(stop, streams[0]));
    CHECK(cudaEventSynchronize(stop));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    long long sums[blocks];
    CHECK(cudaMemcpy(sums, out, sizeof sums, cudaMemcpyDeviceToHost));
    unsigned int done = 0;
    CHECK(cudaMemcpyFromSymbol(&done, blocks_done, sizeof done));
    int bad = ms < 0 || done != (unsigned)blocks;
    for (int b = 0; b < blocks; b++) {
        long long expect = 0;
        for (int i = b * threads; i < (b + 1) * threads; i++) expect += (long long)host_in[i] * 3;
        bad += sums[b] != expect;
    }
    for (int s = 0; s < halves; s++) CHECK(cudaStreamDestroy(streams[s]));
    CHECK(cudaEventDestroy(start)); CHECK(cudaEventDestroy(stop)); CHECK(cudaEventDestroy(second_done));
    CHECK(cudaFree(in)); CHECK(cudaFree(out)); CHECK(cudaFreeHost(host_in));
    if (bad) { std::printf("reduction_streams: %d wrong (blocks done %u, %.3f ms)\n", bad, done, ms); return 1; }
    std::printf("reduction_streams: %d block sums correct over %d streams\n", blocks, halves);
    return 0;
}
