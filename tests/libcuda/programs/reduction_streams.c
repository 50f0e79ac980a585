/* A reduction split over two streams, timed with events; a __device__ global read through
   cuModuleGetGlobal; the kernel launched through a pointer from cuGetProcAddress. */
#include "check.h"
#include "kernels_ptx.h"

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              CUstream, void **, void **);

int main(void) {
    enum { N = 4096, HALF = N / 2 };
    static unsigned data[N];
    unsigned long long expected[2] = {0, 0};
    for (int i = 0; i < N; i++) {
        data[i] = (unsigned)(i * 7 + 1);
        expected[i / HALF] += data[i];
    }
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction block_sum, scale;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate(&ctx, 0, dev));
    CHECK(cuModuleLoadData(&mod, kernels_ptx));
    CHECK(cuModuleGetFunction(&block_sum, mod, "block_sum"));
    CHECK(cuModuleGetFunction(&scale, mod, "scale"));

    launch_fn launch = 0;
    int status = -1;
    CHECK(cuGetProcAddress("cuLaunchKernel", (void **)&launch, 12000, 0, &status));
    EXPECT(launch != 0 && status == 0);
    void *missing = (void *)1;
    EXPECT(cuGetProcAddress("cuNoSuchFunction", &missing, 12000, 0, &status) == CUDA_ERROR_NOT_FOUND);
    EXPECT(missing == 0 && status == 1);

    CUstream streams[2];
    CUevent start, stop;
    CUdeviceptr in, totals;
    CHECK(cuStreamCreate(&streams[0], CU_STREAM_NON_BLOCKING));
    CHECK(cuStreamCreate(&streams[1], CU_STREAM_NON_BLOCKING));
    CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
    CHECK(cuEventCreate(&stop, CU_EVENT_DEFAULT));
    CHECK(cuMemAlloc(&in, sizeof data));
    CHECK(cuMemAlloc(&totals, 2 * sizeof(unsigned long long)));
    CHECK(cuMemsetD32(totals, 0, 4));
    CHECK(cuEventRecord(start, streams[0]));
    for (int s = 0; s < 2; s++) {
        CUdeviceptr part = in + (CUdeviceptr)s * HALF * sizeof(unsigned);
        CUdeviceptr total = totals + (CUdeviceptr)s * sizeof(unsigned long long);
        int n = HALF;
        void *params[] = {&part, &total, &n};
        CHECK(cuMemcpyHtoDAsync(part, data + s * HALF, HALF * sizeof(unsigned), streams[s]));
        CHECK(launch(block_sum, HALF / 256, 1, 1, 256, 1, 1, 0, streams[s], params, NULL));
    }
    CHECK(cuEventRecord(stop, streams[1]));
    unsigned long long got[2];
    CHECK(cuMemcpyDtoHAsync(got, totals, sizeof got, streams[1]));
    CHECK(cuStreamSynchronize(streams[0]));
    CHECK(cuStreamSynchronize(streams[1]));
    CHECK(cuEventSynchronize(stop));
    float ms = -1.0f;
    CHECK(cuEventElapsedTime(&ms, start, stop));
    EXPECT(ms >= 0.0f);
    EXPECT(got[0] == expected[0] && got[1] == expected[1]);

    CUdeviceptr factor;
    size_t factor_size = 0;
    CHECK(cuModuleGetGlobal(&factor, &factor_size, mod, "scale_factor"));
    EXPECT(factor_size == sizeof(int));
    int five = 5;
    CHECK(cuMemcpyHtoD(factor, &five, sizeof five));
    int n = 256;
    void *params[] = {&in, &n};
    CHECK(cuLaunchKernel(scale, 1, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
    CHECK(cuMemcpyDtoH(data, in, 256 * sizeof(unsigned)));
    for (int i = 0; i < 256; i++) EXPECT(data[i] == (unsigned)(i * 7 + 1) * 5u);

    CHECK(cuEventDestroy(start));
    CHECK(cuEventDestroy(stop));
    CHECK(cuStreamDestroy(streams[0]));
    CHECK(cuStreamDestroy(streams[1]));
    CHECK(cuMemFree(in));
    CHECK(cuMemFree(totals));
    CHECK(cuCtxDestroy(ctx));
    printf("reduction_streams: sums %llu %llu correct, %.3f ms\n", got[0], got[1], ms);
    return 0;
}
