"""Kernel parameter values: PTX scalar types, their encoding, and packing of the parameter buffer.

The CUDA parameter buffer (``.param`` space of a kernel, ``hipModuleLaunchKernel``'s
``HIP_LAUNCH_PARAM_BUFFER_POINTER``) holds each parameter at the offset its declaration gives,
little-endian, with zero bytes in the gaps. ``pack_parameters`` takes the layout as plain
``(offset, size, align)`` triples so it works with whatever metadata the compiler produces.

Invariant: ``encode_scalar`` accepts exactly the values representable in the PTX type (integers in
range, bit types in signed or unsigned range, floats rounded to the type) and ``pack_parameters``
accepts only layouts whose slots are aligned, non-overlapping and match their values' sizes; anything
else raises ``ArgumentError`` naming the parameter. ``ParameterBuffer`` holds packed bytes in C
memory for as long as a launch call needs them.
"""

from __future__ import annotations

import ctypes
import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ptx2gcn.runtime.driver.enums import CU_LAUNCH_PARAM_BUFFER_POINTER, CU_LAUNCH_PARAM_BUFFER_SIZE

# PTX scalar type name → numpy dtype (little-endian); bit types are their unsigned integer.
SCALAR_TYPES: dict[str, np.dtype[np.generic]] = {
    **{f"s{n}": np.dtype(f"<i{n // 8}") for n in (8, 16, 32, 64)},
    **{f"u{n}": np.dtype(f"<u{n // 8}") for n in (8, 16, 32, 64)},
    **{f"b{n}": np.dtype(f"<u{n // 8}") for n in (8, 16, 32, 64)},
    "f16": np.dtype("<f2"),
    "f32": np.dtype("<f4"),
    "f64": np.dtype("<f8"),
}
_FLOAT_MAX = {"f16": 65504.0, "f32": 3.4028234663852886e38, "f64": 1.7976931348623157e308}
_PTX_FLOAT_BITS = re.compile(r"^0([fFdD])([0-9a-fA-F]+)$")  # PTX 0f3F800000 / 0d3FF0000000000000


class ArgumentError(ValueError):
    """A parameter value or layout that cannot be packed; the message names the parameter."""


@dataclass(frozen=True, slots=True)
class ParamSlot:
    """Where one kernel parameter lives in the parameter buffer."""

    offset: int
    size: int
    align: int


class MetadataArg(Protocol):
    """What ``explicit_parameter_slots`` needs of a kernel argument (``ptx2gcn.link.codeobject.KernelArg``)."""

    @property
    def offset(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def hidden(self) -> bool: ...


def explicit_parameter_slots(args: Sequence[MetadataArg]) -> list[ParamSlot]:
    """The slots of a code object's explicit arguments (the PTX ``.param`` list), in order; the
    ``hidden_*`` ones are the runtime's to fill. Code object metadata records no alignment, so each
    slot gets the largest power of two (at most 8) that divides its offset and does not exceed its size."""
    slots: list[ParamSlot] = []
    for arg in args:
        if arg.hidden:
            continue
        align = 8
        while align > 1 and (arg.offset % align or align > arg.size):
            align //= 2
        slots.append(ParamSlot(arg.offset, arg.size, align))
    return slots


def type_names() -> str:
    return ", ".join(SCALAR_TYPES)


def encode_scalar(type_name: str, value: object) -> bytes:
    """The little-endian bytes of ``value`` as PTX type ``type_name``."""
    dtype = SCALAR_TYPES.get(type_name)
    if dtype is None:
        raise ArgumentError(f"unknown scalar type {type_name!r} (expected one of {type_names()})")
    if dtype.kind == "f":
        return _encode_float(type_name, dtype, value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentError(f"{type_name} needs an integer, got {value!r}")
    bits = dtype.itemsize * 8
    low = -(1 << (bits - 1)) if type_name[0] in "sb" else 0
    high = (1 << bits) - 1 if type_name[0] in "ub" else (1 << (bits - 1)) - 1
    if not low <= value <= high:
        raise ArgumentError(f"{value} does not fit {type_name} (range {low}..{high})")
    return (value & ((1 << bits) - 1)).to_bytes(dtype.itemsize, "little")


def _encode_float(type_name: str, dtype: np.dtype[np.generic], value: object) -> bytes:
    if isinstance(value, str):
        match = _PTX_FLOAT_BITS.match(value.strip())
        if match is not None:  # exact bit pattern, PTX spelling (0f… single, 0d… double)
            width = 8 if match.group(1) in "fF" else 16
            if len(match.group(2)) != width or width != dtype.itemsize * 2:
                raise ArgumentError(
                    f"{value!r} is not a {type_name} bit pattern ({dtype.itemsize * 2} hex digits "
                    f"after 0{'f' if dtype.itemsize == 4 else 'd'})"
                )
            return int(match.group(2), 16).to_bytes(dtype.itemsize, "little")
        try:
            value = float(value)  # "nan", "inf", "-inf", "1e-3"
        except ValueError:
            raise ArgumentError(
                f"{type_name} needs a number, 'nan', 'inf' or a PTX bit pattern, got {value!r}"
            ) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ArgumentError(f"{type_name} needs a number, got {value!r}")
    number = float(value)
    with np.errstate(over="ignore"):
        rounded = np.array(number, dtype=dtype)  # IEEE round-to-nearest-even
    if math.isfinite(number) and not np.isfinite(rounded):
        raise ArgumentError(f"{value} overflows {type_name} (largest finite value {_FLOAT_MAX[type_name]})")
    return rounded.tobytes()


def pack_parameters(
    values: Sequence[bytes], layout: Sequence[tuple[int, int, int] | ParamSlot], total_size: int | None = None
) -> bytes:
    """The parameter buffer: ``values[i]`` at ``layout[i]``'s offset, zeros elsewhere.

    ``total_size`` defaults to the end of the last slot rounded up to the largest alignment."""
    slots = [s if isinstance(s, ParamSlot) else ParamSlot(*s) for s in layout]
    if len(values) != len(slots):
        raise ArgumentError(f"the kernel takes {len(slots)} parameter(s), {len(values)} given")
    end = 0
    for index, (value, slot) in enumerate(zip(values, slots, strict=False)):
        _check_slot(index, value, slot)
        end = max(end, slot.offset + slot.size)
    _check_overlap(slots)
    max_align = max((s.align for s in slots), default=1)
    size = total_size if total_size is not None else -(-end // max_align) * max_align
    if size < end:
        raise ArgumentError(f"parameter buffer size {size} is smaller than its last parameter's end {end}")
    buffer = bytearray(size)
    for value, slot in zip(values, slots, strict=False):
        buffer[slot.offset : slot.offset + slot.size] = value
    return bytes(buffer)


def _check_slot(index: int, value: bytes, slot: ParamSlot) -> None:
    if slot.size <= 0 or slot.offset < 0 or slot.align <= 0 or slot.align & (slot.align - 1):
        raise ArgumentError(f"parameter {index}: invalid slot {slot}")
    if slot.offset % slot.align:
        raise ArgumentError(
            f"parameter {index}: offset {slot.offset} is not a multiple of its alignment {slot.align}"
        )
    if len(value) != slot.size:
        raise ArgumentError(
            f"parameter {index}: the kernel declares {slot.size} byte(s), the value has {len(value)}"
        )


def _check_overlap(slots: Sequence[ParamSlot]) -> None:
    ordered = sorted(range(len(slots)), key=lambda i: slots[i].offset)
    for before, after in itertools.pairwise(ordered):
        if slots[before].offset + slots[before].size > slots[after].offset:
            raise ArgumentError(f"parameters {before} and {after} overlap in the parameter buffer")


class ParameterBuffer:
    """A packed parameter buffer in C memory and the launch call's ``extra`` array that hands it over:
    ``{BUFFER_POINTER, &buffer, BUFFER_SIZE, &size, end_marker}``. The two markers are 1 and 2 in
    both cuda.h and hip_runtime_api.h; the end marker differs (CUDA 0, HIP 3). Keep the object alive
    until the launch call returns (the array holds raw addresses)."""

    def __init__(self, parameters: bytes, end_marker: int) -> None:
        self.buffer = ctypes.create_string_buffer(parameters, max(len(parameters), 1))
        self.size = ctypes.c_size_t(len(parameters))
        self.extra = (ctypes.c_void_p * 5)(
            CU_LAUNCH_PARAM_BUFFER_POINTER,
            ctypes.addressof(self.buffer),
            CU_LAUNCH_PARAM_BUFFER_SIZE,
            ctypes.addressof(self.size),
            end_marker,
        )


class ParameterPointers:
    """A packed parameter buffer in C memory and the ``kernelParams`` array that hands it over one
    argument at a time: entry *i* points at slot *i*'s bytes inside the buffer (``void**``, as
    ``cuLaunchCooperativeKernel`` and ``hipModuleLaunchCooperativeKernel`` take it: those calls have
    no ``extra``). Keep the object alive until the launch call returns."""

    def __init__(self, parameters: bytes, slots: Sequence[ParamSlot]) -> None:
        self.buffer = ctypes.create_string_buffer(parameters, max(len(parameters), 1))
        base = ctypes.addressof(self.buffer)
        self.array = (ctypes.c_void_p * max(len(slots), 1))(*(base + slot.offset for slot in slots))

    @property
    def address(self) -> int:
        """The ``void**`` to pass as ``kernelParams``."""
        return ctypes.addressof(self.array)
