"""Driver-API memory: ``cuMemAlloc/Free/AllocHost/FreeHost``, ``cuMemcpy*`` and ``cuMemsetD8/D32``.

The current context records every block it allocated; a copy or fill must lie inside one such block
(or inside a module global handed out by ``cuModuleGetGlobal``), checked before the backend is asked.
Work is synchronous on every backend ptx2gcn has, so the ``Async`` forms complete before returning;
their stream argument is still validated.

Invariant: a request outside device memory the context owns is ``CUDA_ERROR_INVALID_VALUE`` naming
the address and size; nothing is read or written for a rejected request.
"""

from __future__ import annotations

import bisect
import ctypes
import functools
import mmap
from collections.abc import Callable
from typing import TypeVar

from ptx2gcn.runtime.backends.protocol import BackendError
from ptx2gcn.runtime.driver import capture
from ptx2gcn.runtime.driver.args import handle, integer, invalid
from ptx2gcn.runtime.driver.enums import CUresult
from ptx2gcn.runtime.driver.errors import CudaError, from_backend, plain
from ptx2gcn.runtime.driver.graph_model import NodeKind
from ptx2gcn.runtime.driver.graph_params import Fields, MemsetParams, host_address
from ptx2gcn.runtime.driver.host import readable, writable
from ptx2gcn.runtime.driver.state import Context, MappedBlock, driver
from ptx2gcn.runtime.driver.types import CUdeviceptr, CUstream

T = TypeVar("T")
FREE_HOOKS: list[Callable[[Context, int], bool]] = []
"""Owners of device blocks other than ``cuMemAlloc`` (memory pools): each says whether it took a
``cuMemFree`` of the address (and freed it)."""


def backend_call(action: Callable[[], T]) -> T:
    try:
        return action()
    except BackendError as error:
        raise from_backend(error.kind, plain(error)) from None


def check_range(context: Context, address: int, size: int, what: str) -> None:
    """``[address, address + size)`` must lie in one allocation, module global or mapped host block
    of ``context``."""
    if containing(context, address, size) is None:
        raise invalid(
            f"{what}: 0x{address:x} + {size} bytes is not inside device memory of the current "
            "context (allocate it with cuMemAlloc in this context)"
        )


def containing(context: Context, address: int, size: int = 1) -> tuple[int, int, str] | None:
    """(start, size, kind) of the block of ``context`` holding ``[address, address + size)``: kind
    ``device`` (cuMemAlloc), ``global`` (a module global) or a ``MappedBlock`` kind; None if none."""
    tables: list[tuple[dict[int, int], str | None]] = [(context.allocations, "device"), (context.symbols, "global")]
    tables.append(({a: b.size for a, b in context.mapped.items()}, None))
    for table, kind in tables:
        starts = sorted(table)
        index = bisect.bisect_right(starts, address) - 1
        if index >= 0 and address + size <= starts[index] + table[starts[index]]:
            start = starts[index]
            return start, table[start], kind or context.mapped[start].kind
    return None


def _stream(hStream: object) -> None:
    record = driver().stream(handle(hStream, CUstream, "hStream"))
    if record is not None and record.context is not driver().require_current():
        raise CudaError(CUresult.CUDA_ERROR_INVALID_HANDLE, "hStream belongs to another context")


def _count(value: object, what: str) -> int:
    return integer(value, what, 64)


def mem_get_info() -> tuple[int, int]:
    """(free, total) bytes of the current context's device, counting every context's allocations."""
    state = driver()
    context = state.require_current()
    total = context.backend.properties.total_memory
    used = sum(sum(c.allocations.values()) for c in state.contexts.values() if c.device == context.device)
    return max(0, total - used), total


# -- allocation -------------------------------------------------------------------------------------
def mem_alloc(bytesize: object) -> CUdeviceptr:
    context = driver().require_current()
    capture.unsafe("cuMemAlloc")
    size = _count(bytesize, "bytesize")
    if size == 0:
        raise invalid("bytesize must be greater than 0")
    if size > context.backend.properties.total_memory:
        raise CudaError(
            CUresult.CUDA_ERROR_OUT_OF_MEMORY,
            f"{size} bytes requested; the device has {context.backend.properties.total_memory}",
        )
    address = backend_call(lambda: context.backend.malloc(size))
    context.allocations[address] = size
    return CUdeviceptr(address)


def mem_free(dptr: object) -> None:
    context = driver().require_current()
    capture.unsafe("cuMemFree")
    address = handle(dptr, CUdeviceptr, "dptr")
    if address == 0:
        return  # free(NULL) semantics, as NVIDIA's driver (cudaFree(0) forwards here)
    if any(hook(context, address) for hook in FREE_HOOKS):  # pool blocks first: a managed pool's too
        return
    managed = context.mapped.get(address)
    if managed is not None and managed.kind == "managed":
        unmap_host(context, address)
        return
    if address not in context.allocations:
        raise invalid(
            f"dptr 0x{address:x} is not the start of a block cuMemAlloc returned in this "
            "context (or it was freed already)"
        )
    backend_call(lambda: context.backend.free(address))
    del context.allocations[address]


def host_memory(size: int) -> tuple[int, mmap.mmap]:
    """``size`` zeroed, page-aligned bytes of host memory: (address, the object owning them)."""
    try:
        block = mmap.mmap(-1, size)
    except (MemoryError, OSError, OverflowError):
        raise CudaError(CUresult.CUDA_ERROR_OUT_OF_MEMORY, f"no host memory for {size} bytes") from None
    return ctypes.addressof(ctypes.c_char.from_buffer(block)), block


def map_host(context: Context, address: int, block: MappedBlock) -> bool:
    """Make host memory device memory at its own address, where the backend can (``HostMapping``:
    the emulator shares the host's address space, hip registers it); False where it cannot (then
    nothing is recorded)."""
    mapper = getattr(context.backend, "map_host", None)
    if mapper is None:
        return False
    backend_call(lambda: mapper(address, block.size, block.flags))
    context.mapped[address] = block
    return True


def unmap_host(context: Context, address: int) -> MappedBlock:
    block = context.mapped.pop(address)
    backend_call(lambda: context.backend.unmap_host(address))  # type: ignore[attr-defined]
    return block


def host_alloc(size_value: object, flags: int, kind: str = "host") -> int:
    """Page-locked host memory; where the backend maps host memory also device memory at the same
    address (``CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY``); a backend with ``host_alloc`` allocates
    it itself."""
    context = driver().require_current()
    size = _count(size_value, "bytesize")
    if size == 0:
        raise invalid("bytesize must be greater than 0")
    allocate = getattr(context.backend, "host_alloc", None)
    if allocate is not None:  # the backend allocates mapped host memory itself (hip: hipHostMalloc)
        address = int(backend_call(lambda: allocate(size, kind, flags)))
        context.mapped[address] = MappedBlock(size, kind, flags)
        return address
    address, block = host_memory(size)
    if not map_host(context, address, MappedBlock(size, kind, flags, block)):
        context.host_blocks[address] = block  # type: ignore[assignment]
    return address


def mem_alloc_host(bytesize: object) -> int:
    return host_alloc(bytesize, 0)


def mem_free_host(p: object) -> None:
    context = driver().require_current()
    address = integer(p.value or 0 if isinstance(p, ctypes.c_void_p) else p, "p", 64)
    if address == 0:
        return  # free(NULL) semantics, as NVIDIA's driver (cudaFreeHost forwards NULL here)
    block = context.mapped.get(address)
    if block is not None and block.kind == "host":
        unmap_host(context, address)
    elif context.host_blocks.pop(address, None) is None:
        raise invalid(f"p 0x{address:x} was not returned by cuMemAllocHost or cuMemHostAlloc in this context")


# -- copies -----------------------------------------------------------------------------------------
def _device_range(context: Context, pointer: object, size: int, what: str) -> int:
    """The address ``pointer`` names; unless ``size`` is 0, ``size`` bytes from it must be device
    memory of ``context`` (``check_range``)."""
    address = handle(pointer, CUdeviceptr, what)
    if size:
        check_range(context, address, size, what)
    return address


def _htod(dstDevice: object, srcHost: object, ByteCount: object) -> None:
    context = driver().require_current()
    size = _count(ByteCount, "ByteCount")
    if size == 0:
        return  # nothing to copy: CUDA checks neither pointer then (numba copies 0-sized arrays)
    source = readable(srcHost, size, "srcHost")
    destination = _device_range(context, dstDevice, size, "dstDevice")
    backend_call(lambda: context.backend.write(destination, source))


def _dtoh(dstHost: object, srcDevice: object, ByteCount: object) -> None:
    context = driver().require_current()
    size = _count(ByteCount, "ByteCount")
    if size == 0:
        return  # nothing to copy: CUDA checks neither pointer then (numba copies 0-sized arrays)
    destination = writable(dstHost, size, "dstHost")
    source = _device_range(context, srcDevice, size, "srcDevice")
    destination[:] = backend_call(lambda: context.backend.read(source, size))


def _dtod(dstDevice: object, srcDevice: object, ByteCount: object) -> None:
    context = driver().require_current()
    size = _count(ByteCount, "ByteCount")
    if size == 0:
        return  # nothing to copy: CUDA checks neither pointer then (numba copies 0-sized arrays)
    destination = _device_range(context, dstDevice, size, "dstDevice")
    source = _device_range(context, srcDevice, size, "srcDevice")
    backend_call(lambda: context.backend.copy(destination, source, size))


def memcpy_htod(dstDevice: object, srcHost: object, ByteCount: object) -> None:
    capture.legacy_work("cuMemcpyHtoD")
    _htod(dstDevice, srcHost, ByteCount)


def memcpy_dtoh(dstHost: object, srcDevice: object, ByteCount: object) -> None:
    capture.legacy_work("cuMemcpyDtoH")
    _dtoh(dstHost, srcDevice, ByteCount)


def memcpy_dtod(dstDevice: object, srcDevice: object, ByteCount: object) -> None:
    capture.legacy_work("cuMemcpyDtoD")
    _dtod(dstDevice, srcDevice, ByteCount)


_HOST, _DEVICE, _UNIFIED = 1, 2, 4  # CUmemorytype


def _side_fields(prefix: str, kind: int, value: object, size: int, write: bool) -> dict[str, object]:
    if kind != _HOST:
        return {f"{prefix}MemoryType": kind, f"{prefix}Device": handle(value, CUdeviceptr, prefix)}
    view = (writable if write else readable)(value, size, f"{prefix}Host")
    return {f"{prefix}MemoryType": kind, f"{prefix}Host": host_address(view), f"{prefix}Keep": view}


def _captured_copy(hStream: object, dst: tuple[int, object], src: tuple[int, object], ByteCount: object) -> bool:
    """On a capturing stream: a memcpy node for a 1D copy (its ``CUDA_MEMCPY3D`` parameters); True then."""
    if capture.capture_of(hStream) is None:
        return False
    size = _count(ByteCount, "ByteCount")
    values = {"WidthInBytes": size, "Height": 1, "Depth": 1}
    values |= _side_fields("dst", dst[0], dst[1], size, True) | _side_fields("src", src[0], src[1], size, False)
    context = driver().require_current()
    for prefix, (kind, _value) in (("dst", dst), ("src", src)):
        if kind == _DEVICE and size:
            check_range(context, int(values[f"{prefix}Device"]), size, f"{prefix}Device")  # type: ignore[call-overload]
    fields = Fields(**values)  # type: ignore[arg-type]
    return capture.record(hStream, NodeKind.MEMCPY, lambda: fields) is not None


def memcpy_htod_async(dstDevice: object, srcHost: object, ByteCount: object, hStream: object) -> None:
    _stream(hStream)
    if not _captured_copy(hStream, (_DEVICE, dstDevice), (_HOST, srcHost), ByteCount):
        _htod(dstDevice, srcHost, ByteCount)


def memcpy_dtoh_async(dstHost: object, srcDevice: object, ByteCount: object, hStream: object) -> None:
    _stream(hStream)
    if not _captured_copy(hStream, (_HOST, dstHost), (_DEVICE, srcDevice), ByteCount):
        _dtoh(dstHost, srcDevice, ByteCount)


def memcpy_dtod_async(dstDevice: object, srcDevice: object, ByteCount: object, hStream: object) -> None:
    _stream(hStream)
    if not _captured_copy(hStream, (_DEVICE, dstDevice), (_DEVICE, srcDevice), ByteCount):
        _dtod(dstDevice, srcDevice, ByteCount)


# -- fills ------------------------------------------------------------------------------------------
def memset_params(dst: object, value: object, element_size: object, width: object, height: object = 1,
                  pitch: object = 0) -> MemsetParams:
    """A fill of ``height`` rows of ``width`` elements, checked against the current context's memory."""
    context = driver().require_current()
    size = integer(element_size, "elementSize")
    if size not in (1, 2, 4):
        raise invalid(f"elementSize = {size}: a fill writes 1-, 2- or 4-byte elements")
    params = MemsetParams(handle(dst, CUdeviceptr, "dstDevice"), _count(pitch, "pitch"),
                          integer(value, "value", 8 * size), size, _count(width, "width"), _count(height, "height"))
    if params.dst % size:
        raise invalid(f"dstDevice 0x{params.dst:x} is not {size}-byte aligned")
    if params.height > 1 and params.pitch < params.width * size:
        raise invalid(f"pitch = {params.pitch} is less than width x elementSize = {params.width * size}")
    if params.width:
        for row in range(params.height):
            check_range(context, params.dst + row * params.pitch, params.width * size, f"dstDevice row {row}")
    return params


def run_memset(params: MemsetParams) -> None:
    """Write a checked fill (``memset_params``)."""
    context = driver().require_current()
    pattern = params.value.to_bytes(params.elementSize, "little")
    for row in range(params.height if params.width else 0):
        address = params.dst + row * params.pitch
        backend_call(functools.partial(context.backend.fill, address, pattern, params.width))


def _fill(params: MemsetParams, hStream: object, synchronous: bool) -> None:
    if synchronous:
        capture.legacy_work("cuMemset")
    else:
        _stream(hStream)
        if capture.record(hStream, NodeKind.MEMSET, lambda: params) is not None:
            return
    run_memset(params)


def memset_d8(dstDevice: object, uc: object, N: object) -> None:
    _fill(memset_params(dstDevice, integer(uc, "uc", 8), 1, N), 0, True)


def memset_d16(dstDevice: object, us: object, N: object) -> None:
    _fill(memset_params(dstDevice, integer(us, "us", 16), 2, N), 0, True)


def memset_d32(dstDevice: object, ui: object, N: object) -> None:
    _fill(memset_params(dstDevice, integer(ui, "ui", 32), 4, N), 0, True)


# -- unified copies -----------------------------------------------------------------------------------
def _is_device(context: Context, address: int, size: int) -> bool:
    try:
        check_range(context, address, max(size, 1), "pointer")
    except CudaError:
        return False
    return True


def _unified(dst: object, src: object, ByteCount: object) -> None:
    context = driver().require_current()
    size = _count(ByteCount, "ByteCount")
    target = handle(dst, CUdeviceptr, "dst")
    source = handle(src, CUdeviceptr, "src")
    on_device = (_is_device(context, target, size), _is_device(context, source, size))
    if on_device == (True, True):
        _dtod(target, source, size)
    elif on_device == (True, False):
        _htod(target, source, size)
    elif on_device == (False, True):
        _dtoh(target, source, size)
    elif size:
        if not target or not source:
            raise invalid("dst or src is a null pointer")
        ctypes.memmove(target, source, size)


def memcpy(dst: object, src: object, ByteCount: object) -> None:
    """``cuMemcpy``: with unified addressing the pointers say where they point. Device memory is
    what ``check_range`` finds in the current context; any other address is host memory, trusted
    as C trusts it (a host-to-host copy is a ``memmove``)."""
    capture.legacy_work("cuMemcpy")
    _unified(dst, src, ByteCount)


def memcpy_async(dst: object, src: object, ByteCount: object, hStream: object) -> None:
    _stream(hStream)
    if not _captured_copy(hStream, (_UNIFIED, dst), (_UNIFIED, src), ByteCount):
        _unified(dst, src, ByteCount)


def memset_d8_async(dstDevice: object, uc: object, N: object, hStream: object) -> None:
    _fill(memset_params(dstDevice, integer(uc, "uc", 8), 1, N), hStream, False)


def memset_d16_async(dstDevice: object, us: object, N: object, hStream: object) -> None:
    _fill(memset_params(dstDevice, integer(us, "us", 16), 2, N), hStream, False)


def memset_d32_async(dstDevice: object, ui: object, N: object, hStream: object) -> None:
    _fill(memset_params(dstDevice, integer(ui, "ui", 32), 4, N), hStream, False)
