"""Parameters of graph nodes as the driver keeps them, and the Python-API parameter classes.

A node owns a copy of its parameters, taken when the node is added or its parameters are set (CUDA's
semantics: later changes to the caller's structure or argument values do not reach the node).
``snapshot`` copies the named fields of any object that has them (a ``libcuda.structs`` ctypes
structure, cuda-python's objects, or the classes here) into a ``Fields``, which the copy and fill
code reads as it reads the caller's structure.

The classes ``CUDA_KERNEL_NODE_PARAMS``, ``CUDA_MEMSET_NODE_PARAMS``, ``CUDA_HOST_NODE_PARAMS``,
``CUmemPoolProps``, ``CUmemLocation`` are what ``ptx2gcn.cuda`` offers in place of cuda-python's: plain
attribute holders with ``cuda.h``'s field names (``kernelParams`` takes any form ``cuLaunchKernel``
takes, including cuda-python's ``(values, types)`` pair).

Invariant: a ``Fields`` never refers back to the object it was copied from.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ptx2gcn.runtime.driver.args import invalid

MEMCPY3D_FIELDS = tuple(
    f"{side}{name}"
    for side in ("src", "dst")
    for name in ("XInBytes", "Y", "Z", "LOD", "MemoryType", "Host", "Device", "Array", "Pitch", "Height")
) + ("WidthInBytes", "Height", "Depth")


class Fields:
    """Named integer fields (a copy): missing ones read 0, as ``getattr(params, name, 0)`` expects."""

    def __init__(self, **values: int) -> None:
        self.__dict__.update(values)

    def __getattr__(self, name: str) -> int:
        if name.startswith("__"):
            raise AttributeError(name)
        return 0


def _number(value: object) -> int:
    """An integer field as the caller gave it: an int, a ctypes cell or enum (``.value``), a handle."""
    if not isinstance(value, int):
        value = getattr(value, "value", value)
    return 0 if value is None else int(value)  # type: ignore[call-overload]


def snapshot(params: object, names: tuple[str, ...], what: str) -> Fields:
    if params is None:
        raise invalid(f"{what} is NULL")
    try:
        return Fields(**{name: _number(getattr(params, name, 0)) for name in names})
    except (TypeError, ValueError) as error:
        raise invalid(f"{what}: a field is not an integer ({error})") from None


def host_address(view: memoryview) -> int:
    """The address of the bytes a host-memory view shows (read-only views included)."""
    if view.nbytes == 0:
        return 0
    return int(np.frombuffer(view, dtype=np.uint8).ctypes.data)


@dataclass(frozen=True)
class MemsetParams:
    dst: int
    pitch: int
    value: int
    elementSize: int
    width: int
    height: int


@dataclass(frozen=True)
class HostParams:
    fn: object
    userData: object


# -- the Python API's parameter classes -------------------------------------------------------------
class _Params:
    _defaults: dict[str, object] = {}

    def __init__(self, **values: object) -> None:
        for name, default in self._defaults.items():
            setattr(self, name, values.pop(name, default))
        if values:
            raise TypeError(f"{type(self).__name__} has no field(s) {', '.join(values)}")

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._defaults)
        return f"{type(self).__name__}({fields})"


class CUDA_KERNEL_NODE_PARAMS(_Params):  # noqa: N801 - cuda.h's name
    _defaults = {
        "func": 0, "gridDimX": 1, "gridDimY": 1, "gridDimZ": 1, "blockDimX": 1, "blockDimY": 1, "blockDimZ": 1,
        "sharedMemBytes": 0, "kernelParams": None, "extra": None, "kern": 0, "ctx": 0,
    }  # fmt: skip


class CUDA_MEMSET_NODE_PARAMS(_Params):  # noqa: N801
    _defaults = {"dst": 0, "pitch": 0, "value": 0, "elementSize": 1, "width": 0, "height": 1}


class CUDA_HOST_NODE_PARAMS(_Params):  # noqa: N801
    _defaults = {"fn": None, "userData": None}


class CUmemLocation(_Params):  # noqa: N801
    _defaults = {"type": 1, "id": 0}  # CU_MEM_LOCATION_TYPE_DEVICE


class CUmemPoolProps(_Params):  # noqa: N801
    _defaults = {"allocType": 1, "handleTypes": 0, "location": None, "win32SecurityAttributes": 0, "maxSize": 0,
                 "usage": 0}  # fmt: skip

    def __init__(self, **values: object) -> None:
        super().__init__(**values)
        if self.location is None:
            self.location = CUmemLocation()


class CUDA_MEM_ALLOC_NODE_PARAMS(_Params):  # noqa: N801
    _defaults = {"poolProps": None, "accessDescs": None, "accessDescCount": 0, "bytesize": 0, "dptr": 0}

    def __init__(self, **values: object) -> None:
        super().__init__(**values)
        if self.poolProps is None:
            self.poolProps = CUmemPoolProps()


class CUgraphExecUpdateResultInfo(_Params):  # noqa: N801
    _defaults = {"result": 0, "errorNode": None, "errorFromNode": None}

