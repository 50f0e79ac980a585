/* A stand-in for libamdhip64 with no GPU behind it, for testing the ctypes layer of
 * ptx2gcn.runtime.backends.hip: memory lives in host malloc, a "module" is any AMDGPU ELF image, and
 * launching the one known kernel, add_scalar(u32* data, u32 n, u32 value), runs it on the host from
 * the packed parameter buffer (hipModuleLaunchKernel's extra: HIP_LAUNCH_PARAM_BUFFER_POINTER / _SIZE /
 * _END = 1 / 2 / 3) or from the per-argument pointers (hipModuleLaunchCooperativeKernel's kernelParams).
 * The fake device has FAKE_CUS compute units, of which add_scalar fills 2 blocks of up to 256
 * work-items per CU (1 block when larger); a cooperative launch of more blocks than fit at once fails
 * with hipErrorCooperativeLaunchTooLarge, as HIP's does. Host memory for the device
 * (hipHostMalloc/hipHostRegister/hipMallocManaged) is mapped at its own address.
 * Every call is logged with its arguments (fake_call_count/fake_call) for the tests to check.
 * FAKE_HIP_DEVICES=0 in the environment makes it report no device. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { hipSuccess = 0, hipErrorInvalidValue = 1, hipErrorNoDevice = 100, hipErrorInvalidDevice = 101,
       hipErrorInvalidImage = 200, hipErrorNoBinaryForGpu = 209, hipErrorNotFound = 500,
       hipErrorHostMemoryAlreadyRegistered = 712, hipErrorHostMemoryNotRegistered = 713,
       hipErrorLaunchFailure = 719, hipErrorCooperativeLaunchTooLarge = 720 };
enum { FAKE_CUS = 4, MAX_CALLS = 256, MAX_HOST_BLOCKS = 64 };

/* The call log: each entry is a function name and up to 12 of its arguments as integers. */
static struct { char name[56]; uint64_t args[12]; } calls[MAX_CALLS];
static int call_count;
static void log_call(const char* name, int n, const uint64_t* args) {
    if (call_count >= MAX_CALLS) return;
    strncpy(calls[call_count].name, name, sizeof calls[call_count].name - 1);
    memcpy(calls[call_count].args, args, sizeof(uint64_t) * (size_t)n);
    call_count++;
}
#define LOG(name, ...) do { uint64_t a_[] = {__VA_ARGS__}; log_call(name, sizeof a_ / sizeof a_[0], a_); } while (0)

/* Host memory mapped for the device: kind 1 = hipHostMalloc, 2 = hipHostRegister. */
static struct { uintptr_t start; size_t size; int kind; } host_blocks[MAX_HOST_BLOCKS];
static int find_host(const void* p, int exact) {
    for (int i = 0; i < MAX_HOST_BLOCKS; i++) {
        uintptr_t a = (uintptr_t)p, s = host_blocks[i].start;
        if (host_blocks[i].kind && (exact ? a == s : a >= s && a < s + host_blocks[i].size)) return i;
    }
    return -1;
}
static int add_host(void* p, size_t size, int kind) {
    int i;
    for (i = 0; i < MAX_HOST_BLOCKS && host_blocks[i].kind; i++) {}
    if (i == MAX_HOST_BLOCKS) return hipErrorInvalidValue;
    host_blocks[i].start = (uintptr_t)p; host_blocks[i].size = size; host_blocks[i].kind = kind;
    return hipSuccess;
}

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
int hipFree(void* ptr) { LOG("hipFree", (uintptr_t)ptr); free(ptr); allocations_live--; return hipSuccess; }
int hipMallocManaged(void** ptr, size_t size, unsigned flags) {
    if (flags != 1 && flags != 2) return hipErrorInvalidValue; /* hipMemAttachGlobal / hipMemAttachHost */
    *ptr = calloc(1, size);
    allocations_live++;
    LOG("hipMallocManaged", size, flags, (uintptr_t)*ptr);
    return hipSuccess;
}
int hipHostMalloc(void** ptr, size_t size, unsigned flags) {
    if (flags & ~7u) return hipErrorInvalidValue; /* portable 1, mapped 2, write-combined 4 */
    *ptr = calloc(1, size);
    LOG("hipHostMalloc", size, flags, (uintptr_t)*ptr);
    return add_host(*ptr, size, 1);
}
int hipHostFree(void* ptr) {
    int i = find_host(ptr, 1);
    LOG("hipHostFree", (uintptr_t)ptr);
    if (i < 0 || host_blocks[i].kind != 1) return hipErrorInvalidValue;
    host_blocks[i].kind = 0;
    free(ptr);
    return hipSuccess;
}
int hipHostRegister(void* ptr, size_t size, unsigned flags) {
    LOG("hipHostRegister", (uintptr_t)ptr, size, flags);
    if (!ptr || !size || (flags & ~15u)) return hipErrorInvalidValue;
    if (find_host(ptr, 0) >= 0) return hipErrorHostMemoryAlreadyRegistered;
    return add_host(ptr, size, 2);
}
int hipHostUnregister(void* ptr) {
    int i = find_host(ptr, 1);
    LOG("hipHostUnregister", (uintptr_t)ptr);
    if (i < 0 || host_blocks[i].kind != 2) return hipErrorHostMemoryNotRegistered;
    host_blocks[i].kind = 0;
    return hipSuccess;
}
int hipHostGetDevicePointer(void** device, void* host, unsigned flags) {
    LOG("hipHostGetDevicePointer", (uintptr_t)host, flags);
    if (flags || find_host(host, 0) < 0) return hipErrorInvalidValue;
    *device = host;
    return hipSuccess;
}
int hipDeviceGetAttribute(int* value, int attribute, int device) {
    if (device != 0) return hipErrorInvalidDevice;
    switch (attribute) {
    case 4: *value = 1; return hipSuccess;         /* hipDeviceAttributeCanUseHostPointerForRegisteredMem */
    case 10: *value = 1; return hipSuccess;        /* hipDeviceAttributeCooperativeLaunch */
    case 63: *value = FAKE_CUS; return hipSuccess; /* hipDeviceAttributeMultiprocessorCount */
    default: return hipErrorInvalidValue;
    }
}
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
static int blocks_per_cu(int block_size) { return block_size <= 256 ? 2 : 1; }

int hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, void* f, int block_size, size_t shared) {
    LOG("hipModuleOccupancyMaxActiveBlocksPerMultiprocessor", (uintptr_t)f, (uint64_t)block_size, shared);
    if (f != (void*)kernel_name || block_size < 1 || block_size > 1024) return hipErrorInvalidValue;
    *blocks = blocks_per_cu(block_size);
    return hipSuccess;
}

/* add_scalar over the launch's work-items, from its three argument values. */
static int run_add_scalar(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          uint32_t* data, uint32_t n, uint32_t value) {
    if (n > gx * gy * gz * bx * by * bz) return hipErrorLaunchFailure;
    for (uint32_t i = 0; i < n; i++) data[i] += value;
    return hipSuccess;
}

static void remember(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shared,
                     size_t size) {
    last_grid[0] = gx; last_grid[1] = gy; last_grid[2] = gz;
    last_block[0] = bx; last_block[1] = by; last_block[2] = bz;
    last_shared = shared; last_param_size = size;
}

int hipModuleLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          unsigned shared, void* stream, void** params, void** extra) {
    LOG("hipModuleLaunchKernel", gx, gy, gz, bx, by, bz, shared, (uintptr_t)stream, (uintptr_t)params);
    if (f != (void*)kernel_name || params || !extra) return hipErrorInvalidValue;
    if (extra[0] != (void*)1 || extra[2] != (void*)2 || extra[4] != (void*)3) return hipErrorInvalidValue;
    const unsigned char* buffer = extra[1];
    size_t size = *(size_t*)extra[3];
    if (size != 16) return hipErrorInvalidValue;
    uint32_t* data; uint32_t n, value;
    memcpy(&data, buffer, 8); memcpy(&n, buffer + 8, 4); memcpy(&value, buffer + 12, 4);
    int status = run_add_scalar(gx, gy, gz, bx, by, bz, data, n, value);
    if (status == hipSuccess) remember(gx, gy, gz, bx, by, bz, shared, size);
    return status;
}

int hipModuleLaunchCooperativeKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                     unsigned bz, unsigned shared, void* stream, void** params) {
    if (f != (void*)kernel_name || !params) return hipErrorInvalidValue;
    uint32_t* data; uint32_t n, value;
    memcpy(&data, params[0], 8); memcpy(&n, params[1], 4); memcpy(&value, params[2], 4);
    LOG("hipModuleLaunchCooperativeKernel", gx, gy, gz, bx, by, bz, shared, (uintptr_t)stream,
        (uintptr_t)data, n, value);
    if ((uint64_t)gx * gy * gz > (uint64_t)blocks_per_cu((int)(bx * by * bz)) * FAKE_CUS)
        return hipErrorCooperativeLaunchTooLarge;
    int status = run_add_scalar(gx, gy, gz, bx, by, bz, data, n, value);
    if (status == hipSuccess) remember(gx, gy, gz, bx, by, bz, shared, 16);
    return status;
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
    case hipErrorHostMemoryAlreadyRegistered: return "hipErrorHostMemoryAlreadyRegistered";
    case hipErrorHostMemoryNotRegistered: return "hipErrorHostMemoryNotRegistered";
    case hipErrorLaunchFailure: return "hipErrorLaunchFailure";
    case hipErrorCooperativeLaunchTooLarge: return "hipErrorCooperativeLaunchTooLarge";
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
int fake_call_count(void) { return call_count; }
/* Entry i of the call log: its name into name (56 bytes) and its 12 argument slots into args. */
void fake_call(int i, char* name, uint64_t* args) {
    memcpy(name, calls[i].name, sizeof calls[i].name);
    memcpy(args, calls[i].args, sizeof calls[i].args);
}
