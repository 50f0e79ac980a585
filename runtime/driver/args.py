"""Argument checking for driver-API calls: integers, handles and names, as cuda-python accepts them.

cuda-python converts arguments in Cython and raises ``TypeError``/``OverflowError`` on a bad one; a C
driver would see the bits. ptx2gcn does neither: a value that is not what the parameter takes is a
``CudaError(CUDA_ERROR_INVALID_VALUE)`` naming the parameter.

Invariant: each helper returns a value in the parameter's C range or raises ``CudaError``; none
touches driver state.
"""

from __future__ import annotations

import ctypes
import operator
from enum import IntEnum
from typing import Any, TypeVar, cast

from ptx2gcn.runtime.driver.enums import CUresult
from ptx2gcn.runtime.driver.errors import CudaError
from ptx2gcn.runtime.driver.types import HandleBase

E = TypeVar("E", bound=IntEnum)


#: The ctypes integer types (and their C widths and signedness), as cuda-python's kernel-argument
#: helper accepts them.
CTYPES_INTEGERS: dict[type, tuple[int, bool]] = {
    ctypes.c_bool: (8, False),
    ctypes.c_byte: (8, True),
    ctypes.c_ubyte: (8, False),
    ctypes.c_short: (16, True),
    ctypes.c_ushort: (16, False),
    ctypes.c_int: (32, True),
    ctypes.c_uint: (32, False),
    ctypes.c_long: (64, True),
    ctypes.c_ulong: (64, False),
    ctypes.c_longlong: (64, True),
    ctypes.c_ulonglong: (64, False),
    ctypes.c_size_t: (64, False),
}


def buffer_of(value: object) -> memoryview | None:
    """A memoryview of ``value`` when it has the buffer protocol, else None."""
    try:
        return memoryview(cast(Any, value))
    except TypeError:
        return None


def invalid(message: str) -> CudaError:
    return CudaError(CUresult.CUDA_ERROR_INVALID_VALUE, message)


def integer(value: object, what: str, bits: int = 32, signed: bool = False) -> int:
    """``value`` as a C integer of ``bits`` bits (Python ints, numpy integers, ctypes integers)."""
    if isinstance(value, bool):
        value = int(value)
    if type(value) in CTYPES_INTEGERS:
        value = cast(Any, value).value
    try:
        number = operator.index(cast(Any, value))
    except TypeError:
        raise invalid(f"{what} must be an integer, got {type(value).__name__} {value!r}") from None
    low = -(1 << (bits - 1)) if signed else 0
    high = (1 << (bits - 1 if signed else bits)) - 1
    if not low <= number <= high:
        raise invalid(
            f"{what} = {number} is outside the range of a {bits}-bit "
            f"{'signed' if signed else 'unsigned'} integer"
        )
    return number


def handle(value: object, kind: type[HandleBase], what: str) -> int:
    """The value of a handle argument: an instance of ``kind``, a plain int, or None (0)."""
    if value is None:
        return 0
    if isinstance(value, HandleBase):
        if not isinstance(value, kind):
            raise CudaError(
                CUresult.CUDA_ERROR_INVALID_HANDLE,
                f"{what}: expected a {kind.__name__}, got a {type(value).__name__}",
            )
        return int(value)
    return integer(value, what, 64)


def enum_member(value: object, enum: type[E], what: str) -> E:
    number = integer(value, what, 32, signed=True)
    try:
        return enum(number)
    except ValueError:
        raise invalid(f"{what} = {number} is not a {enum.__name__} value") from None


def name(value: object, what: str) -> str:
    """A symbol name given as bytes (cuda-python's ``char*``) or str."""
    if isinstance(value, (bytes, bytearray)):
        text = bytes(value).split(b"\0", 1)[0]
        try:
            return text.decode("utf-8")
        except UnicodeDecodeError:
            raise invalid(f"{what} is not valid UTF-8: {text!r}") from None
    if isinstance(value, str):
        return value
    raise invalid(f"{what} must be bytes or str, got {type(value).__name__}")
