/* Device printf: each of 2x4 threads prints one line; the test compares the lines. */
#include "check.h"
#include "kernels_ptx.h"

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction hello;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate(&ctx, 0, dev));
    CHECK(cuModuleLoadData(&mod, kernels_ptx));
    CHECK(cuModuleGetFunction(&hello, mod, "hello"));
    int tag = 42;
    void *params[] = {&tag};
    CHECK(cuLaunchKernel(hello, 2, 1, 1, 4, 1, 1, 0, NULL, params, NULL));
    CHECK(cuCtxSynchronize());
    CHECK(cuCtxDestroy(ctx));
    return 0;
}
