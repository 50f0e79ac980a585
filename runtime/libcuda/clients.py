"""Handlers of the entry points real clients need beyond the core set (numba-cuda, cuda.core,
cuda-python's examples): linking, host-mapped/registered/managed memory, pointer queries,
occupancy, stream callbacks, function attributes, peer access and IPC.

Same conventions as ``bridge``: C arguments as integers, the implementation in
``ptx2gcn.runtime.driver`` called through ``marshal._run``, outputs written through the caller's
pointers. The rows are the group of ``abi.EXPORTS`` marked "entry points for real clients".

Invariant: ``CLIENT_HANDLERS`` has exactly the symbols of that group; a handler never raises.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

from ptx2gcn.runtime.driver import attributes as _attributes
from ptx2gcn.runtime.driver import copies as _copies
from ptx2gcn.runtime.driver import device as _device
from ptx2gcn.runtime.driver import linking as _linking
from ptx2gcn.runtime.driver import memory as _memory
from ptx2gcn.runtime.driver import occupancy as _occupancy
from ptx2gcn.runtime.driver import peer as _peer
from ptx2gcn.runtime.driver import stream as _stream
from ptx2gcn.runtime.driver import unified as _unified
from ptx2gcn.runtime.driver.enums import CUpointer_attribute
from ptx2gcn.runtime.libcuda import structs
from ptx2gcn.runtime.libcuda.marshal import (
    _I32,
    _U32,
    _U64,
    Handler,
    _bytes_at,
    _entry,
    _null,
    _option_arrays,
    _optional,
    _run,
)


def _link_create(count: int, options: int, values: int, out: int) -> int:
    keys, settings = _option_arrays(count, options, values)
    return _run(_linking.link_create, [(out, _U64)], count, keys, settings)


def _link_add_data(state: int, kind: int, data: int, size: int, name: int, *options: int) -> int:
    keys, settings = _option_arrays(*options)
    return _run(_linking.link_add_data, [], state, kind, data, size, _bytes_at(name), options[0], keys, settings)


def _link_add_file(state: int, kind: int, path: int, count: int, options: int, values: int) -> int:
    keys, settings = _option_arrays(count, options, values)
    return _run(_linking.link_add_file, [], state, kind, _bytes_at(path), count, keys, settings)


def _store_attribute(data: int, attribute: int, value: object) -> None:
    try:
        wide = CUpointer_attribute(attribute) in _unified.WIDE
    except ValueError:
        wide = False
    (ctypes.c_uint64 if wide else ctypes.c_uint32).from_address(data).value = int(value)  # type: ignore[call-overload]


def _pointer_attribute(data: int, attribute: int, ptr: int) -> int:
    if not data:
        return int(_null("data")[0])
    result = _run_values(_unified.pointer_get_attribute, attribute, ptr)
    if result[0] == 0:
        _store_attribute(data, attribute, result[1])
    return int(result[0])


def _pointer_attributes(count: int, attributes: int, data: int, ptr: int) -> int:
    if count and (not attributes or not data):
        return int(_null("attributes or data")[0])
    which = list((ctypes.c_int32 * count).from_address(attributes)) if count else []
    targets = list((ctypes.c_void_p * count).from_address(data)) if count else []
    result = _run_values(_unified.pointer_get_attributes, count, which, ptr)
    if result[0] == 0:
        for target, attribute, value in zip(targets, which, result[1]):
            if target:  # CUDA: a NULL data[i] is skipped
                _store_attribute(target, attribute, value)
    return int(result[0])


def _run_values(function: Callable[..., Any], *args: object) -> tuple[Any, ...]:
    return _entry(function, 1)(*args)


def _struct(layout: type[ctypes.Structure], address: int) -> ctypes.Structure | None:
    return layout.from_address(address) if address else None


def _occupancy_block_size(flags: bool) -> Handler:
    def handler(min_grid: int, block: int, func: int, callback: int, shared: int, limit: int, *rest: int) -> int:
        function = _occupancy.max_potential_block_size_with_flags if flags else _occupancy.max_potential_block_size
        return _run(function, [(min_grid, _I32), (block, _I32)], func, callback or None, shared, limit, *rest)

    return handler


def _ipc_handle(function: object) -> Handler:
    def handler(out: int, value: int) -> int:
        if not out:
            return int(_null("pHandle")[0])
        return _run(function, [], value)  # type: ignore[arg-type]

    return handler


CLIENT_HANDLERS: dict[str, Handler] = {
    "cuLinkCreate_v2": _link_create,
    "cuLinkAddData_v2": _link_add_data,
    "cuLinkAddFile_v2": _link_add_file,
    "cuLinkComplete": lambda state, out, size: _run(_linking.link_complete, [(out, _U64), (size, _U64)], state),
    "cuLinkDestroy": lambda state: _run(_linking.link_destroy, [], state),
    "cuMemHostAlloc": lambda out, size, flags: _run(_unified.mem_host_alloc, [(out, _U64)], size, flags),
    "cuMemHostGetDevicePointer_v2": lambda out, p, flags: _run(
        _unified.mem_host_get_device_pointer, [(out, _U64)], p, flags
    ),
    "cuMemHostGetFlags": lambda out, p: _run(_unified.mem_host_get_flags, [(out, _U32)], p),
    "cuMemHostRegister_v2": lambda p, size, flags: _run(_unified.mem_host_register, [], p, size, flags),
    "cuMemHostUnregister": lambda p: _run(_unified.mem_host_unregister, [], p),
    "cuMemAllocManaged": lambda out, size, flags: _run(_unified.mem_alloc_managed, [(out, _U64)], size, flags),
    "cuMemGetAddressRange_v2": lambda base, size, dptr: _run(
        _unified.mem_get_address_range, [(_optional(base), _U64), (_optional(size), _U64)], dptr
    ),
    "cuPointerGetAttribute": _pointer_attribute,
    "cuPointerGetAttributes": _pointer_attributes,
    "cuMemsetD8Async": lambda d, v, n, h: _run(_memory.memset_d8_async, [], d, v, n, h),
    "cuMemsetD16Async": lambda d, v, n, h: _run(_memory.memset_d16_async, [], d, v, n, h),
    "cuMemsetD32Async": lambda d, v, n, h: _run(_memory.memset_d32_async, [], d, v, n, h),
    "cuMemcpy2D_v2": lambda p: _run(_copies.memcpy_2d, [], _struct(structs.CUDA_MEMCPY2D, p)),
    "cuMemcpy2DUnaligned_v2": lambda p: _run(_copies.memcpy_2d, [], _struct(structs.CUDA_MEMCPY2D, p)),
    "cuMemcpy2DAsync_v2": lambda p, h: _run(_copies.memcpy_2d_async, [], _struct(structs.CUDA_MEMCPY2D, p), h),
    "cuMemcpy3D_v2": lambda p: _run(_copies.memcpy_3d, [], _struct(structs.CUDA_MEMCPY3D, p)),
    "cuMemcpy3DAsync_v2": lambda p, h: _run(_copies.memcpy_3d_async, [], _struct(structs.CUDA_MEMCPY3D, p), h),
    "cuStreamAddCallback": lambda h, fn, data, flags: _run(_stream.stream_add_callback, [], h, fn, data, flags),
    "cuLaunchHostFunc": lambda h, fn, data: _run(_stream.launch_host_func, [], h, fn, data),
    "cuOccupancyMaxActiveBlocksPerMultiprocessor": lambda out, f, size, shared: _run(
        _occupancy.max_active_blocks, [(out, _I32)], f, size, shared
    ),
    "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags": lambda out, f, size, shared, flags: _run(
        _occupancy.max_active_blocks_with_flags, [(out, _I32)], f, size, shared, flags
    ),
    "cuOccupancyMaxPotentialBlockSize": _occupancy_block_size(False),
    "cuOccupancyMaxPotentialBlockSizeWithFlags": _occupancy_block_size(True),
    "cuOccupancyAvailableDynamicSMemPerBlock": lambda out, f, blocks, size: _run(
        _occupancy.available_dynamic_shared, [(out, _U64)], f, blocks, size
    ),
    "cuFuncSetAttribute": lambda f, a, v: _run(_attributes.func_set_attribute, [], f, a, v),
    "cuKernelSetAttribute": lambda a, v, k, dev: _run(_attributes.kernel_set_attribute, [], a, v, k, dev),
    "cuFuncSetCacheConfig": lambda f, c: _run(_attributes.func_set_cache_config, [], f, c),
    "cuKernelSetCacheConfig": lambda k, c, dev: _run(_attributes.kernel_set_cache_config, [], k, c, dev),
    "cuCtxSetCacheConfig": lambda c: _run(_attributes.ctx_set_cache_config, [], c),
    "cuCtxGetCacheConfig": lambda out: _run(_attributes.ctx_get_cache_config, [(out, _I32)]),
    "cuFuncSetSharedMemConfig": lambda f, c: _run(_attributes.func_set_shared_mem_config, [], f, c),
    "cuDeviceCanAccessPeer": lambda out, dev, peer: _run(_peer.device_can_access_peer, [(out, _I32)], dev, peer),
    "cuCtxEnablePeerAccess": lambda ctx, flags: _run(_peer.ctx_enable_peer_access, [], ctx, flags),
    "cuCtxDisablePeerAccess": lambda ctx: _run(_peer.ctx_disable_peer_access, [], ctx),
    "cuIpcGetMemHandle": _ipc_handle(_peer.ipc_get_mem_handle),
    "cuIpcCloseMemHandle": lambda dptr: _run(_peer.ipc_close_mem_handle, [], dptr),
    "cuIpcGetEventHandle": _ipc_handle(_peer.ipc_get_event_handle),
    "cuProfilerStart": lambda: _run(_device.profiler_start, []),
    "cuProfilerStop": lambda: _run(_device.profiler_stop, []),
    # for cuda-python's examples
    "cuDevicePrimaryCtxSetFlags_v2": lambda dev, flags: _run(_device.device_primary_ctx_set_flags, [], dev, flags),
}
