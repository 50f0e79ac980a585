"""Pitched 2D and 3D copies: ``cuMemcpy2D``, ``cuMemcpy2DUnaligned``, ``cuMemcpy2DAsync``,
``cuMemcpy3D``, ``cuMemcpy3DAsync``.

The parameters come as an object with ``cuda.h``'s field names (a ``CUDA_MEMCPY2D``/``CUDA_MEMCPY3D``
ctypes struct from the C ABI, or cuda-python's objects of the same names). A side is host memory
(``CU_MEMORYTYPE_HOST``: ``*Host``), device memory (``CU_MEMORYTYPE_DEVICE``: ``*Device``) or a unified
address (``CU_MEMORYTYPE_UNIFIED``: ``*Device``, placed by the pointer as ``cuMemcpy`` places it) or a
CUDA array (``CU_MEMORYTYPE_ARRAY``: ``*Array``, device memory with the array's own pitch and rows,
``arrays.py``; the box must fit the array). Row ``y`` of slice
``z`` starts at ``base + (z * height + y) * pitch + x``, as ``cuda.h`` documents; each row is one copy.

Invariant: every row of both sides is checked (device rows inside device memory of the context,
pitches at least ``WidthInBytes + XInBytes``, heights at least ``Height + Y``, LOD 0) before any byte
moves; a rejected copy writes nothing.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

from ptx2gcn.runtime.driver import capture
from ptx2gcn.runtime.driver.args import enum_member, integer, invalid
from ptx2gcn.runtime.driver.arrays import array
from ptx2gcn.runtime.driver.enums import CUmemorytype
from ptx2gcn.runtime.driver.graph_model import NodeKind
from ptx2gcn.runtime.driver.graph_params import MEMCPY3D_FIELDS, Fields, snapshot
from ptx2gcn.runtime.driver.memory import _stream, backend_call, check_range, containing
from ptx2gcn.runtime.driver.state import Context, driver

M = CUmemorytype
MAX_PITCH = 1 << 31
"""``CU_DEVICE_ATTRIBUTE_MAX_PITCH`` as CUDA reports it (2 GiB)."""


@dataclass(frozen=True)
class _Side:
    device: bool
    base: int
    x: int
    y: int
    z: int
    pitch: int
    height: int

    def row(self, y: int, z: int) -> int:
        return self.base + ((self.z + z) * self.height + self.y + y) * self.pitch + self.x


def _field(params: object, name: str) -> int:
    value = getattr(params, name, 0)
    value = getattr(value, "value", value) if not isinstance(value, int) else value
    return integer(value or 0, name, 64)


def _side(context: Context, params: object, prefix: str, width: int, height: int, depth: int) -> _Side:
    kind = enum_member(_field(params, f"{prefix}MemoryType"), CUmemorytype, f"{prefix}MemoryType")
    x, y, z = (_field(params, f"{prefix}{n}") for n in ("XInBytes", "Y", "Z"))
    if _field(params, f"{prefix}LOD"):
        raise invalid(f"{prefix}LOD must be 0")
    if kind is M.CU_MEMORYTYPE_ARRAY:
        return _array_side(params, prefix, width, height, depth, (x, y, z))
    pitch = _field(params, f"{prefix}Pitch") or width + x
    rows = _field(params, f"{prefix}Height") or height + y
    if pitch < width + x or pitch > MAX_PITCH:
        raise invalid(f"{prefix}Pitch = {pitch}: must be at least WidthInBytes + {prefix}XInBytes and at most 2 GiB")
    if depth > 1 and rows < height + y:
        raise invalid(f"{prefix}Height = {rows}: must be at least Height + {prefix}Y")
    base = _field(params, f"{prefix}Host") if kind is M.CU_MEMORYTYPE_HOST else _field(params, f"{prefix}Device")
    if base == 0:
        raise invalid(f"the {prefix} pointer is NULL")
    device = kind is M.CU_MEMORYTYPE_DEVICE or (
        kind is M.CU_MEMORYTYPE_UNIFIED and containing(context, base, 1) is not None
    )
    return _Side(device, base, x, y, z, pitch, rows)


@dataclass(frozen=True)
class _Plan:
    context: Context
    source: _Side
    target: _Side
    width: int
    rows: list[tuple[int, int]]


def _plan(params: object, three_d: bool) -> _Plan:
    """Every row of the copy, checked (nothing moves)."""
    context = driver().require_current()
    if params is None:
        raise invalid("pCopy is NULL")
    width, height = _field(params, "WidthInBytes"), _field(params, "Height")
    depth = _field(params, "Depth") if three_d else 1
    source = _side(context, params, "src", width, height, depth)
    target = _side(context, params, "dst", width, height, depth)
    rows = [(y, z) for z in range(depth) for y in range(height)] if width else []
    for side, what in ((source, "src"), (target, "dst")):
        if side.device:
            for y, z in rows:
                check_range(context, side.row(y, z), width, f"{what} row {y} of slice {z}")
    return _Plan(context, source, target, width, rows)


def _array_side(params: object, prefix: str, width: int, height: int, depth: int, at: tuple[int, int, int]) -> _Side:
    """A CUDA array as pitched device memory (``arrays.py``: rows of ``pitch`` bytes, no padding)."""
    record = array(getattr(params, f"{prefix}Array", None), f"{prefix}Array")
    x, y, z = at
    if x + width > record.pitch or y + height > record.rows or z + depth > record.slices:
        raise invalid(f"the copy's box at ({x} bytes, {y}, {z}) of {width} bytes x {height} x {depth} does not fit "
                      f"{prefix}Array ({record.pitch} bytes x {record.rows} x {record.slices})")
    return _Side(True, record.address, x, y, z, record.pitch, record.rows)


def _copy(params: object, three_d: bool) -> None:
    plan = _plan(params, three_d)
    for y, z in plan.rows:
        _move(plan.context, plan.source, plan.target, plan.source.row(y, z), plan.target.row(y, z), plan.width)


def copy_3d(params: object) -> None:
    """Run a checked copy described by ``CUDA_MEMCPY3D`` fields (a memcpy node's parameters)."""
    _copy(params, True)


def check_3d(params: object) -> Fields:
    """A copy of ``CUDA_MEMCPY3D`` fields, checked as ``cuMemcpy3D`` checks them (for memcpy nodes)."""
    fields = snapshot(params, MEMCPY3D_FIELDS, "copyParams")
    _plan(fields, True)
    return fields


def _captured(params: object, three_d: bool, hStream: object) -> bool:
    if capture.capture_of(hStream) is None:
        return False
    fields = snapshot(params, MEMCPY3D_FIELDS, "pCopy")
    if not three_d:
        fields.Depth = 1  # a 2D copy is one slice of a 3D one
    _plan(fields, True)
    return capture.record(hStream, NodeKind.MEMCPY, lambda: fields) is not None


def _move(context: Context, source: _Side, target: _Side, src: int, dst: int, width: int) -> None:
    """One row: ``width`` bytes from ``src`` to ``dst``, each on the device or the host."""
    backend = context.backend
    if source.device and target.device:
        backend_call(lambda: backend.copy(dst, src, width))
    elif target.device:
        backend_call(lambda: backend.write(dst, ctypes.string_at(src, width)))
    elif source.device:
        ctypes.memmove(dst, backend_call(lambda: backend.read(src, width)), width)
    else:
        ctypes.memmove(dst, src, width)


def memcpy_2d(pCopy: object) -> None:
    capture.legacy_work("cuMemcpy2D")
    _copy(pCopy, False)


def memcpy_2d_async(pCopy: object, hStream: object) -> None:
    _stream(hStream)
    if not _captured(pCopy, False, hStream):
        _copy(pCopy, False)


def memcpy_3d(pCopy: object) -> None:
    capture.legacy_work("cuMemcpy3D")
    _copy(pCopy, True)


def memcpy_3d_async(pCopy: object, hStream: object) -> None:
    _stream(hStream)
    if not _captured(pCopy, True, hStream):
        _copy(pCopy, True)
