"""CUDA arrays: ``cuArrayCreate``, ``cuArray3DCreate``, ``cuArrayGetDescriptor``,
``cuArray3DGetDescriptor``, ``cuArrayDestroy``, the array copies ``cuMemcpy{HtoA,AtoH,AtoD,DtoA,AtoA}``
(and async forms), and ``cuMipmappedArray*`` (``CUDA_ERROR_NOT_SUPPORTED``).

Invariant: an array is one device allocation holding its elements row-major with no padding:
element (x, y, z) — z a layer of a layered array — is at ``address + (z * rows + y) * pitch + x *
element_bytes`` with ``pitch = width * element_bytes`` and ``rows = max(height, 1)``. That is the
layout the texture descriptor (``ptx2gcn.emit.texture_descriptor``) describes, and it lets the
array copies treat an array as pitched device memory (``copies.py``) and the offset copies as plain
byte copies. Descriptors come as objects with ``cuda.h``'s field names (the ctypes structs of
``runtime/libcuda/structs.py`` or cuda-python's objects).
"""

from __future__ import annotations

from dataclasses import dataclass

from ptx2gcn.runtime.driver.args import enum_member, handle, integer, invalid
from ptx2gcn.runtime.driver.enums import (
    CUDA_ARRAY3D_CUBEMAP,
    CUDA_ARRAY3D_LAYERED,
    CUDA_ARRAY3D_SURFACE_LDST,
    CUDA_ARRAY3D_TEXTURE_GATHER,
    CUarray_format,
    CUresult,
)
from ptx2gcn.runtime.driver.errors import CudaError
from ptx2gcn.runtime.driver.memory import _stream, backend_call, memcpy_dtod, memcpy_dtoh, memcpy_htod
from ptx2gcn.runtime.driver.state import Context, driver
from ptx2gcn.runtime.driver.texture_limits import array_limits
from ptx2gcn.runtime.driver.types import HandleBase
from ptx2gcn.runtime.libcuda.structs import CUDA_ARRAY3D_DESCRIPTOR, CUDA_ARRAY_DESCRIPTOR

F = CUarray_format
CHANNEL_BYTES = {F.CU_AD_FORMAT_UNSIGNED_INT8: 1, F.CU_AD_FORMAT_UNSIGNED_INT16: 2, F.CU_AD_FORMAT_UNSIGNED_INT32: 4,
                 F.CU_AD_FORMAT_SIGNED_INT8: 1, F.CU_AD_FORMAT_SIGNED_INT16: 2, F.CU_AD_FORMAT_SIGNED_INT32: 4,
                 F.CU_AD_FORMAT_HALF: 2, F.CU_AD_FORMAT_FLOAT: 4}
SIGNED = {F.CU_AD_FORMAT_SIGNED_INT8, F.CU_AD_FORMAT_SIGNED_INT16, F.CU_AD_FORMAT_SIGNED_INT32}
FLOATING = {F.CU_AD_FORMAT_HALF, F.CU_AD_FORMAT_FLOAT}
_FLAGS = CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_TEXTURE_GATHER


class CUarray(HandleBase):
    __slots__ = ()


class CUmipmappedArray(HandleBase):
    __slots__ = ()


@dataclass(frozen=True)
class ArrayRecord:
    handle: int
    context: Context
    address: int
    width: int
    height: int
    depth: int
    format: CUarray_format
    channels: int
    flags: int

    @property
    def element_bytes(self) -> int:
        return CHANNEL_BYTES[self.format] * self.channels

    @property
    def pitch(self) -> int:
        return self.width * self.element_bytes

    @property
    def rows(self) -> int:
        return max(self.height, 1)

    @property
    def slices(self) -> int:
        return max(self.depth, 1)

    @property
    def size(self) -> int:
        return self.pitch * self.rows * self.slices


def _field(desc: object, name: str) -> int:
    value = getattr(desc, name, 0)
    return integer(getattr(value, "value", value) if not isinstance(value, int) else value, name, 64)


def format_of(value: object, what: str = "Format") -> CUarray_format:
    number = integer(getattr(value, "value", value) if not isinstance(value, int) else value, what, 32)
    if number not in CHANNEL_BYTES.values() and number not in set(F):
        raise CudaError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                        f"{what} = 0x{number:x}: ptx2gcn's arrays and textures support the 8/16/32-bit "
                        "integer, half and float formats")
    return enum_member(number, F, what)


def channels_of(value: object, what: str = "NumChannels") -> int:
    count = integer(value, what, 32)
    if count not in (1, 2, 4):
        raise invalid(f"{what} = {count}: must be 1, 2 or 4")
    return count


def _create(desc: object, three_d: bool) -> CUarray:
    if desc is None:
        raise invalid("pAllocateArray is NULL")
    context = driver().require_current()
    width, height = _field(desc, "Width"), _field(desc, "Height")
    depth = _field(desc, "Depth") if three_d else 0
    flags = _field(desc, "Flags") if three_d else 0
    fmt, channels = format_of(getattr(desc, "Format", 0)), channels_of(getattr(desc, "NumChannels", 0))
    if flags & ~_FLAGS:
        raise CudaError(CUresult.CUDA_ERROR_NOT_SUPPORTED, f"Flags = 0x{flags:x}: only LAYERED, SURFACE_LDST and "
                        "TEXTURE_GATHER are supported")
    if flags & CUDA_ARRAY3D_CUBEMAP:
        raise CudaError(CUresult.CUDA_ERROR_NOT_SUPPORTED, "cube map arrays are not supported by ptx2gcn")
    layered = bool(flags & CUDA_ARRAY3D_LAYERED)
    if width == 0 or (height == 0 and depth and not layered):
        raise invalid(f"array extent {width} x {height} x {depth}: Width must be non-zero, and a 3D array "
                      "needs a Height")
    dims = 1 if height == 0 else 2 if depth == 0 or layered else 3
    limits = array_limits(dims, layered)
    if any(size > limit for size, limit in zip((width, height, depth), limits, strict=True)):
        shape = " x ".join(str(n) for n in limits if n)
        raise invalid(f"array extent {width} x {height} x {depth}: a {'layered ' if layered else ''}{dims}D array "
                      f"is at most {shape} (CU_DEVICE_ATTRIBUTE_MAXIMUM_*; runtime/driver/texture_limits.py)")
    record_handle = driver().new_handle()
    size = ArrayRecord(record_handle, context, 0, width, height, depth, fmt, channels, flags).size
    address = backend_call(lambda: context.backend.malloc(size))
    record = ArrayRecord(record_handle, context, address, width, height, depth, fmt, channels, flags)
    context.arrays[record_handle] = record
    context.allocations[address] = size  # device memory of the context for the copies' range checks
    return CUarray(record_handle)


def array_create(pAllocateArray: object) -> CUarray:
    return _create(pAllocateArray, False)


def array_3d_create(pAllocateArray: object) -> CUarray:
    return _create(pAllocateArray, True)


def array(hArray: object, what: str = "hArray") -> ArrayRecord:
    """The array ``hArray`` names in the current context (``CUDA_ERROR_INVALID_HANDLE`` otherwise)."""
    number = handle(hArray, CUarray, what)
    record = driver().require_current().arrays.get(number)
    if record is None:
        raise CudaError(CUresult.CUDA_ERROR_INVALID_HANDLE, f"{what} 0x{number:x} is not an array of this context")
    assert isinstance(record, ArrayRecord)
    return record


def array_destroy(hArray: object) -> None:
    record = array(hArray)
    backend_call(lambda: record.context.backend.free(record.address))
    del record.context.arrays[record.handle]
    record.context.allocations.pop(record.address, None)


def array_get_descriptor(hArray: object) -> CUDA_ARRAY_DESCRIPTOR:
    record = array(hArray)
    if record.depth or record.flags & CUDA_ARRAY3D_LAYERED:
        raise invalid("hArray is a 3D or layered array: use cuArray3DGetDescriptor")
    return CUDA_ARRAY_DESCRIPTOR(Width=record.width, Height=record.height, Format=record.format,
                                 NumChannels=record.channels)


def array_3d_get_descriptor(hArray: object) -> CUDA_ARRAY3D_DESCRIPTOR:
    record = array(hArray)
    return CUDA_ARRAY3D_DESCRIPTOR(Width=record.width, Height=record.height, Depth=record.depth,
                                   Format=record.format, NumChannels=record.channels, Flags=record.flags)


def mipmapped_array_unsupported(*_: object) -> None:
    raise CudaError(CUresult.CUDA_ERROR_NOT_SUPPORTED, "mipmapped arrays are not supported by ptx2gcn (its "
                    "textures have one level)")


# -- copies by byte offset ------------------------------------------------------------------------
def _at(hArray: object, offset: object, count: object, what: str) -> int:
    record = array(hArray, what)
    start, size = integer(offset, f"{what} offset", 64), integer(count, "ByteCount", 64)
    if start + size > record.size:
        raise invalid(f"{size} bytes at offset {start} run past the end of {what} ({record.size} bytes)")
    return record.address + start


def memcpy_htoa(dstArray: object, dstOffset: object, srcHost: object, ByteCount: object) -> None:
    memcpy_htod(_at(dstArray, dstOffset, ByteCount, "dstArray"), srcHost, ByteCount)


def memcpy_atoh(dstHost: object, srcArray: object, srcOffset: object, ByteCount: object) -> None:
    memcpy_dtoh(dstHost, _at(srcArray, srcOffset, ByteCount, "srcArray"), ByteCount)


def memcpy_atod(dstDevice: object, srcArray: object, srcOffset: object, ByteCount: object) -> None:
    memcpy_dtod(dstDevice, _at(srcArray, srcOffset, ByteCount, "srcArray"), ByteCount)


def memcpy_dtoa(dstArray: object, dstOffset: object, srcDevice: object, ByteCount: object) -> None:
    memcpy_dtod(_at(dstArray, dstOffset, ByteCount, "dstArray"), srcDevice, ByteCount)


def memcpy_atoa(dstArray: object, dstOffset: object, srcArray: object, srcOffset: object, ByteCount: object) -> None:
    memcpy_dtod(_at(dstArray, dstOffset, ByteCount, "dstArray"), _at(srcArray, srcOffset, ByteCount, "srcArray"),
                ByteCount)


def memcpy_htoa_async(dstArray: object, dstOffset: object, srcHost: object, ByteCount: object,
                      hStream: object) -> None:
    _stream(hStream)
    memcpy_htoa(dstArray, dstOffset, srcHost, ByteCount)


def memcpy_atoh_async(dstHost: object, srcArray: object, srcOffset: object, ByteCount: object,
                      hStream: object) -> None:
    _stream(hStream)
    memcpy_atoh(dstHost, srcArray, srcOffset, ByteCount)
