"""CUDA's C structs that ``libcuda.so.1`` reads, as ctypes layouts (x86-64, from ``cuda.h`` 13.0).

Field names are ``cuda.h``'s, so a struct read here can be handed to the driver implementation that
also accepts cuda-python's objects (``runtime.driver.launch.launch_kernel_ex`` reads ``gridDimX``,
``attrs[i].id``, ``attrs[i].value.clusterDim.x``, ...).

Invariant: ``ctypes.sizeof`` of each struct equals ``sizeof`` in C (checked by tests/libcuda
against a C compiler).
"""

from __future__ import annotations

import ctypes


class CUlaunchAttributeClusterDim(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]


class CUlaunchAttributeValue(ctypes.Union):
    """The union is 64 bytes (``char pad[64]``); only the members the driver reads are named."""

    _fields_ = [
        ("pad", ctypes.c_char * 64),
        ("cooperative", ctypes.c_int),
        ("clusterDim", CUlaunchAttributeClusterDim),
        ("priority", ctypes.c_int),
    ]


class CUlaunchAttribute(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", CUlaunchAttributeValue)]


class CUlaunchConfig(ctypes.Structure):
    _fields_ = [
        ("gridDimX", ctypes.c_uint),
        ("gridDimY", ctypes.c_uint),
        ("gridDimZ", ctypes.c_uint),
        ("blockDimX", ctypes.c_uint),
        ("blockDimY", ctypes.c_uint),
        ("blockDimZ", ctypes.c_uint),
        ("sharedMemBytes", ctypes.c_uint),
        ("hStream", ctypes.c_void_p),
        ("attrs", ctypes.POINTER(CUlaunchAttribute)),
        ("numAttrs", ctypes.c_uint),
    ]


def _copy_side(prefix: str, three_d: bool) -> list[tuple[str, type]]:
    position = ["XInBytes", "Y", "Z", "LOD"] if three_d else ["XInBytes", "Y"]
    fields: list[tuple[str, type]] = [(prefix + name, ctypes.c_size_t) for name in position]
    fields += [(prefix + "MemoryType", ctypes.c_int), (prefix + "Host", ctypes.c_void_p)]
    fields += [(prefix + "Device", ctypes.c_uint64), (prefix + "Array", ctypes.c_void_p)]
    if three_d:
        fields.append(("reserved0" if prefix == "src" else "reserved1", ctypes.c_void_p))
    fields.append((prefix + "Pitch", ctypes.c_size_t))
    if three_d:
        fields.append((prefix + "Height", ctypes.c_size_t))
    return fields


class CUDA_MEMCPY2D(ctypes.Structure):
    _fields_ = [*_copy_side("src", False), *_copy_side("dst", False)] + [
        ("WidthInBytes", ctypes.c_size_t), ("Height", ctypes.c_size_t),
    ]  # fmt: skip


class CUDA_MEMCPY3D(ctypes.Structure):
    _fields_ = [*_copy_side("src", True), *_copy_side("dst", True)] + [
        ("WidthInBytes", ctypes.c_size_t), ("Height", ctypes.c_size_t), ("Depth", ctypes.c_size_t),
    ]  # fmt: skip


class CUDA_ARRAY_DESCRIPTOR(ctypes.Structure):
    _fields_ = [("Width", ctypes.c_size_t), ("Height", ctypes.c_size_t), ("Format", ctypes.c_int),
                ("NumChannels", ctypes.c_uint)]


class CUDA_ARRAY3D_DESCRIPTOR(ctypes.Structure):
    _fields_ = [("Width", ctypes.c_size_t), ("Height", ctypes.c_size_t), ("Depth", ctypes.c_size_t),
                ("Format", ctypes.c_int), ("NumChannels", ctypes.c_uint), ("Flags", ctypes.c_uint)]


class _ResourceArray(ctypes.Structure):
    _fields_ = [("hArray", ctypes.c_void_p)]


class _ResourceMipmap(ctypes.Structure):
    _fields_ = [("hMipmappedArray", ctypes.c_void_p)]


class _ResourceLinear(ctypes.Structure):
    _fields_ = [("devPtr", ctypes.c_uint64), ("format", ctypes.c_int), ("numChannels", ctypes.c_uint),
                ("sizeInBytes", ctypes.c_size_t)]


class _ResourcePitch2D(ctypes.Structure):
    _fields_ = [("devPtr", ctypes.c_uint64), ("format", ctypes.c_int), ("numChannels", ctypes.c_uint),
                ("width", ctypes.c_size_t), ("height", ctypes.c_size_t), ("pitchInBytes", ctypes.c_size_t)]


class _Resource(ctypes.Union):
    _fields_ = [("array", _ResourceArray), ("mipmap", _ResourceMipmap), ("linear", _ResourceLinear),
                ("pitch2D", _ResourcePitch2D), ("reserved", ctypes.c_int * 32)]


class CUDA_RESOURCE_DESC(ctypes.Structure):
    _fields_ = [("resType", ctypes.c_int), ("res", _Resource), ("flags", ctypes.c_uint)]


class CUDA_TEXTURE_DESC(ctypes.Structure):
    _fields_ = [
        ("addressMode", ctypes.c_int * 3), ("filterMode", ctypes.c_int), ("flags", ctypes.c_uint),
        ("maxAnisotropy", ctypes.c_uint), ("mipmapFilterMode", ctypes.c_int), ("mipmapLevelBias", ctypes.c_float),
        ("minMipmapLevelClamp", ctypes.c_float), ("maxMipmapLevelClamp", ctypes.c_float),
        ("borderColor", ctypes.c_float * 4), ("reserved", ctypes.c_int * 12),
    ]  # fmt: skip


class CUDA_RESOURCE_VIEW_DESC(ctypes.Structure):
    _fields_ = [
        ("format", ctypes.c_int), ("width", ctypes.c_size_t), ("height", ctypes.c_size_t), ("depth", ctypes.c_size_t),
        ("firstMipmapLevel", ctypes.c_uint), ("lastMipmapLevel", ctypes.c_uint), ("firstLayer", ctypes.c_uint),
        ("lastLayer", ctypes.c_uint), ("reserved", ctypes.c_uint * 16),
    ]  # fmt: skip


SIZES = {"CUlaunchAttribute": 72, "CUlaunchConfig": 56, "CUDA_MEMCPY2D": 128, "CUDA_MEMCPY3D": 200,
         "CUDA_ARRAY_DESCRIPTOR": 24, "CUDA_ARRAY3D_DESCRIPTOR": 40, "CUDA_RESOURCE_DESC": 144,
         "CUDA_TEXTURE_DESC": 104, "CUDA_RESOURCE_VIEW_DESC": 112}
"""``sizeof`` in C, for the layout test."""


# -- graphs and memory pools (runtime/libcuda/graph_handlers.py) -------------------------------------
_KERNEL_NODE = [
    ("func", ctypes.c_void_p),
    ("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint), ("gridDimZ", ctypes.c_uint),
    ("blockDimX", ctypes.c_uint), ("blockDimY", ctypes.c_uint), ("blockDimZ", ctypes.c_uint),
    ("sharedMemBytes", ctypes.c_uint), ("kernelParams", ctypes.c_void_p), ("extra", ctypes.c_void_p),
]  # fmt: skip


class CUDA_KERNEL_NODE_PARAMS_v1(ctypes.Structure):  # noqa: N801 - cuda.h's names
    _fields_ = _KERNEL_NODE


class CUDA_KERNEL_NODE_PARAMS_v2(ctypes.Structure):  # noqa: N801
    """Also ``_v3``'s layout (CUDA 12.x: ``kern`` may name a ``CUkernel`` instead of ``func``)."""

    _fields_ = [*_KERNEL_NODE, ("kern", ctypes.c_void_p), ("ctx", ctypes.c_void_p)]


class CUDA_MEMSET_NODE_PARAMS(ctypes.Structure):  # noqa: N801
    _fields_ = [
        ("dst", ctypes.c_uint64), ("pitch", ctypes.c_size_t), ("value", ctypes.c_uint), ("elementSize", ctypes.c_uint),
        ("width", ctypes.c_size_t), ("height", ctypes.c_size_t),
    ]  # fmt: skip


class CUDA_HOST_NODE_PARAMS(ctypes.Structure):  # noqa: N801
    _fields_ = [("fn", ctypes.c_void_p), ("userData", ctypes.c_void_p)]


class CUmemLocation(ctypes.Structure):  # noqa: N801
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class CUmemPoolProps(ctypes.Structure):  # noqa: N801
    _fields_ = [
        ("allocType", ctypes.c_int), ("handleTypes", ctypes.c_int), ("location", CUmemLocation),
        ("win32SecurityAttributes", ctypes.c_void_p), ("maxSize", ctypes.c_size_t), ("usage", ctypes.c_ushort),
        ("reserved", ctypes.c_ubyte * 54),
    ]  # fmt: skip


class CUDA_MEM_ALLOC_NODE_PARAMS_v1(ctypes.Structure):  # noqa: N801
    _fields_ = [
        ("poolProps", CUmemPoolProps), ("accessDescs", ctypes.c_void_p), ("accessDescCount", ctypes.c_size_t),
        ("bytesize", ctypes.c_size_t), ("dptr", ctypes.c_uint64),
    ]  # fmt: skip


class CUgraphExecUpdateResultInfo(ctypes.Structure):  # noqa: N801
    _fields_ = [("result", ctypes.c_int), ("errorNode", ctypes.c_void_p), ("errorFromNode", ctypes.c_void_p)]


class CUDA_GRAPH_INSTANTIATE_PARAMS(ctypes.Structure):  # noqa: N801
    _fields_ = [
        ("flags", ctypes.c_uint64), ("hUploadStream", ctypes.c_void_p), ("hErrNode_out", ctypes.c_void_p),
        ("result_out", ctypes.c_int),
    ]  # fmt: skip


SIZES |= {
    "CUDA_KERNEL_NODE_PARAMS_v1": 56, "CUDA_KERNEL_NODE_PARAMS_v2": 72, "CUDA_MEMSET_NODE_PARAMS": 40,
    "CUDA_HOST_NODE_PARAMS": 16, "CUmemPoolProps": 88, "CUgraphExecUpdateResultInfo": 24,
    "CUDA_GRAPH_INSTANTIATE_PARAMS": 32, "CUDA_MEM_ALLOC_NODE_PARAMS_v1": 120,
}  # fmt: skip
