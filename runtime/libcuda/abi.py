"""The C entry points ``libcuda.so.1`` exports, as one table.

Each row is an exported symbol with its C parameters, written as kinds that fix the x86-64 System V
calling convention: ``i32`` (``int``, ``CUdevice``, enums), ``u32`` (``unsigned int``), ``u64``
(``size_t``, ``CUdeviceptr``, ``cuuint64_t``), ``u8``/``u16`` (``unsigned char``/``short`` values),
``ptr`` (every pointer and every opaque handle: ``CUcontext``, ``CUmodule``, ...). ``proc`` and
``since`` say how ``cuGetProcAddress(symbol, &pfn, cudaVersion, ...)`` finds the row: the row named
``proc`` with the greatest ``since`` not above ``cudaVersion`` (``cuMemAlloc`` at 3020 and later is
``cuMemAlloc_v2``). Declarations follow NVIDIA's ``cuda.h`` (CUDA 13.0), written here, not included.

Invariant: every ``CUresult``-returning export is here exactly once; the shim's slot ``i`` holds the
handler of ``EXPORTS[i]``.
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass

KINDS: dict[str, tuple[str, type]] = {
    "i32": ("int", ctypes.c_int32),
    "u32": ("unsigned int", ctypes.c_uint32),
    "u64": ("unsigned long long", ctypes.c_uint64),
    "u8": ("unsigned char", ctypes.c_uint8),
    "u16": ("unsigned short", ctypes.c_uint16),
    "ptr": ("void*", ctypes.c_void_p),
}
"""Parameter kind -> (C type in the shim, ctypes type of the Python handler's parameter)."""


@dataclass(frozen=True)
class Export:
    symbol: str
    params: tuple[tuple[str, str], ...]
    """(kind, name) per C parameter, in order."""
    proc: str
    since: int
    variant_of: str = ""
    """For a per-thread-default-stream export (``X_ptds``/``X_ptsz``): the symbol ``X``. Programs
    built with ``nvcc --default-stream per-thread`` call these; ``cuGetProcAddress`` never returns
    them (its flags choose, and both streams behave alike here: every launch is synchronous)."""

    def c_parameters(self) -> str:
        return ", ".join(f"{KINDS[kind][0]} {name}" for kind, name in self.params) or "void"

    def ctypes_signature(self) -> list[type]:
        return [KINDS[kind][1] for kind, _ in self.params]


def _export(symbol: str, params: str, since: int = 2000) -> Export:
    pairs = tuple((p.split()[0], p.split()[1]) for p in params.split(",") if p.strip())
    for kind, _ in pairs:
        if kind not in KINDS:
            raise ValueError(f"{symbol}: unknown parameter kind {kind!r}")
    base = re.sub(r"_v[0-9]+$", "", symbol)
    return Export(symbol, pairs, base, since)


EXPORTS: tuple[Export, ...] = (
    # errors, initialisation, version
    _export("cuGetErrorName", "i32 error, ptr pStr", 6000),
    _export("cuGetErrorString", "i32 error, ptr pStr", 6000),
    _export("cuInit", "u32 Flags"),
    _export("cuDriverGetVersion", "ptr driverVersion", 2020),
    # devices
    _export("cuDeviceGet", "ptr device, i32 ordinal"),
    _export("cuDeviceGetCount", "ptr count"),
    _export("cuDeviceGetName", "ptr name, i32 len, i32 dev"),
    _export("cuDeviceGetAttribute", "ptr pi, i32 attrib, i32 dev"),
    _export("cuDeviceTotalMem_v2", "ptr bytes, i32 dev", 3020),
    _export("cuDeviceGetUuid", "ptr uuid, i32 dev", 9020),
    _export("cuDeviceGetUuid_v2", "ptr uuid, i32 dev", 11040),
    _export("cuDevicePrimaryCtxRetain", "ptr pctx, i32 dev", 7000),
    _export("cuDevicePrimaryCtxRelease_v2", "i32 dev", 11000),
    _export("cuDevicePrimaryCtxReset_v2", "i32 dev", 11000),
    _export("cuDevicePrimaryCtxGetState", "i32 dev, ptr flags, ptr active", 7000),
    # contexts
    _export("cuCtxCreate_v2", "ptr pctx, u32 flags, i32 dev", 3020),
    _export("cuCtxCreate_v4", "ptr pctx, ptr ctxCreateParams, u32 flags, i32 dev", 12050),
    _export("cuCtxDestroy_v2", "ptr ctx", 4000),
    _export("cuCtxSetCurrent", "ptr ctx", 4000),
    _export("cuCtxGetCurrent", "ptr pctx", 4000),
    _export("cuCtxPushCurrent_v2", "ptr ctx", 4000),
    _export("cuCtxPopCurrent_v2", "ptr pctx", 4000),
    _export("cuCtxGetDevice", "ptr device"),
    _export("cuCtxSynchronize", ""),
    _export("cuCtxGetApiVersion", "ptr ctx, ptr version", 3020),
    _export("cuCtxGetFlags", "ptr flags", 7000),
    _export("cuCtxSetLimit", "i32 limit, u64 value", 3010),
    _export("cuCtxGetLimit", "ptr pvalue, i32 limit", 3010),
    # modules
    _export("cuModuleLoad", "ptr module, ptr fname"),
    _export("cuModuleLoadData", "ptr module, ptr image"),
    _export("cuModuleLoadDataEx", "ptr module, ptr image, u32 numOptions, ptr options, ptr optionValues"),
    _export("cuModuleLoadFatBinary", "ptr module, ptr fatCubin"),
    _export("cuModuleUnload", "ptr hmod"),
    _export("cuModuleGetFunction", "ptr hfunc, ptr hmod, ptr name"),
    _export("cuModuleGetGlobal_v2", "ptr dptr, ptr bytes, ptr hmod, ptr name", 3020),
    _export("cuFuncGetAttribute", "ptr pi, i32 attrib, ptr hfunc", 2020),
    # libraries and kernels (context-independent code)
    _export(
        "cuLibraryLoadData",
        "ptr library, ptr code, ptr jitOptions, ptr jitOptionsValues, u32 numJitOptions, "
        "ptr libraryOptions, ptr libraryOptionValues, u32 numLibraryOptions",
        12000,
    ),
    _export(
        "cuLibraryLoadFromFile",
        "ptr library, ptr fileName, ptr jitOptions, ptr jitOptionsValues, u32 numJitOptions, "
        "ptr libraryOptions, ptr libraryOptionValues, u32 numLibraryOptions",
        12000,
    ),
    _export("cuLibraryUnload", "ptr library", 12000),
    _export("cuLibraryGetKernel", "ptr pKernel, ptr library, ptr name", 12000),
    _export("cuLibraryGetKernelCount", "ptr count, ptr lib", 12040),
    _export("cuLibraryGetModule", "ptr pMod, ptr library", 12000),
    _export("cuLibraryGetGlobal", "ptr dptr, ptr bytes, ptr library, ptr name", 12000),
    _export("cuKernelGetFunction", "ptr pFunc, ptr kernel", 12000),
    _export("cuKernelGetLibrary", "ptr pLib, ptr kernel", 12050),
    _export("cuKernelGetAttribute", "ptr pi, i32 attrib, ptr kernel, i32 dev", 12000),
    # memory
    _export("cuMemGetInfo_v2", "ptr free, ptr total", 3020),
    _export("cuMemAlloc_v2", "ptr dptr, u64 bytesize", 3020),
    _export("cuMemFree_v2", "u64 dptr", 3020),
    _export("cuMemAllocHost_v2", "ptr pp, u64 bytesize", 3020),
    _export("cuMemFreeHost", "ptr p"),
    _export("cuMemcpyHtoD_v2", "u64 dstDevice, ptr srcHost, u64 ByteCount", 3020),
    _export("cuMemcpyDtoH_v2", "ptr dstHost, u64 srcDevice, u64 ByteCount", 3020),
    _export("cuMemcpyDtoD_v2", "u64 dstDevice, u64 srcDevice, u64 ByteCount", 3020),
    _export("cuMemcpyHtoDAsync_v2", "u64 dstDevice, ptr srcHost, u64 ByteCount, ptr hStream", 3020),
    _export("cuMemcpyDtoHAsync_v2", "ptr dstHost, u64 srcDevice, u64 ByteCount, ptr hStream", 3020),
    _export("cuMemcpyDtoDAsync_v2", "u64 dstDevice, u64 srcDevice, u64 ByteCount, ptr hStream", 3020),
    _export("cuMemcpy", "u64 dst, u64 src, u64 ByteCount", 4000),
    _export("cuMemcpyAsync", "u64 dst, u64 src, u64 ByteCount, ptr hStream", 4000),
    _export("cuMemsetD8_v2", "u64 dstDevice, u8 uc, u64 N", 3020),
    _export("cuMemsetD16_v2", "u64 dstDevice, u16 us, u64 N", 3020),
    _export("cuMemsetD32_v2", "u64 dstDevice, u32 ui, u64 N", 3020),
    # execution, streams, events
    _export(
        "cuLaunchKernel",
        "ptr f, u32 gridDimX, u32 gridDimY, u32 gridDimZ, u32 blockDimX, u32 blockDimY, u32 blockDimZ, "
        "u32 sharedMemBytes, ptr hStream, ptr kernelParams, ptr extra",
        4000,
    ),
    _export("cuLaunchKernelEx", "ptr config, ptr f, ptr kernelParams, ptr extra", 11060),
    _export(
        "cuLaunchCooperativeKernel",
        "ptr f, u32 gridDimX, u32 gridDimY, u32 gridDimZ, u32 blockDimX, u32 blockDimY, u32 blockDimZ, "
        "u32 sharedMemBytes, ptr hStream, ptr kernelParams",
        9000,
    ),
    _export("cuStreamCreate", "ptr phStream, u32 Flags"),
    _export("cuStreamDestroy_v2", "ptr hStream", 4000),
    _export("cuStreamSynchronize", "ptr hStream"),
    _export("cuStreamQuery", "ptr hStream"),
    _export("cuStreamCreateWithPriority", "ptr phStream, u32 flags, i32 priority", 5050),
    _export("cuStreamGetPriority", "ptr hStream, ptr priority", 5050),
    _export("cuStreamGetFlags", "ptr hStream, ptr flags", 5050),
    _export("cuStreamGetCtx", "ptr hStream, ptr pctx", 9020),
    _export("cuStreamGetCtx_v2", "ptr hStream, ptr pCtx, ptr pGreenCtx", 12050),
    _export("cuStreamWaitEvent", "ptr hStream, ptr hEvent, u32 Flags", 3020),
    _export("cuCtxGetStreamPriorityRange", "ptr leastPriority, ptr greatestPriority", 5050),
    _export("cuEventCreate", "ptr phEvent, u32 Flags"),
    _export("cuEventRecordWithFlags", "ptr hEvent, ptr hStream, u32 flags", 11010),
    _export("cuEventRecord", "ptr hEvent, ptr hStream"),
    _export("cuEventSynchronize", "ptr hEvent"),
    _export("cuEventQuery", "ptr hEvent"),
    _export("cuEventElapsedTime", "ptr pMilliseconds, ptr hStart, ptr hEnd"),
    _export("cuEventElapsedTime_v2", "ptr pMilliseconds, ptr hStart, ptr hEnd", 12080),
    _export("cuEventDestroy_v2", "ptr hEvent", 4000),
    # -- entry points for real clients (numba-cuda, cuda.core, cuda-python examples); handlers in
    #    libcuda/clients.py. Kept as one group so that merges with other additions stay simple.
    # linking (PTX units linked into PTX: runtime/driver/linking.py)
    _export("cuLinkCreate_v2", "u32 numOptions, ptr options, ptr optionValues, ptr stateOut", 6050),
    _export(
        "cuLinkAddData_v2",
        "ptr state, i32 type, ptr data, u64 size, ptr name, u32 numOptions, ptr options, ptr optionValues",
        6050,
    ),
    _export("cuLinkAddFile_v2", "ptr state, i32 type, ptr path, u32 numOptions, ptr options, ptr optionValues", 6050),
    _export("cuLinkComplete", "ptr state, ptr cubinOut, ptr sizeOut", 5050),
    _export("cuLinkDestroy", "ptr state", 5050),
    # host-mapped, registered and managed memory; pointer queries (runtime/driver/unified.py)
    _export("cuMemHostAlloc", "ptr pp, u64 bytesize, u32 Flags", 2020),
    _export("cuMemHostGetDevicePointer_v2", "ptr pdptr, ptr p, u32 Flags", 3020),
    _export("cuMemHostGetFlags", "ptr pFlags, ptr p", 2030),
    _export("cuMemHostRegister_v2", "ptr p, u64 bytesize, u32 Flags", 6050),
    _export("cuMemHostUnregister", "ptr p", 4000),
    _export("cuMemAllocManaged", "ptr dptr, u64 bytesize, u32 flags", 6000),
    _export("cuMemGetAddressRange_v2", "ptr pbase, ptr psize, u64 dptr", 3020),
    _export("cuPointerGetAttribute", "ptr data, i32 attribute, u64 ptr", 4000),
    _export("cuPointerGetAttributes", "u32 numAttributes, ptr attributes, ptr data, u64 ptr", 7000),
    _export("cuMemsetD8Async", "u64 dstDevice, u8 uc, u64 N, ptr hStream", 3020),
    _export("cuMemsetD16Async", "u64 dstDevice, u16 us, u64 N, ptr hStream", 3020),
    _export("cuMemsetD32Async", "u64 dstDevice, u32 ui, u64 N, ptr hStream", 3020),
    # pitched 2D/3D copies (runtime/driver/copies.py)
    _export("cuMemcpy2D_v2", "ptr pCopy", 3020),
    _export("cuMemcpy2DUnaligned_v2", "ptr pCopy", 3020),
    _export("cuMemcpy2DAsync_v2", "ptr pCopy, ptr hStream", 3020),
    _export("cuMemcpy3D_v2", "ptr pCopy", 3020),
    _export("cuMemcpy3DAsync_v2", "ptr pCopy, ptr hStream", 3020),
    # host work on streams (runtime/driver/stream.py)
    _export("cuStreamAddCallback", "ptr hStream, ptr callback, ptr userData, u32 flags", 5000),
    _export("cuLaunchHostFunc", "ptr hStream, ptr fn, ptr userData", 10000),
    # occupancy from gfx942 resource use (runtime/driver/occupancy.py)
    _export(
        "cuOccupancyMaxActiveBlocksPerMultiprocessor", "ptr numBlocks, ptr func, i32 blockSize, u64 dynamicSMemSize",
        6050,
    ),
    _export(
        "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
        "ptr numBlocks, ptr func, i32 blockSize, u64 dynamicSMemSize, u32 flags",
        7000,
    ),
    _export(
        "cuOccupancyMaxPotentialBlockSize",
        "ptr minGridSize, ptr blockSize, ptr func, ptr blockSizeToDynamicSMemSize, u64 dynamicSMemSize, "
        "i32 blockSizeLimit",
        6050,
    ),
    _export(
        "cuOccupancyMaxPotentialBlockSizeWithFlags",
        "ptr minGridSize, ptr blockSize, ptr func, ptr blockSizeToDynamicSMemSize, u64 dynamicSMemSize, "
        "i32 blockSizeLimit, u32 flags",
        7000,
    ),
    _export(
        "cuOccupancyAvailableDynamicSMemPerBlock", "ptr dynamicSmemSize, ptr func, i32 numBlocks, i32 blockSize", 11000
    ),
    # settable attributes and cache preferences (runtime/driver/attributes.py)
    _export("cuFuncSetAttribute", "ptr hfunc, i32 attrib, i32 value", 9000),
    _export("cuKernelSetAttribute", "i32 attrib, i32 val, ptr kernel, i32 dev", 12000),
    _export("cuFuncSetCacheConfig", "ptr hfunc, i32 config", 3000),
    _export("cuKernelSetCacheConfig", "ptr kernel, i32 config, i32 dev", 12000),
    _export("cuCtxSetCacheConfig", "i32 config", 3020),
    _export("cuCtxGetCacheConfig", "ptr pconfig", 3020),
    _export("cuFuncSetSharedMemConfig", "ptr hfunc, i32 config", 4020),
    # peers, IPC, profiler (runtime/driver/peer.py, device.py)
    _export("cuDeviceCanAccessPeer", "ptr canAccessPeer, i32 dev, i32 peerDev", 4000),
    _export("cuCtxEnablePeerAccess", "ptr peerContext, u32 Flags", 4000),
    _export("cuCtxDisablePeerAccess", "ptr peerContext", 4000),
    _export("cuIpcGetMemHandle", "ptr pHandle, u64 dptr", 4010),
    _export("cuIpcCloseMemHandle", "u64 dptr", 4010),
    _export("cuIpcGetEventHandle", "ptr pHandle, ptr event", 4010),
    _export("cuProfilerStart", "", 4000),
    _export("cuProfilerStop", "", 4000),
    # -- end of the group for real clients
    # -- graphs, stream capture and stream-ordered memory pools; handlers in libcuda/graph_handlers.py
    _export("cuStreamBeginCapture", "ptr hStream", 10000),
    _export("cuStreamBeginCapture_v2", "ptr hStream, i32 mode", 10010),
    _export("cuStreamEndCapture", "ptr hStream, ptr phGraph", 10000),
    _export("cuStreamIsCapturing", "ptr hStream, ptr captureStatus", 10000),
    _export("cuStreamGetCaptureInfo", "ptr hStream, ptr captureStatus_out, ptr id_out", 10010),
    _export(
        "cuStreamGetCaptureInfo_v2",
        "ptr hStream, ptr captureStatus_out, ptr id_out, ptr graph_out, ptr dependencies_out, ptr numDependencies_out",
        11030,
    ),
    _export(
        "cuStreamGetCaptureInfo_v3",
        "ptr hStream, ptr captureStatus_out, ptr id_out, ptr graph_out, ptr dependencies_out, ptr edgeData_out, "
        "ptr numDependencies_out",
        12030,
    ),
    _export(
        "cuStreamUpdateCaptureDependencies", "ptr hStream, ptr dependencies, u64 numDependencies, u32 flags", 11030
    ),
    _export(
        "cuStreamUpdateCaptureDependencies_v2",
        "ptr hStream, ptr dependencies, ptr dependencyData, u64 numDependencies, u32 flags",
        12030,
    ),
    _export("cuThreadExchangeStreamCaptureMode", "ptr mode", 10010),
    _export("cuGraphCreate", "ptr phGraph, u32 flags", 10000),
    _export("cuGraphDestroy", "ptr hGraph", 10000),
    _export("cuGraphClone", "ptr phGraphClone, ptr originalGraph", 10000),
    _export("cuGraphNodeFindInClone", "ptr phNode, ptr hOriginalNode, ptr hClonedGraph", 10000),
    _export("cuGraphAddKernelNode",
            "ptr phGraphNode, ptr hGraph, ptr dependencies, u64 numDependencies, ptr nodeParams", 10000),
    _export("cuGraphAddKernelNode_v2",
            "ptr phGraphNode, ptr hGraph, ptr dependencies, u64 numDependencies, ptr nodeParams", 12000),
    _export("cuGraphKernelNodeGetParams", "ptr hNode, ptr nodeParams", 10000),
    _export("cuGraphKernelNodeGetParams_v2", "ptr hNode, ptr nodeParams", 12000),
    _export("cuGraphKernelNodeSetParams", "ptr hNode, ptr nodeParams", 10000),
    _export("cuGraphKernelNodeSetParams_v2", "ptr hNode, ptr nodeParams", 12000),
    _export("cuGraphAddMemcpyNode",
            "ptr phGraphNode, ptr hGraph, ptr dependencies, u64 numDependencies, ptr copyParams, ptr ctx", 10000),
    _export("cuGraphMemcpyNodeGetParams", "ptr hNode, ptr nodeParams", 10000),
    _export("cuGraphMemcpyNodeSetParams", "ptr hNode, ptr nodeParams", 10000),
    _export("cuGraphAddMemsetNode",
            "ptr phGraphNode, ptr hGraph, ptr dependencies, u64 numDependencies, ptr memsetParams, ptr ctx", 10000),
    _export("cuGraphMemsetNodeGetParams", "ptr hNode, ptr nodeParams", 10000),
    _export("cuGraphMemsetNodeSetParams", "ptr hNode, ptr nodeParams", 10000),
    _export("cuGraphAddHostNode", "ptr phGraphNode, ptr hGraph, ptr dependencies, u64 numDependencies, ptr nodeParams",
            10000),
    _export("cuGraphHostNodeGetParams", "ptr hNode, ptr nodeParams", 10000),
    _export("cuGraphHostNodeSetParams", "ptr hNode, ptr nodeParams", 10000),
    _export("cuGraphAddChildGraphNode",
            "ptr phGraphNode, ptr hGraph, ptr dependencies, u64 numDependencies, ptr childGraph", 10000),
    _export("cuGraphChildGraphNodeGetGraph", "ptr hNode, ptr phGraph", 10000),
    _export("cuGraphAddEmptyNode", "ptr phGraphNode, ptr hGraph, ptr dependencies, u64 numDependencies", 10000),
    _export("cuGraphAddEventRecordNode",
            "ptr phGraphNode, ptr hGraph, ptr dependencies, u64 numDependencies, ptr event", 11010),
    _export("cuGraphEventRecordNodeGetEvent", "ptr hNode, ptr event_out", 11010),
    _export("cuGraphEventRecordNodeSetEvent", "ptr hNode, ptr event", 11010),
    _export("cuGraphAddEventWaitNode",
            "ptr phGraphNode, ptr hGraph, ptr dependencies, u64 numDependencies, ptr event", 11010),
    _export("cuGraphEventWaitNodeGetEvent", "ptr hNode, ptr event_out", 11010),
    _export("cuGraphEventWaitNodeSetEvent", "ptr hNode, ptr event", 11010),
    _export("cuGraphNodeGetType", "ptr hNode, ptr type", 10000),
    _export("cuGraphGetNodes", "ptr hGraph, ptr nodes, ptr numNodes", 10000),
    _export("cuGraphGetRootNodes", "ptr hGraph, ptr rootNodes, ptr numRootNodes", 10000),
    _export("cuGraphGetEdges", "ptr hGraph, ptr from_, ptr to, ptr numEdges", 10000),
    _export("cuGraphGetEdges_v2", "ptr hGraph, ptr from_, ptr to, ptr edgeData, ptr numEdges", 12030),
    _export("cuGraphNodeGetDependencies", "ptr hNode, ptr dependencies, ptr numDependencies", 10000),
    _export("cuGraphNodeGetDependencies_v2", "ptr hNode, ptr dependencies, ptr edgeData, ptr numDependencies", 12030),
    _export("cuGraphNodeGetDependentNodes", "ptr hNode, ptr dependentNodes, ptr numDependentNodes", 10000),
    _export("cuGraphNodeGetDependentNodes_v2",
            "ptr hNode, ptr dependentNodes, ptr edgeData, ptr numDependentNodes", 12030),
    _export("cuGraphAddDependencies", "ptr hGraph, ptr from_, ptr to, u64 numDependencies", 10000),
    _export("cuGraphAddDependencies_v2", "ptr hGraph, ptr from_, ptr to, ptr edgeData, u64 numDependencies", 12030),
    _export("cuGraphRemoveDependencies", "ptr hGraph, ptr from_, ptr to, u64 numDependencies", 10000),
    _export("cuGraphRemoveDependencies_v2", "ptr hGraph, ptr from_, ptr to, ptr edgeData, u64 numDependencies",
            12030),
    _export("cuGraphDestroyNode", "ptr hNode", 10000),
    _export("cuGraphDebugDotPrint", "ptr hGraph, ptr path, u32 flags", 11030),
    _export("cuGraphInstantiate", "ptr phGraphExec, ptr hGraph, ptr phErrorNode, ptr logBuffer, u64 bufferSize",
            10000),
    _export("cuGraphInstantiate_v2", "ptr phGraphExec, ptr hGraph, ptr phErrorNode, ptr logBuffer, u64 bufferSize",
            11000),
    _export("cuGraphInstantiateWithFlags", "ptr phGraphExec, ptr hGraph, u64 flags", 11040),
    _export("cuGraphInstantiateWithParams", "ptr phGraphExec, ptr hGraph, ptr instantiateParams", 12000),
    _export("cuGraphLaunch", "ptr hGraphExec, ptr hStream", 10000),
    _export("cuGraphUpload", "ptr hGraphExec, ptr hStream", 11010),
    _export("cuGraphExecDestroy", "ptr hGraphExec", 10000),
    _export("cuGraphExecKernelNodeSetParams", "ptr hGraphExec, ptr hNode, ptr nodeParams", 10010),
    _export("cuGraphExecKernelNodeSetParams_v2", "ptr hGraphExec, ptr hNode, ptr nodeParams", 12000),
    _export("cuGraphExecMemcpyNodeSetParams", "ptr hGraphExec, ptr hNode, ptr copyParams, ptr ctx", 10020),
    _export("cuGraphExecMemsetNodeSetParams", "ptr hGraphExec, ptr hNode, ptr memsetParams, ptr ctx", 10020),
    _export("cuGraphExecHostNodeSetParams", "ptr hGraphExec, ptr hNode, ptr nodeParams", 10020),
    _export("cuGraphExecUpdate", "ptr hGraphExec, ptr hGraph, ptr hErrorNode_out, ptr updateResult_out", 10020),
    _export("cuGraphExecUpdate_v2", "ptr hGraphExec, ptr hGraph, ptr resultInfo", 12000),
    _export("cuMemAllocAsync", "ptr dptr, u64 bytesize, ptr hStream", 11020),
    _export("cuMemFreeAsync", "u64 dptr, ptr hStream", 11020),
    _export("cuMemAllocFromPoolAsync", "ptr dptr, u64 bytesize, ptr pool, ptr hStream", 11020),
    _export("cuDeviceGetDefaultMemPool", "ptr pool_out, i32 dev", 11020),
    _export("cuDeviceGetMemPool", "ptr pool, i32 dev", 11020),
    _export("cuDeviceSetMemPool", "i32 dev, ptr pool", 11020),
    _export("cuMemPoolCreate", "ptr pool, ptr poolProps", 11020),
    _export("cuMemPoolDestroy", "ptr pool", 11020),
    _export("cuMemPoolSetAttribute", "ptr pool, i32 attr, ptr value", 11020),
    _export("cuMemPoolGetAttribute", "ptr pool, i32 attr, ptr value", 11020),
    _export("cuMemPoolTrimTo", "ptr pool, u64 minBytesToKeep", 11020),
    _export("cuUserObjectCreate", "ptr object_out, ptr ptr, ptr destroy, u32 initialRefcount, u32 flags", 11030),
    _export("cuUserObjectRetain", "ptr object, u32 count", 11030),
    _export("cuUserObjectRelease", "ptr object, u32 count", 11030),
    _export("cuGraphRetainUserObject", "ptr graph, ptr object, u32 count, u32 flags", 11030),
    _export("cuGraphReleaseUserObject", "ptr graph, ptr object, u32 count", 11030),
    _export("cuGraphAddMemAllocNode",
            "ptr phGraphNode, ptr hGraph, ptr dependencies, u64 numDependencies, ptr nodeParams", 11040),
    _export("cuGraphMemAllocNodeGetParams", "ptr hNode, ptr params_out", 11040),
    _export("cuGraphAddMemFreeNode", "ptr phGraphNode, ptr hGraph, ptr dependencies, u64 numDependencies, u64 dptr",
            11040),
    _export("cuGraphMemFreeNodeGetParams", "ptr hNode, ptr dptr_out", 11040),
    _export("cuGraphExecEventRecordNodeSetEvent", "ptr hGraphExec, ptr hNode, ptr event", 11010),
    _export("cuGraphExecEventWaitNodeSetEvent", "ptr hGraphExec, ptr hNode, ptr event", 11010),
    _export("cuGraphExecChildGraphNodeSetParams", "ptr hGraphExec, ptr hNode, ptr childGraph", 11010),
    _export("cuGraphNodeSetEnabled", "ptr hGraphExec, ptr hNode, u32 isEnabled", 11060),
    _export("cuGraphNodeGetEnabled", "ptr hGraphExec, ptr hNode, ptr isEnabled", 11060),
    _export("cuGraphExecGetFlags", "ptr hGraphExec, ptr flags", 12000),
    # -- end of the group for graphs and memory pools
    # ptx2gcn's extension: the sentence explaining this thread's last failed call
    _export("ptx2gcnGetLastErrorMessage", "ptr buffer, u64 size"),
    # -- for cuda-python's examples (handlers in libcuda/clients.py)
    _export("cuDevicePrimaryCtxSetFlags_v2", "i32 dev, u32 flags", 11000),
)

TEXTURE_EXPORTS: tuple[Export, ...] = (
    # CUDA arrays, texture and surface objects (runtime/driver/arrays.py, textures.py; handlers in
    # runtime/libcuda/textures.py)
    _export("cuArrayCreate_v2", "ptr pHandle, ptr pAllocateArray", 3020),
    _export("cuArray3DCreate_v2", "ptr pHandle, ptr pAllocateArray", 3020),
    _export("cuArrayGetDescriptor_v2", "ptr pArrayDescriptor, ptr hArray", 3020),
    _export("cuArray3DGetDescriptor_v2", "ptr pArrayDescriptor, ptr hArray", 3020),
    _export("cuArrayDestroy", "ptr hArray"),
    _export("cuMipmappedArrayCreate", "ptr pHandle, ptr pMipmappedArrayDesc, u32 numMipmapLevels", 5000),
    _export("cuMemcpyHtoA_v2", "ptr dstArray, u64 dstOffset, ptr srcHost, u64 ByteCount", 3020),
    _export("cuMemcpyAtoH_v2", "ptr dstHost, ptr srcArray, u64 srcOffset, u64 ByteCount", 3020),
    _export("cuMemcpyAtoD_v2", "u64 dstDevice, ptr srcArray, u64 srcOffset, u64 ByteCount", 3020),
    _export("cuMemcpyDtoA_v2", "ptr dstArray, u64 dstOffset, u64 srcDevice, u64 ByteCount", 3020),
    _export("cuMemcpyAtoA_v2", "ptr dstArray, u64 dstOffset, ptr srcArray, u64 srcOffset, u64 ByteCount", 3020),
    _export("cuMemcpyHtoAAsync_v2", "ptr dstArray, u64 dstOffset, ptr srcHost, u64 ByteCount, ptr hStream", 3020),
    _export("cuMemcpyAtoHAsync_v2", "ptr dstHost, ptr srcArray, u64 srcOffset, u64 ByteCount, ptr hStream", 3020),
    _export("cuTexObjectCreate", "ptr pTexObject, ptr pResDesc, ptr pTexDesc, ptr pResViewDesc", 5000),
    _export("cuTexObjectDestroy", "u64 texObject", 5000),
    _export("cuTexObjectGetResourceDesc", "ptr pResDesc, u64 texObject", 5000),
    _export("cuTexObjectGetTextureDesc", "ptr pTexDesc, u64 texObject", 5000),
    _export("cuTexObjectGetResourceViewDesc", "ptr pResViewDesc, u64 texObject", 5000),
    _export("cuSurfObjectCreate", "ptr pSurfObject, ptr pResDesc", 5000),
    _export("cuSurfObjectDestroy", "u64 surfObject", 5000),
    _export("cuSurfObjectGetResourceDesc", "ptr pResDesc, u64 surfObject", 5000),
    # texture and surface references (runtime/driver/texrefs.py)
    _export("cuModuleGetTexRef", "ptr pTexRef, ptr hmod, ptr name"),
    _export("cuModuleGetSurfRef", "ptr pSurfRef, ptr hmod, ptr name", 3000),
    _export("cuTexRefSetArray", "ptr hTexRef, ptr hArray, u32 Flags"),
    _export("cuTexRefSetAddress_v2", "ptr ByteOffset, ptr hTexRef, u64 dptr, u64 bytes", 3020),
    _export("cuTexRefSetAddress2D_v3", "ptr hTexRef, ptr desc, u64 dptr, u64 Pitch", 4010),
    _export("cuTexRefSetFormat", "ptr hTexRef, i32 fmt, i32 NumPackedComponents"),
    _export("cuTexRefSetAddressMode", "ptr hTexRef, i32 dim, i32 am"),
    _export("cuTexRefSetFilterMode", "ptr hTexRef, i32 fm"),
    _export("cuTexRefSetFlags", "ptr hTexRef, u32 Flags"),
    _export("cuTexRefSetBorderColor", "ptr hTexRef, ptr pBorderColor", 8000),
    _export("cuTexRefGetAddressMode", "ptr pam, ptr hTexRef, i32 dim"),
    _export("cuTexRefGetFilterMode", "ptr pfm, ptr hTexRef"),
    _export("cuTexRefGetFlags", "ptr pFlags, ptr hTexRef"),
    _export("cuTexRefGetFormat", "ptr pFormat, ptr pNumChannels, ptr hTexRef"),
    _export("cuTexRefGetArray", "ptr phArray, ptr hTexRef"),
    _export("cuSurfRefSetArray", "ptr hSurfRef, ptr hArray, u32 Flags", 3000),
)
EXPORTS = EXPORTS + TEXTURE_EXPORTS

_PER_THREAD = {
    "_ptds": (
        "cuMemcpy", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuMemcpyDtoD_v2", "cuMemsetD8_v2", "cuMemsetD16_v2",
        "cuMemsetD32_v2",
    ),
    "_ptsz": (
        "cuMemcpyAsync", "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoDAsync_v2",
        "cuStreamGetPriority", "cuStreamGetFlags", "cuStreamGetCtx", "cuStreamGetCtx_v2", "cuStreamWaitEvent",
        "cuStreamQuery", "cuStreamSynchronize", "cuEventRecord", "cuEventRecordWithFlags", "cuLaunchKernel",
        "cuLaunchKernelEx", "cuLaunchCooperativeKernel",
    ),
}  # fmt: skip
"""``cuda.h``'s ``__CUDA_API_PTDS``/``__CUDA_API_PTSZ`` names among the exports above."""
_PER_THREAD["_ptsz"] += (  # of the group for real clients
    "cuMemsetD8Async", "cuMemsetD16Async", "cuMemsetD32Async", "cuStreamAddCallback", "cuLaunchHostFunc",
    "cuMemcpy2DAsync_v2", "cuMemcpy3DAsync_v2",
)  # fmt: skip
_PER_THREAD["_ptds"] += ("cuMemcpy2D_v2", "cuMemcpy2DUnaligned_v2", "cuMemcpy3D_v2")  # of the group for real clients
_PER_THREAD["_ptds"] += ("cuMemcpyHtoA_v2", "cuMemcpyAtoH_v2", "cuMemcpyAtoD_v2", "cuMemcpyDtoA_v2",
                         "cuMemcpyAtoA_v2")  # of TEXTURE_EXPORTS
_PER_THREAD["_ptsz"] += ("cuMemcpyHtoAAsync_v2", "cuMemcpyAtoHAsync_v2")  # of TEXTURE_EXPORTS
_PER_THREAD["_ptsz"] += (  # of the group for graphs and memory pools
    "cuStreamBeginCapture_v2", "cuStreamEndCapture", "cuStreamIsCapturing", "cuStreamGetCaptureInfo_v2",
    "cuStreamGetCaptureInfo_v3", "cuStreamUpdateCaptureDependencies", "cuStreamUpdateCaptureDependencies_v2",
    "cuGraphLaunch", "cuGraphUpload", "cuMemAllocAsync", "cuMemFreeAsync", "cuMemAllocFromPoolAsync",
)  # fmt: skip


def _per_thread(exports: tuple[Export, ...]) -> tuple[Export, ...]:
    by_symbol = {export.symbol: export for export in exports}
    return tuple(
        Export(base + suffix, by_symbol[base].params, base + suffix, by_symbol[base].since, base)
        for suffix, bases in _PER_THREAD.items()
        for base in bases
    )


EXPORTS = EXPORTS + _per_thread(EXPORTS)

SLOT_OF: dict[str, int] = {export.symbol: index for index, export in enumerate(EXPORTS)}

PROC_ONLY_IN_C: tuple[tuple[str, str, int], ...] = (
    ("cuGetProcAddress", "cuGetProcAddress", 11030),
    ("cuGetProcAddress", "cuGetProcAddress_v2", 12000),
    ("cuGetExportTable", "cuGetExportTable", 3000),
)
"""(proc name, C symbol, since) of the entry points the shim implements itself, without Python."""

PROC_ALIASES: tuple[tuple[str, str, int], ...] = (("cuGraphInstantiate", "cuGraphInstantiateWithFlags", 12000),)
"""(proc name, exported symbol, since) where ``cuGetProcAddress`` hands out an export under another
name: from CUDA 12.0 ``cuGraphInstantiate`` is ``cuGraphInstantiateWithFlags`` (``cuda.h``'s macro)."""
