/* Two host threads, each with its own context made current on that thread only: each launches
   vector_add with its own data and checks that cuCtxGetCurrent names its own context throughout. */
#include <pthread.h>
#include "check.h"
#include "kernels_ptx.h"

enum { N = 300 };

CUresult cuCtxGetCurrent(CUcontext *ctx);

static void *work(void *arg) {
    int id = (int)(size_t)arg;
    float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)(i + id * 1000);
        b[i] = (float)id;
    }
    CUdevice dev;
    CUcontext ctx, current;
    CUmodule mod;
    CUfunction f;
    CUdeviceptr da, db, dc;
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate(&ctx, 0, dev));
    CHECK(cuCtxGetCurrent(&current));
    EXPECT(current == ctx);
    CHECK(cuModuleLoadData(&mod, kernels_ptx));
    CHECK(cuModuleGetFunction(&f, mod, "vector_add"));
    CHECK(cuMemAlloc(&da, sizeof a));
    CHECK(cuMemAlloc(&db, sizeof b));
    CHECK(cuMemAlloc(&dc, sizeof c));
    CHECK(cuMemcpyHtoD(da, a, sizeof a));
    CHECK(cuMemcpyHtoD(db, b, sizeof b));
    int n = N;
    void *params[] = {&da, &db, &dc, &n};
    CHECK(cuLaunchKernel(f, (N + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, params, NULL));
    CHECK(cuMemcpyDtoH(c, dc, sizeof c));
    for (int i = 0; i < N; i++) EXPECT(c[i] == a[i] + b[i]);
    CHECK(cuCtxGetCurrent(&current));
    EXPECT(current == ctx);
    CHECK(cuCtxDestroy(ctx));
    return (void *)ctx;
}

int main(void) {
    CHECK(cuInit(0));
    pthread_t threads[2];
    void *contexts[2];
    for (int t = 0; t < 2; t++) EXPECT(pthread_create(&threads[t], NULL, work, (void *)(size_t)(t + 1)) == 0);
    for (int t = 0; t < 2; t++) EXPECT(pthread_join(threads[t], &contexts[t]) == 0);
    EXPECT(contexts[0] != contexts[1]);
    CUcontext current = (CUcontext)1;
    CHECK(cuCtxGetCurrent(&current));
    EXPECT(current == 0);
    printf("threads: 2 contexts, results correct\n");
    return 0;
}
