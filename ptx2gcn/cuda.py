"""``ptx2gcn.cuda``: a CUDA driver API for PTX programs, call-compatible with cuda-python.

Code written against ``from cuda.bindings import driver as cuda`` runs on ptx2gcn after changing only
that import to ``from ptx2gcn import cuda``: the same function names, arguments, enum names and
values, handle types, and return convention (every call returns a tuple starting with a
``CUresult``; outputs follow, ``None`` on failure). PTX is recompiled for gfx942 through the JIT
cache and run on the backend ``PTX2GCN_BACKEND`` names (``emulator``, ``hip`` or ``cuda``), read at
``cuInit``.

Extensions (not in CUDA): ``ptx2gcnGetLastErrorMessage()`` returns the sentence explaining the last
failed call on this thread (compile diagnostics included); ``cuModuleLoadData`` also accepts AMDGPU
code objects and ``str`` PTX.

Invariant: this module is only the table below (name -> implementation in ``ptx2gcn.runtime.driver.*``
and its number of outputs); no call raises, whatever its arguments.
"""

from __future__ import annotations

from ptx2gcn.runtime.driver import attributes as _attributes
from ptx2gcn.runtime.driver import copies as _copies
from ptx2gcn.runtime.driver import device as _device
from ptx2gcn.runtime.driver import launch as _launch
from ptx2gcn.runtime.driver import library as _library
from ptx2gcn.runtime.driver import limits as _limits
from ptx2gcn.runtime.driver import linking as _linking
from ptx2gcn.runtime.driver import memory as _memory
from ptx2gcn.runtime.driver import module as _module
from ptx2gcn.runtime.driver import occupancy as _occupancy
from ptx2gcn.runtime.driver import peer as _peer
from ptx2gcn.runtime.driver import stream as _stream
from ptx2gcn.runtime.driver import unified as _unified
from ptx2gcn.runtime.driver.args import enum_member as _enum_member
from ptx2gcn.runtime.driver.enums import (
    CU_LAUNCH_PARAM_BUFFER_POINTER,
    CU_LAUNCH_PARAM_BUFFER_SIZE,
    CU_LAUNCH_PARAM_END,
    CU_MEMHOSTALLOC_DEVICEMAP,
    CU_MEMHOSTALLOC_PORTABLE,
    CU_MEMHOSTALLOC_WRITECOMBINED,
    CU_MEMHOSTREGISTER_DEVICEMAP,
    CU_MEMHOSTREGISTER_IOMEMORY,
    CU_MEMHOSTREGISTER_PORTABLE,
    CU_MEMHOSTREGISTER_READ_ONLY,
    CU_STREAM_LEGACY,
    CU_STREAM_PER_THREAD,
    CUctx_flags,
    CUdevice_attribute,
    CUevent_flags,
    CUfunc_cache,
    CUfunction_attribute,
    CUjit_option,
    CUjitInputType,
    CUlimit,
    CUmemAttach_flags,
    CUmemorytype,
    CUmoduleLoadingMode,
    CUoccupancy_flags,
    CUpointer_attribute,
    CUresult,
    CUstream_flags,
    error_description,
)
from ptx2gcn.runtime.driver.errors import entry as _entry
from ptx2gcn.runtime.driver.errors import last_error_message as _last_error_message
from ptx2gcn.runtime.driver.linking import CUlinkState
from ptx2gcn.runtime.driver.types import (
    CUcontext,
    CUdevice,
    CUdeviceptr,
    CUevent,
    CUfunction,
    CUkernel,
    CUlibrary,
    CUmodule,
    CUstream,
    CUuuid,
)
from ptx2gcn.runtime.libcuda.structs import CUDA_MEMCPY2D, CUDA_MEMCPY3D


def _error_name(error: object) -> bytes:
    return _enum_member(error, CUresult, "error").name.encode()


def _error_string(error: object) -> bytes:
    return error_description(_enum_member(error, CUresult, "error")).encode()


# -- errors ---------------------------------------------------------------------------------------
cuGetErrorName = _entry(_error_name, 1)
cuGetErrorString = _entry(_error_string, 1)
ptx2gcnGetLastErrorMessage = _entry(_last_error_message, 1)

# -- initialisation, devices, contexts --------------------------------------------------------------
cuInit = _entry(_device.init, 0)
cuDriverGetVersion = _entry(_device.driver_get_version, 1)
cuDeviceGet = _entry(_device.device_get, 1)
cuDeviceGetCount = _entry(_device.device_get_count, 1)
cuDeviceGetName = _entry(_device.device_get_name, 1)
cuDeviceGetAttribute = _entry(_device.device_get_attribute, 1)
cuDeviceTotalMem = _entry(_device.device_total_mem, 1)
cuDeviceGetUuid = _entry(_device.device_get_uuid, 1)
cuCtxCreate = _entry(_device.ctx_create, 1)
cuCtxDestroy = _entry(_device.ctx_destroy, 0)
cuCtxSynchronize = _entry(_device.ctx_synchronize, 0)
cuCtxGetCurrent = _entry(_device.ctx_get_current, 1)
cuCtxSetCurrent = _entry(_device.ctx_set_current, 0)
cuCtxPushCurrent = _entry(_device.ctx_push_current, 0)
cuCtxPopCurrent = _entry(_device.ctx_pop_current, 1)
cuCtxGetDevice = _entry(_device.ctx_get_device, 1)
cuCtxGetApiVersion = _entry(_device.ctx_get_api_version, 1)
cuCtxGetFlags = _entry(_device.ctx_get_flags, 1)
cuCtxSetLimit = _entry(_limits.ctx_set_limit, 0)
cuCtxGetLimit = _entry(_limits.ctx_get_limit, 1)
cuDevicePrimaryCtxRetain = _entry(_device.device_primary_ctx_retain, 1)
cuDevicePrimaryCtxRelease = _entry(_device.device_primary_ctx_release, 0)
cuDevicePrimaryCtxReset = _entry(_device.device_primary_ctx_reset, 0)
cuDevicePrimaryCtxGetState = _entry(_device.device_primary_ctx_get_state, 2)
cuDevicePrimaryCtxSetFlags = _entry(_device.device_primary_ctx_set_flags, 0)

# -- modules and functions --------------------------------------------------------------------------
cuModuleLoad = _entry(_module.module_load, 1)
cuModuleLoadData = _entry(_module.module_load_data, 1)
cuModuleLoadDataEx = _entry(_module.module_load_data_ex, 1)
cuModuleLoadFatBinary = _entry(_module.module_load_fat_binary, 1)
cuModuleUnload = _entry(_module.module_unload, 0)
cuModuleGetFunction = _entry(_module.module_get_function, 1)
cuModuleGetGlobal = _entry(_module.module_get_global, 2)
cuModuleGetLoadingMode = _entry(_module.module_get_loading_mode, 1)
cuFuncGetAttribute = _entry(_module.func_get_attribute, 1)

# -- libraries and kernels (context-independent code) ------------------------------------------------
cuLibraryLoadData = _entry(_library.library_load_data, 1)
cuLibraryLoadFromFile = _entry(_library.library_load_from_file, 1)
cuLibraryUnload = _entry(_library.library_unload, 0)
cuLibraryGetKernel = _entry(_library.library_get_kernel, 1)
cuLibraryGetKernelCount = _entry(_library.library_get_kernel_count, 1)
cuLibraryGetModule = _entry(_library.library_get_module, 1)
cuLibraryGetGlobal = _entry(_library.library_get_global, 2)
cuKernelGetFunction = _entry(_library.kernel_get_function, 1)
cuKernelGetLibrary = _entry(_library.kernel_get_library, 1)
cuKernelGetAttribute = _entry(_library.kernel_get_attribute, 1)

# -- memory ---------------------------------------------------------------------------------------
cuMemAlloc = _entry(_memory.mem_alloc, 1)
cuMemFree = _entry(_memory.mem_free, 0)
cuMemAllocHost = _entry(_memory.mem_alloc_host, 1)
cuMemFreeHost = _entry(_memory.mem_free_host, 0)
cuMemcpyHtoD = _entry(_memory.memcpy_htod, 0)
cuMemcpyDtoH = _entry(_memory.memcpy_dtoh, 0)
cuMemcpyDtoD = _entry(_memory.memcpy_dtod, 0)
cuMemcpyHtoDAsync = _entry(_memory.memcpy_htod_async, 0)
cuMemcpyDtoHAsync = _entry(_memory.memcpy_dtoh_async, 0)
cuMemcpyDtoDAsync = _entry(_memory.memcpy_dtod_async, 0)
cuMemsetD8 = _entry(_memory.memset_d8, 0)
cuMemsetD16 = _entry(_memory.memset_d16, 0)
cuMemsetD32 = _entry(_memory.memset_d32, 0)
cuMemGetInfo = _entry(_memory.mem_get_info, 2)
cuMemcpy = _entry(_memory.memcpy, 0)
cuMemcpyAsync = _entry(_memory.memcpy_async, 0)

# -- execution, streams, events ---------------------------------------------------------------------
cuLaunchKernel = _entry(_launch.launch_kernel, 0)
cuLaunchCooperativeKernel = _entry(_launch.launch_cooperative_kernel, 0)
cuLaunchKernelEx = _entry(_launch.launch_kernel_ex, 0)
cuStreamCreate = _entry(_stream.stream_create, 1)
cuStreamSynchronize = _entry(_stream.stream_synchronize, 0)
cuStreamQuery = _entry(_stream.stream_query, 0)
cuStreamDestroy = _entry(_stream.stream_destroy, 0)
cuEventCreate = _entry(_stream.event_create, 1)
cuEventRecord = _entry(_stream.event_record, 0)
cuEventSynchronize = _entry(_stream.event_synchronize, 0)
cuEventQuery = _entry(_stream.event_query, 0)
cuEventElapsedTime = _entry(_stream.event_elapsed_time, 1)
cuEventDestroy = _entry(_stream.event_destroy, 0)
cuEventRecordWithFlags = _entry(_stream.event_record_with_flags, 0)
cuCtxGetStreamPriorityRange = _entry(_stream.ctx_get_stream_priority_range, 2)
cuStreamCreateWithPriority = _entry(_stream.stream_create_with_priority, 1)
cuStreamGetPriority = _entry(_stream.stream_get_priority, 1)
cuStreamGetFlags = _entry(_stream.stream_get_flags, 1)
cuStreamGetCtx = _entry(_stream.stream_get_ctx, 1)
cuStreamWaitEvent = _entry(_stream.stream_wait_event, 0)

# -- for real clients (numba-cuda, cuda.core, cuda-python examples) ----------------------------------
cuLinkCreate = _entry(_linking.link_create, 1)
cuLinkAddData = _entry(_linking.link_add_data, 0)
cuLinkAddFile = _entry(_linking.link_add_file, 0)
cuLinkComplete = _entry(_linking.link_complete, 2)
cuLinkDestroy = _entry(_linking.link_destroy, 0)
cuMemHostAlloc = _entry(_unified.mem_host_alloc, 1)
cuMemHostGetDevicePointer = _entry(_unified.mem_host_get_device_pointer, 1)
cuMemHostGetFlags = _entry(_unified.mem_host_get_flags, 1)
cuMemHostRegister = _entry(_unified.mem_host_register, 0)
cuMemHostUnregister = _entry(_unified.mem_host_unregister, 0)
cuMemAllocManaged = _entry(_unified.mem_alloc_managed, 1)
cuMemGetAddressRange = _entry(_unified.mem_get_address_range, 2)
cuPointerGetAttribute = _entry(_unified.pointer_get_attribute, 1)
cuPointerGetAttributes = _entry(_unified.pointer_get_attributes, 1)
cuMemsetD8Async = _entry(_memory.memset_d8_async, 0)
cuMemsetD16Async = _entry(_memory.memset_d16_async, 0)
cuMemsetD32Async = _entry(_memory.memset_d32_async, 0)
cuMemcpy2D = _entry(_copies.memcpy_2d, 0)
cuMemcpy2DUnaligned = _entry(_copies.memcpy_2d, 0)
cuMemcpy2DAsync = _entry(_copies.memcpy_2d_async, 0)
cuMemcpy3D = _entry(_copies.memcpy_3d, 0)
cuMemcpy3DAsync = _entry(_copies.memcpy_3d_async, 0)
cuStreamAddCallback = _entry(_stream.stream_add_callback, 0)
cuLaunchHostFunc = _entry(_stream.launch_host_func, 0)
cuOccupancyMaxActiveBlocksPerMultiprocessor = _entry(_occupancy.max_active_blocks, 1)
cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags = _entry(_occupancy.max_active_blocks_with_flags, 1)
cuOccupancyMaxPotentialBlockSize = _entry(_occupancy.max_potential_block_size, 2)
cuOccupancyMaxPotentialBlockSizeWithFlags = _entry(_occupancy.max_potential_block_size_with_flags, 2)
cuOccupancyAvailableDynamicSMemPerBlock = _entry(_occupancy.available_dynamic_shared, 1)
cuFuncSetAttribute = _entry(_attributes.func_set_attribute, 0)
cuKernelSetAttribute = _entry(_attributes.kernel_set_attribute, 0)
cuFuncSetCacheConfig = _entry(_attributes.func_set_cache_config, 0)
cuKernelSetCacheConfig = _entry(_attributes.kernel_set_cache_config, 0)
cuCtxSetCacheConfig = _entry(_attributes.ctx_set_cache_config, 0)
cuCtxGetCacheConfig = _entry(_attributes.ctx_get_cache_config, 1)
cuFuncSetSharedMemConfig = _entry(_attributes.func_set_shared_mem_config, 0)
cuDeviceCanAccessPeer = _entry(_peer.device_can_access_peer, 1)
cuCtxEnablePeerAccess = _entry(_peer.ctx_enable_peer_access, 0)
cuCtxDisablePeerAccess = _entry(_peer.ctx_disable_peer_access, 0)
cuIpcGetMemHandle = _entry(_peer.ipc_get_mem_handle, 1)
cuIpcCloseMemHandle = _entry(_peer.ipc_close_mem_handle, 0)
cuIpcGetEventHandle = _entry(_peer.ipc_get_event_handle, 1)
cuProfilerStart = _entry(_device.profiler_start, 0)
cuProfilerStop = _entry(_device.profiler_stop, 0)

__all__ = [
    "CU_LAUNCH_PARAM_BUFFER_POINTER",
    "CU_LAUNCH_PARAM_BUFFER_SIZE",
    "CU_LAUNCH_PARAM_END",
    "CUcontext",
    "CUctx_flags",
    "CUdevice",
    "CUdevice_attribute",
    "CUlimit",
    "CUdeviceptr",
    "CUevent",
    "CUevent_flags",
    "CUfunction",
    "CUfunction_attribute",
    "CUjit_option",
    "CUmodule",
    "CUmoduleLoadingMode",
    "CUresult",
    "CUstream",
    "CUstream_flags",
    "cuCtxCreate",
    "cuCtxDestroy",
    "cuCtxGetCurrent",
    "cuCtxGetDevice",
    "cuCtxGetLimit",
    "cuCtxPopCurrent",
    "cuCtxPushCurrent",
    "cuCtxSetCurrent",
    "cuCtxSetLimit",
    "cuCtxSynchronize",
    "cuDeviceGet",
    "cuDeviceGetAttribute",
    "cuDeviceGetCount",
    "cuDeviceGetName",
    "cuDevicePrimaryCtxRelease",
    "cuDevicePrimaryCtxGetState",
    "cuDevicePrimaryCtxReset",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxSetFlags",
    "cuDeviceTotalMem",
    "cuDriverGetVersion",
    "cuEventCreate",
    "cuEventDestroy",
    "cuEventElapsedTime",
    "cuEventQuery",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuFuncGetAttribute",
    "cuGetErrorName",
    "cuGetErrorString",
    "cuInit",
    "cuLaunchKernel",
    "cuLaunchCooperativeKernel",
    "cuMemAlloc",
    "cuMemAllocHost",
    "cuMemFree",
    "cuMemFreeHost",
    "cuMemGetInfo",
    "cuMemcpyDtoD",
    "cuMemcpyDtoDAsync",
    "cuMemcpyDtoH",
    "cuMemcpyDtoHAsync",
    "cuMemcpyHtoD",
    "cuMemcpyHtoDAsync",
    "cuMemsetD8",
    "cuMemsetD16",
    "cuMemsetD32",
    "cuModuleGetFunction",
    "cuModuleGetGlobal",
    "cuModuleGetLoadingMode",
    "cuModuleLoad",
    "cuModuleLoadData",
    "cuModuleLoadDataEx",
    "cuModuleLoadFatBinary",
    "cuModuleUnload",
    "cuStreamCreate",
    "cuStreamDestroy",
    "cuStreamQuery",
    "cuStreamSynchronize",
    "ptx2gcnGetLastErrorMessage",
    "cuLibraryLoadData",
    "cuLibraryLoadFromFile",
    "cuLibraryUnload",
    "cuLibraryGetKernel",
    "cuLibraryGetKernelCount",
    "cuLibraryGetModule",
    "cuLibraryGetGlobal",
    "cuKernelGetFunction",
    "cuKernelGetLibrary",
    "cuKernelGetAttribute",
    "cuLaunchKernelEx",
    "CUkernel",
    "CUlibrary",
    "cuEventRecordWithFlags",
    "cuCtxGetStreamPriorityRange",
    "cuStreamCreateWithPriority",
    "cuStreamGetPriority",
    "cuStreamGetFlags",
    "cuStreamGetCtx",
    "cuStreamWaitEvent",
    "cuMemcpy",
    "cuMemcpyAsync",
    "cuCtxGetApiVersion",
    "cuCtxGetFlags",
    "cuDeviceGetUuid",
    "CUuuid",
    "cuLinkCreate",
    "cuLinkAddData",
    "cuLinkAddFile",
    "cuLinkComplete",
    "cuLinkDestroy",
    "cuMemHostAlloc",
    "cuMemHostGetDevicePointer",
    "cuMemHostGetFlags",
    "cuMemHostRegister",
    "cuMemHostUnregister",
    "cuMemAllocManaged",
    "cuMemGetAddressRange",
    "cuPointerGetAttribute",
    "cuPointerGetAttributes",
    "cuMemsetD8Async",
    "cuMemsetD16Async",
    "cuMemsetD32Async",
    "cuStreamAddCallback",
    "cuMemcpy2D",
    "cuMemcpy2DUnaligned",
    "cuMemcpy2DAsync",
    "cuMemcpy3D",
    "cuMemcpy3DAsync",
    "CUDA_MEMCPY2D",
    "CUDA_MEMCPY3D",
    "cuLaunchHostFunc",
    "cuOccupancyMaxActiveBlocksPerMultiprocessor",
    "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
    "cuOccupancyMaxPotentialBlockSize",
    "cuOccupancyMaxPotentialBlockSizeWithFlags",
    "cuOccupancyAvailableDynamicSMemPerBlock",
    "cuFuncSetAttribute",
    "cuKernelSetAttribute",
    "cuFuncSetCacheConfig",
    "cuKernelSetCacheConfig",
    "cuCtxSetCacheConfig",
    "cuCtxGetCacheConfig",
    "cuFuncSetSharedMemConfig",
    "cuDeviceCanAccessPeer",
    "cuCtxEnablePeerAccess",
    "cuCtxDisablePeerAccess",
    "cuIpcGetMemHandle",
    "cuIpcCloseMemHandle",
    "cuIpcGetEventHandle",
    "cuProfilerStart",
    "cuProfilerStop",
    "CU_MEMHOSTALLOC_DEVICEMAP",
    "CU_MEMHOSTALLOC_PORTABLE",
    "CU_MEMHOSTALLOC_WRITECOMBINED",
    "CU_MEMHOSTREGISTER_DEVICEMAP",
    "CU_MEMHOSTREGISTER_IOMEMORY",
    "CU_MEMHOSTREGISTER_PORTABLE",
    "CU_MEMHOSTREGISTER_READ_ONLY",
    "CU_STREAM_LEGACY",
    "CU_STREAM_PER_THREAD",
    "CUfunc_cache",
    "CUjitInputType",
    "CUmemAttach_flags",
    "CUmemorytype",
    "CUoccupancy_flags",
    "CUpointer_attribute",
    "CUlinkState",
]
