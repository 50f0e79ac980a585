"""Handle types of the driver API, shaped like cuda-python's (``cuda.bindings.driver``).

Each handle owns a small ctypes cell holding its value, so ``getPtr()`` returns a real host address
of that value, exactly what cuda-python's ``kernelParams`` convention (``(values, types)`` with type
``None``) and C-style ``void*`` arrays dereference. ``int(handle)`` is the value; handles of the same
type compare and hash by value; ``CUdeviceptr`` and ``CUdevice`` also work as indices (``__index__``).

Invariant: a handle's value always fits its C type (``CUdevice`` a 32-bit int, pointers 64 bits);
constructing one from anything else raises ``TypeError``/``ValueError`` at the caller, as cuda-python
does. Handles carry no state of their own: the driver looks their value up in its tables.
"""

from __future__ import annotations

import ctypes
from typing import ClassVar, SupportsInt


class HandleBase:
    """A value in a ctypes cell: ``int()``, ``getPtr()``, value equality, a readable ``repr``."""

    __slots__ = ("_cell",)
    _ctype: ClassVar[type[ctypes.c_uint64 | ctypes.c_int32]] = ctypes.c_uint64
    _bits: ClassVar[int] = 64
    _signed: ClassVar[bool] = False

    def __init__(self, init_value: SupportsInt | None = 0) -> None:
        value = 0 if init_value is None else int(init_value)
        low = -(1 << (self._bits - 1)) if self._signed else 0
        high = (1 << (self._bits - 1 if self._signed else self._bits)) - 1
        if not low <= value <= high:
            raise ValueError(f"{type(self).__name__}: {value} does not fit {self._bits} bits")
        self._cell = self._ctype(value)

    def getPtr(self) -> int:
        """Host address of the cell holding the value (what a ``void*`` kernel argument points at)."""
        return ctypes.addressof(self._cell)

    def __int__(self) -> int:
        return int(self._cell.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HandleBase) and type(other) is type(self) and int(other) == int(self)

    def __hash__(self) -> int:
        return hash((type(self).__name__, int(self)))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} 0x{int(self):x}>"


class CUdevice(HandleBase):
    """A device ordinal (C ``int``)."""

    __slots__ = ()
    _ctype = ctypes.c_int32
    _bits = 32
    _signed = True

    def __index__(self) -> int:
        return int(self)

    def __repr__(self) -> str:
        return f"<CUdevice {int(self)}>"


class CUdeviceptr(HandleBase):
    """A device address (C ``unsigned long long``)."""

    __slots__ = ()

    def __index__(self) -> int:
        return int(self)


class CUcontext(HandleBase):
    __slots__ = ()


class CUmodule(HandleBase):
    __slots__ = ()


class CUfunction(HandleBase):
    __slots__ = ()


class CUstream(HandleBase):
    __slots__ = ()


class CUevent(HandleBase):
    __slots__ = ()


class CUlibrary(HandleBase):
    __slots__ = ()


class CUkernel(HandleBase):
    __slots__ = ()


class CUuuid:
    """A device UUID as cuda-python returns it: 16 bytes in ``.bytes``."""

    __slots__ = ("bytes",)

    def __init__(self, data: bytes = bytes(16)) -> None:
        if len(data) != 16:
            raise ValueError(f"CUuuid: {len(data)} bytes, not 16")
        self.bytes = bytes(data)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CUuuid) and other.bytes == self.bytes

    def __hash__(self) -> int:
        return hash(self.bytes)

    def __repr__(self) -> str:
        return f"<CUuuid {self.bytes.hex()}>"


HANDLE_TYPES = (CUdevice, CUdeviceptr, CUcontext, CUmodule, CUfunction, CUstream, CUevent, CUlibrary, CUkernel)


# -- graphs and memory pools (runtime/driver/graphs.py, mempool.py) ------------------------------------
class CUgraph(HandleBase):
    __slots__ = ()


class CUgraphNode(HandleBase):
    __slots__ = ()


class CUgraphExec(HandleBase):
    __slots__ = ()


class CUmemoryPool(HandleBase):
    __slots__ = ()


class CUuserObject(HandleBase):
    __slots__ = ()


HANDLE_TYPES += (CUgraph, CUgraphNode, CUgraphExec, CUmemoryPool, CUuserObject)
