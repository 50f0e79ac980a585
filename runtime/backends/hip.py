"""The ``hip`` backend: an AMD GPU through ``ptx2gcn.runtime.backends.hip_ctypes`` (ctypes over libamdhip64).

Code objects are loaded with ``hipModuleLoadData``; kernels' parameter layouts come from the code
object's own metadata (``ptx2gcn.link.codeobject``), launches go through ``hipModuleLaunchKernel`` with
the packed parameter buffer (cooperative ones through ``hipModuleLaunchCooperativeKernel``, one pointer
per argument; HIP fills ``hidden_multigrid_sync_arg``: docs/launch-abi.md) and are waited for
(``hipDeviceSynchronize``), so the driver layer sees finished work as with the emulator. Page-locked,
registered and managed memory are mapped at the host's own address (``protocol.HostMapping``:
hipHostMalloc, hipHostRegister, hipMallocManaged, checked with hipHostGetDevicePointer).
Device-to-device copies and fills go through host memory (correct, not fast). A kernel that traps
(``s_trap 2``: PTX ``trap``, a failed ``assert``) is reported as a failed launch where the HIP runtime
returns an error for it (ROCr's default queue-error handler may end the process instead); the driver
layer then reads the assertion record through ``hipModuleGetGlobal`` and reports CUDA_ERROR_ASSERT
(``ptx2gcn.runtime.backends.messages``).

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
from ptx2gcn.runtime.backends.hip_ctypes import (
    HIP_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM,
    HIP_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH,
    HIP_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
    HIP_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
    HIP_HOST_MALLOC_MAPPED,
    Function,
    HipDevice,
    HipError,
    HipLibrary,
    Module,
)
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
from ptx2gcn.runtime.driver.enums import CUdevice_attribute as A
from ptx2gcn.runtime.driver.errors import plain
from ptx2gcn.runtime.kernargs import ParameterPointers

T = TypeVar("T")
HIP_SUCCESS = 0
_HOST_RELEASE = {"host": "host_free", "registered": "host_unregister", "managed": "free"}
"""How each kind of host-mapped block is given back to HIP (see ``map_host``/``host_alloc``)."""
_COOPERATIVE_KINDS: dict[int | None, str] = {HIP_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE: "cooperative", None: "unsupported"}
"""A failed cooperative launch's BackendError kind by hipError_t; None: the library lacks the call."""


class HipModule(BackendModule[Module, Function]):
    """A code object loaded through ``hipModuleLoadData``, with its kernels' function handles."""


class HipBackend(BackendBase[HipModule]):
    name = "hip"
    code_format: Literal["hsaco", "ptx"] = "hsaco"
    record_type = HipModule

    def __init__(self, device: HipDevice) -> None:
        self.device = device
        self.host_blocks: dict[int, str] = {}
        """Host address -> kind (``host``, ``registered``, ``managed``) of each block mapped for the device."""
        total = ctypes.c_size_t(0)
        status = self._optional("hipDeviceTotalMem", ctypes.byref(total), device.ordinal)
        units = device.attribute(HIP_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)  # a HipError here: unavailable
        self.properties = DeviceProperties(
            name=device.name(),
            total_memory=int(total.value) if status == HIP_SUCCESS else MI300X_MEMORY,
            multiprocessors=units or MI300X_COMPUTE_UNITS,
            clock_khz=MI300X_CLOCK_KHZ,
            max_block=(1024, 1024, 1024),
            extra={**MI300X_ATTRIBUTES, **self._host_attributes()},
        )

    def _host_attributes(self) -> dict[int, int]:
        """What HIP says of cooperative launch and of host memory mapped at the host's own address:
        the driver maps, registers and allocates managed memory only where both addresses agree."""
        launcher = self.device.hip.has("hipModuleLaunchCooperativeKernel")
        cooperative = launcher and self.device.attribute(HIP_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)
        same_address = self.device.attribute(HIP_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM)
        mapped = {
            A.CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: 1,
            A.CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED: 1,
            A.CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED: 1,
            A.CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: 1,
            A.CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: 1,
        }
        return {A.CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: int(cooperative != 0), **(mapped if same_address else {})}

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

    # -- host memory the device addresses (one address for both, as unified addressing has it) ------
    def _same_address(self, address: int, release: Callable[[], None]) -> None:
        device = self._hip(lambda: self.device.host_device_pointer(address))
        if device != address:
            self._hip(release)
            raise BackendError.of(
                f"hipHostGetDevicePointer gives 0x{device:x} for host memory at 0x{address:x}: the driver "
                "needs host-mapped memory at the host's own address (unified addressing)", "unsupported"
            )

    def map_host(self, address: int, size: int, flags: int = 0) -> None:
        """``cuMemHostRegister``: ``hipHostRegister`` with hipHostRegisterMapped added (CUDA maps every
        registration on a device with unified addressing); the other flag bits are CUDA's and HIP's alike."""
        self._hip(lambda: self.device.host_register(address, size, flags | HIP_HOST_MALLOC_MAPPED), "memory")
        self._same_address(address, lambda: self.device.host_unregister(address))
        self.host_blocks[address] = "registered"

    def host_alloc(self, size: int, kind: str, flags: int) -> int:
        """Page-locked host memory the device addresses: ``hipHostMalloc`` with hipHostMallocMapped
        (kind ``host``; ``flags`` are cuMemHostAlloc's, the same bits as hipHostMalloc's), or
        ``hipMallocManaged`` (kind ``managed``; ``flags`` the CUmemAttach_flags, HIP's values too)."""
        if kind == "managed":
            address = self._hip(lambda: self.device.malloc_managed(size, flags), "memory")
        else:
            address = self._hip(lambda: self.device.host_malloc(size, flags | HIP_HOST_MALLOC_MAPPED), "memory")
            self._same_address(address, lambda: self.device.host_free(address))
        self.host_blocks[address] = kind
        return address

    def unmap_host(self, address: int) -> None:
        """Give a block of ``map_host``/``host_alloc`` back: hipHostUnregister, hipHostFree or hipFree."""
        release = getattr(self.device, _HOST_RELEASE[self.host_blocks.pop(address)])
        self._hip(lambda: release(address))

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
        function = record.functions[kernel]
        if not cooperative:
            self._hip(lambda: self.device.launch(function, grid, block, parameters, shared_bytes))
            return LaunchResult()
        pointers = ParameterPointers(parameters, record.kernels[kernel].params)
        try:
            self.device.launch_cooperative(function, grid, block, pointers.address, shared_bytes)
        except HipError as error:
            raise BackendError.of(plain(error), _COOPERATIVE_KINDS.get(error.status, "launch")) from None
        return LaunchResult()

    def max_active_blocks(self, module: object, kernel: str, block_size: int, shared_bytes: int) -> int:
        """HIP's own occupancy answer for ``kernel`` (the co-residency limit of a cooperative launch)."""
        function = self._module(module).functions[kernel]
        return int(self._hip(lambda: self.device.max_active_blocks(function, block_size, shared_bytes), "config"))

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
