"""The ``emulator`` backend: ptx2gcn's gfx942 emulator behind the Backend protocol.

One backend instance is one emulated MI300X: a ``DeviceMemory`` shared by every module and launch,
code objects loaded with the emulator's ``load`` and mapped into that memory once, and launches run
to completion before ``launch`` returns (so streams and events see finished work). Launches are
numbered from 0 per device: that is each one's dispatch id (PTX ``%gridid``).

Invariant: every emulator failure leaves as ``BackendError`` whose ``kind`` says what happened
(``address`` for an out-of-bounds access, ``hang`` for an exhausted step budget, ``instruction`` for an
undecodable instruction, ``trap`` for ``s_trap``, ``launch`` otherwise) and whose message is the emulator's located one
(kernel, work-group, wave, lane, PC, instruction).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Literal, TypeVar

from ptx2gcn.link.codeobject import CodeObjectError
from ptx2gcn.link.elf import STT_OBJECT
from ptx2gcn.runtime.backends.base import BackendBase, BackendModule
from ptx2gcn.runtime.backends.mi300x_attributes import MI300X_ATTRIBUTES
from ptx2gcn.runtime.backends.protocol import (
    MI300X_CLOCK_KHZ,
    MI300X_COMPUTE_UNITS,
    MI300X_MEMORY,
    BackendError,
    DeviceProperties,
    Dim3,
    LaunchResult,
    ModuleCode,
    kernel_info,
)
from ptx2gcn.runtime.driver.enums import CUdevice_attribute as A
from ptx2gcn.runtime.driver.errors import plain
from ptx2gcn.runtime.emulator.errors import (
    AccessFault,
    EmulatorError,
    EmulatorFault,
    KernelHang,
    KernelTrap,
    LaunchError,
    UnknownInstruction,
)
from ptx2gcn.runtime.emulator.executor import DEFAULT_STEP_BUDGET
from ptx2gcn.runtime.emulator.launch import MAX_LDS_BYTES, launch
from ptx2gcn.runtime.emulator.loader import Program, load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

GRID_SYNC_WORKSPACE = 16
"""Bytes of a cooperative launch's grid-sync workspace: nvcc's grid barrier counts in the u32 at
offset 4 (``%envreg1:%envreg2`` + 4); the rest is zero, as CUDA's driver hands it over."""

T = TypeVar("T")


def _host_memory() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return MI300X_MEMORY


def emulator_properties() -> DeviceProperties:
    """An MI300X as the emulator models it; memory is bounded by the host's, which backs it."""
    return DeviceProperties(
        name="AMD Instinct MI300X (gfx942, ptx2gcn emulator)",
        total_memory=min(MI300X_MEMORY, _host_memory()),
        multiprocessors=MI300X_COMPUTE_UNITS,
        clock_khz=MI300X_CLOCK_KHZ,
        max_block=(1024, 1024, 1024),
        shared_memory_per_block=MAX_LDS_BYTES,
        extra={**MI300X_ATTRIBUTES, **ONE_ADDRESS_SPACE, A.CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: 1},
    )


ONE_ADDRESS_SPACE: dict[int, int] = {
    A.CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: 1,
    A.CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: 1,
    A.CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED: 1,  # pinned host pools (driver/mempool.py)
    A.CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED: 1,
    A.CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: 1,
    A.CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST: 1,
    A.CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED: 1,
    A.CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED: 1,
}
"""What the emulator adds to an MI300X's attributes: it runs in the host process, so mapped, registered
and managed memory are host memory that kernels address directly (``map_host``)."""


class EmulatorModule(BackendModule[Program, None]):
    """A code object loaded by the emulator's loader and mapped into the backend's memory."""


class EmulatorBackend(BackendBase[EmulatorModule]):
    name = "emulator"
    code_format: Literal["hsaco", "ptx"] = "hsaco"
    record_type = EmulatorModule

    def __init__(
        self, trace: Callable[[str], None] | None = None, step_budget: int = DEFAULT_STEP_BUDGET
    ) -> None:
        self.properties = emulator_properties()
        self.memory = DeviceMemory()
        self.trace = trace
        self.step_budget = step_budget
        self.allocated = 0
        self.launches = 0
        """Dispatches so far: the next launch's dispatch id (PTX ``%gridid``)."""

    # -- memory ---------------------------------------------------------------------------------
    def malloc(self, size: int) -> int:
        if self.allocated + size > self.properties.total_memory:
            raise BackendError.of(
                f"cannot allocate {size} bytes: {self.allocated} of "
                f"{self.properties.total_memory} bytes are in use",
                "memory",
            )
        try:
            address = self.memory.alloc(size, 256)
        except MemoryError:
            raise BackendError.of(f"the host has no memory left for {size} more bytes", "memory") from None
        self.allocated += size
        return address

    def free(self, address: int) -> None:
        size = dict(self.memory.allocations()).get(address, 0)
        self._guard(lambda: self.memory.free(address))
        self.allocated -= size

    def map_host(self, address: int, size: int, flags: int = 0) -> None:
        """Host memory of this process becomes device memory at the same address (one address space;
        ``flags`` change nothing here)."""
        self._guard(lambda: self.memory.map_host(address, size))

    def unmap_host(self, address: int) -> None:
        self._guard(lambda: self.memory.free(address))

    def write(self, address: int, data: bytes | memoryview) -> None:
        self._guard(lambda: self.memory.write(address, bytes(data)))

    def read(self, address: int, size: int) -> bytes:
        return self._guard(lambda: self.memory.read(address, size))

    @staticmethod
    def _guard(action: Callable[[], T]) -> T:
        try:
            return action()
        except AccessFault as fault:
            raise BackendError.of(str(fault), "address") from None
        except EmulatorError as error:
            raise BackendError.of(str(error), "address") from None

    # -- code -----------------------------------------------------------------------------------
    def load(self, code: ModuleCode) -> EmulatorModule:
        if code.hsaco is None:
            raise BackendError.of(f"{code.name}: no code object to load", "image")
        try:
            program = load(code.hsaco, code.name)
        except CodeObjectError as error:
            raise BackendError.of(plain(error), "image") from None
        program.map_into(self.memory)
        return EmulatorModule(program, {name: kernel_info(k) for name, k in program.kernels.items()})

    def global_symbol(self, module: object, name: str) -> tuple[int, int] | None:
        program = self._module(module).handle
        base = program.map_into(self.memory)
        for symbol in program.code_object.elf.symtab:
            if symbol.name == name and symbol.defined and symbol.type == STT_OBJECT:
                return base + symbol.value, symbol.size
        return None

    def unload(self, module: object) -> None:
        """The image stays mapped (the emulator never reuses addresses); only the handle goes."""

    # -- execution ------------------------------------------------------------------------------
    def _start(
        self, record: EmulatorModule, kernel: str, grid: Dim3, block: Dim3, shared_bytes: int, parameters: bytes,
        cooperative: bool = False,
    ) -> LaunchResult:
        # A cooperative launch gets a zeroed grid-sync workspace (what nvcc's grid.sync() counts in,
        # docs/launch-abi.md "Cooperative launches"); all its work-groups are resident together.
        workspace = self.memory.alloc(GRID_SYNC_WORKSPACE, 64) if cooperative else 0
        if workspace:
            self.memory.write(workspace, bytes(GRID_SYNC_WORKSPACE))
        try:
            stats = launch(
                record.handle,
                kernel,
                grid,
                block,
                parameters,
                dynamic_lds=shared_bytes,
                memory=self.memory,
                trace=self.trace is not None,
                trace_sink=self.trace or print,
                step_budget=self.step_budget,
                dispatch_id=self._next_dispatch_id(),
                grid_sync=workspace,
            )
        except LaunchError as error:
            raise BackendError.of(str(error), "config") from None
        except KernelHang as error:
            raise BackendError.of(str(error), "hang") from None
        except UnknownInstruction as error:
            raise BackendError.of(str(error), "instruction") from None
        except KernelTrap as error:
            raise BackendError.of(str(error), "trap") from None
        except EmulatorFault as error:
            kind = "address" if error.address is not None or "access" in str(error) else "launch"
            raise BackendError.of(str(error), kind) from None
        except EmulatorError as error:
            raise BackendError.of(str(error), "launch") from None
        finally:
            if workspace:
                self.memory.free(workspace)
        return LaunchResult(stats.wave_instructions, stats.waves, stats.workgroups, stats.seconds,
                            stats.mfma_instructions, stats.mfma_busy_cycles)

    def _next_dispatch_id(self) -> int:
        dispatch_id = self.launches
        self.launches += 1
        return dispatch_id

    def synchronize(self) -> None:
        """Launches finish before ``launch`` returns."""

    def close(self) -> None:
        self.memory = DeviceMemory()


class EmulatorFactory:
    name = "emulator"

    def __init__(self, trace: Callable[[str], None] | None = None) -> None:
        self.trace = trace

    def device_count(self) -> int:
        return 1

    def open(self, ordinal: int) -> EmulatorBackend:
        return EmulatorBackend(self.trace)


FACTORY = EmulatorFactory()
