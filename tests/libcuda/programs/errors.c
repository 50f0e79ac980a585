/* Error semantics seen from C: codes CUDA documents for each case, error names, and ptx2gcn's
   last-error message extension. Expected codes are CUDA's (cuda.h / driver API reference). */
#include <string.h>
#include "check.h"

CUresult ptx2gcnGetLastErrorMessage(char *buffer, size_t size);

#define EXPECT_CODE(call, code) EXPECT((call) == (code))

static const char bad_ptx[] = ".version 9.0\n.target sm_80\n.address_size 64\n"
                              ".visible .entry k() { bogus.u32 %r1; }\n";

int main(void) {
    CUdeviceptr p;
    EXPECT_CODE(cuMemAlloc(&p, 16), 3); /* CUDA_ERROR_NOT_INITIALIZED before cuInit */
    CHECK(cuInit(0));
    EXPECT_CODE(cuMemAlloc(&p, 16), 201); /* CUDA_ERROR_INVALID_CONTEXT: none is current */

    const char *name = 0;
    CHECK(cuGetErrorName(201, &name));
    EXPECT(strcmp(name, "CUDA_ERROR_INVALID_CONTEXT") == 0);
    name = (const char *)1;
    EXPECT_CODE(cuGetErrorName(123456, &name), CUDA_ERROR_INVALID_VALUE);
    EXPECT(name == 0);

    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CHECK(cuDeviceGet(&dev, 0));
    EXPECT_CODE(cuDeviceGet(&dev, 99), 101); /* CUDA_ERROR_INVALID_DEVICE */
    CHECK(cuCtxCreate(&ctx, 0, dev));
    EXPECT_CODE(cuMemAlloc(0, 16), CUDA_ERROR_INVALID_VALUE);
    /* Lazy loading (the default): the load checks declarations, the kernel's body is compiled, and
       its error reported, when the kernel is first asked for (docs/jit.md). */
    CUfunction fn;
    CHECK(cuModuleLoadData(&mod, bad_ptx));
    EXPECT_CODE(cuModuleGetFunction(&fn, mod, "k"), 218); /* CUDA_ERROR_INVALID_PTX */
    char message[512];
    CHECK(ptx2gcnGetLastErrorMessage(message, sizeof message));
    EXPECT(strstr(message, "undeclared register") != 0);
    CHECK(cuCtxDestroy(ctx));
    printf("errors: all checks passed\n");
    return 0;
}
