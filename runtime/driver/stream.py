"""Driver-API streams and events: ``cuStreamCreate/Synchronize/Destroy``, ``cuEventCreate/Record/
Synchronize/ElapsedTime/Destroy``.

Every backend ptx2gcn has completes work before the enqueuing call returns, so a stream is an
ordering label whose work is always finished, and an event records the host time at
``cuEventRecord`` (after everything before it on the stream, which is everything). Elapsed times are
therefore wall-clock times of the calls between two records, emulator launches included.

Host work (``cuStreamAddCallback``, ``cuLaunchHostFunc``) runs when it is enqueued, for the same reason:
everything before it on the stream has finished.

Invariant: streams and events belong to the context current at creation; using one after its
destruction, or an event never recorded in ``cuEventElapsedTime``, is ``CUDA_ERROR_INVALID_HANDLE``.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable

from ptx2gcn.runtime.driver import capture
from ptx2gcn.runtime.driver.args import handle, integer, invalid
from ptx2gcn.runtime.driver.enums import CUevent_flags, CUresult, CUstream_flags
from ptx2gcn.runtime.driver.errors import CudaError
from ptx2gcn.runtime.driver.graph_model import NodeKind
from ptx2gcn.runtime.driver.graph_params import HostParams
from ptx2gcn.runtime.driver.memory import backend_call
from ptx2gcn.runtime.driver.state import EventRecord, StreamRecord, driver, usable
from ptx2gcn.runtime.driver.types import CUcontext, CUevent, CUstream

_STREAM_FLAGS = CUstream_flags.CU_STREAM_NON_BLOCKING
_EVENT_FLAGS = (
    CUevent_flags.CU_EVENT_BLOCKING_SYNC
    | CUevent_flags.CU_EVENT_DISABLE_TIMING
    | CUevent_flags.CU_EVENT_INTERPROCESS
)


def _flags(value: object, allowed: int, problem: str) -> int:
    """``value`` as an integer with no bit outside ``allowed``; else ``Flags 0x…`` + ``problem``."""
    flags = integer(value, "Flags")
    if flags & ~allowed:
        raise invalid(f"Flags 0x{flags:x}{problem}")
    return flags


def stream_create(Flags: object) -> CUstream:
    state = driver()
    context = state.require_current()
    flags = _flags(Flags, _STREAM_FLAGS, ": only CU_STREAM_DEFAULT and CU_STREAM_NON_BLOCKING exist")
    record = StreamRecord(state.new_handle(), context, flags)
    with state.lock:
        state.streams[record.handle] = record
        context.streams.add(record.handle)
    return CUstream(record.handle)


def stream_synchronize(hStream: object) -> None:
    state = driver()
    context = state.require_current()
    record = state.stream(handle(hStream, CUstream, "hStream"))
    capture.refuse_during_capture(hStream, "cuStreamSynchronize")
    if record is None:
        capture.legacy_work("cuStreamSynchronize of the default stream")
    backend_call((record.context if record is not None else context).backend.synchronize)


def stream_query(hStream: object) -> None:
    """Work is always complete: CUDA_SUCCESS for any valid stream."""
    state = driver()
    state.require_current()
    state.stream(handle(hStream, CUstream, "hStream"))
    capture.refuse_during_capture(hStream, "cuStreamQuery")


def stream_destroy(hStream: object) -> None:
    state = driver()
    state.initialised()
    value = handle(hStream, CUstream, "hStream")
    record = state.stream(value)
    if record is None:
        raise CudaError(CUresult.CUDA_ERROR_INVALID_HANDLE, "the default stream cannot be destroyed")
    with state.lock:
        state.streams.pop(value, None)
        record.context.streams.discard(value)
    capture.forget_stream(value)


def event_create(Flags: object) -> CUevent:
    state = driver()
    context = state.require_current()
    flags = _flags(Flags, _EVENT_FLAGS, " has bits that are not CUevent_flags")
    if flags & CUevent_flags.CU_EVENT_INTERPROCESS and not flags & CUevent_flags.CU_EVENT_DISABLE_TIMING:
        raise invalid("CU_EVENT_INTERPROCESS requires CU_EVENT_DISABLE_TIMING")
    record = EventRecord(state.new_handle(), context, flags)
    with state.lock:
        state.events[record.handle] = record
        context.events.add(record.handle)
    return CUevent(record.handle)


def event_record(hEvent: object, hStream: object, external: bool = False) -> None:
    state = driver()
    state.initialised()
    event = state.event(handle(hEvent, CUevent, "hEvent"))
    stream = state.stream(handle(hStream, CUstream, "hStream"))
    if stream is not None and stream.context is not event.context:
        raise CudaError(CUresult.CUDA_ERROR_INVALID_HANDLE, "hEvent and hStream belong to different contexts")
    if capture.record_event(event.handle, hStream, external):
        return
    mark_event(event)


def mark_event(event: EventRecord) -> None:
    """The event's work is complete: it takes the time now (an event record, or its graph node)."""
    backend_call(usable(event.context).backend.synchronize)
    event.time = time.perf_counter()


def event_synchronize(hEvent: object) -> None:
    state = driver()
    state.initialised()
    event = state.event(handle(hEvent, CUevent, "hEvent"))
    _not_captured(event)
    backend_call(usable(event.context).backend.synchronize)


def _not_captured(event: EventRecord) -> None:
    if capture.captured_event(event.handle):
        raise CudaError(CUresult.CUDA_ERROR_CAPTURED_EVENT, "the event was last recorded in a stream capture")


def event_query(hEvent: object) -> None:
    """Recorded work is always complete: CUDA_SUCCESS for any valid event."""
    state = driver()
    state.initialised()
    event = state.event(handle(hEvent, CUevent, "hEvent"))
    usable(event.context)
    _not_captured(event)


def event_elapsed_time(hStart: object, hEnd: object) -> float:
    state = driver()
    state.initialised()
    start = state.event(handle(hStart, CUevent, "hStart"))
    end = state.event(handle(hEnd, CUevent, "hEnd"))
    usable(start.context)
    for name, event in (("hStart", start), ("hEnd", end)):
        if event.flags & CUevent_flags.CU_EVENT_DISABLE_TIMING:
            raise CudaError(
                CUresult.CUDA_ERROR_INVALID_HANDLE, f"{name} was created with CU_EVENT_DISABLE_TIMING"
            )
        if event.time is None:
            raise CudaError(CUresult.CUDA_ERROR_INVALID_HANDLE, f"{name} has not been recorded")
    assert start.time is not None and end.time is not None
    return (end.time - start.time) * 1000.0


def event_destroy(hEvent: object) -> None:
    state = driver()
    state.initialised()
    event = state.event(handle(hEvent, CUevent, "hEvent"))
    with state.lock:
        state.events.pop(event.handle, None)
        event.context.events.discard(event.handle)


# -- stream queries, priorities, cross-stream waits ---------------------------------------------------
def ctx_get_stream_priority_range() -> tuple[int, int]:
    """(least, greatest) stream priority: (0, 0), CUDA's answer for a device without priorities —
    work never waits behind other work here, so there is nothing for a priority to reorder."""
    driver().require_current()
    return 0, 0


def stream_create_with_priority(flags: object, priority: object) -> CUstream:
    """``cuStreamCreateWithPriority``: the priority is clamped into the range (0, 0), as CUDA clamps."""
    integer(priority, "priority", 32, signed=True)
    return stream_create(flags)


def _stream_record(hStream: object) -> StreamRecord | None:
    state = driver()
    state.require_current()
    return state.stream(handle(hStream, CUstream, "hStream"))


def stream_get_priority(hStream: object) -> int:
    _stream_record(hStream)
    return 0


def stream_get_flags(hStream: object) -> int:
    record = _stream_record(hStream)
    return record.flags if record is not None else 0


def stream_get_ctx(hStream: object) -> CUcontext:
    record = _stream_record(hStream)
    context = record.context if record is not None else driver().require_current()
    return CUcontext(context.handle)


def stream_wait_event(hStream: object, hEvent: object, Flags: object) -> None:
    """Work recorded by ``hEvent`` is already complete: checked, then nothing to wait for."""
    state = driver()
    stream = _stream_record(hStream)
    event = state.event(handle(hEvent, CUevent, "hEvent"))
    wait_flags = integer(Flags, "Flags")
    if wait_flags & ~0x1:  # CU_EVENT_WAIT_DEFAULT 0, CU_EVENT_WAIT_EXTERNAL 1
        raise invalid(f"Flags = {Flags} is not a CUevent_wait_flags value")
    usable(event.context)
    if stream is not None:
        usable(stream.context)
    capture.wait_event(hStream, event.handle, bool(wait_flags))


def event_record_with_flags(hEvent: object, hStream: object, flags: object) -> None:
    record_flags = integer(flags, "flags")
    if record_flags & ~0x1:  # CU_EVENT_RECORD_DEFAULT 0, CU_EVENT_RECORD_EXTERNAL 1
        raise invalid(f"flags = {flags} is not a CUevent_record_flags value")
    event_record(hEvent, hStream, bool(record_flags))


# -- host work on a stream ----------------------------------------------------------------------------
HostCall = Callable[[], None]


def _host_call(function: object, arguments: tuple[object, ...], prototype: type) -> HostCall:
    """A callable running the host function ``function``: a Python callable, or the address of a C
    function (as the C ABI and cuda-python's ``CUstreamCallback``/``CUhostFn`` give it)."""
    if callable(function):
        return lambda: function(*arguments)  # type: ignore[operator]
    address = integer(getattr(function, "getPtr", lambda: function)(), "fn", 64)  # type: ignore[operator]
    if address == 0:
        raise invalid("the host function is a NULL pointer")
    c_function = prototype(address)
    return lambda: c_function(*arguments)


_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
_HOST_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def _user_data(value: object) -> int:
    return 0 if value is None else integer(value, "userData", 64)


def stream_add_callback(hStream: object, callback: object, userData: object, flags: object) -> None:
    """``cuStreamAddCallback``: work before it on the stream is complete, so the callback runs now,
    with ``CUDA_SUCCESS`` or the context's sticky error as its status (CUDA passes that too)."""
    if integer(flags, "flags") != 0:
        raise invalid("flags must be 0")
    state = driver()
    stream = _stream_record(hStream)
    capture.refuse_during_capture(hStream, "cuStreamAddCallback (use cuLaunchHostFunc)")
    context = stream.context if stream is not None else state.current()
    status = int(context.fault.result) if context is not None and context.fault is not None else 0
    stream_value = handle(hStream, CUstream, "hStream")
    if callable(callback):
        callback(CUstream(stream_value), CUresult(status), userData)
        return
    _host_call(callback, (stream_value, status, _user_data(userData)), _CALLBACK)()


def launch_host_func(hStream: object, fn: object, userData: object) -> None:
    """``cuLaunchHostFunc``: runs ``fn(userData)`` now (everything before it on the stream is done)."""
    stream = _stream_record(hStream)
    if stream is not None:
        usable(stream.context)
    call = host_function(fn, userData)
    if capture.record(hStream, NodeKind.HOST, lambda: HostParams(fn, userData)) is None:
        call()


def host_function(fn: object, userData: object) -> HostCall:
    """``fn(userData)`` as a callable: ``fn`` a Python callable or a C function's address."""
    return _host_call(fn, (userData,) if callable(fn) else (_user_data(userData),), _HOST_FN)
