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

from ptx2gcn.runtime.driver import arrays as _arrays
from ptx2gcn.runtime.driver import attributes as _attributes
from ptx2gcn.runtime.driver import capture as _capture
from ptx2gcn.runtime.driver import copies as _copies
from ptx2gcn.runtime.driver import device as _device
from ptx2gcn.runtime.driver import graph_exec as _graph_exec
from ptx2gcn.runtime.driver import graphs as _graphs
from ptx2gcn.runtime.driver import launch as _launch
from ptx2gcn.runtime.driver import library as _library
from ptx2gcn.runtime.driver import limits as _limits
from ptx2gcn.runtime.driver import linking as _linking
from ptx2gcn.runtime.driver import memory as _memory
from ptx2gcn.runtime.driver import mempool as _mempool
from ptx2gcn.runtime.driver import module as _module
from ptx2gcn.runtime.driver import occupancy as _occupancy
from ptx2gcn.runtime.driver import peer as _peer
from ptx2gcn.runtime.driver import stream as _stream
from ptx2gcn.runtime.driver import texrefs as _texrefs
from ptx2gcn.runtime.driver import textures as _textures
from ptx2gcn.runtime.driver import unified as _unified
from ptx2gcn.runtime.driver import user_objects as _user_objects
from ptx2gcn.runtime.driver.args import enum_member as _enum_member
from ptx2gcn.runtime.driver.arrays import CUarray, CUmipmappedArray
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
    CU_TRSF_NORMALIZED_COORDINATES,
    CU_TRSF_READ_AS_INTEGER,
    CUDA_ARRAY3D_LAYERED,
    CUDA_ARRAY3D_SURFACE_LDST,
    CUaddress_mode,
    CUarray_format,
    CUctx_flags,
    CUdevice_attribute,
    CUevent_flags,
    CUfilter_mode,
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
    CUresourcetype,
    CUresult,
    CUstream_flags,
    error_description,
)
from ptx2gcn.runtime.driver.errors import entry as _entry
from ptx2gcn.runtime.driver.errors import last_error_message as _last_error_message
from ptx2gcn.runtime.driver.graph_params import (
    CUDA_HOST_NODE_PARAMS,
    CUDA_KERNEL_NODE_PARAMS,
    CUDA_MEM_ALLOC_NODE_PARAMS,
    CUDA_MEMSET_NODE_PARAMS,
    CUgraphExecUpdateResultInfo,
    CUmemLocation,
    CUmemPoolProps,
)
from ptx2gcn.runtime.driver.linking import CUlinkState
from ptx2gcn.runtime.driver.texrefs import CU_TRSA_OVERRIDE_FORMAT, CUsurfref, CUtexref
from ptx2gcn.runtime.driver.textures import CUsurfObject, CUtexObject
from ptx2gcn.runtime.driver.types import (
    CUcontext,
    CUdevice,
    CUdeviceptr,
    CUevent,
    CUfunction,
    CUgraph,
    CUgraphExec,
    CUgraphNode,
    CUkernel,
    CUlibrary,
    CUmemoryPool,
    CUmodule,
    CUstream,
    CUuserObject,
    CUuuid,
)
from ptx2gcn.runtime.libcuda.structs import (
    CUDA_ARRAY3D_DESCRIPTOR,
    CUDA_ARRAY_DESCRIPTOR,
    CUDA_MEMCPY2D,
    CUDA_MEMCPY3D,
    CUDA_RESOURCE_DESC,
    CUDA_RESOURCE_VIEW_DESC,
    CUDA_TEXTURE_DESC,
)


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

# -- CUDA arrays, texture and surface objects (runtime/driver/arrays.py, textures.py) -----------------
cuArrayCreate = _entry(_arrays.array_create, 1)
cuArray3DCreate = _entry(_arrays.array_3d_create, 1)
cuArrayGetDescriptor = _entry(_arrays.array_get_descriptor, 1)
cuArray3DGetDescriptor = _entry(_arrays.array_3d_get_descriptor, 1)
cuArrayDestroy = _entry(_arrays.array_destroy, 0)
cuMipmappedArrayCreate = _entry(_arrays.mipmapped_array_unsupported, 1)
cuMemcpyHtoA = _entry(_arrays.memcpy_htoa, 0)
cuMemcpyAtoH = _entry(_arrays.memcpy_atoh, 0)
cuMemcpyAtoD = _entry(_arrays.memcpy_atod, 0)
cuMemcpyDtoA = _entry(_arrays.memcpy_dtoa, 0)
cuMemcpyAtoA = _entry(_arrays.memcpy_atoa, 0)
cuMemcpyHtoAAsync = _entry(_arrays.memcpy_htoa_async, 0)
cuMemcpyAtoHAsync = _entry(_arrays.memcpy_atoh_async, 0)
cuTexObjectCreate = _entry(_textures.tex_object_create, 1)
cuTexObjectDestroy = _entry(_textures.tex_object_destroy, 0)
cuTexObjectGetResourceDesc = _entry(_textures.tex_object_get_resource_desc, 1)
cuTexObjectGetTextureDesc = _entry(_textures.tex_object_get_texture_desc, 1)
cuTexObjectGetResourceViewDesc = _entry(_textures.tex_object_get_resource_view_desc, 1)
cuSurfObjectCreate = _entry(_textures.surf_object_create, 1)
cuSurfObjectDestroy = _entry(_textures.surf_object_destroy, 0)
cuSurfObjectGetResourceDesc = _entry(_textures.surf_object_get_resource_desc, 1)
cuModuleGetTexRef = _entry(_texrefs.module_get_tex_ref, 1)
cuModuleGetSurfRef = _entry(_texrefs.module_get_surf_ref, 1)
cuTexRefSetArray = _entry(_texrefs.tex_ref_set_array, 0)
cuTexRefSetAddress = _entry(_texrefs.tex_ref_set_address, 1)
cuTexRefSetAddress2D = _entry(_texrefs.tex_ref_set_address_2d, 0)
cuTexRefSetFormat = _entry(_texrefs.tex_ref_set_format, 0)
cuTexRefSetAddressMode = _entry(_texrefs.tex_ref_set_address_mode, 0)
cuTexRefSetFilterMode = _entry(_texrefs.tex_ref_set_filter_mode, 0)
cuTexRefSetFlags = _entry(_texrefs.tex_ref_set_flags, 0)
cuTexRefSetBorderColor = _entry(_texrefs.tex_ref_set_border_color, 0)
cuTexRefGetAddressMode = _entry(_texrefs.tex_ref_get_address_mode, 1)
cuTexRefGetFilterMode = _entry(_texrefs.tex_ref_get_filter_mode, 1)
cuTexRefGetFlags = _entry(_texrefs.tex_ref_get_flags, 1)
cuTexRefGetFormat = _entry(_texrefs.tex_ref_get_format, 2)
cuTexRefGetArray = _entry(_texrefs.tex_ref_get_array, 1)
cuSurfRefSetArray = _entry(_texrefs.surf_ref_set_array, 0)
# -- graphs, stream capture, stream-ordered memory pools -----------------------------------------------
cuStreamBeginCapture = _entry(_capture.begin_capture, 0)
cuStreamBeginCapture_v2 = cuStreamBeginCapture
cuStreamEndCapture = _entry(_graphs.stream_end_capture, 1)
cuStreamIsCapturing = _entry(_capture.is_capturing, 1)
cuStreamGetCaptureInfo = _entry(_graphs.stream_get_capture_info, 6)
cuStreamUpdateCaptureDependencies = _entry(_graphs.stream_update_capture_dependencies, 0)
cuThreadExchangeStreamCaptureMode = _entry(_capture.exchange_mode, 1)
cuGraphCreate = _entry(_graphs.graph_create, 1)
cuGraphDestroy = _entry(_graphs.graph_destroy, 0)
cuGraphClone = _entry(_graphs.graph_clone, 1)
cuGraphNodeFindInClone = _entry(_graphs.graph_node_find_in_clone, 1)
cuGraphAddKernelNode = _entry(_graphs.add_kernel_node, 1)
cuGraphAddMemcpyNode = _entry(_graphs.add_memcpy_node, 1)
cuGraphAddMemsetNode = _entry(_graphs.add_memset_node, 1)
cuGraphAddHostNode = _entry(_graphs.add_host_node, 1)
cuGraphAddEmptyNode = _entry(_graphs.add_empty_node, 1)
cuGraphAddEventRecordNode = _entry(_graphs.add_event_record_node, 1)
cuGraphAddEventWaitNode = _entry(_graphs.add_event_wait_node, 1)
cuGraphAddChildGraphNode = _entry(_graphs.add_child_graph_node, 1)
cuGraphAddDependencies = _entry(_graphs.add_dependencies, 0)
cuGraphRemoveDependencies = _entry(_graphs.remove_dependencies, 0)
cuGraphGetNodes = _entry(_graphs.graph_get_nodes, 2)
cuGraphGetRootNodes = _entry(_graphs.graph_get_root_nodes, 2)
cuGraphGetEdges = _entry(_graphs.graph_get_edges, 4)
cuGraphNodeGetDependencies = _entry(_graphs.node_get_dependencies, 3)
cuGraphNodeGetDependentNodes = _entry(_graphs.node_get_dependent_nodes, 3)
cuGraphNodeGetType = _entry(_graphs.node_get_type, 1)
cuGraphDestroyNode = _entry(_graphs.destroy_node, 0)
cuGraphKernelNodeGetParams = _entry(_graphs.kernel_node_get_params, 1)
cuGraphKernelNodeSetParams = _entry(_graphs.kernel_node_set_params, 0)
cuGraphMemcpyNodeGetParams = _entry(_graphs.memcpy_node_get_params, 1)
cuGraphMemcpyNodeSetParams = _entry(_graphs.memcpy_node_set_params, 0)
cuGraphMemsetNodeGetParams = _entry(_graphs.memset_node_get_params, 1)
cuGraphMemsetNodeSetParams = _entry(_graphs.memset_node_set_params, 0)
cuGraphHostNodeGetParams = _entry(_graphs.host_node_get_params, 1)
cuGraphHostNodeSetParams = _entry(_graphs.host_node_set_params, 0)
cuGraphChildGraphNodeGetGraph = _entry(_graphs.child_graph_node_get_graph, 1)
cuGraphEventRecordNodeGetEvent = _entry(_graphs.event_record_node_get_event, 1)
cuGraphEventRecordNodeSetEvent = _entry(_graphs.event_record_node_set_event, 0)
cuGraphEventWaitNodeGetEvent = _entry(_graphs.event_wait_node_get_event, 1)
cuGraphEventWaitNodeSetEvent = _entry(_graphs.event_wait_node_set_event, 0)
cuGraphDebugDotPrint = _entry(_graphs.graph_debug_dot_print, 0)
cuGraphInstantiate = _entry(_graph_exec.instantiate_with_flags, 1)
cuGraphInstantiateWithFlags = cuGraphInstantiate
cuGraphInstantiateWithParams = _entry(_graph_exec.instantiate_with_params, 1)
cuGraphLaunch = _entry(_graph_exec.graph_launch, 0)
cuGraphUpload = _entry(_graph_exec.graph_upload, 0)
cuGraphExecDestroy = _entry(_graph_exec.exec_destroy, 0)
cuGraphExecKernelNodeSetParams = _entry(_graph_exec.exec_kernel_node_set_params, 0)
cuGraphExecMemcpyNodeSetParams = _entry(_graph_exec.exec_memcpy_node_set_params, 0)
cuGraphExecMemsetNodeSetParams = _entry(_graph_exec.exec_memset_node_set_params, 0)
cuGraphExecHostNodeSetParams = _entry(_graph_exec.exec_host_node_set_params, 0)
cuGraphExecUpdate = _entry(_graph_exec.exec_update, 1)
cuMemAllocAsync = _entry(_mempool.mem_alloc_async, 1)
cuMemFreeAsync = _entry(_mempool.mem_free_async, 0)
cuMemAllocFromPoolAsync = _entry(_mempool.mem_alloc_from_pool_async, 1)
cuDeviceGetDefaultMemPool = _entry(_mempool.device_get_default_mem_pool, 1)
cuDeviceGetMemPool = _entry(_mempool.device_get_mem_pool, 1)
cuDeviceSetMemPool = _entry(_mempool.device_set_mem_pool, 0)
cuMemPoolCreate = _entry(_mempool.mem_pool_create, 1)
cuMemPoolDestroy = _entry(_mempool.mem_pool_destroy, 0)
cuMemPoolSetAttribute = _entry(_mempool.mem_pool_set_attribute, 0)
cuMemPoolGetAttribute = _entry(_mempool.mem_pool_get_attribute, 1)
cuMemPoolTrimTo = _entry(_mempool.mem_pool_trim_to, 0)
cuUserObjectCreate = _entry(_user_objects.user_object_create, 1)
cuUserObjectRetain = _entry(_user_objects.user_object_retain, 0)
cuUserObjectRelease = _entry(_user_objects.user_object_release, 0)
cuGraphRetainUserObject = _entry(_user_objects.graph_retain_user_object, 0)
cuGraphReleaseUserObject = _entry(_user_objects.graph_release_user_object, 0)
cuGraphAddMemAllocNode = _entry(_graphs.add_mem_alloc_node, 1)
cuGraphAddMemFreeNode = _entry(_graphs.add_mem_free_node, 1)
cuGraphMemAllocNodeGetParams = _entry(_graphs.mem_alloc_node_get_params, 1)
cuGraphMemFreeNodeGetParams = _entry(_graphs.mem_free_node_get_params, 1)
cuGraphExecEventRecordNodeSetEvent = _entry(_graph_exec.exec_event_record_node_set_event, 0)
cuGraphExecEventWaitNodeSetEvent = _entry(_graph_exec.exec_event_wait_node_set_event, 0)
cuGraphExecChildGraphNodeSetParams = _entry(_graph_exec.exec_child_graph_node_set_params, 0)
cuGraphNodeSetEnabled = _entry(_graph_exec.node_set_enabled, 0)
cuGraphNodeGetEnabled = _entry(_graph_exec.node_get_enabled, 1)
cuGraphExecGetFlags = _entry(_graph_exec.exec_get_flags, 1)

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
    "cuArrayCreate",
    "cuArray3DCreate",
    "cuArrayGetDescriptor",
    "cuArray3DGetDescriptor",
    "cuArrayDestroy",
    "cuMipmappedArrayCreate",
    "cuMemcpyHtoA",
    "cuMemcpyAtoH",
    "cuMemcpyAtoD",
    "cuMemcpyDtoA",
    "cuMemcpyAtoA",
    "cuMemcpyHtoAAsync",
    "cuMemcpyAtoHAsync",
    "cuTexObjectCreate",
    "cuTexObjectDestroy",
    "cuTexObjectGetResourceDesc",
    "cuTexObjectGetTextureDesc",
    "cuTexObjectGetResourceViewDesc",
    "cuSurfObjectCreate",
    "cuSurfObjectDestroy",
    "cuSurfObjectGetResourceDesc",
    "CUarray",
    "CUmipmappedArray",
    "CUtexObject",
    "CUsurfObject",
    "CUarray_format",
    "CUresourcetype",
    "CUaddress_mode",
    "CUfilter_mode",
    "CUDA_ARRAY_DESCRIPTOR",
    "CUDA_ARRAY3D_DESCRIPTOR",
    "CUDA_RESOURCE_DESC",
    "CUDA_TEXTURE_DESC",
    "CUDA_RESOURCE_VIEW_DESC",
    "CUDA_ARRAY3D_LAYERED",
    "CUDA_ARRAY3D_SURFACE_LDST",
    "CU_TRSF_NORMALIZED_COORDINATES",
    "CU_TRSF_READ_AS_INTEGER",
    "cuModuleGetTexRef",
    "cuModuleGetSurfRef",
    "cuTexRefSetArray",
    "cuTexRefSetAddress",
    "cuTexRefSetAddress2D",
    "cuTexRefSetFormat",
    "cuTexRefSetAddressMode",
    "cuTexRefSetFilterMode",
    "cuTexRefSetFlags",
    "cuTexRefSetBorderColor",
    "cuTexRefGetAddressMode",
    "cuTexRefGetFilterMode",
    "cuTexRefGetFlags",
    "cuTexRefGetFormat",
    "cuTexRefGetArray",
    "cuSurfRefSetArray",
    "CUtexref",
    "CUsurfref",
    "CU_TRSA_OVERRIDE_FORMAT",
    "cuStreamBeginCapture",
    "cuStreamBeginCapture_v2",
    "cuStreamEndCapture",
    "cuStreamIsCapturing",
    "cuStreamGetCaptureInfo",
    "cuStreamUpdateCaptureDependencies",
    "cuThreadExchangeStreamCaptureMode",
    "cuGraphCreate",
    "cuGraphDestroy",
    "cuGraphClone",
    "cuGraphNodeFindInClone",
    "cuGraphAddKernelNode",
    "cuGraphAddMemcpyNode",
    "cuGraphAddMemsetNode",
    "cuGraphAddHostNode",
    "cuGraphAddEmptyNode",
    "cuGraphAddEventRecordNode",
    "cuGraphAddEventWaitNode",
    "cuGraphAddChildGraphNode",
    "cuGraphAddDependencies",
    "cuGraphRemoveDependencies",
    "cuGraphGetNodes",
    "cuGraphGetRootNodes",
    "cuGraphGetEdges",
    "cuGraphNodeGetDependencies",
    "cuGraphNodeGetDependentNodes",
    "cuGraphNodeGetType",
    "cuGraphDestroyNode",
    "cuGraphKernelNodeGetParams",
    "cuGraphKernelNodeSetParams",
    "cuGraphMemcpyNodeGetParams",
    "cuGraphMemcpyNodeSetParams",
    "cuGraphMemsetNodeGetParams",
    "cuGraphMemsetNodeSetParams",
    "cuGraphHostNodeGetParams",
    "cuGraphHostNodeSetParams",
    "cuGraphChildGraphNodeGetGraph",
    "cuGraphEventRecordNodeGetEvent",
    "cuGraphEventRecordNodeSetEvent",
    "cuGraphEventWaitNodeGetEvent",
    "cuGraphEventWaitNodeSetEvent",
    "cuGraphDebugDotPrint",
    "cuGraphInstantiate",
    "cuGraphInstantiateWithFlags",
    "cuGraphInstantiateWithParams",
    "cuGraphLaunch",
    "cuGraphUpload",
    "cuGraphExecDestroy",
    "cuGraphExecKernelNodeSetParams",
    "cuGraphExecMemcpyNodeSetParams",
    "cuGraphExecMemsetNodeSetParams",
    "cuGraphExecHostNodeSetParams",
    "cuGraphExecUpdate",
    "cuMemAllocAsync",
    "cuMemFreeAsync",
    "cuMemAllocFromPoolAsync",
    "cuDeviceGetDefaultMemPool",
    "cuDeviceGetMemPool",
    "cuDeviceSetMemPool",
    "cuMemPoolCreate",
    "cuMemPoolDestroy",
    "cuMemPoolSetAttribute",
    "cuMemPoolGetAttribute",
    "cuMemPoolTrimTo",
    "__all__",
    "CUDA_HOST_NODE_PARAMS",
    "CUDA_KERNEL_NODE_PARAMS",
    "CUDA_MEMSET_NODE_PARAMS",
    "CUgraphExecUpdateResultInfo",
    "CUmemLocation",
    "CUmemPoolProps",
    "CUgraph",
    "CUgraphExec",
    "CUgraphNode",
    "CUmemoryPool",
    "cuUserObjectCreate",
    "cuUserObjectRetain",
    "cuUserObjectRelease",
    "cuGraphRetainUserObject",
    "cuGraphReleaseUserObject",
    "CUuserObject",
    "cuGraphAddMemAllocNode",
    "cuGraphAddMemFreeNode",
    "cuGraphMemAllocNodeGetParams",
    "cuGraphMemFreeNodeGetParams",
    "cuGraphExecEventRecordNodeSetEvent",
    "cuGraphExecEventWaitNodeSetEvent",
    "cuGraphExecChildGraphNodeSetParams",
    "cuGraphNodeSetEnabled",
    "cuGraphNodeGetEnabled",
    "cuGraphExecGetFlags",
    "CUDA_MEM_ALLOC_NODE_PARAMS",
]
