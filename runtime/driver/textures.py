"""Texture and surface objects: ``cuTexObjectCreate``/``Destroy``/``GetResourceDesc``/
``GetTextureDesc``/``GetResourceViewDesc`` and ``cuSurfObjectCreate``/``Destroy``/``GetResourceDesc``.

Invariant: a ``CUtexObject``/``CUsurfObject`` is the device address of its descriptor (``ptx2gcn.emit.
texture_descriptor``, read by the code ``lower_texture`` emits), written once at creation from the
resource (an array, linear memory or pitched 2D memory) and the sampling settings, and freed at
destruction; the resource and texture descriptions are kept as given for the ``Get*Desc`` calls.
Settings the descriptor cannot express are refused with CUDA's codes: mipmapped arrays and
resource views (``CUDA_ERROR_NOT_SUPPORTED``), sRGB reads (``CUDA_ERROR_NOT_SUPPORTED``); so are
objects on the ``cuda`` backend (NVIDIA's own JIT runs the PTX there).
Linear-memory textures read 0 outside their range (CUDA's ``tex1Dfetch``); wrap and mirror need
normalised coordinates and otherwise clamp (CUDA Programming Guide, "Texture Fetching").
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from ptx2gcn.emit import texture_descriptor as td
from ptx2gcn.runtime.driver.args import enum_member, handle, integer, invalid
from ptx2gcn.runtime.driver.arrays import CHANNEL_BYTES, FLOATING, SIGNED, array, channels_of, format_of
from ptx2gcn.runtime.driver.enums import (
    CU_TRSF_NORMALIZED_COORDINATES,
    CU_TRSF_READ_AS_INTEGER,
    CU_TRSF_SRGB,
    CUDA_ARRAY3D_LAYERED,
    CUDA_ARRAY3D_SURFACE_LDST,
    CUaddress_mode,
    CUarray_format,
    CUfilter_mode,
    CUresourcetype,
    CUresult,
)
from ptx2gcn.runtime.driver.errors import CudaError
from ptx2gcn.runtime.driver.memory import backend_call, check_range
from ptx2gcn.runtime.driver.state import Context, driver
from ptx2gcn.runtime.driver.texture_limits import LINEAR_1D, LINEAR_2D
from ptx2gcn.runtime.driver.types import HandleBase
from ptx2gcn.runtime.libcuda.structs import CUDA_RESOURCE_DESC, CUDA_RESOURCE_VIEW_DESC, CUDA_TEXTURE_DESC

T = CUresourcetype


class CUtexObject(HandleBase):
    __slots__ = ()


class CUsurfObject(HandleBase):
    __slots__ = ()


@dataclass(frozen=True)
class TextureRecord:
    address: int
    context: Context
    surface: bool
    resource: CUDA_RESOURCE_DESC
    texture: CUDA_TEXTURE_DESC | None


def _get(obj: object, path: str) -> object:
    for name in path.split("."):
        obj = getattr(obj, name, 0)
    return obj


def _int(obj: object, path: str) -> int:
    value = _get(obj, path)
    if isinstance(value, HandleBase):
        return int(value)
    return integer(getattr(value, "value", value) if not isinstance(value, int) else value or 0, path, 64)


def resource(desc: object) -> tuple[td.Descriptor, CUDA_RESOURCE_DESC]:
    """The descriptor's resource fields (sampling left at its defaults) and a ctypes copy of ``desc``."""
    if desc is None:
        raise invalid("pResDesc is NULL")
    kind = enum_member(_int(desc, "resType"), CUresourcetype, "resType")
    copy = CUDA_RESOURCE_DESC(resType=kind, flags=_int(desc, "flags"))
    if _int(desc, "flags"):
        raise invalid("pResDesc->flags must be 0")
    if kind is T.CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
        raise CudaError(CUresult.CUDA_ERROR_NOT_SUPPORTED, "mipmapped arrays are not supported by ptx2gcn")
    if kind is T.CU_RESOURCE_TYPE_ARRAY:
        record = array(_get(desc, "res.array.hArray"), "res.array.hArray")
        copy.res.array.hArray = record.handle
        layered = bool(record.flags & CUDA_ARRAY3D_LAYERED)
        dims = 1 if record.height == 0 else 2 if record.depth == 0 or layered else 3
        return td.Descriptor(record.address, record.width, record.rows, record.slices, record.pitch,
                             record.pitch * record.rows, *_format(record.format, record.channels), layered=layered,
                             dims=dims), copy
    prefix = "res.linear" if kind is T.CU_RESOURCE_TYPE_LINEAR else "res.pitch2D"
    base, fmt = _int(desc, f"{prefix}.devPtr"), format_of(_get(desc, f"{prefix}.format"), f"{prefix}.format")
    channels = channels_of(_get(desc, f"{prefix}.numChannels"), f"{prefix}.numChannels")
    element = CHANNEL_BYTES[fmt] * channels
    part = copy.res.linear if kind is T.CU_RESOURCE_TYPE_LINEAR else copy.res.pitch2D
    part.devPtr, part.format, part.numChannels = base, fmt, channels
    context = driver().require_current()
    if kind is T.CU_RESOURCE_TYPE_LINEAR:
        size = _int(desc, "res.linear.sizeInBytes")
        copy.res.linear.sizeInBytes = size
        _inside(context, base, size, "res.linear")
        if not element <= size <= LINEAR_1D * element:
            raise invalid(f"res.linear.sizeInBytes = {size}: must hold 1 to {LINEAR_1D} elements of {element} bytes")
        border = (td.BORDER, td.BORDER, td.BORDER)  # one row: the pitch is never used
        return td.Descriptor(base, size // element, 1, 1, 0, size, *_format(fmt, channels), modes=border), copy
    width, height, pitch = (_int(desc, f"res.pitch2D.{n}") for n in ("width", "height", "pitchInBytes"))
    copy.res.pitch2D.width, copy.res.pitch2D.height, copy.res.pitch2D.pitchInBytes = width, height, pitch
    if not (0 < width <= LINEAR_2D[0] and 0 < height <= LINEAR_2D[1] and width * element <= pitch <= LINEAR_2D[2]):
        raise invalid(f"res.pitch2D: {width} x {height} elements of {element} bytes with pitch {pitch} (at most "
                      f"{LINEAR_2D[0]} x {LINEAR_2D[1]}, pitch {LINEAR_2D[2]})")
    _inside(context, base, pitch * (height - 1) + width * element, "res.pitch2D")
    return td.Descriptor(base, width, height, 1, pitch, pitch * height, *_format(fmt, channels), dims=2), copy


def _inside(context: Context, base: int, size: int, what: str) -> None:
    check_range(context, base, size, f"{what}.devPtr")


def _format(fmt: CUarray_format, channels: int) -> tuple[int, int, int]:
    kind = td.KIND_FLOAT if fmt in FLOATING else td.KIND_SIGNED if fmt in SIGNED else td.KIND_UNSIGNED
    return kind, CHANNEL_BYTES[fmt], channels


def sampling(base: td.Descriptor, linear: bool, desc: object) -> tuple[td.Descriptor, CUDA_TEXTURE_DESC]:
    if desc is None:
        raise invalid("pTexDesc is NULL")
    flags = _int(desc, "flags")
    if flags & CU_TRSF_SRGB:
        raise CudaError(CUresult.CUDA_ERROR_NOT_SUPPORTED, "sRGB texture reads are not supported by ptx2gcn")
    normalized = bool(flags & CU_TRSF_NORMALIZED_COORDINATES)
    given = list(_get(desc, "addressMode") or [0, 0, 0])  # type: ignore[call-overload]
    modes = [enum_member(getattr(m, "value", m), CUaddress_mode, f"addressMode[{i}]") for i, m in enumerate(given[:3])]
    filt = enum_member(_int(desc, "filterMode"), CUfilter_mode, "filterMode")
    border = [float(v) for v in [*(_get(desc, "borderColor") or ()), 0.0, 0.0, 0.0, 0.0][:4]]  # type: ignore[misc]
    copy = CUDA_TEXTURE_DESC(filterMode=filt, flags=flags)
    for i, m in enumerate(modes):
        copy.addressMode[i] = m
    for i, v in enumerate(border):
        copy.borderColor[i] = v
    for name in ("maxAnisotropy", "mipmapFilterMode"):
        setattr(copy, name, _int(desc, name))
    for name in ("mipmapLevelBias", "minMipmapLevelClamp", "maxMipmapLevelClamp"):
        setattr(copy, name, float(_get(desc, name) or 0.0))  # type: ignore[arg-type]
    a, b, c = (td.CLAMP if not normalized and m in (td.WRAP, td.MIRROR) else int(m) for m in (*modes, 1, 1, 1)[:3])
    stored, colour = (a, b, c), (border[0], border[1], border[2], border[3])
    if linear:  # linear memory: 0 outside the range, whatever the modes
        stored, colour = base.modes, (0.0, 0.0, 0.0, 0.0)
    sampled = replace(base, modes=stored, filter=int(filt), normalized_read=not flags & CU_TRSF_READ_AS_INTEGER,
                      normalized_coords=normalized, border=colour)
    return sampled, copy


def write_descriptor(context: Context, descriptor: td.Descriptor, address: int = 0) -> int:
    """Write ``descriptor`` at ``address`` (a new block when 0) in the context's device memory."""
    if getattr(context.backend, "name", "") == "cuda":
        raise CudaError(CUresult.CUDA_ERROR_NOT_SUPPORTED, "textures and surfaces on the cuda backend: the PTX runs "
                        "on NVIDIA's driver there, whose tex/suld instructions need its own objects")
    data = descriptor.pack()
    block = address or backend_call(lambda: context.backend.malloc(len(data)))
    backend_call(lambda: context.backend.write(block, data))
    return block


def _publish(descriptor: td.Descriptor, record: dict[str, object]) -> int:
    context = driver().require_current()
    address = write_descriptor(context, descriptor)
    context.texture_objects[address] = TextureRecord(address, context, **record)  # type: ignore[arg-type]
    return address


def tex_object_create(pResDesc: object, pTexDesc: object, pResViewDesc: object) -> CUtexObject:
    if pResViewDesc is not None and not (isinstance(pResViewDesc, int) and pResViewDesc == 0):
        raise CudaError(CUresult.CUDA_ERROR_NOT_SUPPORTED, "resource views are not supported by ptx2gcn "
                        "(pResViewDesc must be NULL)")
    base, described = resource(pResDesc)
    descriptor, texture = sampling(base, described.resType == T.CU_RESOURCE_TYPE_LINEAR, pTexDesc)
    return CUtexObject(_publish(descriptor, {"surface": False, "resource": described, "texture": texture}))


def surf_object_create(pResDesc: object) -> CUsurfObject:
    if pResDesc is not None and _int(pResDesc, "resType") != T.CU_RESOURCE_TYPE_ARRAY:
        raise invalid("a surface object's resource must be a CUDA array (resType CU_RESOURCE_TYPE_ARRAY)")
    base, described = resource(pResDesc)
    surface_array(described)
    return CUsurfObject(_publish(base, {"surface": True, "resource": described, "texture": None}))


def surface_array(described: CUDA_RESOURCE_DESC) -> None:
    """A surface's array must have been created with ``CUDA_ARRAY3D_SURFACE_LDST`` (as in CUDA)."""
    if not array(described.res.array.hArray, "res.array.hArray").flags & CUDA_ARRAY3D_SURFACE_LDST:
        raise invalid("the array was not created with CUDA_ARRAY3D_SURFACE_LDST")


R = TypeVar("R")


def lookup(table: dict[int, Any], value: object, kind: type[HandleBase], what: str, record_type: type[R],
           surface: bool, noun: str) -> R:
    """The ``record_type`` record ``value`` names in ``table`` with the right ``surface`` flag
    (``CUDA_ERROR_INVALID_HANDLE`` otherwise): texture/surface objects here, references in ``texrefs``."""
    number = handle(value, kind, what)
    record = table.get(number)
    if not isinstance(record, record_type) or getattr(record, "surface", None) != surface:
        raise CudaError(CUresult.CUDA_ERROR_INVALID_HANDLE, f"{what} 0x{number:x} is not a "
                        f"{'surface' if surface else 'texture'} {noun} of this context")
    return record


def _object(value: object, surface: bool) -> TextureRecord:
    kind, what = (CUsurfObject, "surfObject") if surface else (CUtexObject, "texObject")
    return lookup(driver().require_current().texture_objects, value, kind, what, TextureRecord, surface, "object")


def _destroy(value: object, surface: bool) -> None:
    record = _object(value, surface)
    backend_call(lambda: record.context.backend.free(record.address))
    del record.context.texture_objects[record.address]


def tex_object_destroy(texObject: object) -> None:
    _destroy(texObject, False)


def surf_object_destroy(surfObject: object) -> None:
    _destroy(surfObject, True)


def _copy_of(struct: ctypes.Structure) -> ctypes.Structure:
    return type(struct).from_buffer_copy(struct)


def tex_object_get_resource_desc(texObject: object) -> CUDA_RESOURCE_DESC:
    return _copy_of(_object(texObject, False).resource)  # type: ignore[return-value]


def tex_object_get_texture_desc(texObject: object) -> CUDA_TEXTURE_DESC:
    texture = _object(texObject, False).texture
    assert texture is not None
    return _copy_of(texture)  # type: ignore[return-value]


def tex_object_get_resource_view_desc(texObject: object) -> CUDA_RESOURCE_VIEW_DESC:
    _object(texObject, False)
    raise invalid("the texture object has no resource view")


def surf_object_get_resource_desc(surfObject: object) -> CUDA_RESOURCE_DESC:
    return _copy_of(_object(surfObject, True).resource)  # type: ignore[return-value]
