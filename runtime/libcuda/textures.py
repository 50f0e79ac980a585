"""Handlers of the CUDA array, texture/surface object and reference entry points
(``runtime/driver/arrays.py``, ``textures.py``, ``texrefs.py``): the group of ``abi.TEXTURE_EXPORTS``.

Same conventions as ``bridge`` and ``clients``: C arguments as integers, the implementation called
through ``marshal._run``; a C struct argument is read in place with its ``structs`` layout, and a
struct result (``cuArrayGetDescriptor``, ``cuTexObjectGetResourceDesc``, ...) is copied whole
through the caller's pointer.

Invariant: ``TEXTURE_HANDLERS`` has exactly the symbols of ``abi.TEXTURE_EXPORTS``; a handler never
raises, and writes an output only when the call succeeded.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

from ptx2gcn.runtime.driver import arrays as _arrays
from ptx2gcn.runtime.driver import texrefs as _texrefs
from ptx2gcn.runtime.driver import textures as _textures
from ptx2gcn.runtime.driver.enums import CUresult
from ptx2gcn.runtime.libcuda import structs
from ptx2gcn.runtime.libcuda.marshal import _I32, _U32, _U64, Handler, _bytes_at, _entry, _null, _optional, _run


def _in(layout: type[ctypes.Structure], address: int) -> ctypes.Structure | None:
    return layout.from_address(address) if address else None


def _struct_out(function: Callable[..., Any]) -> Handler:
    """``CUresult f(STRUCT *out, handle)``: the struct the implementation returns, copied to ``out``."""

    def handler(out: int, value: int) -> int:
        if not out:
            return int(_null("the output pointer")[0])
        result = _entry(function, 1)(value)
        if result[0] == CUresult.CUDA_SUCCESS:
            ctypes.memmove(out, ctypes.addressof(result[1]), ctypes.sizeof(result[1]))
        return int(result[0])

    return handler


TEXTURE_HANDLERS: dict[str, Handler] = {
    "cuArrayCreate_v2": lambda out, p: _run(
        _arrays.array_create, [(out, _U64)], _in(structs.CUDA_ARRAY_DESCRIPTOR, p)
    ),
    "cuArray3DCreate_v2": lambda out, p: _run(
        _arrays.array_3d_create, [(out, _U64)], _in(structs.CUDA_ARRAY3D_DESCRIPTOR, p)
    ),
    "cuArrayGetDescriptor_v2": _struct_out(_arrays.array_get_descriptor),
    "cuArray3DGetDescriptor_v2": _struct_out(_arrays.array_3d_get_descriptor),
    "cuArrayDestroy": lambda a: _run(_arrays.array_destroy, [], a),
    "cuMipmappedArrayCreate": lambda out, p, levels: _run(_arrays.mipmapped_array_unsupported, [(out, _U64)], p),
    "cuMemcpyHtoA_v2": lambda a, off, src, n: _run(_arrays.memcpy_htoa, [], a, off, src, n),
    "cuMemcpyAtoH_v2": lambda dst, a, off, n: _run(_arrays.memcpy_atoh, [], dst, a, off, n),
    "cuMemcpyAtoD_v2": lambda dst, a, off, n: _run(_arrays.memcpy_atod, [], dst, a, off, n),
    "cuMemcpyDtoA_v2": lambda a, off, src, n: _run(_arrays.memcpy_dtoa, [], a, off, src, n),
    "cuMemcpyAtoA_v2": lambda a, off, b, boff, n: _run(_arrays.memcpy_atoa, [], a, off, b, boff, n),
    "cuMemcpyHtoAAsync_v2": lambda a, off, src, n, h: _run(_arrays.memcpy_htoa_async, [], a, off, src, n, h),
    "cuMemcpyAtoHAsync_v2": lambda dst, a, off, n, h: _run(_arrays.memcpy_atoh_async, [], dst, a, off, n, h),
    "cuTexObjectCreate": lambda out, res, tex, view: _run(
        _textures.tex_object_create, [(out, _U64)], _in(structs.CUDA_RESOURCE_DESC, res),
        _in(structs.CUDA_TEXTURE_DESC, tex), _in(structs.CUDA_RESOURCE_VIEW_DESC, view),
    ),
    "cuTexObjectDestroy": lambda t: _run(_textures.tex_object_destroy, [], t),
    "cuTexObjectGetResourceDesc": _struct_out(_textures.tex_object_get_resource_desc),
    "cuTexObjectGetTextureDesc": _struct_out(_textures.tex_object_get_texture_desc),
    "cuTexObjectGetResourceViewDesc": _struct_out(_textures.tex_object_get_resource_view_desc),
    "cuSurfObjectCreate": lambda out, res: _run(
        _textures.surf_object_create, [(out, _U64)], _in(structs.CUDA_RESOURCE_DESC, res)
    ),
    "cuSurfObjectDestroy": lambda s: _run(_textures.surf_object_destroy, [], s),
    "cuSurfObjectGetResourceDesc": _struct_out(_textures.surf_object_get_resource_desc),
    "cuModuleGetTexRef": lambda out, m, name: _run(_texrefs.module_get_tex_ref, [(out, _U64)], m, _bytes_at(name)),
    "cuModuleGetSurfRef": lambda out, m, name: _run(_texrefs.module_get_surf_ref, [(out, _U64)], m, _bytes_at(name)),
    "cuTexRefSetArray": lambda t, a, flags: _run(_texrefs.tex_ref_set_array, [], t, a, flags),
    "cuTexRefSetAddress_v2": lambda out, t, d, n: _run(
        _texrefs.tex_ref_set_address, [(_optional(out), _U64)], t, d, n
    ),
    "cuTexRefSetAddress2D_v3": lambda t, desc, d, pitch: _run(
        _texrefs.tex_ref_set_address_2d, [], t, _in(structs.CUDA_ARRAY_DESCRIPTOR, desc), d, pitch
    ),
    "cuTexRefSetFormat": lambda t, fmt, n: _run(_texrefs.tex_ref_set_format, [], t, fmt, n),
    "cuTexRefSetAddressMode": lambda t, dim, am: _run(_texrefs.tex_ref_set_address_mode, [], t, dim, am),
    "cuTexRefSetFilterMode": lambda t, fm: _run(_texrefs.tex_ref_set_filter_mode, [], t, fm),
    "cuTexRefSetFlags": lambda t, flags: _run(_texrefs.tex_ref_set_flags, [], t, flags),
    "cuTexRefSetBorderColor": lambda t, colour: _run(
        _texrefs.tex_ref_set_border_color, [], t, list((ctypes.c_float * 4).from_address(colour)) if colour else None
    ),
    "cuTexRefGetAddressMode": lambda out, t, dim: _run(_texrefs.tex_ref_get_address_mode, [(out, _I32)], t, dim),
    "cuTexRefGetFilterMode": lambda out, t: _run(_texrefs.tex_ref_get_filter_mode, [(out, _I32)], t),
    "cuTexRefGetFlags": lambda out, t: _run(_texrefs.tex_ref_get_flags, [(out, _U32)], t),
    "cuTexRefGetFormat": lambda fmt, n, t: _run(_texrefs.tex_ref_get_format, [(fmt, _I32), (n, _I32)], t),
    "cuTexRefGetArray": lambda out, t: _run(_texrefs.tex_ref_get_array, [(out, _U64)], t),
    "cuSurfRefSetArray": lambda s, a, flags: _run(_texrefs.surf_ref_set_array, [], s, a, flags),
}
