"""Handlers of the C entry points for graphs, stream capture and stream-ordered memory pools.

Same conventions as ``bridge``: C arguments as integers, the implementation in
``ptx2gcn.runtime.driver`` (``capture``, ``graphs``, ``graph_exec``, ``mempool``) called through
``marshal._run``, outputs written through the caller's pointers. Structures are read and written with
``libcuda.structs``' layouts; node lists are C arrays of handles with a count. Arrays a call hands out
(``cuStreamGetCaptureInfo``'s dependencies) stay valid until the next such call on the thread, as
CUDA's stay valid until the stream's next capture call.

Invariant: ``GRAPH_HANDLERS`` has exactly the symbols of ``abi.EXPORTS``' group "graphs, stream
capture and stream-ordered memory pools"; a handler never raises.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from typing import Any

from ptx2gcn.runtime.driver import capture as _capture
from ptx2gcn.runtime.driver import graph_exec as _exec
from ptx2gcn.runtime.driver import graphs as _graphs
from ptx2gcn.runtime.driver import mempool as _mempool
from ptx2gcn.runtime.driver import user_objects as _user_objects
from ptx2gcn.runtime.driver.enums import CUresult
from ptx2gcn.runtime.libcuda import structs
from ptx2gcn.runtime.libcuda.marshal import _I32, _U32, _U64, Handler, _bytes_at, _entry, _null, _run

_kept = threading.local()


def _struct(layout: type[ctypes.Structure], address: int) -> ctypes.Structure | None:
    return layout.from_address(address) if address else None


def _handles(address: int, count: int) -> list[int] | None:
    return [v or 0 for v in (ctypes.c_uint64 * count).from_address(address)] if count and address else None


def _store(layout: type[ctypes.Structure], address: int, values: object) -> None:
    """Write the fields of ``values`` (an object with ``cuda.h``'s field names) into the C struct."""
    target = layout.from_address(address)
    for name, _ctype in layout._fields_:
        value = getattr(values, name, None)
        if value is not None and name != "reserved":
            value = getattr(value, "value", value) if not isinstance(value, int) else value
            setattr(target, name, int(value) if not callable(value) else 0)


def _get_params(function: Callable[..., Any], layout: type[ctypes.Structure]) -> Handler:
    def handler(node: int, out: int) -> int:
        if not out:
            return int(_null("nodeParams")[0])
        result = _entry(function, 1)(node)
        if result[0] == CUresult.CUDA_SUCCESS:
            _store(layout, out, result[1])
        return int(result[0])

    return handler


def _add(function: Callable[..., Any], layout: type[ctypes.Structure] | None, context: bool = False) -> Handler:
    """``cuGraphAdd*Node(phGraphNode, hGraph, dependencies, numDependencies, params[, ctx])``."""

    def handler(out: int, graph: int, dependencies: int, count: int, *params: int) -> int:
        argument: object = _struct(layout, params[0]) if layout is not None else params[0] if params else None
        extra = (argument,) if params else ()
        return _run(function, [(out, _U64)], graph, _handles(dependencies, count), count, *extra,
                    *((None,) if context else ()))  # fmt: skip

    return handler


def _set(function: Callable[..., Any], layout: type[ctypes.Structure], in_exec: bool = False) -> Handler:
    def handler(*args: int) -> int:
        handles, params = args[: 2 if in_exec else 1], args[2 if in_exec else 1]
        return _run(function, [], *handles, _struct(layout, params))

    return handler


def _listing(function: Callable[..., Any], edge_data: bool = False) -> Handler:
    """``(h, nodes, [edgeData,] num)``: NULL ``nodes`` asks for the count; else up to ``*num`` are written."""

    def handler(owner: int, nodes: int, *rest: int) -> int:
        data, count = (rest[0], rest[1]) if edge_data else (0, rest[0])
        if not count:
            return int(_null("the count pointer")[0])
        wanted = ctypes.c_size_t.from_address(count).value if nodes else 0
        result = _entry(function, 2)(owner, wanted)
        if result[0] != CUresult.CUDA_SUCCESS:
            return int(result[0])
        listed, total = result[1], result[2]
        for index, node in enumerate(listed):
            ctypes.c_uint64.from_address(nodes + 8 * index).value = int(node)
        if data and nodes:
            ctypes.memset(data, 0, 8 * len(listed))
        ctypes.c_size_t.from_address(count).value = total
        return int(result[0])

    return handler


def _pair(function: Callable[..., Any]) -> Callable[..., tuple[Any, int]]:
    def call(owner: object, wanted: object) -> tuple[Any, int]:
        found = function(owner, wanted)
        return found[0], found[-1]

    return call


def _edges(graph: int, sources: int, targets: int, *rest: int) -> int:
    data, count = (rest[0], rest[1]) if len(rest) == 2 else (0, rest[0])
    if not count:
        return int(_null("numEdges")[0])
    wanted = ctypes.c_size_t.from_address(count).value if sources or targets else 0
    result = _entry(_graphs.graph_get_edges, 4)(graph, wanted)
    if result[0] == CUresult.CUDA_SUCCESS:
        froms, tos, _data, total = result[1:]
        for index, (a, b) in enumerate(zip(froms, tos)):
            if sources:
                ctypes.c_uint64.from_address(sources + 8 * index).value = int(a)
            if targets:
                ctypes.c_uint64.from_address(targets + 8 * index).value = int(b)
        if data and sources:
            ctypes.memset(data, 0, 8 * len(froms))
        ctypes.c_size_t.from_address(count).value = total
    return int(result[0])


def _dependencies(function: Callable[..., Any], edge_data: bool) -> Handler:
    def handler(graph: int, sources: int, targets: int, *rest: int) -> int:
        count = rest[-1]
        arguments = (None, count) if edge_data else (count,)
        return _run(function, [], graph, _handles(sources, count), _handles(targets, count), *arguments)

    return handler


def _capture_info(version: int) -> Handler:
    """``cuStreamGetCaptureInfo`` (v1: status, id), ``_v2`` (+ graph, dependencies, count), ``_v3`` (+ edge data)."""

    def handler(stream: int, status: int, identifier: int, *rest: int) -> int:
        if not status:
            return int(_null("captureStatus_out")[0])
        result = _entry(_capture.capture_info, 4)(stream)
        if result[0] != CUresult.CUDA_SUCCESS:
            return int(result[0])
        state, number, graph, frontier = result[1:]
        ctypes.c_int.from_address(status).value = state
        if identifier:
            ctypes.c_uint64.from_address(identifier).value = number
        if version >= 2:
            graph_out, deps_out = rest[0], rest[1]
            data_out, count_out = (rest[2], rest[3]) if version == 3 else (0, rest[2])
            array = (ctypes.c_uint64 * max(1, len(frontier)))(*[n.handle for n in frontier])
            zeros = (ctypes.c_uint64 * max(1, len(frontier)))()
            _kept.arrays = (array, zeros)
            for address, value in ((graph_out, graph), (deps_out, ctypes.addressof(array) if frontier else 0),
                                   (data_out, ctypes.addressof(zeros) if frontier else 0)):  # fmt: skip
                if address:
                    ctypes.c_uint64.from_address(address).value = value
            if count_out:
                ctypes.c_size_t.from_address(count_out).value = len(frontier)
        return int(result[0])

    return handler


def _update_dependencies(edge_data: bool) -> Handler:
    def handler(stream: int, dependencies: int, *rest: int) -> int:
        count, flags = rest[-2], rest[-1]
        arguments = (None, count, flags) if edge_data else (count, flags)
        return _run(_graphs.stream_update_capture_dependencies, [], stream, _handles(dependencies, count), *arguments)

    return handler


def _exchange_mode(mode: int) -> int:
    if not mode:
        return int(_null("mode")[0])
    result = _entry(_capture.exchange_mode, 1)(ctypes.c_int.from_address(mode).value)
    if result[0] == CUresult.CUDA_SUCCESS:
        ctypes.c_int.from_address(mode).value = result[1]
    return int(result[0])


def _instantiate(out: int, graph: int, error_node: int, log: int, size: int) -> int:
    if log and size:
        ctypes.memset(log, 0, 1)
    if error_node:
        ctypes.c_uint64.from_address(error_node).value = 0
    return _run(_exec.instantiate_with_flags, [(out, _U64)], graph, 0)


def _instantiate_with_params(out: int, graph: int, params: int) -> int:
    if not params:
        return int(_null("instantiateParams")[0])
    block = structs.CUDA_GRAPH_INSTANTIATE_PARAMS.from_address(params)
    code = _run(_exec.instantiate_with_flags, [(out, _U64)], graph, block.flags)
    block.result_out = 0 if code == CUresult.CUDA_SUCCESS else 1  # CUDA_GRAPH_INSTANTIATE_ERROR
    block.hErrNode_out = None
    return code


def _update(executable: int, graph: int, *outputs: int) -> int:
    """``cuGraphExecUpdate`` (error node, result) and ``_v2`` (a ``CUgraphExecUpdateResultInfo``)."""
    result = _entry(_exec.update_result, 2)(executable, graph)
    if result[0] != CUresult.CUDA_SUCCESS:
        return int(result[0])
    outcome, node = result[1], result[2]
    node_value = node.handle if node is not None else 0
    if len(outputs) == 2:
        if outputs[0]:
            ctypes.c_uint64.from_address(outputs[0]).value = node_value
        if outputs[1]:
            ctypes.c_int.from_address(outputs[1]).value = outcome
    elif outputs[0]:
        info = structs.CUgraphExecUpdateResultInfo.from_address(outputs[0])
        info.result, info.errorNode, info.errorFromNode = outcome, node_value or None, None
    return int(CUresult.CUDA_SUCCESS if outcome == 0 else CUresult.CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE)


def _pool_attribute(get: bool) -> Handler:
    def handler(pool: int, attribute: int, value: int) -> int:
        if not value:
            return int(_null("value")[0])
        kind = ctypes.c_int32 if _mempool.is_flag_attribute(attribute) else ctypes.c_uint64
        if get:
            return _run(_mempool.mem_pool_get_attribute, [(value, kind)], pool, attribute)
        return _run(_mempool.mem_pool_set_attribute, [], pool, attribute, kind.from_address(value).value)

    return handler


def _mem_alloc_params(node: int, out: int) -> int:
    if not out:
        return int(_null("params_out")[0])
    result = _entry(_graphs.mem_alloc_node_get_params, 1)(node)
    if result[0] == CUresult.CUDA_SUCCESS:
        params, target = result[1], structs.CUDA_MEM_ALLOC_NODE_PARAMS_v1.from_address(out)
        target.bytesize, target.dptr = params.bytesize, int(params.dptr)
        target.accessDescs, target.accessDescCount = None, 0
        target.poolProps.allocType, target.poolProps.location.type = 1, 1
        target.poolProps.location.id = params.poolProps.location.id
    return int(result[0])


def _kernel_in_exec(layout: type[ctypes.Structure]) -> Handler:
    return lambda e, n, p: _run(_exec.exec_kernel_node_set_params, [], e, n, _struct(layout, p))


_K1, _K2 = structs.CUDA_KERNEL_NODE_PARAMS_v1, structs.CUDA_KERNEL_NODE_PARAMS_v2
_M3, _MS, _HOST = structs.CUDA_MEMCPY3D, structs.CUDA_MEMSET_NODE_PARAMS, structs.CUDA_HOST_NODE_PARAMS

GRAPH_HANDLERS: dict[str, Handler] = {
    "cuStreamBeginCapture": lambda h: _run(_capture.begin_capture_legacy, [], h),
    "cuStreamBeginCapture_v2": lambda h, mode: _run(_capture.begin_capture, [], h, mode),
    "cuStreamEndCapture": lambda h, out: _run(_graphs.stream_end_capture, [(out, _U64)], h),
    "cuStreamIsCapturing": lambda h, out: _run(_capture.is_capturing, [(out, _I32)], h),
    "cuStreamGetCaptureInfo": _capture_info(1),
    "cuStreamGetCaptureInfo_v2": _capture_info(2),
    "cuStreamGetCaptureInfo_v3": _capture_info(3),
    "cuStreamUpdateCaptureDependencies": _update_dependencies(False),
    "cuStreamUpdateCaptureDependencies_v2": _update_dependencies(True),
    "cuThreadExchangeStreamCaptureMode": _exchange_mode,
    "cuGraphCreate": lambda out, flags: _run(_graphs.graph_create, [(out, _U64)], flags),
    "cuGraphDestroy": lambda g: _run(_graphs.graph_destroy, [], g),
    "cuGraphClone": lambda out, g: _run(_graphs.graph_clone, [(out, _U64)], g),
    "cuGraphNodeFindInClone": lambda out, n, g: _run(_graphs.graph_node_find_in_clone, [(out, _U64)], n, g),
    "cuGraphAddKernelNode": _add(_graphs.add_kernel_node, _K1),
    "cuGraphAddKernelNode_v2": _add(_graphs.add_kernel_node, _K2),
    "cuGraphKernelNodeGetParams": _get_params(_graphs.kernel_node_get_params, _K1),
    "cuGraphKernelNodeGetParams_v2": _get_params(_graphs.kernel_node_get_params, _K2),
    "cuGraphKernelNodeSetParams": _set(_graphs.kernel_node_set_params, _K1),
    "cuGraphKernelNodeSetParams_v2": _set(_graphs.kernel_node_set_params, _K2),
    "cuGraphAddMemcpyNode": _add(_graphs.add_memcpy_node, _M3, context=True),
    "cuGraphMemcpyNodeGetParams": _get_params(_graphs.memcpy_node_get_params, _M3),
    "cuGraphMemcpyNodeSetParams": _set(_graphs.memcpy_node_set_params, _M3),
    "cuGraphAddMemsetNode": _add(_graphs.add_memset_node, _MS, context=True),
    "cuGraphMemsetNodeGetParams": _get_params(_graphs.memset_node_get_params, _MS),
    "cuGraphMemsetNodeSetParams": _set(_graphs.memset_node_set_params, _MS),
    "cuGraphAddHostNode": _add(_graphs.add_host_node, _HOST),
    "cuGraphHostNodeGetParams": _get_params(_graphs.host_node_get_params, _HOST),
    "cuGraphHostNodeSetParams": _set(_graphs.host_node_set_params, _HOST),
    "cuGraphAddChildGraphNode": _add(_graphs.add_child_graph_node, None),
    "cuGraphChildGraphNodeGetGraph": lambda n, out: _run(_graphs.child_graph_node_get_graph, [(out, _U64)], n),
    "cuGraphAddEmptyNode": lambda out, g, deps, count: _run(
        _graphs.add_empty_node, [(out, _U64)], g, _handles(deps, count), count
    ),
    "cuGraphAddEventRecordNode": _add(_graphs.add_event_record_node, None),
    "cuGraphEventRecordNodeGetEvent": lambda n, out: _run(_graphs.event_record_node_get_event, [(out, _U64)], n),
    "cuGraphEventRecordNodeSetEvent": lambda n, e: _run(_graphs.event_record_node_set_event, [], n, e),
    "cuGraphAddEventWaitNode": _add(_graphs.add_event_wait_node, None),
    "cuGraphEventWaitNodeGetEvent": lambda n, out: _run(_graphs.event_wait_node_get_event, [(out, _U64)], n),
    "cuGraphEventWaitNodeSetEvent": lambda n, e: _run(_graphs.event_wait_node_set_event, [], n, e),
    "cuGraphNodeGetType": lambda n, out: _run(_graphs.node_get_type, [(out, _I32)], n),
    "cuGraphGetNodes": _listing(_graphs.graph_get_nodes),
    "cuGraphGetRootNodes": _listing(_graphs.graph_get_root_nodes),
    "cuGraphGetEdges": _edges,
    "cuGraphGetEdges_v2": _edges,
    "cuGraphNodeGetDependencies": _listing(_pair(_graphs.node_get_dependencies)),
    "cuGraphNodeGetDependencies_v2": _listing(_pair(_graphs.node_get_dependencies), edge_data=True),
    "cuGraphNodeGetDependentNodes": _listing(_pair(_graphs.node_get_dependent_nodes)),
    "cuGraphNodeGetDependentNodes_v2": _listing(_pair(_graphs.node_get_dependent_nodes), edge_data=True),
    "cuGraphAddDependencies": _dependencies(_graphs.add_dependencies, False),
    "cuGraphAddDependencies_v2": _dependencies(_graphs.add_dependencies, True),
    "cuGraphRemoveDependencies": _dependencies(_graphs.remove_dependencies, False),
    "cuGraphRemoveDependencies_v2": _dependencies(_graphs.remove_dependencies, True),
    "cuGraphDestroyNode": lambda n: _run(_graphs.destroy_node, [], n),
    "cuGraphDebugDotPrint": lambda g, path, flags: _run(_graphs.graph_debug_dot_print, [], g, _bytes_at(path), flags),
    "cuGraphInstantiate": _instantiate,
    "cuGraphInstantiate_v2": _instantiate,
    "cuGraphInstantiateWithFlags": lambda out, g, flags: _run(_exec.instantiate_with_flags, [(out, _U64)], g, flags),
    "cuGraphInstantiateWithParams": _instantiate_with_params,
    "cuGraphLaunch": lambda e, h: _run(_exec.graph_launch, [], e, h),
    "cuGraphUpload": lambda e, h: _run(_exec.graph_upload, [], e, h),
    "cuGraphExecDestroy": lambda e: _run(_exec.exec_destroy, [], e),
    "cuGraphExecKernelNodeSetParams": _kernel_in_exec(_K1),
    "cuGraphExecKernelNodeSetParams_v2": _kernel_in_exec(_K2),
    "cuGraphExecMemcpyNodeSetParams": lambda e, n, p, ctx: _run(
        _exec.exec_memcpy_node_set_params, [], e, n, _struct(_M3, p)
    ),
    "cuGraphExecMemsetNodeSetParams": lambda e, n, p, ctx: _run(
        _exec.exec_memset_node_set_params, [], e, n, _struct(_MS, p)
    ),
    "cuGraphExecHostNodeSetParams": _set(_exec.exec_host_node_set_params, _HOST, in_exec=True),
    "cuGraphExecUpdate": _update,
    "cuGraphExecUpdate_v2": _update,
    "cuMemAllocAsync": lambda out, size, h: _run(_mempool.mem_alloc_async, [(out, _U64)], size, h),
    "cuMemFreeAsync": lambda dptr, h: _run(_mempool.mem_free_async, [], dptr, h),
    "cuMemAllocFromPoolAsync": lambda out, size, pool, h: _run(
        _mempool.mem_alloc_from_pool_async, [(out, _U64)], size, pool, h
    ),
    "cuDeviceGetDefaultMemPool": lambda out, dev: _run(_mempool.device_get_default_mem_pool, [(out, _U64)], dev),
    "cuDeviceGetMemPool": lambda out, dev: _run(_mempool.device_get_mem_pool, [(out, _U64)], dev),
    "cuDeviceSetMemPool": lambda dev, pool: _run(_mempool.device_set_mem_pool, [], dev, pool),
    "cuMemPoolCreate": lambda out, props: _run(
        _mempool.mem_pool_create, [(out, _U64)], _struct(structs.CUmemPoolProps, props)
    ),
    "cuMemPoolDestroy": lambda pool: _run(_mempool.mem_pool_destroy, [], pool),
    "cuMemPoolSetAttribute": _pool_attribute(False),
    "cuMemPoolGetAttribute": _pool_attribute(True),
    "cuMemPoolTrimTo": lambda pool, keep: _run(_mempool.mem_pool_trim_to, [], pool, keep),
    "cuUserObjectCreate": lambda out, p, fn, count, flags: _run(
        _user_objects.user_object_create, [(out, _U64)], p, fn, count, flags
    ),
    "cuUserObjectRetain": lambda obj, count: _run(_user_objects.user_object_retain, [], obj, count),
    "cuUserObjectRelease": lambda obj, count: _run(_user_objects.user_object_release, [], obj, count),
    "cuGraphRetainUserObject": lambda g, obj, count, flags: _run(
        _user_objects.graph_retain_user_object, [], g, obj, count, flags
    ),
    "cuGraphReleaseUserObject": lambda g, obj, count: _run(_user_objects.graph_release_user_object, [], g, obj, count),
    "cuGraphAddMemAllocNode": _add(_graphs.add_mem_alloc_node, structs.CUDA_MEM_ALLOC_NODE_PARAMS_v1),
    "cuGraphMemAllocNodeGetParams": _mem_alloc_params,
    "cuGraphAddMemFreeNode": _add(_graphs.add_mem_free_node, None),
    "cuGraphMemFreeNodeGetParams": lambda n, out: _run(_graphs.mem_free_node_get_params, [(out, _U64)], n),
    "cuGraphExecEventRecordNodeSetEvent": lambda e, n, ev: _run(_exec.exec_event_record_node_set_event, [], e, n, ev),
    "cuGraphExecEventWaitNodeSetEvent": lambda e, n, ev: _run(_exec.exec_event_wait_node_set_event, [], e, n, ev),
    "cuGraphExecChildGraphNodeSetParams": lambda e, n, g: _run(_exec.exec_child_graph_node_set_params, [], e, n, g),
    "cuGraphNodeSetEnabled": lambda e, n, on: _run(_exec.node_set_enabled, [], e, n, on),
    "cuGraphNodeGetEnabled": lambda e, n, out: _run(_exec.node_get_enabled, [(out, _U32)], e, n),
    "cuGraphExecGetFlags": lambda e, out: _run(_exec.exec_get_flags, [(out, _U64)], e),
}
