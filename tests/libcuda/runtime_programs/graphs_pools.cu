// CUDA graphs and stream-ordered allocation through the runtime API: a capture that forks onto a
// second stream through events and joins back, with cudaMallocAsync/cudaFreeAsync scratch memory
// inside it, instantiated once and replayed; then a graph built by hand (memset -> kernel -> host
// node) and cudaGraphExecKernelNodeSetParams. Every result is checked on the host.
#include "check.cuh"

__global__ void axpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void square(float *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = v[i] * v[i];
}

static int host_node_calls = 0;
static int bad = 0;
// Record a failed check with its line (the program goes on, so one run shows every failure).
#define EXPECT(condition)                                                          \
    do {                                                                           \
        if (!(condition)) {                                                        \
            if (bad < 5) std::printf("line %d: expected %s\n", __LINE__, #condition); \
            bad++;                                                                 \
        }                                                                          \
    } while (0)
static void CUDART_CB count_call(void *data) { host_node_calls += *(int *)data; }

int main() {
    const int n = 1000, threads = 128, blocks = (n + threads - 1) / threads;
    float host_x[n], host_y[n], out[n];
    for (int i = 0; i < n; i++) {
        host_x[i] = (float)(i % 17) - 8.0f;
        host_y[i] = (float)(i % 5);
    }
    float *x, *y;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    cudaStream_t main_stream, side_stream;
    CHECK(cudaStreamCreateWithFlags(&main_stream, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&side_stream, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

    // captured: y = x^2 (through pool scratch on the side stream) + 2 * x + y, every launch
    CHECK(cudaStreamBeginCapture(main_stream, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus status;
    CHECK(cudaStreamIsCapturing(main_stream, &status));
    EXPECT(status == cudaStreamCaptureStatusActive);
    CHECK(cudaMemcpyAsync(x, host_x, sizeof host_x, cudaMemcpyHostToDevice, main_stream));
    CHECK(cudaMemcpyAsync(y, host_y, sizeof host_y, cudaMemcpyHostToDevice, main_stream));
    CHECK(cudaEventRecord(fork, main_stream));
    CHECK(cudaStreamWaitEvent(side_stream, fork, 0));
    float *scratch;
    CHECK(cudaMallocAsync(&scratch, n * sizeof(float), side_stream));
    CHECK(cudaMemcpyAsync(scratch, x, n * sizeof(float), cudaMemcpyDeviceToDevice, side_stream));
    square<<<blocks, threads, 0, side_stream>>>(scratch, n);
    CHECK(cudaGetLastError());
    axpy<<<blocks, threads, 0, main_stream>>>(2.0f, x, y, n);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(join, side_stream));
    CHECK(cudaStreamWaitEvent(main_stream, join, 0));
    axpy<<<blocks, threads, 0, main_stream>>>(1.0f, scratch, y, n);
    CHECK(cudaFreeAsync(scratch, main_stream));
    CHECK(cudaMemcpyAsync(out, y, sizeof out, cudaMemcpyDeviceToHost, main_stream));
    cudaGraph_t graph;
    CHECK(cudaStreamEndCapture(main_stream, &graph));
    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    EXPECT(nodes == 9);  // 4 copies, alloc, free, 3 kernels: events make edges, not nodes
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int launch = 0; launch < 2; launch++) {
        for (int i = 0; i < n; i++) out[i] = -1.0f;
        CHECK(cudaGraphLaunch(exec, main_stream));
        CHECK(cudaStreamSynchronize(main_stream));
        for (int i = 0; i < n; i++)
            EXPECT(out[i] == host_x[i] * host_x[i] + 2.0f * host_x[i] + host_y[i]);
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));

    // by hand: y = 0.5 everywhere, squared, then a host node
    CHECK(cudaGraphCreate(&graph, 0));
    cudaMemsetParams fill = {};
    fill.dst = y;
    fill.value = 0x3f000000u;  // 0.5f
    fill.elementSize = 4;
    fill.width = n;
    fill.height = 1;
    cudaGraphNode_t fill_node, kernel_node, host_node;
    CHECK(cudaGraphAddMemsetNode(&fill_node, graph, nullptr, 0, &fill));
    int count = n;
    void *args[] = {&y, &count};
    cudaKernelNodeParams kernel = {};
    kernel.func = (void *)square;
    kernel.gridDim = dim3(blocks);
    kernel.blockDim = dim3(threads);
    kernel.kernelParams = args;
    CHECK(cudaGraphAddKernelNode(&kernel_node, graph, &fill_node, 1, &kernel));
    int weight = 3;
    cudaHostNodeParams host = {count_call, &weight};
    CHECK(cudaGraphAddHostNode(&host_node, graph, &kernel_node, 1, &host));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, main_stream));
    CHECK(cudaStreamSynchronize(main_stream));
    CHECK(cudaMemcpy(out, y, sizeof out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(out[i] == 0.25f);
    // the executable's kernel node squares x instead (the graph is unchanged)
    void *x_args[] = {&x, &count};
    kernel.kernelParams = x_args;
    CHECK(cudaGraphExecKernelNodeSetParams(exec, kernel_node, &kernel));
    CHECK(cudaGraphLaunch(exec, main_stream));
    CHECK(cudaStreamSynchronize(main_stream));
    CHECK(cudaMemcpy(out, x, sizeof out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(out[i] == host_x[i] * host_x[i]);
    EXPECT(host_node_calls == 6);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    if (bad) {
        std::printf("graphs_pools: results wrong\n");
        return 1;
    }
    std::printf("graphs_pools: captured fork/join with pool memory and hand-built graph correct\n");
    return 0;
}
