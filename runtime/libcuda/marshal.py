"""Marshalling between the shim's C arguments and the driver's Python implementations.

The helpers every libcuda handler module shares: ``_run`` calls an implementation through
``errors.entry`` (so codes and the last-error message are exactly ``ptx2gcn.cuda``'s) and stores its
outputs through the caller's pointers; ``_optional`` marks an output pointer CUDA lets be NULL;
``_bytes_at`` reads a C string; ``_option_arrays`` reads C's ``(int options[n], void *values[n])``.

Invariant: an output pointer that is NULL (and not optional) is ``CUDA_ERROR_INVALID_VALUE`` before any
work is done; outputs are written only when the call succeeded.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable
from typing import Any

from ptx2gcn.runtime.driver.args import invalid
from ptx2gcn.runtime.driver.enums import CUresult
from ptx2gcn.runtime.driver.errors import entry

Handler = Callable[..., int]
_U64, _U32, _I32, _F32 = ctypes.c_uint64, ctypes.c_uint32, ctypes.c_int32, ctypes.c_float


def _fail_null(what: str) -> None:
    raise invalid(f"{what} is a NULL pointer")


_null = entry(_fail_null, 0)


@functools.cache
def _entry(function: Callable[..., Any], outputs: int) -> Callable[..., tuple[Any, ...]]:
    return entry(function, outputs)


def _run(function: Callable[..., Any], outputs: list[tuple[int, type]], *args: object) -> int:
    """Call ``function`` (an implementation in runtime.driver) and store its outputs.

    ``outputs``: (address, ctypes type) per output value. Address 0 (NULL) is an error; an address
    passed through ``_optional`` may be NULL and is then not written."""
    for address, _ctype in outputs:
        if address == 0:
            return int(_null("an output pointer")[0])
    result = _entry(function, len(outputs))(*args)
    if result[0] == CUresult.CUDA_SUCCESS:
        for (address, ctype), value in zip(outputs, result[1:]):
            if address != _OPTIONAL_SKIPPED:
                ctype.from_address(address).value = int(value) if ctype is not _F32 else float(value)
    return int(result[0])


_OPTIONAL_SKIPPED = -1


def _optional(address: int) -> int:
    """An output pointer CUDA lets be NULL: NULL means 'do not store'."""
    return address or _OPTIONAL_SKIPPED


def _bytes_at(address: int) -> bytes | None:
    return ctypes.string_at(address) if address else None


def _option_arrays(count: int, keys: int, values: int) -> tuple[list[int], list[int]]:
    """C's ``(int options[count], void *values[count])`` as two lists (empty where NULL)."""
    listed = list((ctypes.c_int32 * count).from_address(keys)) if count and keys else []
    given = [v or 0 for v in (ctypes.c_void_p * count).from_address(values)] if count and values else []
    return listed, given


