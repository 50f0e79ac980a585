"""The Backend protocol: what the driver API needs from a device, and how one is chosen.

A backend is one opened device: memory (allocate, free, read, write, copy, fill), code (load a
module, look up kernels and globals, unload) and execution (launch with a packed parameter buffer,
synchronise). Three exist: ``emulator`` (ptx2gcn's gfx942 emulator, always available), ``hip`` (an
AMD GPU through libamdhip64) and ``cuda`` (the original PTX on an NVIDIA GPU through cuda-python, for
differential runs). The driver API never imports a backend module until it is chosen.

Choice (``select_backend``): an explicit name wins, else ``PTX2GCN_BACKEND`` (read at the edge:
``cuInit`` or the command line), else ``hip`` when HIP finds an AMD GPU, else ``emulator``. An unknown
name or an unavailable backend raises ``BackendUnavailable`` saying what was tried.

Invariant: every backend method either completes or raises ``BackendError`` (a fault in a kernel,
a failing library call) or ``BackendUnavailable`` (nothing usable); no other exception escapes a
backend for a valid request. Requests are validated by the driver layer first (sizes, handles,
ranges); backends may assume valid requests but still refuse out-of-range memory accesses.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.link.codeobject import Kernel
from ptx2gcn.runtime.kernargs import ParamSlot, explicit_parameter_slots

BackendName = Literal["emulator", "hip", "cuda"]
BACKENDS: dict[str, str] = {
    "emulator": "ptx2gcn.runtime.backends.emulator",
    "hip": "ptx2gcn.runtime.backends.hip",
    "cuda": "ptx2gcn.runtime.backends.cuda",
}
Dim3 = tuple[int, int, int]
MI300X_MEMORY = 192 << 30
MI300X_COMPUTE_UNITS = 304
MI300X_CLOCK_KHZ = 2_100_000


class BackendError(Ptx2GcnError):
    """A backend operation failed (kernel fault, library error); ``kind`` says which CUresult fits:
    ``launch`` (the kernel failed), ``trap`` (the kernel trapped: PTX ``trap``, or ``assert`` before
    its record is read), ``assert`` (a device-side ``assert`` failed), ``address`` (illegal memory
    access), ``hang`` (step budget or timeout), ``instruction`` (illegal instruction), ``memory`` (out
    of memory), ``image`` (unloadable code), ``config`` (a launch the device refuses), ``unsupported``
    (a launch this backend cannot make yet), ``cooperative`` (a cooperative grid larger than fits on
    the device at once)."""

    kind: str = "launch"

    @classmethod
    def of(cls, message: str, kind: str = "launch") -> BackendError:
        error = cls(Ptx2GcnError.at(None, message).diagnostics)
        error.kind = kind
        return error


class BackendUnavailable(Ptx2GcnError):
    """The requested backend cannot run here (no library, no device)."""

    @classmethod
    def because(cls, message: str) -> BackendUnavailable:
        return cls(Ptx2GcnError.at(None, message).diagnostics)


@dataclass(frozen=True, slots=True)
class DeviceProperties:
    """What ``cuDeviceGet*`` reports. Limits are the real ones of the device behind the backend."""

    name: str
    total_memory: int
    multiprocessors: int
    clock_khz: int
    warp_size: int = 32
    """Always 32: PTX programs are written for 32-lane warps; ptx2gcn maps them onto wave64."""
    max_threads_per_block: int = 1024
    max_block: Dim3 = (1024, 1024, 1024)
    max_grid: Dim3 = (2**31 - 1, 65535, 65535)
    shared_memory_per_block: int = 64 * 1024
    registers_per_block: int = 65536
    compute_capability: tuple[int, int] = (8, 0)
    """The PTX target level the device accepts (ptx2gcn accepts PTX written for sm_80 and below)."""
    extra: Mapping[int, int] = field(default_factory=dict[int, int])
    """Further ``CUdevice_attribute`` values by number."""


@dataclass(frozen=True, slots=True)
class KernelInfo:
    """A kernel of a loaded module: its parameters and the ``cuFuncGetAttribute`` values."""

    name: str
    params: tuple[ParamSlot, ...]
    param_buffer_size: int
    max_threads_per_block: int
    shared_bytes: int
    local_bytes: int
    registers: int
    const_bytes: int = 0
    ptx_version: int = 0
    binary_version: int = 0


@dataclass(frozen=True, slots=True)
class ModuleCode:
    """What a backend loads: the PTX (when there is PTX) and, for AMD backends, the code object."""

    name: str
    ptx: str | None
    hsaco: bytes | None


@dataclass(frozen=True, slots=True)
class LaunchResult:
    """Counts from a launch, where the backend has them (the emulator does)."""

    wave_instructions: int | None = None
    waves: int | None = None
    workgroups: int | None = None
    seconds: float | None = None
    mfma_instructions: int | None = None
    mfma_busy_cycles: int | None = None
    """Matrix-core busy cycles (4 per MFMA pass), where the backend counts them."""


LoadedModule = object
"""A backend's handle for a loaded module: opaque to the driver, checked by the backend that made it."""


class Backend(Protocol):
    name: str
    code_format: Literal["hsaco", "ptx"]
    """Which field of ``ModuleCode`` ``load`` needs."""
    properties: DeviceProperties

    def malloc(self, size: int) -> int: ...
    def free(self, address: int) -> None: ...
    def write(self, address: int, data: bytes | memoryview) -> None: ...
    def read(self, address: int, size: int) -> bytes: ...
    def copy(self, destination: int, source: int, size: int) -> None: ...
    def fill(self, address: int, pattern: bytes, count: int) -> None: ...
    def load(self, code: ModuleCode) -> LoadedModule: ...
    def kernels(self, module: LoadedModule) -> Mapping[str, KernelInfo]: ...
    def global_symbol(self, module: LoadedModule, name: str) -> tuple[int, int] | None: ...
    def unload(self, module: LoadedModule) -> None: ...
    def launch(
        self,
        module: LoadedModule,
        kernel: str,
        grid: Dim3,
        block: Dim3,
        shared_bytes: int,
        parameters: bytes,
        cooperative: bool = False,
    ) -> LaunchResult: ...
    def synchronize(self) -> None: ...
    def close(self) -> None: ...


class HostMapping(Protocol):
    """Optional part of a ``Backend``: host memory the device addresses at the host's own address
    (``CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY``; the driver looks for these methods). ``map_host``
    makes caller-owned host memory device-visible (``cuMemHostRegister``; ``flags`` are
    CU_MEMHOSTREGISTER_* bits), ``unmap_host`` undoes it or releases what ``host_alloc`` gave.
    ``host_alloc`` is optional on its own: a backend without it maps host memory the driver
    allocated; with it the backend allocates page-locked (kind ``host``, cuMemHostAlloc flags) or
    managed (kind ``managed``, CUmemAttach_flags) memory itself. The emulator shares the host's
    address space; hip uses hipHostRegister, hipHostMalloc and hipMallocManaged."""

    def map_host(self, address: int, size: int, flags: int = 0) -> None: ...
    def unmap_host(self, address: int) -> None: ...


class Occupancy(Protocol):
    """Optional part of a ``Backend``: its own count of ``kernel``'s blocks that fit on one
    multiprocessor (hip: ``hipModuleOccupancyMaxActiveBlocksPerMultiprocessor``); the driver uses it
    for ``cuOccupancyMaxActiveBlocksPerMultiprocessor`` and a cooperative launch's co-residency limit,
    and its own gfx942 model (``runtime/driver/occupancy.py``) where a backend has none."""

    def max_active_blocks(self, module: LoadedModule, kernel: str, block_size: int, shared_bytes: int) -> int: ...


class BackendFactory(Protocol):
    """Opens devices of one kind: ``device_count()`` without side effects, ``open(ordinal)``."""

    name: str

    def device_count(self) -> int: ...
    def open(self, ordinal: int) -> Backend: ...


def kernel_info(kernel: Kernel) -> KernelInfo:
    """``KernelInfo`` from a code object's metadata (the emulator and HIP backends)."""
    meta = kernel.meta
    slots = tuple(explicit_parameter_slots(meta.args))
    return KernelInfo(
        name=meta.name,
        params=slots,
        param_buffer_size=max((s.offset + s.size for s in slots), default=0),
        max_threads_per_block=min(1024, meta.max_flat_workgroup_size),
        shared_bytes=meta.group_segment_fixed_size,
        local_bytes=meta.private_segment_fixed_size,
        registers=meta.vgpr_count,
    )


def _factory(name: str) -> BackendFactory:
    module_name = BACKENDS.get(name)
    if module_name is None:
        raise BackendUnavailable.because(
            f"unknown backend {name!r} (PTX2GCN_BACKEND or --backend): expected one of " + ", ".join(BACKENDS)
        )
    factory: BackendFactory = importlib.import_module(module_name).FACTORY
    return factory


def _automatic() -> BackendFactory:
    """``hip`` when HIP sees an AMD GPU (only tried where ``/dev/kfd`` exists), else ``emulator``."""
    if Path("/dev/kfd").exists():
        hip = _factory("hip")
        try:
            hip.device_count()
            return hip
        except BackendUnavailable:
            pass
    return _factory("emulator")


def select_backend(name: str | None = None, environ: Mapping[str, str] | None = None) -> BackendFactory:
    """The factory of backend ``name``, else of ``PTX2GCN_BACKEND``, else the automatic choice;
    ``BackendUnavailable`` for an unknown name."""
    env = os.environ if environ is None else environ
    chosen = (name or env.get("PTX2GCN_BACKEND", "")).strip().lower()
    return _factory(chosen) if chosen else _automatic()
