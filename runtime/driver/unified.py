"""Host memory the device addresses, and pointer queries: ``cuMemHostAlloc``,
``cuMemHostGetDevicePointer``, ``cuMemHostGetFlags``, ``cuMemHostRegister``/``Unregister``,
``cuMemAllocManaged``, ``cuMemGetAddressRange``, ``cuPointerGetAttribute(s)``.

With unified addressing (``CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING`` = 1) a mapped host block has one
address for host and device. On the emulator the kernel really reads and writes the host's bytes at
that address (``memory.map_host``): page-locked, registered and managed memory are all one address
space with the host. The hip backend maps them with hipHostMalloc(hipHostMallocMapped),
hipHostRegister(hipHostRegisterMapped) and hipMallocManaged, and refuses (``CUDA_ERROR_NOT_SUPPORTED``)
where hipHostGetDevicePointer would give another address (``protocol.HostMapping``). A backend
without ``map_host`` (cuda) refuses registration and managed allocation with
``CUDA_ERROR_NOT_SUPPORTED``; its page-locked host memory stays host-only.

Invariant: a pointer attribute is answered for any address inside a block some context owns
(allocations, module globals, mapped host blocks); ``cuPointerGetAttribute`` on any other address is
``CUDA_ERROR_INVALID_VALUE``, ``cuPointerGetAttributes`` answers it with zeros, as CUDA documents.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptx2gcn.runtime.driver.args import enum_member, handle, integer, invalid
from ptx2gcn.runtime.driver.enums import (
    CU_MEMHOSTALLOC_DEVICEMAP,
    CU_MEMHOSTALLOC_PORTABLE,
    CU_MEMHOSTALLOC_WRITECOMBINED,
    CU_MEMHOSTREGISTER_DEVICEMAP,
    CU_MEMHOSTREGISTER_IOMEMORY,
    CU_MEMHOSTREGISTER_PORTABLE,
    CU_MEMHOSTREGISTER_READ_ONLY,
    CUmemAttach_flags,
    CUmemorytype,
    CUpointer_attribute,
    CUresult,
)
from ptx2gcn.runtime.driver.errors import CudaError
from ptx2gcn.runtime.driver.memory import containing, host_alloc, map_host, unmap_host
from ptx2gcn.runtime.driver.state import Context, MappedBlock, driver
from ptx2gcn.runtime.driver.types import CUcontext, CUdeviceptr

P = CUpointer_attribute


def _no_mapping(what: str) -> CudaError:
    return CudaError(
        CUresult.CUDA_ERROR_NOT_SUPPORTED,
        f"{what}: the {driver().require_current().backend.name} backend cannot map host memory for the device",
    )


def _size(value: object) -> int:
    size = integer(value, "bytesize", 64)
    if size == 0:
        raise invalid("bytesize must be greater than 0")
    return size


def _flags(value: object, allowed: int, what: str) -> int:
    flags = integer(value, what)
    if flags & ~allowed:
        raise invalid(f"{what} = 0x{flags:x} has bits CUDA does not define (allowed: 0x{allowed:x})")
    return flags


# -- page-locked and managed allocations ----------------------------------------------------------
def mem_host_alloc(bytesize: object, Flags: object) -> int:
    allowed = CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED
    return host_alloc(bytesize, _flags(Flags, allowed, "Flags"))


def mem_alloc_managed(bytesize: object, flags: object) -> CUdeviceptr:
    context = driver().require_current()
    attach = enum_member(flags, CUmemAttach_flags, "flags")
    if attach is CUmemAttach_flags.CU_MEM_ATTACH_SINGLE:
        raise invalid("flags must be CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST")
    if getattr(context.backend, "map_host", None) is None:
        raise _no_mapping("cuMemAllocManaged")
    return CUdeviceptr(host_alloc(bytesize, int(attach), "managed"))


def mem_host_get_device_pointer(p: object, Flags: object) -> CUdeviceptr:
    context = driver().require_current()
    if integer(Flags, "Flags") != 0:
        raise invalid("Flags must be 0")
    address = handle(p, CUdeviceptr, "p")
    found = containing(context, address)
    if found is None or found[2] not in ("host", "registered", "managed"):
        raise invalid(f"p 0x{address:x} is not host memory mapped for the device (cuMemHostAlloc/cuMemHostRegister)")
    return CUdeviceptr(address)


def mem_host_get_flags(p: object) -> int:
    context = driver().require_current()
    address = handle(p, CUdeviceptr, "p")
    found = containing(context, address)
    if found is None or found[2] != "host":
        if address in context.host_blocks:
            return 0
        raise invalid(f"p 0x{address:x} was not allocated by cuMemHostAlloc or cuMemAllocHost")
    return context.mapped[found[0]].flags


# -- registration -----------------------------------------------------------------------------------
def mem_host_register(p: object, bytesize: object, Flags: object) -> None:
    context = driver().require_current()
    allowed = (
        CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_IOMEMORY
        | CU_MEMHOSTREGISTER_READ_ONLY
    )  # fmt: skip
    flags = _flags(Flags, allowed, "Flags")
    address, size = handle(p, CUdeviceptr, "p"), _size(bytesize)
    if address == 0:
        raise invalid("p is a null pointer")
    if flags & CU_MEMHOSTREGISTER_IOMEMORY:
        raise CudaError(CUresult.CUDA_ERROR_NOT_SUPPORTED, "CU_MEMHOSTREGISTER_IOMEMORY: no I/O memory here")
    for start, block in context.mapped.items():
        if start < address + size and address < start + block.size:
            raise CudaError(
                CUresult.CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                f"0x{address:x}+{size} overlaps host memory already registered or mapped at 0x{start:x}",
            )
    if not map_host(context, address, MappedBlock(size, "registered", flags)):
        raise _no_mapping("cuMemHostRegister")


def mem_host_unregister(p: object) -> None:
    context = driver().require_current()
    address = handle(p, CUdeviceptr, "p")
    block = context.mapped.get(address)
    if block is None or block.kind != "registered":
        raise CudaError(
            CUresult.CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
            f"p 0x{address:x} is not the start of a range registered with cuMemHostRegister",
        )
    unmap_host(context, address)


# -- pointer queries ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Owner:
    context: Context
    start: int
    size: int
    kind: str


def _owner(address: int) -> _Owner | None:
    state = driver()
    state.initialised()
    current = state.current()
    contexts = ([current] if current is not None else []) + [c for c in state.contexts.values() if c is not current]
    for context in contexts:
        found = containing(context, address)
        if found is not None:
            return _Owner(context, *found)
    return None


def mem_get_address_range(dptr: object) -> tuple[CUdeviceptr, int]:
    driver().require_current()
    address = handle(dptr, CUdeviceptr, "dptr")
    owner = _owner(address)
    if owner is None:
        raise CudaError(CUresult.CUDA_ERROR_NOT_FOUND, f"dptr 0x{address:x} is not inside memory the driver allocated")
    return CUdeviceptr(owner.start), owner.size


_HOST_KINDS = ("host", "registered")
_BOOLEAN = (
    P.CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, P.CU_POINTER_ATTRIBUTE_IS_MANAGED,
    P.CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, P.CU_POINTER_ATTRIBUTE_MAPPED,
    P.CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE, P.CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE,
)  # fmt: skip
WIDE = (
    P.CU_POINTER_ATTRIBUTE_CONTEXT, P.CU_POINTER_ATTRIBUTE_DEVICE_POINTER, P.CU_POINTER_ATTRIBUTE_HOST_POINTER,
    P.CU_POINTER_ATTRIBUTE_BUFFER_ID, P.CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, P.CU_POINTER_ATTRIBUTE_RANGE_SIZE,
    P.CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, P.CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE,
    P.CU_POINTER_ATTRIBUTE_MAPPING_SIZE, P.CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR,
    P.CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID,
)  # fmt: skip
"""Attributes whose C value is 8 bytes (handles, pointers, sizes, 64-bit ids); the others are 4
(``unsigned int``, ``int``, or a boolean stored as ``int`` as cuda-python reads it)."""


def _value(attribute: CUpointer_attribute, owner: _Owner, address: int) -> object:
    read_only = owner.kind == "registered" and owner.context.mapped[owner.start].flags & CU_MEMHOSTREGISTER_READ_ONLY
    values: dict[CUpointer_attribute, object] = {
        P.CU_POINTER_ATTRIBUTE_CONTEXT: CUcontext(owner.context.handle),
        P.CU_POINTER_ATTRIBUTE_MEMORY_TYPE: int(
            CUmemorytype.CU_MEMORYTYPE_HOST if owner.kind in _HOST_KINDS else CUmemorytype.CU_MEMORYTYPE_DEVICE
        ),
        P.CU_POINTER_ATTRIBUTE_DEVICE_POINTER: CUdeviceptr(address),
        P.CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: True,  # every operation of this driver is synchronous
        P.CU_POINTER_ATTRIBUTE_BUFFER_ID: owner.start,
        P.CU_POINTER_ATTRIBUTE_IS_MANAGED: owner.kind == "managed",
        P.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: owner.context.device,
        P.CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE: False,
        P.CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: CUdeviceptr(owner.start),
        P.CU_POINTER_ATTRIBUTE_RANGE_SIZE: owner.size,
        P.CU_POINTER_ATTRIBUTE_MAPPED: True,
        P.CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES: 0,
        P.CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE: False,
        P.CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: 1 if read_only else 3,  # CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READ(WRITE)
        P.CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: 0,
        P.CU_POINTER_ATTRIBUTE_MAPPING_SIZE: owner.size,
        P.CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR: CUdeviceptr(owner.start),
        P.CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID: owner.start,
        P.CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE: False,
    }
    if attribute is P.CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if owner.kind not in (*_HOST_KINDS, "managed"):
            raise invalid(f"0x{address:x} is device memory: it has no host pointer")
        return address
    if attribute not in values:
        raise CudaError(CUresult.CUDA_ERROR_NOT_SUPPORTED, f"{attribute.name}: no peer-to-peer tokens here")
    return values[attribute]


def pointer_get_attribute(attribute: object, ptr: object) -> object:
    which = enum_member(attribute, CUpointer_attribute, "attribute")
    address = handle(ptr, CUdeviceptr, "ptr")
    owner = _owner(address)
    if owner is None:
        raise invalid(f"ptr 0x{address:x} is not memory the driver allocated, mapped or registered")
    return _value(which, owner, address)


def pointer_get_attributes(numAttributes: object, attributes: object, ptr: object) -> list[object]:
    count = integer(numAttributes, "numAttributes")
    listed = list(attributes) if isinstance(attributes, (list, tuple)) else None
    if listed is None or len(listed) != count:
        raise invalid(f"numAttributes = {count}, but attributes must be a list of that length")
    which = [enum_member(a, CUpointer_attribute, "attributes[]") for a in listed]
    address = handle(ptr, CUdeviceptr, "ptr")
    owner = _owner(address)
    if owner is None:  # CUDA: not an error here; every attribute reads as zero / NULL
        return [CUcontext(0) if a is P.CU_POINTER_ATTRIBUTE_CONTEXT else 0 for a in which]
    host_less = owner.kind not in (*_HOST_KINDS, "managed")
    return [0 if a is P.CU_POINTER_ATTRIBUTE_HOST_POINTER and host_less else _value(a, owner, address) for a in which]


def is_boolean(attribute: CUpointer_attribute) -> bool:
    return attribute in _BOOLEAN
