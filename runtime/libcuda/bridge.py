"""The Python side of ``libcuda.so.1``: one handler per ``abi.EXPORTS`` row, installed into the shim.

A handler receives the C arguments as integers (pointers as addresses, NULL as 0), calls the driver
implementation in ``ptx2gcn.runtime.driver`` through ``errors.entry`` (so codes and the last-error
message are exactly those of ``ptx2gcn.cuda``), writes outputs through the caller's pointers and
returns the ``CUresult`` as an int. An output pointer that is NULL is ``CUDA_ERROR_INVALID_VALUE``
before any work is done, as in CUDA.

``install(table)`` fills the shim's slot table with ctypes callbacks (kept alive here). Each callback
is guarded: an exception escaping a ctypes callback would be printed and read as 0
(``CUDA_SUCCESS``) by the C caller, so the guard turns it into ``CUDA_ERROR_UNKNOWN`` with the
message kept for ``ptx2gcnGetLastErrorMessage``. After each call ``sys.stdout``/``sys.stderr`` are
flushed, so device ``printf`` output reaches the host's file descriptors in call order.

Invariant: ``HANDLERS`` has exactly the symbols of ``abi.EXPORTS``; a handler never raises.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable
from typing import Any

from ptx2gcn.runtime.driver import device as _device
from ptx2gcn.runtime.driver import launch as _launch
from ptx2gcn.runtime.driver import library as _library
from ptx2gcn.runtime.driver import limits as _limits
from ptx2gcn.runtime.driver import memory as _memory
from ptx2gcn.runtime.driver import module as _module
from ptx2gcn.runtime.driver import stream as _stream
from ptx2gcn.runtime.driver.args import enum_member
from ptx2gcn.runtime.driver.enums import CUresult, error_description
from ptx2gcn.runtime.driver.errors import entry, last_error_message
from ptx2gcn.runtime.libcuda import dark as _dark
from ptx2gcn.runtime.libcuda.abi import EXPORTS
from ptx2gcn.runtime.libcuda.clients import CLIENT_HANDLERS
from ptx2gcn.runtime.libcuda.graph_handlers import GRAPH_HANDLERS
from ptx2gcn.runtime.libcuda.marshal import (
    _F32,
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
from ptx2gcn.runtime.libcuda.structs import CUlaunchConfig
from ptx2gcn.runtime.libcuda.textures import TEXTURE_HANDLERS

# -- errors -----------------------------------------------------------------------------------------
_STRINGS: dict[tuple[str, int], ctypes.Array[ctypes.c_char]] = {}


def _static_string(kind: str, code: int, text: str) -> int:
    key = (kind, code)
    if key not in _STRINGS:
        _STRINGS[key] = ctypes.create_string_buffer(text.encode())
    return ctypes.addressof(_STRINGS[key])


def _error_text(kind: str) -> Handler:
    def describe(error: int) -> int:
        member = enum_member(error, CUresult, "error")
        text = member.name if kind == "name" else error_description(member)
        return _static_string(kind, int(member), text)

    def handler(error: int, pStr: int) -> int:
        if not pStr:
            return int(_null("pStr")[0])
        result = _entry(describe, 1)(error)
        ctypes.c_void_p.from_address(pStr).value = result[1] if result[0] == 0 else None
        return int(result[0])

    return handler


def _last_message(buffer: int, size: int) -> int:
    if not buffer or size == 0:
        return int(_null("buffer")[0])
    data = last_error_message().encode()[: size - 1] + b"\0"
    ctypes.memmove(buffer, data, len(data))
    return 0


# -- devices and contexts ---------------------------------------------------------------------------
def _device_name(name: int, length: int, dev: int) -> int:
    if not name:
        return int(_null("name")[0])
    result = _entry(_device.device_get_name, 1)(length, dev)
    if result[0] == 0:
        text = bytes(result[1]).split(b"\0", 1)[0][: max(length - 1, 0)] + b"\0"
        ctypes.memmove(name, text, len(text))
    return int(result[0])


def _device_uuid(out: int, dev: int) -> int:
    if not out:
        return int(_null("uuid")[0])
    result = _entry(_device.device_get_uuid, 1)(dev)
    if result[0] == 0:
        ctypes.memmove(out, result[1].bytes, 16)
    return int(result[0])


def _ctx_pop(pctx: int) -> int:
    return _run(_device.ctx_pop_current, [(_optional(pctx), _U64)])


def _module_load_data_ex(module: int, image: int, count: int, options: int, values: int) -> int:
    keys, settings = _option_arrays(count, options, values)
    return _run(_module.module_load_data_ex, [(module, _U64)], image, count, keys, settings)


def _library_load(function: Callable[..., Any], first: Callable[[int], object]) -> Handler:
    def handler(out: int, source: int, jo: int, jv: int, jn: int, lo: int, lv: int, ln: int) -> int:
        jit_keys, jit_values = _option_arrays(jn, jo, jv)
        library_keys, library_values = _option_arrays(ln, lo, lv)
        arguments = (first(source), jit_keys, jit_values, jn, library_keys, library_values, ln)
        return _run(function, [(out, _U64)], *arguments)

    return handler


def _stream_get_ctx_v2(stream: int, context: int, green: int) -> int:
    """``cuStreamGetCtx_v2``: the context, and no green context (ptx2gcn has none)."""
    code = _run(_stream.stream_get_ctx, [(_optional(context), _U64)], stream)
    if code == 0 and green:
        ctypes.c_uint64.from_address(green).value = 0
    return code


def _launch_kernel_ex(config: int, f: int, params: int, extra: int) -> int:
    layout = CUlaunchConfig.from_address(config) if config else None
    return _run(_launch.launch_kernel_ex, [], layout, f, params, extra)


def _module_get_global(dptr: int, size: int, hmod: int, name: int) -> int:
    outputs = [(_optional(dptr), _U64), (_optional(size), _U64)]
    return _run(_module.module_get_global, outputs, hmod, _bytes_at(name))


HANDLERS: dict[str, Handler] = {
    "cuGetErrorName": _error_text("name"),
    "cuGetErrorString": _error_text("string"),
    "cuInit": lambda flags: _run(_device.init, [], flags),
    "cuDriverGetVersion": lambda out: _run(_device.driver_get_version, [(out, _I32)]),
    "cuDeviceGet": lambda out, ordinal: _run(_device.device_get, [(out, _I32)], ordinal),
    "cuDeviceGetCount": lambda out: _run(_device.device_get_count, [(out, _I32)]),
    "cuDeviceGetName": _device_name,
    "cuDeviceGetAttribute": lambda out, a, dev: _run(_device.device_get_attribute, [(out, _I32)], a, dev),
    "cuDeviceGetUuid": _device_uuid,
    "cuDeviceGetUuid_v2": _device_uuid,
    "cuDeviceTotalMem_v2": lambda out, dev: _run(_device.device_total_mem, [(out, _U64)], dev),
    "cuDevicePrimaryCtxRetain": lambda out, dev: _run(_device.device_primary_ctx_retain, [(out, _U64)], dev),
    "cuDevicePrimaryCtxRelease_v2": lambda dev: _run(_device.device_primary_ctx_release, [], dev),
    "cuDevicePrimaryCtxReset_v2": lambda dev: _run(_device.device_primary_ctx_reset, [], dev),
    "cuDevicePrimaryCtxGetState": lambda dev, flags, active: _run(
        _device.device_primary_ctx_get_state, [(flags, _U32), (active, _I32)], dev
    ),
    "cuCtxCreate_v2": lambda out, flags, dev: _run(_device.ctx_create, [(out, _U64)], flags, dev),
    "cuCtxCreate_v4": lambda out, params, flags, dev: _run(
        _device.ctx_create, [(out, _U64)], params or None, flags, dev
    ),
    "cuCtxDestroy_v2": lambda ctx: _run(_device.ctx_destroy, [], ctx),
    "cuCtxSetCurrent": lambda ctx: _run(_device.ctx_set_current, [], ctx),
    "cuCtxGetCurrent": lambda out: _run(_device.ctx_get_current, [(out, _U64)]),
    "cuCtxPushCurrent_v2": lambda ctx: _run(_device.ctx_push_current, [], ctx),
    "cuCtxPopCurrent_v2": _ctx_pop,
    "cuCtxGetDevice": lambda out: _run(_device.ctx_get_device, [(out, _I32)]),
    "cuCtxSynchronize": lambda: _run(_device.ctx_synchronize, []),
    "cuCtxGetApiVersion": lambda ctx, out: _run(_device.ctx_get_api_version, [(out, _U32)], ctx),
    "cuCtxGetFlags": lambda out: _run(_device.ctx_get_flags, [(out, _U32)]),
    "cuCtxSetLimit": lambda limit, value: _run(_limits.ctx_set_limit, [], limit, value),
    "cuCtxGetLimit": lambda out, limit: _run(_limits.ctx_get_limit, [(out, _U64)], limit),
    "cuModuleLoad": lambda out, fname: _run(_module.module_load, [(out, _U64)], _bytes_at(fname)),
    "cuModuleLoadData": lambda out, image: _run(_module.module_load_data, [(out, _U64)], image),
    "cuModuleLoadDataEx": _module_load_data_ex,
    "cuModuleLoadFatBinary": lambda out, image: _run(_module.module_load_fat_binary, [(out, _U64)], image),
    "cuModuleUnload": lambda hmod: _run(_module.module_unload, [], hmod),
    "cuModuleGetFunction": lambda out, hmod, name: _run(
        _module.module_get_function, [(out, _U64)], hmod, _bytes_at(name)
    ),
    "cuModuleGetGlobal_v2": _module_get_global,
    "cuLibraryLoadData": _library_load(_library.library_load_data, lambda code: code),
    "cuLibraryLoadFromFile": _library_load(_library.library_load_from_file, _bytes_at),
    "cuLibraryUnload": lambda lib: _run(_library.library_unload, [], lib),
    "cuLibraryGetKernel": lambda out, lib, name: _run(_library.library_get_kernel, [(out, _U64)], lib, _bytes_at(name)),
    "cuLibraryGetKernelCount": lambda out, lib: _run(_library.library_get_kernel_count, [(out, _U32)], lib),
    "cuLibraryGetModule": lambda out, lib: _run(_library.library_get_module, [(out, _U64)], lib),
    "cuLibraryGetGlobal": lambda dptr, size, lib, name: _run(
        _library.library_get_global, [(_optional(dptr), _U64), (_optional(size), _U64)], lib, _bytes_at(name)
    ),
    "cuKernelGetFunction": lambda out, kernel: _run(_library.kernel_get_function, [(out, _U64)], kernel),
    "cuKernelGetLibrary": lambda out, kernel: _run(_library.kernel_get_library, [(out, _U64)], kernel),
    "cuKernelGetAttribute": lambda out, a, kernel, dev: _run(
        _library.kernel_get_attribute, [(out, _I32)], a, kernel, dev
    ),
    "cuFuncGetAttribute": lambda out, a, f: _run(_module.func_get_attribute, [(out, _I32)], a, f),
    "cuMemGetInfo_v2": lambda free, total: _run(_memory.mem_get_info, [(free, _U64), (total, _U64)]),
    "cuMemAlloc_v2": lambda out, size: _run(_memory.mem_alloc, [(out, _U64)], size),
    "cuMemFree_v2": lambda dptr: _run(_memory.mem_free, [], dptr),
    "cuMemAllocHost_v2": lambda out, size: _run(_memory.mem_alloc_host, [(out, _U64)], size),
    "cuMemFreeHost": lambda p: _run(_memory.mem_free_host, [], p),
    "cuMemcpyHtoD_v2": lambda d, s, n: _run(_memory.memcpy_htod, [], d, s, n),
    "cuMemcpyDtoH_v2": lambda d, s, n: _run(_memory.memcpy_dtoh, [], d, s, n),
    "cuMemcpyDtoD_v2": lambda d, s, n: _run(_memory.memcpy_dtod, [], d, s, n),
    "cuMemcpyHtoDAsync_v2": lambda d, s, n, h: _run(_memory.memcpy_htod_async, [], d, s, n, h),
    "cuMemcpyDtoHAsync_v2": lambda d, s, n, h: _run(_memory.memcpy_dtoh_async, [], d, s, n, h),
    "cuMemcpyDtoDAsync_v2": lambda d, s, n, h: _run(_memory.memcpy_dtod_async, [], d, s, n, h),
    "cuMemcpy": lambda d, s, n: _run(_memory.memcpy, [], d, s, n),
    "cuMemcpyAsync": lambda d, s, n, h: _run(_memory.memcpy_async, [], d, s, n, h),
    "cuMemsetD8_v2": lambda d, v, n: _run(_memory.memset_d8, [], d, v, n),
    "cuMemsetD16_v2": lambda d, v, n: _run(_memory.memset_d16, [], d, v, n),
    "cuMemsetD32_v2": lambda d, v, n: _run(_memory.memset_d32, [], d, v, n),
    "cuLaunchKernel": lambda f, gx, gy, gz, bx, by, bz, shared, h, params, extra: _run(
        _launch.launch_kernel, [], f, gx, gy, gz, bx, by, bz, shared, h, params, extra
    ),
    "cuLaunchKernelEx": _launch_kernel_ex,
    "cuLaunchCooperativeKernel": lambda f, gx, gy, gz, bx, by, bz, shared, h, params: _run(
        _launch.launch_cooperative_kernel, [], f, gx, gy, gz, bx, by, bz, shared, h, params
    ),
    "cuStreamCreate": lambda out, flags: _run(_stream.stream_create, [(out, _U64)], flags),
    "cuStreamDestroy_v2": lambda h: _run(_stream.stream_destroy, [], h),
    "cuStreamSynchronize": lambda h: _run(_stream.stream_synchronize, [], h),
    "cuStreamQuery": lambda h: _run(_stream.stream_query, [], h),
    "cuStreamCreateWithPriority": lambda out, flags, priority: _run(
        _stream.stream_create_with_priority, [(out, _U64)], flags, priority
    ),
    "cuStreamGetPriority": lambda h, out: _run(_stream.stream_get_priority, [(out, _I32)], h),
    "cuStreamGetFlags": lambda h, out: _run(_stream.stream_get_flags, [(out, _U32)], h),
    "cuStreamGetCtx": lambda h, out: _run(_stream.stream_get_ctx, [(out, _U64)], h),
    "cuStreamGetCtx_v2": _stream_get_ctx_v2,
    "cuStreamWaitEvent": lambda h, e, flags: _run(_stream.stream_wait_event, [], h, e, flags),
    "cuCtxGetStreamPriorityRange": lambda least, greatest: _run(
        _stream.ctx_get_stream_priority_range, [(_optional(least), _I32), (_optional(greatest), _I32)]
    ),
    "cuEventRecordWithFlags": lambda e, h, flags: _run(_stream.event_record_with_flags, [], e, h, flags),
    "cuEventCreate": lambda out, flags: _run(_stream.event_create, [(out, _U64)], flags),
    "cuEventRecord": lambda e, h: _run(_stream.event_record, [], e, h),
    "cuEventSynchronize": lambda e: _run(_stream.event_synchronize, [], e),
    "cuEventQuery": lambda e: _run(_stream.event_query, [], e),
    "cuEventElapsedTime": lambda out, a, b: _run(_stream.event_elapsed_time, [(out, _F32)], a, b),
    "cuEventElapsedTime_v2": lambda out, a, b: _run(_stream.event_elapsed_time, [(out, _F32)], a, b),
    "cuEventDestroy_v2": lambda e: _run(_stream.event_destroy, [], e),
    "ptx2gcnGetLastErrorMessage": _last_message,
}

HANDLERS.update(CLIENT_HANDLERS)
HANDLERS.update(TEXTURE_HANDLERS)
HANDLERS.update(GRAPH_HANDLERS)
HANDLERS.update({e.symbol: HANDLERS[e.variant_of] for e in EXPORTS if e.variant_of})


def _guarded(symbol: str, handler: Handler) -> Handler:
    if _dark.tracing():
        handler = _dark.traced(symbol, handler)

    def call(*args: int | None) -> int:
        try:
            return handler(*(a or 0 for a in args))
        except BaseException as error:  # noqa: BLE001 - a C caller would read an escaped exception as success
            return _internal(symbol, error)
        finally:
            for stream in (sys.stdout, sys.stderr):
                if stream is not None:
                    stream.flush()

    return call


def _raise_unknown(message: str) -> None:
    raise RuntimeError(message)


def _internal(symbol: str, error: BaseException) -> int:
    """CUDA_ERROR_UNKNOWN, with the message remembered as ``entry`` remembers internal errors."""
    return int(entry(_raise_unknown, 0)(f"{symbol}: {type(error).__name__}: {error}")[0])


_KEEP: list[object] = []


def install(table: int, dark_table: int = 0, get_export_table: int = 0) -> None:
    """Write a callback for every export into the shim's slot table at address ``table``, and one for
    every Python-backed export-table slot into ``dark_table`` (``dark.install``).

    Refuses ``PTX2GCN_BACKEND=cuda``: that backend goes through cuda-python to ``libcuda.so.1``,
    which in this process is the shim itself."""
    if os.environ.get("PTX2GCN_BACKEND", "").strip().lower() == "cuda":
        raise RuntimeError("PTX2GCN_BACKEND=cuda cannot run behind ptx2gcn's libcuda.so.1; use emulator or hip")
    slots = (ctypes.c_void_p * len(EXPORTS)).from_address(table)
    for index, export in enumerate(EXPORTS):
        prototype = ctypes.CFUNCTYPE(ctypes.c_int, *export.ctypes_signature())
        callback = prototype(_guarded(export.symbol, HANDLERS[export.symbol]))
        _KEEP.append(callback)
        slots[index] = ctypes.cast(callback, ctypes.c_void_p).value
    if dark_table:
        _dark.install(dark_table, get_export_table, _guarded)
