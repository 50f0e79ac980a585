"""Driver-API initialisation, devices and contexts: ``cuInit``, ``cuDeviceGet*``, ``cuCtx*``.

Device attributes come from the backend's ``DeviceProperties``: real limits of the device behind it
(an MI300X for ``emulator`` and ``hip``), a warp size of 32 (PTX's), compute capability 8.0 (the PTX
targets ptx2gcn accepts). Attributes of features a backend does not provide (textures; on HIP managed
memory, cooperative launch, host mapping) read 0.

Invariant: these functions raise only ``CudaError``; a context is current on the creating thread
right after ``cuCtxCreate`` and on no thread after ``cuCtxDestroy``.
"""

from __future__ import annotations

import uuid

from ptx2gcn.runtime.backends.protocol import Backend, BackendError, BackendUnavailable, DeviceProperties
from ptx2gcn.runtime.driver import capture
from ptx2gcn.runtime.driver.args import enum_member, handle, integer, invalid
from ptx2gcn.runtime.driver.enums import CUctx_flags, CUdevice_attribute, CUresult
from ptx2gcn.runtime.driver.errors import CudaError, from_backend, plain
from ptx2gcn.runtime.driver.state import Context, driver
from ptx2gcn.runtime.driver.types import CUcontext, CUdevice, CUuuid

DRIVER_VERSION = 13000
"""The CUDA driver API level implemented (13.0), as ``cuDriverGetVersion`` encodes it."""

A = CUdevice_attribute


def _attributes(p: DeviceProperties) -> dict[A, int]:
    return {
        A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: p.max_threads_per_block,
        A.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: p.max_block[0],
        A.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: p.max_block[1],
        A.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: p.max_block[2],
        A.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: p.max_grid[0],
        A.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: p.max_grid[1],
        A.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: p.max_grid[2],
        A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: p.shared_memory_per_block,
        A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: p.shared_memory_per_block,
        A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: p.shared_memory_per_block,
        A.CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: 64 * 1024,
        A.CU_DEVICE_ATTRIBUTE_WARP_SIZE: p.warp_size,
        A.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: p.registers_per_block,
        A.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: p.registers_per_block,
        A.CU_DEVICE_ATTRIBUTE_CLOCK_RATE: p.clock_khz,
        A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: p.multiprocessors,
        A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: 2048,
        A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: p.compute_capability[0],
        A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: p.compute_capability[1],
        A.CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: 1,  # the driver's own pools (mempool.py), on any backend
        **{A(number): value for number, value in p.extra.items()},
    }


def init(Flags: object) -> None:
    if integer(Flags, "Flags") != 0:
        raise invalid(f"cuInit: Flags must be 0, got {Flags}")
    driver().initialise()


def driver_get_version() -> int:
    return DRIVER_VERSION


def device_get(ordinal: object) -> CUdevice:
    number = integer(ordinal, "ordinal", 32, signed=True)
    return CUdevice(driver().check_device(number))


def device_get_count() -> int:
    return driver().device_count()


def _properties(dev: object) -> DeviceProperties:
    """The device's properties: from a context on it, else from opening it once (then remembered)."""
    state = driver()
    ordinal = state.check_device(handle(dev, CUdevice, "dev"))
    for context in state.contexts.values():
        if context.device == ordinal:
            return context.backend.properties
    known = state.properties.get(ordinal)
    if known is None:
        backend = _open(ordinal)
        known = backend.properties
        try:
            backend.close()
        except BackendError as error:
            raise from_backend(error.kind, plain(error)) from None
        state.properties[ordinal] = known
    return known


def _open(ordinal: int) -> Backend:
    try:
        return driver().initialised().open(ordinal)
    except BackendUnavailable as error:
        raise CudaError(CUresult.CUDA_ERROR_NO_DEVICE, plain(error)) from None
    except BackendError as error:
        raise from_backend(error.kind, plain(error)) from None


def device_get_name(length: object, dev: object) -> bytes:
    size = integer(length, "length", 32, signed=True)
    if size <= 0:
        raise invalid(f"length must be positive, got {size}")
    text = _properties(dev).name.encode()[: size - 1] + b"\0"
    return text + b" " * (size - len(text))  # cuda-python returns its whole b" " * length buffer


def device_get_attribute(attrib: object, dev: object) -> int:
    attribute = enum_member(attrib, CUdevice_attribute, "attrib")
    return _attributes(_properties(dev)).get(attribute, 0)


def device_get_uuid(dev: object) -> CUuuid:
    """A stable UUID per device: RFC 4122 version 5 of the device's name and ordinal (CUDA's are
    random per board; what matters to clients is that one device always gives the same one)."""
    properties = _properties(dev)
    ordinal = handle(dev, CUdevice, "dev")
    return CUuuid(uuid.uuid5(uuid.NAMESPACE_OID, f"ptx2gcn:{properties.name}:{ordinal}").bytes)


def device_total_mem(dev: object) -> int:
    return _properties(dev).total_memory


# -- contexts ---------------------------------------------------------------------------------------
def ctx_create(*args: object) -> CUcontext:
    """``cuCtxCreate(flags, dev)`` (cuda-python 12) or ``cuCtxCreate(ctxCreateParams, flags, dev)`` (13)."""
    if len(args) == 3:
        params, flags, dev = args
        if params is not None:
            raise CudaError(
                CUresult.CUDA_ERROR_NOT_SUPPORTED,
                "ctxCreateParams (execution affinity, CIG) are not supported; pass None",
            )
    elif len(args) == 2:
        flags, dev = args
    else:
        raise invalid(
            f"cuCtxCreate takes (flags, dev) or (ctxCreateParams, flags, dev), got {len(args)} arguments"
        )
    flag_bits = integer(flags, "flags")
    if flag_bits & ~CUctx_flags.CU_CTX_FLAGS_MASK:
        raise invalid(f"flags 0x{flag_bits:x} has bits outside CU_CTX_FLAGS_MASK")
    state = driver()
    state.initialised()
    ordinal = state.check_device(handle(dev, CUdevice, "dev"))
    context = Context(state.new_handle(), ordinal, flag_bits, _open(ordinal))
    with state.lock:
        state.contexts[context.handle] = context
    state.push(context)
    return CUcontext(context.handle)


def ctx_destroy(ctx: object) -> None:
    state = driver()
    state.initialised()
    context = state.context(handle(ctx, CUcontext, "ctx"))
    if context.retains:
        raise CudaError(
            CUresult.CUDA_ERROR_INVALID_CONTEXT,
            "ctx is a device's primary context; release it with cuDevicePrimaryCtxRelease",
        )
    _close(context)


def ctx_synchronize() -> None:
    backend = driver().require_current().backend
    capture.unsafe("cuCtxSynchronize")
    try:
        backend.synchronize()
    except BackendError as error:
        raise from_backend(error.kind, plain(error)) from None


def ctx_get_current() -> CUcontext:
    state = driver()
    state.initialised()
    current = state.current()
    return CUcontext(current.handle if current is not None else 0)


def ctx_set_current(ctx: object) -> None:
    state = driver()
    state.initialised()
    value = handle(ctx, CUcontext, "ctx")
    state.set_current(state.context(value) if value else None)


def _close(context: Context) -> None:
    state = driver()
    with state.lock:
        state.forget_context(context)
    _shut(context.backend)


def _shut(backend: Backend) -> None:
    try:
        backend.close()
    except BackendError as error:
        raise from_backend(error.kind, plain(error)) from None


def device_primary_ctx_retain(dev: object) -> CUcontext:
    """The device's primary context (created on first retain), reference-counted; not made current."""
    state = driver()
    ordinal = state.check_device(handle(dev, CUdevice, "dev"))
    with state.lock:
        existing = state.primary.get(ordinal)
        if existing is not None and existing in state.contexts:
            context = state.contexts[existing]
        else:
            context = Context(state.new_handle(), ordinal, state.primary_flags.get(ordinal, 0), _open(ordinal))
            state.contexts[context.handle] = context
            state.primary[ordinal] = context.handle
        context.retains += 1
    return CUcontext(context.handle)


def device_primary_ctx_release(dev: object) -> None:
    state = driver()
    ordinal = state.check_device(handle(dev, CUdevice, "dev"))
    existing = state.primary.get(ordinal)
    if existing is None or existing not in state.contexts:
        raise CudaError(
            CUresult.CUDA_ERROR_INVALID_CONTEXT, f"device {ordinal}'s primary context is not retained"
        )
    context = state.contexts[existing]
    context.retains -= 1
    if context.retains == 0:
        _close(context)


def device_primary_ctx_reset(dev: object) -> None:
    """CUDA's way to clear a sticky fault from a primary context: its allocations, modules, streams
    and events are destroyed and its device state starts afresh; the handle and the retain count stay
    (CUDA: "resetting the primary context does not release it"). A primary context not retained now
    is nothing to reset: success."""
    state = driver()
    ordinal = state.check_device(handle(dev, CUdevice, "dev"))
    with state.lock:
        existing = state.primary.get(ordinal)
        old = state.contexts.get(existing) if existing is not None else None
        if old is None:
            return
        state.forget_contents(old)
    fresh = Context(old.handle, ordinal, old.flags, _open(ordinal))
    fresh.retains = old.retains
    with state.lock:
        state.contexts[old.handle] = fresh
    _shut(old.backend)


PRIMARY_CTX_FLAGS = 0x07 | 0x08 | 0x10
"""What ``cuDevicePrimaryCtxSetFlags`` accepts: a scheduling mode (``CU_CTX_SCHED_*``, 0-4),
``CU_CTX_MAP_HOST`` (host memory is always mappable here) and ``CU_CTX_LMEM_RESIZE_TO_MAX``."""


def device_primary_ctx_set_flags(dev: object, flags: object) -> None:
    """The flags of the device's primary context, now and when it is next created (CUDA 11+ allows
    this while the context is active). Scheduling modes change nothing here: every call is synchronous."""
    state = driver()
    ordinal = state.check_device(handle(dev, CUdevice, "dev"))
    value = integer(flags, "flags", 32)
    if value & ~PRIMARY_CTX_FLAGS or value & 0x07 not in (0, 1, 2, 4):
        raise invalid(f"flags 0x{value:x}: not a scheduling mode with CU_CTX_MAP_HOST/CU_CTX_LMEM_RESIZE_TO_MAX")
    with state.lock:
        state.primary_flags[ordinal] = value
        existing = state.primary.get(ordinal)
        if existing is not None and existing in state.contexts:
            state.contexts[existing].flags = value


def device_primary_ctx_get_state(dev: object) -> tuple[int, int]:
    """(flags, active): a primary context is active while it is retained."""
    state = driver()
    ordinal = state.check_device(handle(dev, CUdevice, "dev"))
    existing = state.primary.get(ordinal)
    context = state.contexts.get(existing) if existing is not None else None
    return (context.flags if context is not None else state.primary_flags.get(ordinal, 0), int(context is not None))


def ctx_push_current(ctx: object) -> None:
    state = driver()
    state.initialised()
    state.push(state.context(handle(ctx, CUcontext, "ctx")))


def ctx_pop_current() -> CUcontext:
    state = driver()
    state.initialised()
    return CUcontext(state.pop().handle)


API_VERSION = 3020
"""What ``cuCtxGetApiVersion`` reports: the context API generation of ``cuCtxCreate_v2`` (3020), the
value NVIDIA's driver gives for every context made through today's API."""


def ctx_get_api_version(ctx: object) -> int:
    state = driver()
    state.initialised()
    value = handle(ctx, CUcontext, "ctx")
    if value:
        state.context(value)
    else:
        state.require_current()
    return API_VERSION


def ctx_get_flags() -> int:
    return driver().require_current().flags


def ctx_get_device() -> CUdevice:
    return CUdevice(driver().require_current().device)


def profiler_start() -> None:
    """``cuProfilerStart``: no profiler is attached; CUDA then succeeds doing nothing."""
    driver().require_current()


def profiler_stop() -> None:
    driver().require_current()
