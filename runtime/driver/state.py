"""The driver's state: initialisation, devices, contexts and every live handle.

One ``Driver`` per process (``driver()``); tests replace it with ``reset(DriverConfig(...))``. Handles
are integers from one counter that never repeats, so a destroyed or unloaded handle can never alias a
live one: using it is ``CUDA_ERROR_INVALID_HANDLE`` (``CUDA_ERROR_INVALID_CONTEXT`` for contexts).
Each thread has its own stack of current contexts, as in CUDA.

Invariant: every record in the tables belongs to a live context (destroying a context removes its
modules, functions, streams, events and allocations); lookups raise ``CudaError`` with the code CUDA
documents, never ``KeyError``.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import threading
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ptx2gcn.options import CompileOptions
from ptx2gcn.runtime.backends.messages import DeviceMessages
from ptx2gcn.runtime.backends.protocol import (
    Backend,
    BackendError,
    BackendFactory,
    BackendUnavailable,
    DeviceProperties,
    KernelInfo,
    LoadedModule,
    select_backend,
)
from ptx2gcn.runtime.cache.jit_cache import JitCache
from ptx2gcn.runtime.driver.enums import CUresult
from ptx2gcn.runtime.driver.errors import CudaError, plain
from ptx2gcn.runtime.driver.jit import Compiler
from ptx2gcn.runtime.driver.module_units import ModuleUnitsCode

_FIRST_HANDLE = 0x7C0000
RecordT = TypeVar("RecordT")


@dataclass(frozen=True, slots=True)
class DriverConfig:
    """How the driver is set up; ``None`` fields are decided at ``cuInit`` from the environment."""

    backend: str | None = None
    factory: BackendFactory | None = None
    compiler: Compiler | None = None
    cache: JitCache | None = None
    options: CompileOptions = field(default_factory=CompileOptions)
    """What modules are compiled with; ``cuModuleLoadDataEx``'s JIT options replace fields of it."""


@dataclass(eq=False)
class MappedBlock:
    """Host memory mapped for the device at its own address (see ``Context.mapped``)."""

    size: int
    kind: str
    """``host`` (driver-allocated page-locked), ``registered`` or ``managed``."""
    flags: int
    keep: object = None
    """The host memory object that owns the bytes (None for registered memory: the caller owns it)."""


@dataclass(eq=False)
class Context:
    handle: int
    device: int
    flags: int
    backend: Backend
    allocations: dict[int, int] = field(default_factory=dict[int, int])
    """Device address -> size of each ``cuMemAlloc`` block."""
    symbols: dict[int, int] = field(default_factory=dict[int, int])
    """Device address -> size of module globals handed out by ``cuModuleGetGlobal``."""
    host_blocks: dict[int, ctypes.Array[ctypes.c_char]] = field(default_factory=lambda: {})
    mapped: dict[int, MappedBlock] = field(default_factory=lambda: {})
    """Host address -> host memory that kernels address directly at that same address: page-locked
    (``cuMemAllocHost``/``cuMemHostAlloc``), registered (``cuMemHostRegister``) or managed
    (``cuMemAllocManaged``) memory, on backends that share the host's address space."""
    modules: set[int] = field(default_factory=set[int])
    streams: set[int] = field(default_factory=set[int])
    events: set[int] = field(default_factory=set[int])
    arrays: dict[int, Any] = field(default_factory=lambda: {})
    """CUDA arrays by handle (``runtime/driver/arrays.py``'s ``ArrayRecord``)."""
    texture_objects: dict[int, Any] = field(default_factory=lambda: {})
    """Texture and surface objects by handle (``runtime/driver/textures.py``'s ``TextureRecord``)."""
    texture_references: dict[int, Any] = field(default_factory=lambda: {})
    """``cuModuleGetTexRef``/``GetSurfRef`` handles (``runtime/driver/texrefs.py``'s ``ReferenceRecord``)."""
    retains: int = 0
    cache_config: int = 0
    """``cuCtxSetCacheConfig``'s preference (a ``CUfunc_cache`` value): recorded, no effect."""
    """For a device's primary context: ``cuDevicePrimaryCtxRetain`` count (0: not a primary context)."""
    messages: DeviceMessages = field(default_factory=DeviceMessages)
    """Device ``printf`` FIFO and its size limit (``cuCtxSetLimit``), used around each launch."""
    fault: CudaError | None = None
    """A kernel fault that ruined this context: CUDA's "sticky" errors (illegal address, illegal
    instruction, launch failure, timeout, a failed device-side assert). Every later call that needs
    the context returns it; only destroying the context (or releasing the primary context) clears it."""


@dataclass(eq=False)
class ModuleRecord:
    handle: int
    context: Context
    name: str
    code: ModuleUnitsCode
    """The module's code: its units, compiled and loaded on first use (the lazy JIT)."""
    const_bytes: int = 0
    """Bytes of the module's ``.const`` variables (``CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES``)."""
    functions: dict[str, int] = field(default_factory=dict[str, int])
    symbols: set[int] = field(default_factory=set[int])
    """Addresses of globals handed out by ``cuModuleGetGlobal`` (valid copy targets until unload)."""


@dataclass(eq=False)
class FunctionRecord:
    handle: int
    module: ModuleRecord
    info: KernelInfo
    loaded: LoadedModule
    """The backend's loaded code that holds this kernel (its unit's)."""
    settings: dict[int, int] = field(default_factory=dict[int, int])
    """``CUfunction_attribute`` -> the value ``cuFuncSetAttribute``/``cuKernelSetAttribute`` set."""


@dataclass(eq=False)
class LibraryRecord:
    """A ``cuLibraryLoadData`` image: context-independent, loaded as a module into each context that
    uses it (``modules``: context handle -> module handle)."""

    handle: int
    data: bytes
    source: str
    options: CompileOptions
    modules: dict[int, int] = field(default_factory=dict[int, int])
    kernels: dict[str, int] = field(default_factory=dict[str, int])
    """Kernel name -> ``CUkernel`` handle (one per name, as CUDA's)."""


@dataclass(eq=False)
class KernelRecord:
    """A ``CUkernel``: a kernel of a library by name, a ``CUfunction`` in whichever context is current."""

    handle: int
    library: LibraryRecord
    name: str


@dataclass(eq=False)
class StreamRecord:
    handle: int
    context: Context
    flags: int


@dataclass(eq=False)
class EventRecord:
    handle: int
    context: Context
    flags: int
    time: float | None = None
    """``time.perf_counter()`` when last recorded (None: never recorded)."""


class Driver:
    """All driver state of one process."""

    def __init__(self, config: DriverConfig | None = None) -> None:
        self.config = config or DriverConfig()
        self.factory: BackendFactory | None = None
        self.contexts: dict[int, Context] = {}
        self.modules: dict[int, ModuleRecord] = {}
        self.functions: dict[int, FunctionRecord] = {}
        self.streams: dict[int, StreamRecord] = {}
        self.events: dict[int, EventRecord] = {}
        self.libraries: dict[int, LibraryRecord] = {}
        self.kernels: dict[int, KernelRecord] = {}
        self.properties: dict[int, DeviceProperties] = {}
        """Device ordinal -> its properties, once a device query had to open it without a context."""
        self.primary: dict[int, int] = {}
        """Device ordinal -> handle of its retained primary context."""
        self.primary_flags: dict[int, int] = {}
        """Device ordinal -> the flags ``cuDevicePrimaryCtxSetFlags`` gave its primary context."""
        self.lock = threading.RLock()
        self.pid = os.getpid()
        """The process that called ``cuInit`` (checked on every call: see ``_same_process``)."""
        self._next = _FIRST_HANDLE
        self._threads = threading.local()

    # -- initialisation -------------------------------------------------------------------------
    def initialise(self) -> None:
        with self.lock:
            if self.factory is not None:
                self._same_process()
                return
            try:
                factory = self.config.factory or select_backend(self.config.backend)
                factory.device_count()  # a backend without devices fails cuInit, as CUDA does
                self.factory = factory
                self.pid = os.getpid()
            except BackendUnavailable as error:
                raise CudaError(CUresult.CUDA_ERROR_NO_DEVICE, plain(error)) from None

    def initialised(self) -> BackendFactory:
        if self.factory is None:
            raise CudaError(CUresult.CUDA_ERROR_NOT_INITIALIZED, "cuInit(0) has not been called")
        self._same_process()
        return self.factory

    def _same_process(self) -> None:
        """CUDA does not survive ``fork``: in a child of a process that called ``cuInit``, every call
        (``cuInit`` included) is ``CUDA_ERROR_NOT_INITIALIZED``, as with NVIDIA's driver."""
        if self.pid != os.getpid():
            raise CudaError(
                CUresult.CUDA_ERROR_NOT_INITIALIZED,
                f"the driver was initialised in process {self.pid}, which forked this one: CUDA does not "
                "survive fork (start child processes with the 'spawn' method)",
            )

    def new_handle(self) -> int:
        with self.lock:
            self._next += 0x10
            return self._next

    # -- devices --------------------------------------------------------------------------------
    def device_count(self) -> int:
        try:
            return self.initialised().device_count()
        except BackendUnavailable as error:
            raise CudaError(CUresult.CUDA_ERROR_NO_DEVICE, plain(error)) from None

    def check_device(self, ordinal: int) -> int:
        count = self.device_count()
        if not 0 <= ordinal < count:
            raise CudaError(
                CUresult.CUDA_ERROR_INVALID_DEVICE,
                f"device {ordinal} requested, but the {self.initialised().name} backend has {count}",
            )
        return ordinal

    # -- current context ------------------------------------------------------------------------
    def _stack(self) -> list[int]:
        stack: list[int] | None = getattr(self._threads, "stack", None)
        if stack is None:
            stack = []
            self._threads.stack = stack
        return stack

    def current(self) -> Context | None:
        stack = self._stack()
        while stack and stack[-1] not in self.contexts:
            stack.pop()  # destroyed on another thread
        return self.contexts[stack[-1]] if stack else None

    def require_current(self) -> Context:
        self.initialised()
        context = self.current()
        if context is None:
            raise CudaError(
                CUresult.CUDA_ERROR_INVALID_CONTEXT,
                "no current context on this thread (call cuCtxCreate or cuCtxSetCurrent)",
            )
        return usable(context)

    def push(self, context: Context) -> None:
        self._stack().append(context.handle)

    def pop(self) -> Context:
        stack = self._stack()
        current = self.current()
        if current is None:
            raise CudaError(CUresult.CUDA_ERROR_INVALID_CONTEXT, "no current context to pop on this thread")
        stack.pop()
        return current

    def set_current(self, context: Context | None) -> None:
        stack = self._stack()
        if stack:
            stack.pop()
        if context is not None:
            stack.append(context.handle)

    # -- lookups --------------------------------------------------------------------------------
    def context(self, handle: int) -> Context:
        return _found(self.contexts, handle, "context", CUresult.CUDA_ERROR_INVALID_CONTEXT)

    def module(self, handle: int) -> ModuleRecord:
        return _found(self.modules, handle, "module", why="is not loaded (never loaded, or unloaded)")

    def function(self, handle: int) -> FunctionRecord:
        return _found(self.functions, handle, "function", why="does not exist (or its module was unloaded)")

    def stream(self, handle: int) -> StreamRecord | None:
        """The stream record; None for the NULL, legacy (1) and per-thread (2) default streams."""
        return None if handle in (0, 1, 2) else _found(self.streams, handle, "stream")

    def event(self, handle: int) -> EventRecord:
        return _found(self.events, handle, "event")

    def library(self, handle: int) -> LibraryRecord:
        return _found(self.libraries, handle, "library", why="is not loaded (never loaded, or unloaded)")

    def kernel(self, handle: int) -> KernelRecord:
        return _found(self.kernels, handle, "kernel", why="does not exist (or its library was unloaded)")

    # -- teardown -------------------------------------------------------------------------------
    def forget_module(self, record: ModuleRecord) -> None:
        for function in record.functions.values():
            self.functions.pop(function, None)
        for address in record.symbols:
            record.context.symbols.pop(address, None)
        self.modules.pop(record.handle, None)
        record.context.modules.discard(record.handle)

    def forget_contents(self, context: Context) -> None:
        """Drop the modules, streams and events of ``context`` from the handle tables."""
        for handle in list(context.modules):
            self.forget_module(self.modules[handle])
        for handle in context.streams:
            self.streams.pop(handle, None)
        for handle in context.events:
            self.events.pop(handle, None)

    def forget_context(self, context: Context) -> None:
        self.forget_contents(context)
        self.contexts.pop(context.handle, None)
        if self.primary.get(context.device) == context.handle:
            del self.primary[context.device]
        stack = self._stack()
        stack[:] = [h for h in stack if h != context.handle]


def usable(context: Context) -> Context:
    """``context``, unless a sticky kernel fault ruined it: then that fault's ``CudaError``."""
    if context.fault is not None:
        raise CudaError(
            context.fault.result,
            f"an earlier kernel fault ruined this context (destroy it, or reset a primary context): "
            f"{context.fault.message}",
        )
    return context


def _found(
    table: dict[int, RecordT],
    handle: int,
    what: str,
    code: CUresult = CUresult.CUDA_ERROR_INVALID_HANDLE,
    why: str = "does not exist (never created, or destroyed)",
) -> RecordT:
    """``table[handle]``, or the CudaError ``code`` saying that the ``what`` 0x``handle`` ``why``."""
    found = table.get(handle)
    if found is None:
        raise CudaError(code, f"{what} 0x{handle:x} {why}")
    return found


_driver = Driver()


def driver() -> Driver:
    return _driver


def reset(config: DriverConfig | None = None) -> Driver:
    """Drop all state (contexts, modules, memory) and start over with ``config``: for tests and tools."""
    global _driver
    with _driver.lock:
        for context in list(_driver.contexts.values()):
            with contextlib.suppress(BackendError):  # best effort on teardown
                context.backend.close()
        _driver = Driver(config)
    return _driver
