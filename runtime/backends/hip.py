"""The ``hip`` backend: an AMD GPU through ``ptx2gcn.runtime.backends.hip_ctypes`` (ctypes over libamdhip64).

Code objects are loaded with ``hipModuleLoadData``; kernels' parameter layouts come from the code
object's own metadata (``ptx2gcn.link.codeobject``), launches go through ``hipModuleLaunchKernel`` with
the packed parameter buffer and are waited for (``hipDeviceSynchronize``), so the driver layer sees
finished work as with the emulator. Device-to-device copies and fills go through host memory
(correct, not fast). A kernel that traps (``s_trap 2``: PTX ``trap``, a failed ``assert``) is reported
as a failed launch where the HIP runtime returns an error for it (ROCr's default queue-error handler
may end the process instead); the driver layer then reads the assertion record through
``hipModuleGetGlobal`` and reports CUDA_ERROR_ASSERT (``ptx2gcn.runtime.backends.messages``).

Invariant: without libamdhip64 or without a GPU, ``device_count``/``open`` raise
``BackendUnavailable`` carrying HipError's explanation (what was tried); HIP call failures later are
``BackendError``. Nothing here loads HIP at import time.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Literal, TypeVar

from ptx2gcn.link.codeobject import CodeObjectError, read_code_object
from ptx2gcn.runtime.backends.base import BackendBase, BackendModule
from ptx2gcn.runtime.backends.hip_ctypes import Function, HipDevice, HipError, HipLibrary, Module
from ptx2gcn.runtime.backends.mi300x_attributes import MI300X_ATTRIBUTES
from ptx2gcn.runtime.backends.protocol import (
    MI300X_CLOCK_KHZ,
    MI300X_COMPUTE_UNITS,
    MI300X_MEMORY,
    BackendError,
    BackendUnavailable,
    DeviceProperties,
    Dim3,
    LaunchResult,
    ModuleCode,
    kernel_info,
)
from ptx2gcn.runtime.driver.errors import plain

T = TypeVar("T")
HIP_SUCCESS = 0


class HipModule(BackendModule[Module, Function]):
    """A code object loaded through ``hipModuleLoadData``, with its kernels' function handles."""


class HipBackend(BackendBase[HipModule]):
    name = "hip"
    code_format: Literal["hsaco", "ptx"] = "hsaco"
    record_type = HipModule

    def __init__(self, device: HipDevice) -> None:
        self.device = device
        total = ctypes.c_size_t(0)
        status = self._optional("hipDeviceTotalMem", ctypes.byref(total), device.ordinal)
        self.properties = DeviceProperties(
            name=device.name(),
            total_memory=int(total.value) if status == HIP_SUCCESS else MI300X_MEMORY,
            multiprocessors=MI300X_COMPUTE_UNITS,
            clock_khz=MI300X_CLOCK_KHZ,
            max_block=(1024, 1024, 1024),
            extra=MI300X_ATTRIBUTES,
        )

    def _optional(self, name: str, *args: object) -> int | None:
        """Status of a HIP call that ``ptx2gcn.runtime.backends.hip_ctypes`` does not declare (None if the library
        lacks it: a test double, an old ROCm)."""
        try:
            return self.device.hip.raw(name, *args)
        except AttributeError:
            return None

    def _hip(self, action: Callable[[], T], kind: str = "launch") -> T:
        try:
            return action()
        except HipError as error:
            raise BackendError.of(plain(error), kind) from None

    def malloc(self, size: int) -> int:
        return int(self._hip(lambda: self.device.malloc(size), "memory"))

    def free(self, address: int) -> None:
        self._hip(lambda: self.device.free(address))

    def write(self, address: int, data: bytes | memoryview) -> None:
        self._hip(lambda: self.device.copy_to_device(address, bytes(data)))

    def read(self, address: int, size: int) -> bytes:
        return bytes(self._hip(lambda: self.device.copy_from_device(address, size)))

    def load(self, code: ModuleCode) -> HipModule:
        image = code.hsaco
        if image is None:
            raise BackendError.of(f"{code.name}: no code object to load", "image")
        try:
            parsed = read_code_object(image, code.name)
        except CodeObjectError as error:
            raise BackendError.of(plain(error), "image") from None
        module = self._hip(lambda: self.device.load_module(image), "image")
        functions: dict[str, Function] = {}
        for name in parsed.kernels:
            try:
                functions[name] = self.device.get_function(module, name)
            except HipError as error:
                raise BackendError.of(plain(error), "image") from None
        return HipModule(module, {n: kernel_info(k) for n, k in parsed.kernels.items()}, functions)

    def global_symbol(self, module: object, name: str) -> tuple[int, int] | None:
        pointer, size = ctypes.c_void_p(), ctypes.c_size_t()
        status = self._optional(
            "hipModuleGetGlobal",
            ctypes.byref(pointer),
            ctypes.byref(size),
            ctypes.c_void_p(self._module(module).handle.handle),
            name.encode(),
        )
        return (int(pointer.value or 0), int(size.value)) if status == HIP_SUCCESS else None

    def unload(self, module: object) -> None:
        loaded = self._module(module).handle
        self._hip(lambda: self.device.unload_module(loaded))

    def _start(
        self, record: HipModule, kernel: str, grid: Dim3, block: Dim3, shared_bytes: int, parameters: bytes,
        cooperative: bool = False,
    ) -> LaunchResult:
        if cooperative:
            raise BackendError.of(
                "cooperative launches are not supported on the hip backend yet: "
                "HIP fills hidden_multigrid_sync_arg with its own grid-sync structure, "
                "not the workspace nvcc's grid.sync() counts in", "unsupported"
            )
        function = record.functions[kernel]
        self._hip(lambda: self.device.launch(function, grid, block, parameters, shared_bytes))
        return LaunchResult()

    def synchronize(self) -> None:
        self._hip(self.device.synchronize)

    def close(self) -> None:
        """HIP releases the context's memory when the process ends; nothing to do per context."""


class HipFactory:
    name = "hip"

    def __init__(self, library: str | None = None) -> None:
        self.library = library

    def device_count(self) -> int:
        try:
            hip = HipLibrary(self.library)
        except HipError as error:
            raise BackendUnavailable.because(f"hip backend: {error}") from None
        hip.raw("hipInit", 0)
        count = ctypes.c_int(0)
        status = hip.raw("hipGetDeviceCount", ctypes.byref(count))
        if status != HIP_SUCCESS or count.value == 0:
            detail = hip.error_text(status) if status != HIP_SUCCESS else "0 devices"
            raise BackendUnavailable.because(
                f"hip backend: no AMD GPU found: hipGetDeviceCount returned {detail}"
            )
        return int(count.value)

    def open(self, ordinal: int) -> HipBackend:
        try:
            return HipBackend(HipDevice.open(ordinal, self.library))
        except HipError as error:
            raise BackendUnavailable.because(f"hip backend: {error}") from None


FACTORY = HipFactory()
