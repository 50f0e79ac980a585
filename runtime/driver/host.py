"""Host memory as the driver API receives it: buffer-protocol objects or raw addresses.

cuda-python passes a ``void*`` host argument on as the object's buffer (numpy arrays, bytearray,
bytes, ctypes arrays: anything with the buffer protocol) or as an integer address (``ctypes.addressof``,
``arr.ctypes.data``, ``cuMemAllocHost``'s result). ``readable``/``writable`` turn either into a
memoryview of exactly ``size`` bytes.

Invariant: a buffer object smaller than ``size``, a read-only buffer used as a destination, a
non-contiguous buffer, or a null address is a ``CudaError(CUDA_ERROR_INVALID_VALUE)`` naming the
parameter; the view is never larger than ``size``. An integer address is trusted, as in C.
"""

from __future__ import annotations

import ctypes

import numpy as np

from ptx2gcn.runtime.driver.args import buffer_of, integer, invalid


def _view(value: object, size: int, what: str) -> memoryview:
    if value is None:
        raise invalid(f"{what} is None")
    if isinstance(value, ctypes.c_void_p):
        value = value.value or 0
    if isinstance(value, str):
        raise invalid(f"{what}: a str is not host memory (encode it to bytes)")
    if isinstance(value, np.integer):
        value = value.__index__()  # a numpy integer address, as ``arr.ctypes.data`` may give
    if isinstance(value, int):
        address = integer(value, what, 64)
        if address == 0:
            raise invalid(f"{what} is a null pointer")
        return memoryview((ctypes.c_char * size).from_address(address)).cast("B") if size else memoryview(b"")
    view = buffer_of(value)
    if view is None:
        raise invalid(
            f"{what}: {type(value).__name__} is neither host memory with the buffer protocol "
            "nor an integer address"
        )
    if not view.contiguous:
        raise invalid(f"{what} is not contiguous")
    flat = view.cast("B") if view.format != "B" or view.ndim != 1 else view
    if flat.nbytes < size:
        raise invalid(f"{what} holds {flat.nbytes} bytes, fewer than the {size} requested")
    return flat[:size]


def readable(value: object, size: int, what: str) -> memoryview:
    """``size`` bytes of host memory to read from."""
    return _view(value, size, what)


def writable(value: object, size: int, what: str) -> memoryview:
    """``size`` bytes of host memory to write into."""
    view = _view(value, size, what)
    if view.readonly:
        raise invalid(
            f"{what} is read-only ({type(value).__name__}); pass a writable buffer such as a "
            "numpy array or bytearray"
        )
    return view
