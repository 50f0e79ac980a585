/* The part of CUDA's driver API (cuda.h, CUDA 13) these test programs use, declared here so that
   they build with any C compiler; the names map to the same ABI symbols cuda.h maps them to. */
#ifndef MINI_CUDA_H
#define MINI_CUDA_H
#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUlib_st *CUlibrary;
typedef struct CUkern_st *CUkernel;

typedef struct {
    int id;
    char pad[4];
    union {
        char pad[64];
        int cooperative;
        int priority;
        struct { unsigned x, y, z; } clusterDim;
    } value;
} CUlaunchAttribute;

typedef struct {
    unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    CUstream hStream;
    CUlaunchAttribute *attrs;
    unsigned numAttrs;
} CUlaunchConfig;

#define CU_LAUNCH_ATTRIBUTE_COOPERATIVE 2
#define CU_LAUNCH_ATTRIBUTE_PRIORITY 8
#define CUDA_ERROR_NOT_SUPPORTED 801
#define CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE 720

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_NOT_FOUND 500
#define CU_DEVICE_ATTRIBUTE_WARP_SIZE 10
#define CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define CU_STREAM_NON_BLOCKING 1
#define CU_EVENT_DEFAULT 0

/* As cuda.h: the API names map to versioned ABI symbols, and with
   CUDA_API_PER_THREAD_DEFAULT_STREAM (nvcc --default-stream per-thread) to their _ptds/_ptsz forms. */
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
#define MINI_PTDS(api) api##_ptds
#define MINI_PTSZ(api) api##_ptsz
#else
#define MINI_PTDS(api) api
#define MINI_PTSZ(api) api
#endif
#define cuCtxCreate cuCtxCreate_v2
#define cuCtxDestroy cuCtxDestroy_v2
#define cuMemAlloc cuMemAlloc_v2
#define cuMemFree cuMemFree_v2
#define cuMemcpyHtoD MINI_PTDS(cuMemcpyHtoD_v2)
#define cuMemcpyDtoH MINI_PTDS(cuMemcpyDtoH_v2)
#define cuMemcpyHtoDAsync MINI_PTSZ(cuMemcpyHtoDAsync_v2)
#define cuMemcpyDtoHAsync MINI_PTSZ(cuMemcpyDtoHAsync_v2)
#define cuMemsetD32 MINI_PTDS(cuMemsetD32_v2)
#define cuModuleGetGlobal cuModuleGetGlobal_v2
#define cuStreamDestroy cuStreamDestroy_v2
#define cuEventDestroy cuEventDestroy_v2
#define cuGetProcAddress cuGetProcAddress_v2
#define cuLaunchKernel MINI_PTSZ(cuLaunchKernel)
#define cuLaunchKernelEx MINI_PTSZ(cuLaunchKernelEx)
#define cuStreamSynchronize MINI_PTSZ(cuStreamSynchronize)
#define cuEventRecord MINI_PTSZ(cuEventRecord)

CUresult cuInit(unsigned int flags);
CUresult cuDriverGetVersion(int *version);
CUresult cuGetErrorName(CUresult error, const char **name);
CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, unsigned long long flags,
                             int *symbolStatus);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice dev);
CUresult cuCtxCreate(CUcontext *ctx, unsigned int flags, CUdevice dev);
CUresult cuCtxDestroy(CUcontext ctx);
CUresult cuCtxSynchronize(void);
CUresult cuModuleLoadData(CUmodule *module, const void *image);
CUresult cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name);
CUresult cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUmodule module, const char *name);
CUresult cuModuleUnload(CUmodule module);
CUresult cuLibraryLoadData(CUlibrary *library, const void *code, int *jitOptions, void **jitOptionsValues,
                           unsigned numJitOptions, int *libraryOptions, void **libraryOptionValues,
                           unsigned numLibraryOptions);
CUresult cuLibraryGetKernel(CUkernel *kernel, CUlibrary library, const char *name);
CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name);
CUresult cuLibraryUnload(CUlibrary library);
CUresult cuKernelGetFunction(CUfunction *function, CUkernel kernel);
CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **params, void **extra);
CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytes);
CUresult cuMemFree(CUdeviceptr dptr);
CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes);
CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes);
CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes, CUstream stream);
CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream stream);
CUresult cuMemsetD32(CUdeviceptr dst, unsigned int value, size_t count);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream stream, void **params, void **extra);
CUresult cuStreamCreate(CUstream *stream, unsigned int flags);
CUresult cuStreamSynchronize(CUstream stream);
CUresult cuStreamDestroy(CUstream stream);
CUresult cuEventCreate(CUevent *event, unsigned int flags);
CUresult cuEventRecord(CUevent event, CUstream stream);
CUresult cuEventSynchronize(CUevent event);
CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end);
CUresult cuEventDestroy(CUevent event);

/* CUDA arrays and texture/surface references (textures.c) */
typedef struct CUarray_st *CUarray;
typedef struct CUtexref_st *CUtexref;
typedef struct CUsurfref_st *CUsurfref;
typedef struct { size_t Width, Height; int Format; unsigned NumChannels; } CUDA_ARRAY_DESCRIPTOR;
typedef struct { size_t Width, Height, Depth; int Format; unsigned NumChannels, Flags; } CUDA_ARRAY3D_DESCRIPTOR;
#define CU_AD_FORMAT_SIGNED_INT32 0x0a
#define CU_AD_FORMAT_FLOAT 0x20
#define CUDA_ARRAY3D_SURFACE_LDST 0x02
#define CU_TRSA_OVERRIDE_FORMAT 0x01
#define CU_TR_ADDRESS_MODE_CLAMP 1
#define CU_TR_ADDRESS_MODE_BORDER 3
#define CU_TR_FILTER_MODE_LINEAR 1
#define cuArrayCreate cuArrayCreate_v2
#define cuArray3DCreate cuArray3DCreate_v2
#define cuArrayGetDescriptor cuArrayGetDescriptor_v2
#define cuMemcpyHtoA MINI_PTDS(cuMemcpyHtoA_v2)
#define cuMemcpyAtoH MINI_PTDS(cuMemcpyAtoH_v2)
CUresult cuModuleLoad(CUmodule *module, const char *fname);
CUresult cuArrayCreate(CUarray *array, const CUDA_ARRAY_DESCRIPTOR *desc);
CUresult cuArray3DCreate(CUarray *array, const CUDA_ARRAY3D_DESCRIPTOR *desc);
CUresult cuArrayGetDescriptor(CUDA_ARRAY_DESCRIPTOR *desc, CUarray array);
CUresult cuArrayDestroy(CUarray array);
CUresult cuMemcpyHtoA(CUarray dst, size_t offset, const void *src, size_t bytes);
CUresult cuMemcpyAtoH(void *dst, CUarray src, size_t offset, size_t bytes);
CUresult cuModuleGetTexRef(CUtexref *ref, CUmodule module, const char *name);
CUresult cuModuleGetSurfRef(CUsurfref *ref, CUmodule module, const char *name);
CUresult cuTexRefSetArray(CUtexref ref, CUarray array, unsigned flags);
CUresult cuTexRefSetAddressMode(CUtexref ref, int dim, int mode);
CUresult cuTexRefSetFilterMode(CUtexref ref, int mode);
CUresult cuTexRefSetBorderColor(CUtexref ref, float *colour);
CUresult cuTexRefGetFormat(int *format, int *channels, CUtexref ref);
CUresult cuSurfRefSetArray(CUsurfref ref, CUarray array, unsigned flags);
#endif
