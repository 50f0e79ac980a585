"""``cuLaunchKernel``: the kernel's arguments as cuda-python accepts them, checked and packed.

``kernelParams`` forms (cuda-python's ``_HelperKernelParams``):

* ``None`` / ``0``: no parameters;
* ``(values, types)``: two tuples; a ctypes scalar type converts its value into an 8-byte slot
  (zero-filled, as cuda-python's slots are), ``ctypes.c_void_p`` takes an int, ``c_void_p`` or an
  object with ``getPtr()``, and ``None`` means "the value's own memory": ``getPtr()`` of a handle
  (``CUdeviceptr``), a ``ctypes.Structure``, or an enum's int;
* an int: the address of a C ``void*[N]`` array; a buffer-protocol object: that array itself.

``extra`` is ``None``/``0`` or the C array ``{CU_LAUNCH_PARAM_BUFFER_POINTER, &buffer,
CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END}``, given by address, as a ctypes array, or
as a Python sequence (whose pointer entries may also be buffer objects / ``c_size_t`` values).

Invariant: the packed buffer has every parameter at the offset the kernel's metadata gives, exactly
``size`` bytes from the argument; a wrong number of arguments, an argument smaller than its
parameter, both or neither of ``kernelParams``/``extra`` for a kernel with parameters, and launch
shapes beyond the device's limits are ``CUDA_ERROR_INVALID_VALUE`` naming what is wrong. A kernel
fault is returned by the launch itself (work is synchronous) and then sticks to the context, as in
CUDA: every later call needing that context fails with the same code until it is destroyed.

Device ``printf`` output is written to stdout when the launch completes (CUDA writes it at the next
synchronisation point; here every launch is one), and a failed device-side ``assert`` prints CUDA's
message to stderr and returns ``CUDA_ERROR_ASSERT`` (710), which is sticky like the other kernel
faults: as with cuda-python on an NVIDIA GPU, the context is unusable afterwards (every call that
needs it, ``cuCtxSynchronize`` included, returns 710) until it is destroyed or, for a primary
context, released (``ptx2gcn.runtime.backends.messages``).
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import SupportsInt, cast

import numpy as np

from ptx2gcn.runtime.backends.messages import launch_with_messages
from ptx2gcn.runtime.backends.protocol import DeviceProperties, Dim3, KernelInfo
from ptx2gcn.runtime.driver import capture
from ptx2gcn.runtime.driver.args import CTYPES_INTEGERS, buffer_of, handle, integer, invalid
from ptx2gcn.runtime.driver.enums import (
    CU_LAUNCH_PARAM_BUFFER_POINTER,
    CU_LAUNCH_PARAM_BUFFER_SIZE,
    CU_LAUNCH_PARAM_END,
    CUresult,
)
from ptx2gcn.runtime.driver.errors import CudaError
from ptx2gcn.runtime.driver.graph_model import NodeKind
from ptx2gcn.runtime.driver.library import function_record
from ptx2gcn.runtime.driver.memory import backend_call
from ptx2gcn.runtime.driver.occupancy import resident_blocks
from ptx2gcn.runtime.driver.state import FunctionRecord, driver, usable
from ptx2gcn.runtime.driver.types import CUstream, HandleBase
from ptx2gcn.runtime.kernargs import ArgumentError, ParamSlot, pack_parameters

SLOT_BYTES = 8
HSA_GRID_LIMIT = 2**32 - 1
"""Work-items per dimension of one AMD dispatch: the AQL packet's ``grid_size_*`` fields are 32 bits
(CUDA's own limit, gridDimX up to 2**31-1 blocks of up to 1024 threads, is larger)."""
#: Launch failures after which CUDA declares the context unusable.
STICKY = frozenset(
    {
        CUresult.CUDA_ERROR_ILLEGAL_ADDRESS,
        CUresult.CUDA_ERROR_ILLEGAL_INSTRUCTION,
        CUresult.CUDA_ERROR_LAUNCH_FAILED,
        CUresult.CUDA_ERROR_LAUNCH_TIMEOUT,
        CUresult.CUDA_ERROR_MISALIGNED_ADDRESS,
        CUresult.CUDA_ERROR_HARDWARE_STACK_ERROR,
        CUresult.CUDA_ERROR_ASSERT,
    }
)
_OTHER_TYPES = (ctypes.c_char, ctypes.c_wchar, ctypes.c_float, ctypes.c_double)


def _scalar(value: object, ctype: type, index: int) -> bytes:
    if ctype in CTYPES_INTEGERS and not isinstance(value, ctype):
        bits, signed = CTYPES_INTEGERS[ctype]
        if ctype is ctypes.c_bool:
            value = bool(value)
        else:
            value = integer(value, f"kernelParams[{index}] ({ctype.__name__})", bits, signed)
    if ctype is ctypes.c_double and isinstance(value, ctypes.c_float):
        value = value.value
    # A ctypes constructor checks its argument at run time; a bad one is the TypeError caught below.
    make = cast(Callable[[object], object], ctype)
    try:
        cell = value if isinstance(value, ctype) else make(value)
    except (TypeError, ValueError) as error:
        raise invalid(
            f"kernelParams[{index}]: cannot convert {value!r} to {ctype.__name__}: {error}"
        ) from None
    view = buffer_of(cell)
    assert view is not None  # ctypes scalars have the buffer protocol
    return view.tobytes().ljust(SLOT_BYTES, b"\0")


def _pointer(value: object, index: int) -> bytes:
    if isinstance(value, ctypes.c_void_p):
        number = value.value or 0
    elif isinstance(value, int):
        number = integer(value, f"kernelParams[{index}]", 64)
    elif (address := _get_ptr(value)) is not None:
        number = address
    else:
        raise invalid(
            f"kernelParams[{index}]: c_void_p takes an int, a c_void_p or an object with getPtr(), "
            f"not {type(value).__name__}"
        )
    return number.to_bytes(8, "little")


def _get_ptr(value: object) -> int | None:
    """``value.getPtr()`` for cuda-python-style objects (the address of the value), else None."""
    getter = getattr(value, "getPtr", None)
    address: object = getter() if callable(getter) else None
    return int(address) if isinstance(address, SupportsInt) else None


def _own_memory(value: object, slot: ParamSlot, index: int) -> bytes:
    """Type ``None``: the bytes the value itself occupies."""
    if isinstance(value, HandleBase):
        data = int(value).to_bytes(8, "little")
    elif isinstance(value, ctypes.Structure):
        data = bytes(value)
    elif isinstance(value, IntEnum):
        data = int(value).to_bytes(4, "little", signed=True).ljust(SLOT_BYTES, b"\0")
    elif (address := _get_ptr(value)) is not None:
        return ctypes.string_at(address, slot.size)
    else:
        raise invalid(
            f"kernelParams[{index}]: with type None the value must be a handle such as CUdeviceptr, "
            f"a ctypes.Structure or an enum, not {type(value).__name__}"
        )
    return data


def _value_bytes(value: object, ctype: object, slot: ParamSlot, index: int) -> bytes:
    if ctype is None:
        data = _own_memory(value, slot, index)
    elif ctype is ctypes.c_void_p:
        data = _pointer(value, index)
    elif isinstance(ctype, type) and (ctype in CTYPES_INTEGERS or ctype in _OTHER_TYPES):
        data = _scalar(value, ctype, index)
    else:
        raise invalid(
            f"kernelParams[{index}]: unsupported type {ctype!r} (use a ctypes scalar type, "
            "ctypes.c_void_p or None)"
        )
    if len(data) < slot.size:
        raise invalid(
            f"kernelParams[{index}]: the kernel's parameter is {slot.size} bytes, but the value "
            f"given provides only {len(data)}"
        )
    return data[: slot.size]


def _tuple(value: object) -> tuple[object, ...] | None:
    return cast(tuple[object, ...], value) if isinstance(value, tuple) else None


def _from_tuples(values: tuple[object, ...], types: tuple[object, ...], info: KernelInfo) -> list[bytes]:
    if len(values) != len(types):
        raise invalid(f"kernelParams: {len(values)} values but {len(types)} types")
    _count(len(values), info)
    return [_value_bytes(v, t, s, i) for i, (v, t, s) in enumerate(zip(values, types, info.params))]


def _count(given: int, info: KernelInfo) -> None:
    if given != len(info.params):
        raise invalid(f"kernel {info.name!r} takes {len(info.params)} parameter(s), but {given} were given")


def _from_pointers(pointers: Sequence[int], info: KernelInfo) -> list[bytes]:
    out: list[bytes] = []
    for index, (pointer, slot) in enumerate(zip(pointers, info.params)):
        if not pointer:
            raise invalid(f"kernelParams[{index}] is a null pointer")
        out.append(ctypes.string_at(pointer, slot.size))
    return out


def argument_bytes(kernel_params: object, info: KernelInfo) -> list[bytes]:
    """Each parameter's bytes from a ``kernelParams`` argument (see the module docstring)."""
    count = len(info.params)
    if kernel_params is None or (isinstance(kernel_params, int) and kernel_params == 0):
        _count(0, info)
        return []
    pair = _tuple(kernel_params)
    if pair is not None and len(pair) == 2:
        values, types = _tuple(pair[0]), _tuple(pair[1])
        if values is not None and types is not None:
            return _from_tuples(values, types, info)
    if isinstance(kernel_params, int):
        array = (ctypes.c_void_p * count).from_address(integer(kernel_params, "kernelParams", 64))
        return _from_pointers([p or 0 for p in array], info)
    view = buffer_of(kernel_params)
    if view is None or not view.contiguous:
        raise invalid(
            "kernelParams must be None, a (values, types) pair of tuples, an address of a void* "
            f"array, or a buffer holding that array; got {type(kernel_params).__name__}"
        )
    view = view.cast("B")
    if view.nbytes < 8 * count:
        raise invalid(f"kernelParams holds {view.nbytes // 8} pointer(s); kernel {info.name!r} takes {count}")
    return _from_pointers(list(view[: 8 * count].cast("Q")), info)


# -- extra ------------------------------------------------------------------------------------------
def _extra_entries(extra: object) -> list[object]:
    if isinstance(extra, int):
        entries: list[object] = []
        array = (ctypes.c_void_p * 8).from_address(integer(extra, "extra", 64))
        for item in array:
            entries.append(item or 0)
            if not item:
                break
        return entries
    if isinstance(extra, ctypes.Array):
        return [getattr(item, "value", item) or 0 for item in cast(Sequence[object], extra)]
    if isinstance(extra, Sequence) and not isinstance(extra, (str, bytes)):
        return list(cast(Sequence[object], extra))
    raise invalid(f"extra must be None, an address, a ctypes array or a sequence; got {type(extra).__name__}")


def _marker(entry: object) -> int:
    if isinstance(entry, ctypes.c_void_p):
        return entry.value or 0
    return integer(entry, "extra[]", 64) if isinstance(entry, int) else -1


def _buffer_of(entry: object, size: int) -> bytes:
    if isinstance(entry, ctypes.c_void_p):
        entry = entry.value or 0
    if isinstance(entry, int):
        if not entry:
            raise invalid("extra: CU_LAUNCH_PARAM_BUFFER_POINTER is a null pointer")
        return ctypes.string_at(entry, size)
    view = buffer_of(entry)
    if view is None or not view.contiguous:
        raise invalid(f"extra: the parameter buffer is a {type(entry).__name__}, not memory")
    view = view.cast("B")
    if view.nbytes < size:
        raise invalid(f"extra: the parameter buffer holds {view.nbytes} bytes, fewer than its size {size}")
    return bytes(view[:size])


def _size_of(entry: object) -> int:
    if isinstance(entry, (ctypes.c_size_t, ctypes.c_uint64)):
        return int(entry.value)
    if isinstance(entry, ctypes.c_void_p):
        entry = entry.value or 0
    address = integer(entry, "extra: CU_LAUNCH_PARAM_BUFFER_SIZE pointer", 64)
    if not address:
        raise invalid("extra: CU_LAUNCH_PARAM_BUFFER_SIZE is a null pointer")
    return int(ctypes.c_size_t.from_address(address).value)


def extra_buffer(extra: object, info: KernelInfo) -> bytes:
    """The packed parameter buffer an ``extra`` array points at, cut to the kernel's parameter size."""
    entries = _extra_entries(extra)
    pointer: object = None
    size: int | None = None
    index = 0
    while index < len(entries) and _marker(entries[index]) != CU_LAUNCH_PARAM_END:
        marker = _marker(entries[index])
        if index + 1 >= len(entries):
            raise invalid(f"extra: marker {marker} at index {index} has no value after it")
        if marker == CU_LAUNCH_PARAM_BUFFER_POINTER:
            pointer = entries[index + 1]
        elif marker == CU_LAUNCH_PARAM_BUFFER_SIZE:
            size = _size_of(entries[index + 1])
        else:
            raise invalid(
                f"extra: unknown entry {entries[index]!r} at index {index} (expected "
                "CU_LAUNCH_PARAM_BUFFER_POINTER, CU_LAUNCH_PARAM_BUFFER_SIZE or CU_LAUNCH_PARAM_END)"
            )
        index += 2
    if pointer is None or size is None:
        raise invalid("extra needs both CU_LAUNCH_PARAM_BUFFER_POINTER and CU_LAUNCH_PARAM_BUFFER_SIZE")
    if size < info.param_buffer_size:
        raise invalid(
            f"extra: the parameter buffer is {size} bytes; kernel {info.name!r} needs "
            f"{info.param_buffer_size}"
        )
    return _buffer_of(pointer, size)[: info.param_buffer_size]


# -- launch -----------------------------------------------------------------------------------------
def _dimension(value: object, what: str) -> int:
    """A launch dimension as cuda-python takes it: an integer, or a float converted as C converts it
    to ``unsigned int`` (truncated toward zero; ``2.0`` is 2), which cuda-python's Cython accepts."""
    if isinstance(value, (float, np.floating)):
        number = float(value)
        if not math.isfinite(number):
            raise invalid(f"{what} = {number} is not a finite number")
        value = math.trunc(number)
    return integer(value, what, 32)


def _shape(values: Sequence[object], limits: tuple[int, int, int], what: str) -> tuple[int, int, int]:
    dims = [_dimension(v, f"{what}Dim{axis}") for v, axis in zip(values, "XYZ")]
    for axis, (value, limit) in enumerate(zip(dims, limits)):
        if not 1 <= value <= limit:
            raise invalid(f"{what}Dim{'XYZ'[axis]} = {value} is outside 1..{limit}")
    return dims[0], dims[1], dims[2]


@dataclass(frozen=True, slots=True)
class LaunchShape:
    grid: Dim3
    block: Dim3
    shared_bytes: int


def _launch_shape(info: KernelInfo, limits: DeviceProperties, values: Sequence[object]) -> LaunchShape:
    """Grid, block and dynamic shared memory from the 7 launch arguments, within the device's limits."""
    grid = _shape(values[0:3], limits.max_grid, "grid")
    block = _shape(values[3:6], limits.max_block, "block")
    for axis in range(3):
        if grid[axis] * block[axis] > HSA_GRID_LIMIT:
            raise invalid(
                f"gridDim{'XYZ'[axis]} x blockDim{'XYZ'[axis]} = {grid[axis]} x {block[axis]} threads; an AMD "
                f"dispatch holds at most {HSA_GRID_LIMIT} work-items per dimension (a 32-bit grid size)"
            )
    threads = block[0] * block[1] * block[2]
    allowed = min(limits.max_threads_per_block, info.max_threads_per_block)
    if threads > allowed:
        raise invalid(
            f"block {block[0]}x{block[1]}x{block[2]} has {threads} threads; kernel {info.name!r} allows {allowed}"
        )
    shared = _dimension(values[6], "sharedMemBytes")
    if shared + info.shared_bytes > limits.shared_memory_per_block:
        raise invalid(
            f"sharedMemBytes = {shared} plus the kernel's {info.shared_bytes} static bytes exceed "
            f"{limits.shared_memory_per_block} bytes of shared memory per block"
        )
    return LaunchShape(grid, block, shared)


def _given(value: object) -> bool:
    return value is not None and not (isinstance(value, int) and value == 0)


def parameter_buffer(info: KernelInfo, kernel_params: object, extra: object) -> bytes:
    """The packed parameter buffer from whichever of ``kernelParams`` / ``extra`` was given."""
    if _given(extra) and _given(kernel_params):
        raise invalid("give kernelParams or extra, not both")
    if _given(extra):
        return extra_buffer(extra, info)
    try:
        return pack_parameters(argument_bytes(kernel_params, info), info.params, info.param_buffer_size)
    except ArgumentError as error:
        raise invalid(f"kernel {info.name!r}: {error}") from None


def launch_kernel(
    f: object,
    gridDimX: object,
    gridDimY: object,
    gridDimZ: object,
    blockDimX: object,
    blockDimY: object,
    blockDimZ: object,
    sharedMemBytes: object,
    hStream: object,
    kernelParams: object,
    extra: object,
) -> None:
    _launch(f, (gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes), hStream,
            kernelParams, extra, cooperative=False)


def launch_cooperative_kernel(
    f: object,
    gridDimX: object,
    gridDimY: object,
    gridDimZ: object,
    blockDimX: object,
    blockDimY: object,
    blockDimZ: object,
    sharedMemBytes: object,
    hStream: object,
    kernelParams: object,
) -> None:
    """``cuLaunchCooperativeKernel``: every block of the grid resident at once, so blocks may wait
    for each other (cooperative groups' ``grid.sync()``); the grid must fit on the device at the
    kernel's occupancy, else ``CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE``."""
    _launch(f, (gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes), hStream,
            kernelParams, None, cooperative=True)


def _check_coresident(function: FunctionRecord, shape: LaunchShape, units: int) -> None:
    info = function.info
    blocks = shape.grid[0] * shape.grid[1] * shape.grid[2]
    threads = shape.block[0] * shape.block[1] * shape.block[2]
    per_unit = resident_blocks(function, threads, shape.shared_bytes)
    if blocks > per_unit * units:
        raise CudaError(
            CUresult.CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
            f"a cooperative launch of {blocks} blocks of {threads} threads: kernel {info.name!r} fits "
            f"{per_unit} such blocks per compute unit, {per_unit * units} on the device's {units}",
        )


@dataclass(frozen=True, slots=True)
class KernelLaunch:
    """A checked launch: the kernel, its shape and its packed parameter buffer (a copy of the
    argument values, as a captured or graph kernel node holds them)."""

    function: FunctionRecord
    shape: LaunchShape
    parameters: bytes
    cooperative: bool = False


def prepare_launch(f: object, dims: Sequence[object], kernelParams: object, extra: object,
                   cooperative: bool) -> KernelLaunch:
    """Check a launch of ``f`` in the current context and pack its arguments (nothing runs)."""
    context = driver().require_current()
    function = function_record(f)
    if function.module.context is not context:
        raise CudaError(CUresult.CUDA_ERROR_INVALID_CONTEXT, "f belongs to a module of another context")
    info = function.info
    shape = _launch_shape(info, context.backend.properties, dims)
    if cooperative:
        _check_coresident(function, shape, context.backend.properties.multiprocessors)
    return KernelLaunch(function, shape, parameter_buffer(info, kernelParams, extra), cooperative)


def run_launch(launch: KernelLaunch) -> None:
    """Run a prepared launch on its context's backend; a sticky fault ruins the context."""
    function, shape = launch.function, launch.shape
    context = usable(function.module.context)
    try:
        backend_call(
            lambda: launch_with_messages(
                context.backend, function.loaded, function.info.name, shape.grid, shape.block,
                shape.shared_bytes, launch.parameters, context.messages, cooperative=launch.cooperative,
            )
        )
    except CudaError as error:
        if error.result in STICKY:
            context.fault = error
        raise


def _launch(f: object, dims: Sequence[object], hStream: object, kernelParams: object, extra: object,
            cooperative: bool) -> None:
    state = driver()
    context = state.require_current()
    stream = state.stream(handle(hStream, CUstream, "hStream"))
    if stream is not None and stream.context is not context:
        raise CudaError(CUresult.CUDA_ERROR_INVALID_HANDLE, "hStream belongs to another context")
    launch = prepare_launch(f, dims, kernelParams, extra, cooperative)
    if capture.record(hStream, NodeKind.KERNEL, lambda: launch) is None:
        run_launch(launch)


# -- cuLaunchKernelEx ---------------------------------------------------------------------------------
_IGNORED_ATTRIBUTES = {
    0: "IGNORE",
    1: "ACCESS_POLICY_WINDOW",  # an L2 persistence hint
    3: "SYNCHRONIZATION_POLICY",  # how the host waits; launches here are synchronous
    5: "CLUSTER_SCHEDULING_POLICY_PREFERENCE",
    6: "PROGRAMMATIC_STREAM_SERIALIZATION",  # overlap permission; serial execution honours it
    7: "PROGRAMMATIC_EVENT",
    8: "PRIORITY",
    9: "MEM_SYNC_DOMAIN_MAP",
    10: "MEM_SYNC_DOMAIN",
    14: "PREFERRED_SHARED_MEMORY_CARVEOUT",
}
"""``CUlaunchAttributeID`` values that are hints or orderings a synchronous launch already satisfies."""
_COOPERATIVE, _CLUSTER_DIMENSION, _PREFERRED_CLUSTER_DIMENSION = 2, 4, 11


def _check_attribute(attribute: object) -> bool:
    """Whether ``attribute`` asks for a cooperative launch; raises for one that cannot be honoured."""
    identifier = integer(getattr(attribute, "id", None), "attrs[].id", 32, signed=True)
    value = getattr(attribute, "value", None)
    if identifier in _IGNORED_ATTRIBUTES:
        return False
    if identifier == _COOPERATIVE:
        return integer(getattr(value, "cooperative", 0), "attrs[].value.cooperative", 32, signed=True) != 0
    if identifier in (_CLUSTER_DIMENSION, _PREFERRED_CLUSTER_DIMENSION):
        dims = getattr(value, "clusterDim", None)
        shape = tuple(integer(getattr(dims, axis, 0), f"clusterDim.{axis}", 32) for axis in "xyz")
        if shape not in ((1, 1, 1), (0, 0, 0)):
            raise CudaError(
                CUresult.CUDA_ERROR_NOT_SUPPORTED, f"thread-block clusters ({shape}) are not supported by launches"
            )
        return False
    raise CudaError(CUresult.CUDA_ERROR_NOT_SUPPORTED, f"launch attribute {identifier} is not supported")


def launch_kernel_ex(config: object, f: object, kernelParams: object, extra: object) -> None:
    """``cuLaunchKernelEx``: ``config`` has ``CUlaunchConfig``'s fields (cuda-python's object, or the C
    struct as ctypes reads it); its attributes are checked, then it is an ordinary launch."""
    if config is None:
        raise invalid("config is NULL")
    fields = ("gridDimX", "gridDimY", "gridDimZ", "blockDimX", "blockDimY", "blockDimZ", "sharedMemBytes")
    dims = [getattr(config, field, None) for field in fields]
    count = integer(getattr(config, "numAttrs", 0), "numAttrs", 32)
    attrs = getattr(config, "attrs", None)
    if count and not attrs:
        raise invalid(f"numAttrs = {count} but attrs is NULL")
    cooperative = False
    for index in range(count):
        cooperative |= _check_attribute(cast(Sequence[object], attrs)[index])
    _launch(f, dims, getattr(config, "hStream", None) or 0, kernelParams, extra, cooperative)
