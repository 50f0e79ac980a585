/* Context-independent code (the cuLibrary and cuKernel calls) and cuLaunchKernelEx with a CUlaunchConfig, the
   way cuda.core loads and launches: a CUkernel launched directly and through its CUfunction. */
#include "check.h"
#include "kernels_ptx.h"

enum { N = 512 };

static void run(CUfunction f, const CUlaunchConfig *config) {
    static float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)(3 * i);
        b[i] = 0.25f * (float)i;
        c[i] = -1.0f;
    }
    CUdeviceptr da, db, dc;
    CHECK(cuMemAlloc(&da, sizeof a));
    CHECK(cuMemAlloc(&db, sizeof b));
    CHECK(cuMemAlloc(&dc, sizeof c));
    CHECK(cuMemcpyHtoD(da, a, sizeof a));
    CHECK(cuMemcpyHtoD(db, b, sizeof b));
    int n = N;
    void *params[] = {&da, &db, &dc, &n};
    CHECK(cuLaunchKernelEx(config, f, params, NULL));
    CHECK(cuMemcpyDtoH(c, dc, sizeof c));
    for (int i = 0; i < N; i++) EXPECT(c[i] == a[i] + b[i]);
    CHECK(cuMemFree(da));
    CHECK(cuMemFree(db));
    CHECK(cuMemFree(dc));
}

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CUlibrary library;
    CUkernel kernel;
    CUfunction function;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate(&ctx, 0, dev));
    CHECK(cuLibraryLoadData(&library, kernels_ptx, NULL, NULL, 0, NULL, NULL, 0));
    CHECK(cuLibraryGetKernel(&kernel, library, "vector_add"));
    CHECK(cuKernelGetFunction(&function, kernel));

    CUlaunchAttribute attrs[1] = {{0}};
    attrs[0].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
    attrs[0].value.priority = 1;
    CUlaunchConfig config = {N / 128, 1, 1, 128, 1, 1, 0, NULL, attrs, 1};
    run(function, &config);
    run((CUfunction)kernel, &config); /* CUDA lets a CUkernel stand for a CUfunction */

    attrs[0].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attrs[0].value.cooperative = 1;
    run(function, &config); /* cooperative: every block resident at once */
    CUlaunchConfig huge = config;
    huge.gridDimX = 304 * 33; /* more 128-thread blocks than an MI300X holds at once */
    void *none[4] = {0, 0, 0, 0};
    EXPECT(cuLaunchKernelEx(&huge, function, none, NULL) == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);

    CUdeviceptr factor;
    size_t size = 0;
    int value = 0;
    CHECK(cuLibraryGetGlobal(&factor, &size, library, "scale_factor"));
    CHECK(cuMemcpyDtoH(&value, factor, sizeof value));
    EXPECT(size == sizeof(int) && value == 3); /* kernels.cu: __device__ int scale_factor = 3; */
    CHECK(cuLibraryUnload(library));
    EXPECT(cuKernelGetFunction(&function, kernel) != CUDA_SUCCESS);
    CHECK(cuCtxDestroy(ctx));
    printf("library_launch_ex: kernel, function and global correct\n");
    return 0;
}
