/* CUDA graphs and stream-ordered memory pools through the C ABI: a graph built by hand (memset ->
   kernel -> host node, with the kernel's arguments copied at add time and read back through
   cuGraphKernelNodeGetParams_v2), a stream capture with a fork and join through events, captured
   pool allocations, cuGraphExecKernelNodeSetParams, the pool counters, and the capture errors CUDA
   gives for a synchronous copy (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, then INVALIDATED). */
#include <stdint.h>
#include <string.h>
#include "check.h"
#include "kernels_ptx.h"

/* Declared as in cuda.h (CUDA 13), beyond mini_cuda.h. */
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef void (*CUhostFn)(void *userData);
typedef struct {
    CUfunction func;
    unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    void **kernelParams;
    void **extra;
    CUkernel kern;
    CUcontext ctx;
} CUDA_KERNEL_NODE_PARAMS; /* cuda.h's CUDA_KERNEL_NODE_PARAMS_v2 */
typedef struct {
    CUdeviceptr dst;
    size_t pitch;
    unsigned value, elementSize;
    size_t width, height;
} CUDA_MEMSET_NODE_PARAMS;
typedef struct {
    CUhostFn fn;
    void *userData;
} CUDA_HOST_NODE_PARAMS;
CUresult cuGraphCreate(CUgraph *graph, unsigned flags);
CUresult cuGraphDestroy(CUgraph graph);
CUresult cuGraphAddMemsetNode(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps, size_t count,
                              const CUDA_MEMSET_NODE_PARAMS *params, CUcontext ctx);
CUresult cuGraphAddKernelNode_v2(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps, size_t count,
                                 const CUDA_KERNEL_NODE_PARAMS *params);
CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode node, CUDA_KERNEL_NODE_PARAMS *params);
CUresult cuGraphAddHostNode(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps, size_t count,
                            const CUDA_HOST_NODE_PARAMS *params);
CUresult cuGraphGetNodes(CUgraph graph, CUgraphNode *nodes, size_t *count);
CUresult cuGraphGetEdges_v2(CUgraph graph, CUgraphNode *from, CUgraphNode *to, void *edgeData, size_t *count);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph, unsigned long long flags);
CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream);
CUresult cuGraphExecDestroy(CUgraphExec exec);
CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec exec, CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS *p);
CUresult cuGraphDebugDotPrint(CUgraph graph, const char *path, unsigned flags);
CUresult cuStreamBeginCapture_v2(CUstream stream, int mode);
CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph);
CUresult cuStreamIsCapturing(CUstream stream, int *status);
CUresult cuStreamGetCaptureInfo_v3(CUstream stream, int *status, unsigned long long *id, CUgraph *graph,
                                   const CUgraphNode **deps, const void **edgeData, size_t *count);
CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned flags);
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t count, CUstream stream);
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream);
CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytes, CUstream stream);
CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream stream);
CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice dev);
CUresult cuMemPoolGetAttribute(CUmemoryPool pool, int attribute, void *value);
CUresult cuMemPoolSetAttribute(CUmemoryPool pool, int attribute, void *value);
CUresult cuGetErrorName(CUresult error, const char **name);
typedef struct {
    int allocType, handleTypes;
    struct { int type, id; } location;
    void *win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
} CUmemPoolProps;
typedef struct {
    CUmemPoolProps poolProps;
    const void *accessDescs;
    size_t accessDescCount;
    size_t bytesize;
    CUdeviceptr dptr;
} CUDA_MEM_ALLOC_NODE_PARAMS;
CUresult cuGraphAddMemAllocNode(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps, size_t count,
                                CUDA_MEM_ALLOC_NODE_PARAMS *params);
CUresult cuGraphMemAllocNodeGetParams(CUgraphNode node, CUDA_MEM_ALLOC_NODE_PARAMS *params);

#define N 1000
#define CU_MEMPOOL_ATTR_RELEASE_THRESHOLD 4
#define CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT 5
#define CU_MEMPOOL_ATTR_USED_MEM_CURRENT 7
#define CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED 900
#define CUDA_ERROR_STREAM_CAPTURE_INVALIDATED 901

static int host_calls;
static void on_host(void *data) { host_calls += *(int *)data; }

static void expect_all(CUdeviceptr buffer, int value) {
    static int out[N];
    CHECK(cuMemcpyDtoH(out, buffer, sizeof out));
    for (int i = 0; i < N; i++) EXPECT(out[i] == value);
}

int main(int argc, char **argv) {
    CUdevice device;
    CUcontext context;
    CUmodule module;
    CUfunction scale;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&device, 0));
    CHECK(cuCtxCreate(&context, 0, device));
    CHECK(cuModuleLoadData(&module, kernels_ptx));
    CHECK(cuModuleGetFunction(&scale, module, "scale"));
    CUdeviceptr data, other;
    CHECK(cuMemAlloc(&data, N * sizeof(int)));
    CHECK(cuMemAlloc(&other, N * sizeof(int)));

    /* by hand: fill with 5, scale by 3, then a host node */
    CUgraph graph;
    CUgraphNode fill, kernel, host, nodes[4];
    CHECK(cuGraphCreate(&graph, 0));
    CUDA_MEMSET_NODE_PARAMS memset_params = {data, 0, 5, 4, N, 1};
    CHECK(cuGraphAddMemsetNode(&fill, graph, NULL, 0, &memset_params, context));
    int n = N;
    void *args[] = {&data, &n};
    CUDA_KERNEL_NODE_PARAMS kernel_params = {scale, (N + 255) / 256, 1, 1, 256, 1, 1, 0, args, NULL, NULL, NULL};
    CHECK(cuGraphAddKernelNode_v2(&kernel, graph, &fill, 1, &kernel_params));
    n = 1; /* too late: the node holds a copy of the arguments */
    int weight = 10;
    CUDA_HOST_NODE_PARAMS host_params = {on_host, &weight};
    CHECK(cuGraphAddHostNode(&host, graph, &kernel, 1, &host_params));
    size_t count = 0;
    CHECK(cuGraphGetNodes(graph, NULL, &count));
    EXPECT(count == 3);
    count = 4;
    CHECK(cuGraphGetNodes(graph, nodes, &count));
    EXPECT(count == 3 && nodes[1] == kernel);
    CUgraphNode from[2], to[2];
    unsigned long long edge_data[2];
    count = 2;
    CHECK(cuGraphGetEdges_v2(graph, from, to, edge_data, &count));
    EXPECT(count == 2 && from[0] == fill && to[0] == kernel && from[1] == kernel && to[1] == host);
    CUDA_KERNEL_NODE_PARAMS read_back;
    memset(&read_back, 0, sizeof read_back);
    CHECK(cuGraphKernelNodeGetParams_v2(kernel, &read_back));
    EXPECT(read_back.func == scale && read_back.blockDimX == 256 && *(int *)read_back.kernelParams[1] == N);
    EXPECT(*(CUdeviceptr *)read_back.kernelParams[0] == data);
    CUgraphExec exec;
    CHECK(cuGraphInstantiateWithFlags(&exec, graph, 0));
    CHECK(cuGraphLaunch(exec, NULL));
    expect_all(data, 15);
    EXPECT(host_calls == 10);
    /* the executable's kernel node now scales the other buffer */
    CHECK(cuMemsetD32(other, 7, N));
    n = N;
    void *other_args[] = {&other, &n};
    kernel_params.kernelParams = other_args;
    CHECK(cuGraphExecKernelNodeSetParams_v2(exec, kernel, &kernel_params));
    CHECK(cuGraphLaunch(exec, NULL));
    expect_all(other, 21);
    expect_all(data, 5); /* the memset node still fills data */
    EXPECT(host_calls == 20);
    if (argc > 1) CHECK(cuGraphDebugDotPrint(graph, argv[1], 0));
    CHECK(cuGraphExecDestroy(exec));
    CHECK(cuGraphDestroy(graph));

    /* capture: origin allocates scratch from the pool, side scales other; joined, copied, freed */
    CUstream origin, side;
    CUevent forked, joined;
    CHECK(cuStreamCreate(&origin, CU_STREAM_NON_BLOCKING));
    CHECK(cuStreamCreate(&side, CU_STREAM_NON_BLOCKING));
    CHECK(cuEventCreate(&forked, 0));
    CHECK(cuEventCreate(&joined, 0));
    CUmemoryPool pool;
    CHECK(cuDeviceGetDefaultMemPool(&pool, device));
    unsigned long long threshold = 1 << 20, reserved = 0, used = 0;
    CHECK(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold));
    CHECK(cuStreamBeginCapture_v2(origin, 0));
    CUdeviceptr scratch;
    CHECK(cuMemAllocAsync(&scratch, N * sizeof(int), origin));
    CHECK(cuEventRecord(forked, origin));
    CHECK(cuStreamWaitEvent(side, forked, 0));
    int status = 0;
    CHECK(cuStreamIsCapturing(side, &status));
    EXPECT(status == 1);
    CHECK(cuMemsetD32Async(scratch, 2, N, origin));
    void *scratch_args[] = {&scratch, &n};
    CHECK(cuLaunchKernel(scale, (N + 255) / 256, 1, 1, 256, 1, 1, 0, origin, scratch_args, NULL));
    CHECK(cuLaunchKernel(scale, (N + 255) / 256, 1, 1, 256, 1, 1, 0, side, other_args, NULL));
    CHECK(cuEventRecord(joined, side));
    CHECK(cuStreamWaitEvent(origin, joined, 0));
    unsigned long long id = 0;
    const CUgraphNode *frontier = NULL;
    const void *edges = NULL;
    CUgraph capturing = NULL;
    CHECK(cuStreamGetCaptureInfo_v3(origin, &status, &id, &capturing, &frontier, &edges, &count));
    EXPECT(status == 1 && id != 0 && capturing != NULL && count == 2 && frontier != NULL);
    CHECK(cuMemcpyDtoDAsync_v2(data, scratch, N * sizeof(int), origin));
    CHECK(cuMemFreeAsync(scratch, origin));
    CHECK(cuStreamEndCapture(origin, &graph));
    CHECK(cuGraphGetNodes(graph, NULL, &count));
    EXPECT(count == 6);
    CHECK(cuGraphInstantiateWithFlags(&exec, graph, 0));
    CHECK(cuMemsetD32(other, 1, N));
    CHECK(cuGraphLaunch(exec, origin));
    CHECK(cuGraphLaunch(exec, origin));
    CHECK(cuStreamSynchronize(origin));
    expect_all(data, 6);
    expect_all(other, 9);
    CHECK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
    CHECK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved));
    EXPECT(used >= N * sizeof(int) && reserved >= used);
    CHECK(cuGraphExecDestroy(exec));
    CHECK(cuGraphDestroy(graph));
    CHECK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
    EXPECT(used == 0);

    /* a graph allocation by hand: its address is fixed when the node is added, and it outlives the
       launch (no free node) until cuMemFree */
    CHECK(cuGraphCreate(&graph, 0));
    CUDA_MEM_ALLOC_NODE_PARAMS alloc_params;
    memset(&alloc_params, 0, sizeof alloc_params);
    alloc_params.poolProps.allocType = 1;
    alloc_params.poolProps.location.type = 1;
    alloc_params.bytesize = N * sizeof(int);
    CUgraphNode alloc;
    CHECK(cuGraphAddMemAllocNode(&alloc, graph, NULL, 0, &alloc_params));
    EXPECT(alloc_params.dptr != 0);
    CUDA_MEM_ALLOC_NODE_PARAMS alloc_read;
    CHECK(cuGraphMemAllocNodeGetParams(alloc, &alloc_read));
    EXPECT(alloc_read.dptr == alloc_params.dptr && alloc_read.bytesize == N * sizeof(int));
    CUDA_MEMSET_NODE_PARAMS fill_graph_memory = {alloc_params.dptr, 0, 4, 4, N, 1};
    CHECK(cuGraphAddMemsetNode(&fill, graph, &alloc, 1, &fill_graph_memory, context));
    CHECK(cuGraphInstantiateWithFlags(&exec, graph, 0));
    CHECK(cuGraphLaunch(exec, NULL));
    expect_all(alloc_params.dptr, 4);
    CHECK(cuMemFree(alloc_params.dptr));
    CHECK(cuGraphExecDestroy(exec));
    CHECK(cuGraphDestroy(graph));

    /* a synchronous copy during a global-mode capture is refused and invalidates the capture */
    CHECK(cuStreamBeginCapture_v2(origin, 0));
    static int host_buffer[N];
    EXPECT(cuMemcpyHtoD(data, host_buffer, sizeof host_buffer) == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    EXPECT(cuStreamEndCapture(origin, &graph) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    expect_all(data, 6);
    CHECK(cuCtxDestroy(context));
    printf("graphs: hand-built graph, capture with fork/join and pool memory, errors correct\n");
    return 0;
}
