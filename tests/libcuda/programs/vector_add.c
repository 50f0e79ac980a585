/* Vector add through the driver API: module from embedded PTX, copies, one launch, result checked. */
#include <string.h>
#include "check.h"
#include "kernels_ptx.h"

int main(void) {
    enum { N = 1000 };
    static float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i * 0.5f;
        b[i] = (float)(N - i);
    }
    int version = 0, count = 0, warp = 0;
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction f;
    char name[64];
    CHECK(cuInit(0));
    CHECK(cuDriverGetVersion(&version));
    EXPECT(version >= 12000);
    CHECK(cuDeviceGetCount(&count));
    EXPECT(count >= 1);
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDeviceGetName(name, sizeof name, dev));
    EXPECT(strlen(name) > 0);
    CHECK(cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev));
    EXPECT(warp == 32);
    CHECK(cuCtxCreate(&ctx, 0, dev));
    CHECK(cuModuleLoadData(&mod, kernels_ptx));
    CHECK(cuModuleGetFunction(&f, mod, "vector_add"));
    EXPECT(cuModuleGetFunction(&f, mod, "no_such_kernel") == CUDA_ERROR_NOT_FOUND);
    CUdeviceptr da, db, dc;
    CHECK(cuMemAlloc(&da, sizeof a));
    CHECK(cuMemAlloc(&db, sizeof b));
    CHECK(cuMemAlloc(&dc, sizeof c));
    CHECK(cuMemcpyHtoD(da, a, sizeof a));
    CHECK(cuMemcpyHtoD(db, b, sizeof b));
    int n = N;
    void *params[] = {&da, &db, &dc, &n};
    CHECK(cuLaunchKernel(f, (N + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(c, dc, sizeof c));
    for (int i = 0; i < N; i++) EXPECT(c[i] == a[i] + b[i]);
    CHECK(cuMemFree(da));
    CHECK(cuMemFree(db));
    CHECK(cuMemFree(dc));
    CHECK(cuModuleUnload(mod));
    CHECK(cuCtxDestroy(ctx));
    printf("vector_add: %d sums correct\n", N);
    return 0;
}
