"""Stream capture: ``cuStreamBeginCapture``/``EndCapture``/``IsCapturing``/``GetCaptureInfo``,
``cuThreadExchangeStreamCaptureMode``, and the hooks stream-ordered calls use while a stream captures.

While a stream captures, work enqueued on it becomes nodes of the capture's graph instead of running:
each capturing stream has a frontier (the nodes new work depends on); a node added on a stream
depends on that stream's frontier and becomes it. ``cuEventRecord`` on a capturing stream stores the
frontier in the event; ``cuStreamWaitEvent`` on such an event adds that frontier to the waiting
stream's, and a stream not yet capturing joins the capture (a fork). ``cuStreamEndCapture`` on the
origin stream needs every other joined stream to have been joined back (its frontier an ancestor of
the origin's) — else ``CUDA_ERROR_STREAM_CAPTURE_UNJOINED`` — and ends capture on all of them.

CUDA's rules for calls that would synchronise with captured work: a "potentially unsafe" call (a
synchronous copy or fill, ``cuMemAlloc``/``cuMemFree``, ``cuCtxSynchronize``) is refused with
``CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED`` when this thread's capture mode prohibits it (global: any
non-relaxed capture begun on this thread, or a global capture on any thread; thread-local: a
non-relaxed capture on this thread; relaxed: never); work on the legacy default stream while a
blocking stream captures is ``CUDA_ERROR_STREAM_CAPTURE_IMPLICIT``; synchronising or querying a
capturing stream is ``CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED``. Each of these invalidates the captures
involved: their later work and ``cuStreamEndCapture`` return ``CUDA_ERROR_STREAM_CAPTURE_INVALIDATED``.

Invariant: a stream is in at most one capture; a capture's streams all leave it together, at
``cuStreamEndCapture`` (whose graph is returned only when the capture is valid and joined).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from ptx2gcn.runtime.driver.args import handle, integer, invalid
from ptx2gcn.runtime.driver.beside import PerDriver
from ptx2gcn.runtime.driver.enums import CUresult, CUstream_flags
from ptx2gcn.runtime.driver.errors import CudaError
from ptx2gcn.runtime.driver.graph_model import GraphRecord, Node, NodeKind, ancestors, forget, new_graph, new_node
from ptx2gcn.runtime.driver.state import Context, driver
from ptx2gcn.runtime.driver.types import CUstream

GLOBAL, THREAD_LOCAL, RELAXED = 0, 1, 2
"""``CUstreamCaptureMode`` values."""
NONE, ACTIVE, INVALIDATED = 0, 1, 2
"""``CUstreamCaptureStatus`` values."""
_LEGACY = (0, 1)
_ids = itertools.count(1)
_thread = threading.local()

StreamKey = tuple[int, int]
"""(stream handle, thread id for the per-thread default stream else 0)."""


@dataclass(eq=False)
class Capture:
    id: int
    graph: GraphRecord
    mode: int
    thread: int
    context: Context
    origin: StreamKey
    frontiers: dict[StreamKey, list[Node]] = field(default_factory=lambda: {})
    blocking: set[StreamKey] = field(default_factory=lambda: set[StreamKey]())
    """Streams of the capture created without ``CU_STREAM_NON_BLOCKING``."""
    invalidated: bool = False


@dataclass(eq=False)
class _Tables:
    streams: dict[StreamKey, Capture] = field(default_factory=lambda: {})
    events: dict[int, tuple[Capture, list[Node]]] = field(default_factory=lambda: {})
    """Event handle -> (capture, frontier) of a ``cuEventRecord`` made on a capturing stream."""


_tables = PerDriver(_Tables)


def _key(value: int) -> StreamKey:
    return (value, threading.get_ident() if value == 2 else 0)


def _stream(hStream: object) -> tuple[StreamKey, Context, bool]:
    """(key, context, blocking) of a stream argument, checked against the current context."""
    state = driver()
    context = state.require_current()
    value = handle(hStream, CUstream, "hStream")
    record = state.stream(value)
    if record is not None and record.context is not context:
        raise CudaError(CUresult.CUDA_ERROR_INVALID_HANDLE, "hStream belongs to another context")
    blocking = record is None or not record.flags & CUstream_flags.CU_STREAM_NON_BLOCKING
    return _key(value), context, blocking


def _invalidate(captures: list[Capture], result: CUresult, why: str) -> CudaError:
    for capture in captures:
        capture.invalidated = True
    return CudaError(result, f"{why}; the capture is invalidated (cuStreamEndCapture returns "
                             "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)")


def thread_mode() -> int:
    return int(getattr(_thread, "mode", GLOBAL))


# -- the API ------------------------------------------------------------------------------------------
def begin_capture(hStream: object, mode: object = GLOBAL) -> None:
    key, context, blocking = _stream(hStream)
    chosen = integer(mode, "mode", 32)
    if chosen not in (GLOBAL, THREAD_LOCAL, RELAXED):
        raise invalid(f"mode = {chosen} is not a CUstreamCaptureMode value")
    if key[0] in _LEGACY:
        raise CudaError(CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "the legacy default stream cannot be captured")
    tables = _tables()
    if key in tables.streams:
        raise CudaError(CUresult.CUDA_ERROR_ILLEGAL_STATE, "hStream is already capturing")
    capture = Capture(next(_ids), new_graph(), chosen, threading.get_ident(), context, key)
    capture.frontiers[key] = []
    if blocking:
        capture.blocking.add(key)
    tables.streams[key] = capture


def begin_capture_legacy(hStream: object) -> None:
    """``cuStreamBeginCapture`` of CUDA 10.0 (no mode argument): global mode."""
    begin_capture(hStream, GLOBAL)


def end_capture(hStream: object) -> int:
    key, _context, _blocking = _stream(hStream)
    tables = _tables()
    capture = tables.streams.get(key)
    if capture is None:
        raise CudaError(CUresult.CUDA_ERROR_ILLEGAL_STATE, "hStream is not capturing")
    if capture.origin != key:
        raise CudaError(
            CUresult.CUDA_ERROR_STREAM_CAPTURE_UNMATCHED,
            "cuStreamEndCapture must be called on the stream that began the capture",
        )
    if capture.mode != RELAXED and capture.thread != threading.get_ident():
        raise CudaError(CUresult.CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, "the capture was begun on another thread")
    joined = ancestors(capture.frontiers[key])
    unjoined = [k for k, frontier in capture.frontiers.items() if any(id(n) not in joined for n in frontier)]
    for stream in capture.frontiers:
        tables.streams.pop(stream, None)
    for event, (owner, _frontier) in list(tables.events.items()):
        if owner is capture:
            del tables.events[event]
    if capture.invalidated:
        forget(capture.graph)
        raise CudaError(CUresult.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "an earlier call invalidated the capture")
    if unjoined:
        forget(capture.graph)
        raise CudaError(
            CUresult.CUDA_ERROR_STREAM_CAPTURE_UNJOINED,
            f"{len(unjoined)} stream(s) forked into the capture were not joined back into the origin stream "
            "(record an event on each and wait for it on the origin stream)",
        )
    return capture.graph.handle


def is_capturing(hStream: object) -> int:
    key, context, _blocking = _stream(hStream)
    if key[0] in _LEGACY and _blocking_captures(context):
        raise CudaError(  # CUDA answers so, without invalidating the capture
            CUresult.CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "the legacy stream synchronises with a capturing stream"
        )
    capture = _tables().streams.get(key)
    return NONE if capture is None else INVALIDATED if capture.invalidated else ACTIVE


def capture_info(hStream: object) -> tuple[int, int, int, list[Node]]:
    """(status, id, graph handle, frontier) of ``hStream``'s capture; (NONE, 0, 0, []) when none."""
    key, _context, _blocking = _stream(hStream)
    capture = _tables().streams.get(key)
    if capture is None:
        return NONE, 0, 0, []
    if capture.invalidated:
        return INVALIDATED, capture.id, 0, []
    return ACTIVE, capture.id, capture.graph.handle, list(capture.frontiers[key])


def exchange_mode(mode: object) -> int:
    chosen = integer(mode, "mode", 32)
    if chosen not in (GLOBAL, THREAD_LOCAL, RELAXED):
        raise invalid(f"mode = {chosen} is not a CUstreamCaptureMode value")
    previous = thread_mode()
    _thread.mode = chosen
    return previous


def update_dependencies(hStream: object, dependencies: list[Node], flags: object) -> None:
    """``cuStreamUpdateCaptureDependencies``: flags 0 adds ``dependencies`` to the stream's frontier,
    1 (``CU_STREAM_SET_CAPTURE_DEPENDENCIES``) replaces it."""
    key, _context, _blocking = _stream(hStream)
    capture = _active(key)
    if capture is None:
        raise CudaError(CUresult.CUDA_ERROR_ILLEGAL_STATE, "hStream is not capturing")
    which = integer(flags, "flags", 32)
    if which not in (0, 1):
        raise invalid(f"flags = {which}: 0 (add) or 1 (set)")
    for node in dependencies:
        if node.graph is not capture.graph:
            raise invalid(f"node 0x{node.handle:x} is not in the capture's graph")
    frontier = [] if which else list(capture.frontiers[key])
    capture.frontiers[key] = frontier + [n for n in dependencies if all(n is not m for m in frontier)]


# -- hooks for stream-ordered calls -----------------------------------------------------------------
def _active(key: StreamKey) -> Capture | None:
    capture = _tables().streams.get(key)
    if capture is not None and capture.invalidated:
        raise CudaError(CUresult.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "the stream's capture was invalidated")
    return capture


def _blocking_captures(context: Context) -> list[Capture]:
    return [c for c in set(_tables().streams.values()) if c.context is context and c.blocking and not c.invalidated]


def _implicit(context: Context) -> None:
    """Work on the legacy default stream waits for every blocking stream: refused during their capture."""
    involved = _blocking_captures(context)
    if involved:
        raise _invalidate(
            involved, CUresult.CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
            "work on the legacy default stream would wait for a capturing stream (create it with "
            "CU_STREAM_NON_BLOCKING, or use another stream)",
        )


def record(hStream: object, kind: NodeKind, make: Callable[[], object]) -> Node | None:
    """If ``hStream`` is capturing, add a ``kind`` node with parameters ``make()`` after its frontier
    and return it (the caller then does not run the work); None when it is not capturing."""
    key, context, _blocking = _stream(hStream)
    if key[0] in _LEGACY:
        _implicit(context)
        return None
    capture = _active(key)
    if capture is None:
        return None
    node = new_node(capture.graph, kind, make(), capture.frontiers[key])
    capture.frontiers[key] = [node]
    return node


def capture_of(hStream: object) -> Capture | None:
    """The valid capture ``hStream`` belongs to (None when none)."""
    return _active(_stream(hStream)[0])


def refuse_during_capture(hStream: object, what: str) -> None:
    """``what`` cannot be captured: on a capturing stream, invalidate and refuse it."""
    key, _context, _blocking = _stream(hStream)
    capture = _tables().streams.get(key)
    if capture is not None:
        raise _invalidate(
            [capture], CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, f"{what} is not allowed on a capturing stream"
        )


def unsafe(what: str) -> None:
    """A potentially unsafe call (see the module docstring): refused when this thread's mode prohibits it."""
    mode = thread_mode()
    if mode == RELAXED:
        return
    me = threading.get_ident()
    involved = [
        c for c in set(_tables().streams.values())
        if not c.invalidated and ((c.thread == me and c.mode != RELAXED) or (mode == GLOBAL and c.mode == GLOBAL))
    ]
    if involved:
        raise _invalidate(
            involved, CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
            f"{what} is not permitted while a stream captures in this mode (cuThreadExchangeStreamCaptureMode "
            "with CU_STREAM_CAPTURE_MODE_RELAXED allows it)",
        )


def legacy_work(what: str) -> None:
    """A synchronous call on the legacy default stream: an unsafe call, and an implicit synchronisation."""
    unsafe(what)
    _implicit(driver().require_current())


# -- events -------------------------------------------------------------------------------------------
def record_event(event: int, hStream: object, external: bool) -> bool:
    """``cuEventRecord`` on a capturing stream: the event holds the stream's frontier (True); with
    ``CU_EVENT_RECORD_EXTERNAL`` an event-record node is added too. False when not capturing."""
    key, context, _blocking = _stream(hStream)
    tables = _tables()
    if key[0] in _LEGACY:
        _implicit(context)
    capture = _active(key)
    if capture is None:
        tables.events.pop(event, None)
        return False
    if external:
        node = new_node(capture.graph, NodeKind.EVENT_RECORD, event, capture.frontiers[key])
        capture.frontiers[key] = [node]
    tables.events[event] = (capture, list(capture.frontiers[key]))
    return True


def wait_event(hStream: object, event: int, external: bool) -> bool:
    """``cuStreamWaitEvent``: True when it was captured (a join or fork, or an event-wait node)."""
    key, context, blocking = _stream(hStream)
    tables = _tables()
    recorded = tables.events.get(event)
    capture = _active(key)
    if recorded is None:
        if capture is not None and external:
            node = new_node(capture.graph, NodeKind.WAIT_EVENT, event, capture.frontiers[key])
            capture.frontiers[key] = [node]
            return True
        return capture is not None  # an event recorded outside the capture: already complete
    owner, frontier = recorded
    if owner.invalidated:
        raise CudaError(CUresult.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "the event's capture was invalidated")
    if capture is None:
        if key[0] in _LEGACY:
            raise _invalidate([owner], CUresult.CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
                              "the legacy default stream cannot join a capture")
        tables.streams[key] = owner
        owner.frontiers[key] = list(frontier)
        if blocking:
            owner.blocking.add(key)
        return True
    if capture is not owner:
        raise _invalidate([capture, owner], CUresult.CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
                          "the event was recorded in another capture")
    current = capture.frontiers[key]
    capture.frontiers[key] = current + [n for n in frontier if all(n is not m for m in current)]
    return True


def captured_event(event: int) -> bool:
    return event in _tables().events


def forget_stream(value: int) -> None:
    """A destroyed stream leaves its capture, which is invalidated."""
    capture = _tables().streams.pop(_key(value), None)
    if capture is not None:
        capture.invalidated = True
