"""Texture and surface references (the API CUDA 12's runtime removed, still in the driver API):
``cuModuleGetTexRef``, ``cuModuleGetSurfRef``, ``cuTexRefSetArray``, ``cuTexRefSetAddress``,
``cuTexRefSetAddress2D``, ``cuTexRefSetFormat``, ``cuTexRefSetAddressMode``, ``cuTexRefSetFilterMode``,
``cuTexRefSetFlags``, ``cuTexRefSetBorderColor``, ``cuSurfRefSetArray`` and the matching getters.

Invariant: a ``.texref``/``.surfref`` variable is 8 bytes of module data holding a texture (surface)
object: the code ``lower_texture`` emits loads it and reads the descriptor it points to. A reference
keeps its settings here; each setter, once a resource is bound, rebuilds the descriptor through
``textures.py`` (the same validation and layout as ``cuTexObjectCreate``), rewrites it in the
reference's own descriptor block and stores that block's address in the variable. Until a resource
is bound the variable holds 0 (a kernel reading it faults, as an unbound reference is an error in
CUDA). The ``.texref`` initializer fields of PTX (``filter_mode = ...``) are not read: the settings
are the driver's defaults (clamp, point, flags 0) until a setter changes them.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from ptx2gcn.runtime.driver import textures
from ptx2gcn.runtime.driver.args import enum_member, handle, integer, invalid
from ptx2gcn.runtime.driver.arrays import CUarray, array, channels_of, format_of
from ptx2gcn.runtime.driver.enums import CUaddress_mode, CUarray_format, CUfilter_mode, CUresourcetype
from ptx2gcn.runtime.driver.memory import backend_call
from ptx2gcn.runtime.driver.module import module_get_global
from ptx2gcn.runtime.driver.state import Context, driver
from ptx2gcn.runtime.driver.types import CUdeviceptr, HandleBase
from ptx2gcn.runtime.libcuda.structs import CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC

CU_TRSA_OVERRIDE_FORMAT = 0x01


class CUtexref(HandleBase):
    __slots__ = ()


class CUsurfref(HandleBase):
    __slots__ = ()


@dataclass(eq=False)
class ReferenceRecord:
    handle: int
    context: Context
    variable: int
    surface: bool
    resource: CUDA_RESOURCE_DESC | None = None
    format: CUarray_format = CUarray_format.CU_AD_FORMAT_FLOAT
    channels: int = 1
    sampling: CUDA_TEXTURE_DESC = field(default_factory=lambda: CUDA_TEXTURE_DESC(addressMode=(1, 1, 1)))
    block: int = 0
    """The reference's descriptor block (allocated at the first bind)."""


def _get(hmod: object, name: object, surface: bool) -> int:
    variable, size = module_get_global(hmod, name)
    if size != 8:
        raise invalid(f"{name!r} is not a .{'surfref' if surface else 'texref'} variable ({size} bytes)")
    context = driver().require_current()
    for record in context.texture_references.values():
        if record.variable == int(variable):
            return int(record.handle)
    record = ReferenceRecord(driver().new_handle(), context, int(variable), surface)
    context.texture_references[record.handle] = record
    return record.handle


def module_get_tex_ref(hmod: object, name: object) -> CUtexref:
    return CUtexref(_get(hmod, name, False))


def module_get_surf_ref(hmod: object, name: object) -> CUsurfref:
    return CUsurfref(_get(hmod, name, True))


def _reference(value: object, surface: bool = False) -> ReferenceRecord:
    kind, what = (CUsurfref, "hSurfRef") if surface else (CUtexref, "hTexRef")
    table = driver().require_current().texture_references
    return textures.lookup(table, value, kind, what, ReferenceRecord, surface, "reference")


def _publish(record: ReferenceRecord) -> None:
    """Rebuild the descriptor from the settings and point the variable at it (once a resource is bound)."""
    if record.resource is None:
        return
    base, _ = textures.resource(record.resource)
    linear = record.resource.resType == CUresourcetype.CU_RESOURCE_TYPE_LINEAR
    descriptor = base if record.surface else textures.sampling(base, linear, record.sampling)[0]
    record.block = textures.write_descriptor(record.context, descriptor, record.block)
    backend = record.context.backend
    backend_call(lambda: backend.write(record.variable, struct.pack("<Q", record.block)))


def tex_ref_set_array(hTexRef: object, hArray: object, Flags: object) -> None:
    record = _reference(hTexRef)
    if integer(Flags, "Flags") != CU_TRSA_OVERRIDE_FORMAT:
        raise invalid("Flags must be CU_TRSA_OVERRIDE_FORMAT")
    bound = array(hArray)
    resource = CUDA_RESOURCE_DESC(resType=CUresourcetype.CU_RESOURCE_TYPE_ARRAY)
    resource.res.array.hArray = bound.handle
    record.resource, record.format, record.channels = resource, bound.format, bound.channels
    _publish(record)


def surf_ref_set_array(hSurfRef: object, hArray: object, Flags: object) -> None:
    record = _reference(hSurfRef, True)
    if integer(Flags, "Flags"):
        raise invalid("Flags must be 0")
    bound = array(hArray)
    resource = CUDA_RESOURCE_DESC(resType=CUresourcetype.CU_RESOURCE_TYPE_ARRAY)
    resource.res.array.hArray = bound.handle
    textures.surface_array(resource)
    record.resource = resource
    _publish(record)


def tex_ref_set_address(hTexRef: object, dptr: object, bytes_: object) -> int:
    """Binds linear memory; the byte offset CUDA returns is 0 (no alignment is needed here)."""
    record = _reference(hTexRef)
    resource = CUDA_RESOURCE_DESC(resType=CUresourcetype.CU_RESOURCE_TYPE_LINEAR)
    linear = resource.res.linear
    linear.devPtr, linear.sizeInBytes = handle(dptr, CUdeviceptr, "dptr"), integer(bytes_, "bytes", 64)
    linear.format, linear.numChannels = record.format, record.channels
    record.resource = resource
    _publish(record)
    return 0


def tex_ref_set_address_2d(hTexRef: object, desc: object, dptr: object, Pitch: object) -> None:
    record = _reference(hTexRef)
    if desc is None:
        raise invalid("desc is NULL")
    fmt, channels = format_of(getattr(desc, "Format", 0)), channels_of(getattr(desc, "NumChannels", 0))
    resource = CUDA_RESOURCE_DESC(resType=CUresourcetype.CU_RESOURCE_TYPE_PITCH2D)
    pitch = resource.res.pitch2D
    pitch.devPtr, pitch.format, pitch.numChannels = handle(dptr, CUdeviceptr, "dptr"), fmt, channels
    pitch.width, pitch.height = integer(getattr(desc, "Width", 0), "Width", 64), integer(
        getattr(desc, "Height", 0), "Height", 64)
    pitch.pitchInBytes = integer(Pitch, "Pitch", 64)
    record.resource, record.format, record.channels = resource, fmt, channels
    _publish(record)


def tex_ref_set_format(hTexRef: object, fmt: object, NumPackedComponents: object) -> None:
    record = _reference(hTexRef)
    record.format = format_of(fmt, "fmt")
    record.channels = channels_of(NumPackedComponents, "NumPackedComponents")
    if record.resource is not None and record.resource.resType != CUresourcetype.CU_RESOURCE_TYPE_ARRAY:
        part = (record.resource.res.linear if record.resource.resType == CUresourcetype.CU_RESOURCE_TYPE_LINEAR
                else record.resource.res.pitch2D)
        part.format, part.numChannels = record.format, record.channels
    _publish(record)


def tex_ref_set_address_mode(hTexRef: object, dim: object, am: object) -> None:
    record = _reference(hTexRef)
    axis = integer(dim, "dim", 32, signed=True)
    if not 0 <= axis < 3:
        raise invalid(f"dim = {axis}: must be 0, 1 or 2")
    record.sampling.addressMode[axis] = enum_member(am, CUaddress_mode, "am")
    _publish(record)


def tex_ref_set_filter_mode(hTexRef: object, fm: object) -> None:
    record = _reference(hTexRef)
    record.sampling.filterMode = enum_member(fm, CUfilter_mode, "fm")
    _publish(record)


def tex_ref_set_flags(hTexRef: object, Flags: object) -> None:
    record = _reference(hTexRef)
    record.sampling.flags = integer(Flags, "Flags")
    _publish(record)


def tex_ref_set_border_color(hTexRef: object, pBorderColor: object) -> None:
    record = _reference(hTexRef)
    try:
        colour = [float(v) for v in pBorderColor][:4]  # type: ignore[attr-defined]
    except TypeError:
        raise invalid("pBorderColor must be four floats") from None
    if len(colour) != 4:
        raise invalid("pBorderColor must be four floats")
    for k, value in enumerate(colour):
        record.sampling.borderColor[k] = value
    _publish(record)


def tex_ref_get_address_mode(hTexRef: object, dim: object) -> CUaddress_mode:
    axis = integer(dim, "dim", 32, signed=True)
    if not 0 <= axis < 3:
        raise invalid(f"dim = {axis}: must be 0, 1 or 2")
    return CUaddress_mode(_reference(hTexRef).sampling.addressMode[axis])


def tex_ref_get_filter_mode(hTexRef: object) -> CUfilter_mode:
    return CUfilter_mode(_reference(hTexRef).sampling.filterMode)


def tex_ref_get_flags(hTexRef: object) -> int:
    return int(_reference(hTexRef).sampling.flags)


def tex_ref_get_format(hTexRef: object) -> tuple[CUarray_format, int]:
    record = _reference(hTexRef)
    return record.format, record.channels


def tex_ref_get_array(hTexRef: object) -> CUarray:
    record = _reference(hTexRef)
    if record.resource is None or record.resource.resType != CUresourcetype.CU_RESOURCE_TYPE_ARRAY:
        raise invalid("no CUDA array is bound to hTexRef")
    return CUarray(int(record.resource.res.array.hArray or 0))

