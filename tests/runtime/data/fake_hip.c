/* A stand-in for libamdhip64 with no GPU behind it, for testing the ctypes layer of
 * ptx2gcn.runtime.hip: memory lives in host malloc, a "module" is any AMDGPU ELF image, and launching the
 * one known kernel, add_scalar(u32* data, u32 n, u32 value), runs it on the host from the packed
 * parameter buffer (HIP_LAUNCH_PARAM_BUFFER_POINTER / _SIZE / _END = 1 / 2 / 3).
 * FAKE_HIP_DEVICES=0 in the environment makes it report no device. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { hipSuccess = 0, hipErrorInvalidValue = 1, hipErrorNoDevice = 100, hipErrorInvalidDevice = 101,
       hipErrorInvalidImage = 200, hipErrorNoBinaryForGpu = 209, hipErrorNotFound = 500,
       hipErrorLaunchFailure = 719 };

static const char kernel_name[] = "add_scalar";
static int modules_loaded, modules_live, allocations_live;
static unsigned last_grid[3], last_block[3], last_shared;
static size_t last_param_size;

static int devices(void) { const char* v = getenv("FAKE_HIP_DEVICES"); return v ? atoi(v) : 1; }

int hipInit(unsigned flags) { return flags ? hipErrorInvalidValue : (devices() ? hipSuccess : hipErrorInvalidDevice); }
int hipGetDeviceCount(int* count) { *count = devices(); return *count ? hipSuccess : hipErrorNoDevice; }
int hipSetDevice(int device) { return device >= 0 && device < devices() ? hipSuccess : hipErrorInvalidDevice; }
int hipDeviceGetName(char* name, int len, int device) {
    if (device != 0 || len < 1) return hipErrorInvalidValue;
    strncpy(name, "Fake gfx942", (size_t)len - 1);
    name[len - 1] = 0;
    return hipSuccess;
}
int hipMalloc(void** ptr, size_t size) { *ptr = calloc(1, size); allocations_live++; return hipSuccess; }
int hipFree(void* ptr) { free(ptr); allocations_live--; return hipSuccess; }
int hipMemcpyHtoD(void* dst, const void* src, size_t size) { memcpy(dst, src, size); return hipSuccess; }
int hipMemcpyDtoH(void* dst, const void* src, size_t size) { memcpy(dst, src, size); return hipSuccess; }
int hipDeviceSynchronize(void) { return hipSuccess; }

int hipModuleLoadData(void** module, const void* image) {
    if (memcmp(image, "\x7f" "ELF", 4) != 0) return hipErrorInvalidImage;
    if (((const unsigned char*)image)[18] != 224) return hipErrorNoBinaryForGpu; /* e_machine: EM_AMDGPU */
    *module = (void*)(uintptr_t)(0x1000 + ++modules_loaded);
    modules_live++;
    return hipSuccess;
}
int hipModuleUnload(void* module) { (void)module; modules_live--; return hipSuccess; }
int hipModuleGetFunction(void** function, void* module, const char* name) {
    if (!module || strcmp(name, kernel_name) != 0) return hipErrorNotFound;
    *function = (void*)kernel_name;
    return hipSuccess;
}
int hipModuleLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          unsigned shared, void* stream, void** params, void** extra) {
    (void)stream;
    if (f != (void*)kernel_name || params || !extra) return hipErrorInvalidValue;
    if (extra[0] != (void*)1 || extra[2] != (void*)2 || extra[4] != (void*)3) return hipErrorInvalidValue;
    const unsigned char* buffer = extra[1];
    size_t size = *(size_t*)extra[3];
    if (size != 16) return hipErrorInvalidValue;
    uint32_t* data; uint32_t n, value;
    memcpy(&data, buffer, 8); memcpy(&n, buffer + 8, 4); memcpy(&value, buffer + 12, 4);
    if (n > gx * gy * gz * bx * by * bz) return hipErrorLaunchFailure;
    for (uint32_t i = 0; i < n; i++) data[i] += value;
    last_grid[0] = gx; last_grid[1] = gy; last_grid[2] = gz;
    last_block[0] = bx; last_block[1] = by; last_block[2] = bz;
    last_shared = shared; last_param_size = size;
    return hipSuccess;
}

const char* hipGetErrorName(int e) {
    switch (e) {
    case hipSuccess: return "hipSuccess";
    case hipErrorInvalidValue: return "hipErrorInvalidValue";
    case hipErrorNoDevice: return "hipErrorNoDevice";
    case hipErrorInvalidDevice: return "hipErrorInvalidDevice";
    case hipErrorInvalidImage: return "hipErrorInvalidImage";
    case hipErrorNoBinaryForGpu: return "hipErrorNoBinaryForGpu";
    case hipErrorNotFound: return "hipErrorNotFound";
    default: return "hipErrorUnknown";
    }
}
const char* hipGetErrorString(int e) { return e == hipErrorNoDevice ? "no ROCm-capable device is detected" : hipGetErrorName(e); }

/* Inspection hooks for the tests. */
void fake_last_launch(unsigned* out) {
    memcpy(out, last_grid, sizeof last_grid); memcpy(out + 3, last_block, sizeof last_block);
    out[6] = last_shared; out[7] = (unsigned)last_param_size;
}
int fake_live(int which) { return which == 0 ? allocations_live : modules_live; }
