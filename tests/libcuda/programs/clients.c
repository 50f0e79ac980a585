/* The entry points real clients (numba-cuda, cuda.core) need beyond the core set, through the C ABI:
   cuLink* linking the kernels' PTX into a loadable image, host memory mapped for the device
   (cuMemHostAlloc, cuMemHostRegister, cuMemAllocManaged) read and written by a kernel with no copy,
   pointer attributes with the C widths (4-byte booleans and enums, 8-byte pointers and sizes),
   cuMemGetAddressRange, occupancy, a stream callback and a host function, IPC refused. */
#include <stdint.h>
#include <string.h>
#include "check.h"
#include "kernels_ptx.h"

/* Declared as in cuda.h (CUDA 13), beyond mini_cuda.h. */
typedef struct CUlinkState_st *CUlinkState;
typedef void (*CUstreamCallback)(CUstream stream, CUresult status, void *userData);
typedef void (*CUhostFn)(void *userData);
CUresult cuLinkCreate_v2(unsigned numOptions, int *options, void **optionValues, CUlinkState *state);
CUresult cuLinkAddData_v2(CUlinkState state, int type, void *data, size_t size, const char *name,
                          unsigned numOptions, int *options, void **optionValues);
CUresult cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut);
CUresult cuLinkDestroy(CUlinkState state);
CUresult cuMemHostAlloc(void **pp, size_t bytes, unsigned flags);
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *dptr, void *p, unsigned flags);
CUresult cuMemFreeHost(void *p);
CUresult cuMemHostRegister_v2(void *p, size_t bytes, unsigned flags);
CUresult cuMemHostUnregister(void *p);
CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytes, unsigned flags);
CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr dptr);
CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr);
CUresult cuPointerGetAttributes(unsigned count, int *attributes, void **data, CUdeviceptr ptr);
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction f, int blockSize, size_t shared);
CUresult cuStreamAddCallback(CUstream stream, CUstreamCallback callback, void *userData, unsigned flags);
CUresult cuLaunchHostFunc(CUstream stream, CUhostFn fn, void *userData);
CUresult cuIpcGetMemHandle(void *handle, CUdeviceptr dptr);
typedef struct {
    size_t srcXInBytes, srcY;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    void *srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    void *dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
} CUDA_MEMCPY2D; /* cuda.h's CUDA_MEMCPY2D_v2 */
CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *copy);

#define CU_JIT_INPUT_PTX 1
#define CU_JIT_INPUT_CUBIN 0
#define CU_JIT_ERROR_LOG_BUFFER 5
#define CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6
#define CU_MEMHOSTALLOC_DEVICEMAP 2
#define CU_MEM_ATTACH_GLOBAL 1
#define CU_POINTER_ATTRIBUTE_CONTEXT 1
#define CU_POINTER_ATTRIBUTE_MEMORY_TYPE 2
#define CU_POINTER_ATTRIBUTE_IS_MANAGED 8
#define CU_POINTER_ATTRIBUTE_RANGE_SIZE 12
#define CU_MEMORYTYPE_HOST 1
#define CU_MEMORYTYPE_DEVICE 2
#define CUDA_ERROR_NO_BINARY_FOR_GPU 209
#define CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED 712

enum { N = 256 };

static void vector_add(CUfunction f, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c) {
    int n = N;
    void *params[] = {&a, &b, &c, &n};
    CHECK(cuLaunchKernel(f, N / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
}

static int callbacks;
static void on_stream(CUstream stream, CUresult status, void *data) {
    if (status == CUDA_SUCCESS && data == &callbacks) callbacks += 1;
}
static void host_fn(void *data) { *(int *)data += 10; }

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate(&ctx, 0, dev));

    /* Link the PTX and load the result, as numba-cuda and cuda.core's driver linker do. */
    char errors[256] = {0};
    int keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {errors, (void *)(uintptr_t)sizeof errors};
    CUlinkState link;
    CHECK(cuLinkCreate_v2(2, keys, values, &link));
    CHECK(cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, (void *)kernels_ptx, sizeof kernels_ptx, "kernels.ptx", 0, NULL,
                           NULL));
    void *image;
    size_t size;
    CHECK(cuLinkComplete(link, &image, &size));
    CUmodule module;
    CUfunction f;
    CHECK(cuModuleLoadData(&module, image));
    CHECK(cuLinkDestroy(link));
    CHECK(cuModuleGetFunction(&f, module, "vector_add"));

    /* A cubin holds no PTX: accepted, and the link fails naming the flag that embeds PTX. */
    static const char cubin[64] = "\177ELF\2\1\1\63";
    CHECK(cuLinkCreate_v2(2, keys, values, &link));
    CHECK(cuLinkAddData_v2(link, CU_JIT_INPUT_CUBIN, (void *)cubin, sizeof cubin, "k.cubin", 0, NULL, NULL));
    EXPECT(cuLinkComplete(link, &image, &size) == CUDA_ERROR_NO_BINARY_FOR_GPU);
    EXPECT(strstr(errors, "compute_") != NULL); /* the error log names the flag that embeds PTX */
    CHECK(cuLinkDestroy(link));

    /* Mapped, registered and managed memory: the kernel reads and writes the host's bytes. */
    float *a, *c;
    static float b[N];
    CHECK(cuMemHostAlloc((void **)&a, N * sizeof(float), CU_MEMHOSTALLOC_DEVICEMAP));
    CHECK(cuMemAllocManaged((CUdeviceptr *)&c, N * sizeof(float), CU_MEM_ATTACH_GLOBAL));
    CHECK(cuMemHostRegister_v2(b, sizeof b, 0));
    EXPECT(cuMemHostRegister_v2(b + 4, 16, 0) == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i;
    }
    CUdeviceptr da;
    CHECK(cuMemHostGetDevicePointer_v2(&da, a, 0));
    EXPECT(da == (CUdeviceptr)(uintptr_t)a);
    vector_add(f, da, (CUdeviceptr)(uintptr_t)b, (CUdeviceptr)(uintptr_t)c);
    for (int i = 0; i < N; i++) EXPECT(c[i] == 1.5f * (float)i);

    /* Pointer attributes, written with their C widths over guard words. */
    struct { unsigned value, guard; } type = {0, 0xdeadbeef}, managed = {0, 0xdeadbeef};
    CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)a));
    CHECK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, (CUdeviceptr)(uintptr_t)c));
    EXPECT(type.value == CU_MEMORYTYPE_HOST && type.guard == 0xdeadbeef);
    EXPECT(managed.value == 1 && managed.guard == 0xdeadbeef);
    CUdeviceptr device;
    CHECK(cuMemAlloc(&device, 1000));
    int attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    unsigned memory_type = 0;
    CUcontext owner = NULL;
    size_t range = 0;
    void *data[] = {&memory_type, &owner, &range};
    CHECK(cuPointerGetAttributes(3, attributes, data, device + 10));
    EXPECT(memory_type == CU_MEMORYTYPE_DEVICE && owner == ctx && range == 1000);
    CUdeviceptr base;
    size_t extent;
    CHECK(cuMemGetAddressRange_v2(&base, &extent, device + 999));
    EXPECT(base == device && extent == 1000);
    EXPECT(cuMemGetAddressRange_v2(&base, &extent, device + 5000) == CUDA_ERROR_NOT_FOUND);

    /* A pitched 2D copy: rows of 3 bytes into a device block of pitch 8, and back. */
    static const unsigned char rows[4][3] = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10, 11, 12}};
    unsigned char back[4][3] = {{0}}, raw[32];
    CHECK(cuMemsetD32(device, 0, 8));
    CUDA_MEMCPY2D copy = {0};
    copy.srcMemoryType = CU_MEMORYTYPE_HOST, copy.srcHost = rows, copy.srcPitch = 3;
    copy.dstMemoryType = CU_MEMORYTYPE_DEVICE, copy.dstDevice = device, copy.dstPitch = 8;
    copy.WidthInBytes = 3, copy.Height = 4;
    CHECK(cuMemcpy2D_v2(&copy));
    CHECK(cuMemcpyDtoH(raw, device, 32));
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 8; c++) EXPECT(raw[8 * r + c] == (c < 3 ? rows[r][c] : 0));
    CUDA_MEMCPY2D down = {0};
    down.srcMemoryType = CU_MEMORYTYPE_DEVICE, down.srcDevice = device, down.srcPitch = 8;
    down.dstMemoryType = CU_MEMORYTYPE_HOST, down.dstHost = back, down.dstPitch = 3;
    down.WidthInBytes = 3, down.Height = 4;
    CHECK(cuMemcpy2D_v2(&down));
    EXPECT(memcmp(back, rows, sizeof rows) == 0);

    /* Occupancy, callbacks, IPC. */
    int blocks = 0;
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 256, 0));
    EXPECT(blocks >= 1 && blocks <= 16);
    CUstream stream;
    CHECK(cuStreamCreate(&stream, 0));
    CHECK(cuStreamAddCallback(stream, on_stream, &callbacks, 0));
    CHECK(cuLaunchHostFunc(stream, host_fn, &callbacks));
    CHECK(cuStreamSynchronize(stream));
    EXPECT(callbacks == 11);
    char handle[64];
    EXPECT(cuIpcGetMemHandle(handle, device) == CUDA_ERROR_NOT_SUPPORTED);

    CHECK(cuMemHostUnregister(b));
    CHECK(cuMemFreeHost(a));
    CHECK(cuMemFree((CUdeviceptr)(uintptr_t)c));
    CHECK(cuCtxDestroy(ctx));
    printf("clients: link, mapped memory, attributes, 2D copy, occupancy %d, callbacks correct\n", blocks);
    return 0;
}
