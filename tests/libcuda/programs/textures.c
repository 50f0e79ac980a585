/* CUDA arrays and texture/surface references through the C ABI (argv[1]: tests/driver/data/texrefs.ptx):
   cuArrayCreate/GetDescriptor, cuMemcpyHtoA/AtoH, cuModuleGetTexRef with cuTexRefSet* (linear
   filtering, border addressing, a border colour given as float[4]), cuModuleGetSurfRef with
   cuSurfRefSetArray, each kernel's output checked against values computed here. */
#include "check.h"

int main(int argc, char **argv) {
    EXPECT(argc == 2);
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction sample, write;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate(&ctx, 0, dev));
    CHECK(cuModuleLoad(&mod, argv[1]));
    CHECK(cuModuleGetFunction(&sample, mod, "sample_ref"));
    CHECK(cuModuleGetFunction(&write, mod, "write_ref"));

    float texels[3][4];
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 4; x++) texels[y][x] = (float)(10 * y + x * x);
    CUDA_ARRAY_DESCRIPTOR desc = {4, 3, CU_AD_FORMAT_FLOAT, 1}, got;
    CUarray array;
    CHECK(cuArrayCreate(&array, &desc));
    CHECK(cuArrayGetDescriptor(&got, array));
    EXPECT(got.Width == 4 && got.Height == 3 && got.Format == CU_AD_FORMAT_FLOAT && got.NumChannels == 1);
    CHECK(cuMemcpyHtoA(array, 0, texels, sizeof texels));

    CUtexref tex;
    float border[4] = {9.0f, 9.0f, 9.0f, 9.0f};
    int format = 0, channels = 0;
    CHECK(cuModuleGetTexRef(&tex, mod, "tex"));
    CHECK(cuTexRefSetArray(tex, array, CU_TRSA_OVERRIDE_FORMAT));
    CHECK(cuTexRefSetAddressMode(tex, 0, CU_TR_ADDRESS_MODE_CLAMP));
    CHECK(cuTexRefSetAddressMode(tex, 1, CU_TR_ADDRESS_MODE_BORDER));
    CHECK(cuTexRefSetFilterMode(tex, CU_TR_FILTER_MODE_LINEAR));
    CHECK(cuTexRefSetBorderColor(tex, border));
    CHECK(cuTexRefGetFormat(&format, &channels, tex));
    EXPECT(format == CU_AD_FORMAT_FLOAT && channels == 1);

    /* (1.0, 1.5): half-way between texels 0 and 1 of row 1; (2.5, -0.5): row -1, the border colour;
       (5.0, 2.5): x clamped to the last column of row 2 */
    float coords[3][2] = {{1.0f, 1.5f}, {2.5f, -0.5f}, {5.0f, 2.5f}};
    float want[3] = {0.5f * (texels[1][0] + texels[1][1]), 9.0f, texels[2][3]};
    float out[3][4];
    CUdeviceptr dcoords, dout;
    unsigned n = 3;
    CHECK(cuMemAlloc(&dcoords, sizeof coords));
    CHECK(cuMemAlloc(&dout, sizeof out));
    CHECK(cuMemcpyHtoD(dcoords, coords, sizeof coords));
    void *sample_args[] = {&dcoords, &dout, &n};
    CHECK(cuLaunchKernel(sample, 1, 1, 1, 32, 1, 1, 0, NULL, sample_args, NULL));
    CHECK(cuMemcpyDtoH(out, dout, sizeof out));
    for (int i = 0; i < 3; i++) {
        if (out[i][0] != want[i]) {
            fprintf(stderr, "sample %d: %g, want %g\n", i, out[i][0], want[i]);
            return 1;
        }
    }

    CUDA_ARRAY3D_DESCRIPTOR surface_desc = {5, 3, 0, CU_AD_FORMAT_SIGNED_INT32, 1, CUDA_ARRAY3D_SURFACE_LDST};
    CUarray target;
    CUsurfref surf;
    CHECK(cuArray3DCreate(&target, &surface_desc));
    CHECK(cuModuleGetSurfRef(&surf, mod, "surf"));
    CHECK(cuSurfRefSetArray(surf, target, 0));
    unsigned w = 5;
    void *write_args[] = {&w};
    CHECK(cuLaunchKernel(write, 1, 1, 1, 5, 3, 1, 0, NULL, write_args, NULL));
    int written[3][5];
    CHECK(cuMemcpyAtoH(written, target, 0, sizeof written));
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 5; x++) EXPECT(written[y][x] == y * 5 + x);
    CHECK(cuArrayDestroy(array));
    CHECK(cuArrayDestroy(target));
    CHECK(cuCtxDestroy(ctx));
    printf("textures: 3 texture reference samples and 15 surface reference writes correct\n");
    return 0;
}
