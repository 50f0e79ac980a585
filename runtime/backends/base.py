"""What the three backends share behind the ``Backend`` protocol: module records, kernel look-up,
waiting for every launch, and copies and fills staged through host memory.

Invariant: a backend derived from ``BackendBase`` accepts in ``kernels``, ``global_symbol``,
``unload`` and ``launch`` only a module record of its own ``record_type`` (anything else is a
``BackendError`` of kind ``image``, via ``own_module``), and ``launch`` returns only after the device
finished the kernel (``synchronize``), so the driver layer always sees completed work. ``copy`` and
``fill`` are correct on every backend through ``read``/``write``; a backend with native ones (cuda)
overrides them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ptx2gcn.runtime.backends.protocol import BackendError, Dim3, KernelInfo, LaunchResult

HandleT = TypeVar("HandleT")
FunctionT = TypeVar("FunctionT")
RecordT = TypeVar("RecordT", bound="BackendModule[Any, Any]")
ModuleT = TypeVar("ModuleT")


def own_module(module: object, kind: type[ModuleT]) -> ModuleT:
    """``module`` as a backend's own module type; a module of another backend is a BackendError."""
    if not isinstance(module, kind):
        raise BackendError.of(f"not a module of this backend: {module!r}", "image")
    return module


@dataclass(eq=False)
class BackendModule(Generic[HandleT, FunctionT]):
    """A loaded module as its backend keeps it. Each backend subclasses it, so that a record of one
    backend is refused by another."""

    handle: HandleT
    """The backend's own module (a HIP/CUDA module handle, an emulator ``Program``)."""
    kernels: dict[str, KernelInfo]
    functions: dict[str, FunctionT] = field(default_factory=lambda: {})
    """Per-kernel launch handles, where the backend has them (HIP, CUDA)."""


class BackendBase(ABC, Generic[RecordT]):
    """Shared part of a backend; a subclass sets ``record_type`` (as a class attribute) and implements
    the rest of ``Backend`` plus ``_start`` (begin one launch on a record of its own)."""

    record_type: type[RecordT]

    @abstractmethod
    def read(self, address: int, size: int) -> bytes: ...

    @abstractmethod
    def write(self, address: int, data: bytes | memoryview) -> None: ...

    @abstractmethod
    def synchronize(self) -> None: ...

    @abstractmethod
    def _start(
        self, record: RecordT, kernel: str, grid: Dim3, block: Dim3, shared_bytes: int, parameters: bytes,
        cooperative: bool = False,
    ) -> LaunchResult: ...

    def _module(self, module: object) -> RecordT:
        return own_module(module, self.record_type)

    def kernels(self, module: object) -> Mapping[str, KernelInfo]:
        return self._module(module).kernels

    def copy(self, destination: int, source: int, size: int) -> None:
        if size:
            self.write(destination, self.read(source, size))

    def fill(self, address: int, pattern: bytes, count: int) -> None:
        if count:
            self.write(address, pattern * count)

    def launch(
        self, module: object, kernel: str, grid: Dim3, block: Dim3, shared_bytes: int, parameters: bytes,
        cooperative: bool = False,
    ) -> LaunchResult:
        result = self._start(self._module(module), kernel, grid, block, shared_bytes, parameters, cooperative)
        self.synchronize()
        return result
