"""HIP backend: load a code object on an AMD GPU and launch a kernel, through ctypes over
``libamdhip64.so`` (the HIP module API; ROCm ``hip_runtime_api.h``).

Kernel arguments are passed as one packed parameter buffer (``ptx2gcn.runtime.kernargs``) through
``hipModuleLaunchKernel``'s ``extra`` array: ``HIP_LAUNCH_PARAM_BUFFER_POINTER, &buffer,
HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END`` (HIP's values 1, 2, 3; CUDA's end marker
is 0). ``hipModuleLaunchCooperativeKernel`` takes no ``extra``: it gets ``kernelParams``, one pointer
per explicit argument (``ptx2gcn.runtime.kernargs.ParameterPointers``). Host memory for the device
goes through hipHostMalloc/hipHostRegister/hipHostGetDevicePointer/hipMallocManaged.

Invariant: every HIP call's status is checked; a failure raises ``HipError`` naming the call and
HIP's error name and text. A missing library or GPU is a ``HipError`` that says what was tried
("no AMD GPU found: hipGetDeviceCount returned ..."), never an ``OSError`` or a crash. Loading this
module does not load HIP; ``HipDevice.open`` does.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.runtime.kernargs import ParameterBuffer

HIP_LAUNCH_PARAM_END = 0x03
HIP_SUCCESS = 0
HIP_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720
HIP_HOST_MALLOC_MAPPED = 0x02
"""``hipHostMallocMapped`` (also ``hipHostRegisterMapped``); the other flags of both calls have CUDA's
values: portable 0x1, write-combined (alloc) / I/O memory (register) 0x4, read-only (register) 0x8."""
HIP_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM = 4
HIP_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 10
HIP_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 63
"""``hipDeviceAttribute_t`` values (hip_runtime_api.h: the enum counts up from EccEnabled = 0)."""
HIP_ERROR_NO_DEVICE = 100
HIP_ERROR_INVALID_DEVICE = 101
HIP_ERROR_NOT_INITIALIZED = 3
HIP_ERROR_NO_BINARY_FOR_GPU = 209

_c_void_pp = ctypes.POINTER(ctypes.c_void_p)
_c_uint = ctypes.c_uint
# name → (argument types); every function returns hipError_t (int) except the two string lookups.
_SIGNATURES: dict[str, list[type]] = {
    "hipInit": [_c_uint],
    "hipGetDeviceCount": [ctypes.POINTER(ctypes.c_int)],
    "hipSetDevice": [ctypes.c_int],
    "hipDeviceGetName": [ctypes.c_char_p, ctypes.c_int, ctypes.c_int],
    "hipModuleLoadData": [_c_void_pp, ctypes.c_void_p],
    "hipModuleUnload": [ctypes.c_void_p],
    "hipModuleGetFunction": [_c_void_pp, ctypes.c_void_p, ctypes.c_char_p],
    "hipModuleLaunchKernel": [
        ctypes.c_void_p,
        _c_uint,
        _c_uint,
        _c_uint,
        _c_uint,
        _c_uint,
        _c_uint,
        _c_uint,
        ctypes.c_void_p,
        _c_void_pp,
        _c_void_pp,
    ],
    "hipMalloc": [_c_void_pp, ctypes.c_size_t],
    "hipFree": [ctypes.c_void_p],
    "hipMemcpyHtoD": [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t],
    "hipMemcpyDtoH": [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t],
    "hipDeviceSynchronize": [],
    "hipDeviceGetAttribute": [ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_int],
    "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor": [
        ctypes.POINTER(ctypes.c_int), ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t,
    ],
    "hipHostMalloc": [_c_void_pp, ctypes.c_size_t, _c_uint],
    "hipHostFree": [ctypes.c_void_p],
    "hipHostRegister": [ctypes.c_void_p, ctypes.c_size_t, _c_uint],
    "hipHostUnregister": [ctypes.c_void_p],
    "hipHostGetDevicePointer": [_c_void_pp, ctypes.c_void_p, _c_uint],
    "hipMallocManaged": [_c_void_pp, ctypes.c_size_t, _c_uint],
}
_OPTIONAL: dict[str, list[type]] = {
    "hipModuleLaunchCooperativeKernel": [
        ctypes.c_void_p, _c_uint, _c_uint, _c_uint, _c_uint, _c_uint, _c_uint, _c_uint, ctypes.c_void_p, _c_void_pp,
    ],
}
"""Entry points newer than the rest, typed where the library has them (ROCm 5.2, Debian's
libamdhip64-5, lacks hipModuleLaunchCooperativeKernel); ``HipLibrary.has`` says which."""
_STRINGS = ("hipGetErrorString", "hipGetErrorName")


class HipError(Ptx2GcnError):
    """HIP is missing, finds no GPU, or a HIP call failed (``status``: the hipError_t, where one)."""

    status: int | None = None

    @classmethod
    def plain(cls, message: str, status: int | None = None) -> HipError:
        error = cls(Ptx2GcnError.at(None, message).diagnostics)
        error.status = status
        return error


def library_candidates(explicit: str | None = None) -> list[str]:
    """Where to look for the HIP runtime, in order: an explicit path, then the usual sonames, then
    ``$ROCM_PATH/lib`` and ``/opt/rocm/lib``."""
    if explicit:
        return [explicit]
    names = ["libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"]
    roots = [os.environ.get("ROCM_PATH", ""), "/opt/rocm"]
    return names + [str(Path(root) / "lib" / name) for root in roots if root for name in names[:1]]


class HipLibrary:
    """The loaded ``libamdhip64`` with typed entry points."""

    def __init__(self, explicit: str | None = None) -> None:
        tried: list[str] = []
        found: tuple[str, ctypes.CDLL] | None = None
        for candidate in library_candidates(explicit):
            try:
                found = candidate, ctypes.CDLL(candidate)
                break
            except OSError as error:
                tried.append(f"{candidate} ({error})" if explicit else candidate)
        if found is None:
            raise HipError.plain(
                f"HIP runtime not found (tried {', '.join(tried)}); install ROCm, or Debian's "
                "libamdhip64-5, to run on an AMD GPU"
            )
        self.path, handle = found
        self._lib = handle
        missing = [name for name in (*_SIGNATURES, *_STRINGS) if not hasattr(handle, name)]
        if missing:
            raise HipError.plain(f"{self.path} is not a usable HIP runtime: it lacks {', '.join(missing)}")
        for name, argtypes in {**_SIGNATURES, **{n: t for n, t in _OPTIONAL.items() if hasattr(handle, n)}}.items():
            function = getattr(handle, name)
            function.argtypes = argtypes
            function.restype = ctypes.c_int
        for name in _STRINGS:
            function = getattr(handle, name)
            function.argtypes = [ctypes.c_int]
            function.restype = ctypes.c_char_p

    def has(self, name: str) -> bool:
        return hasattr(self._lib, name)

    def error_text(self, status: int) -> str:
        name = (self._lib.hipGetErrorName(status) or b"?").decode("utf-8", "replace")
        text = (self._lib.hipGetErrorString(status) or b"").decode("utf-8", "replace")
        return f"{name} ({status}: {text})" if text and text != name else f"{name} ({status})"

    def call(self, name: str, *args: object) -> None:
        status = int(getattr(self._lib, name)(*args))
        if status != HIP_SUCCESS:
            raise HipError.plain(f"{name} failed: {self.error_text(status)}", status)

    def raw(self, name: str, *args: object) -> int:
        return int(getattr(self._lib, name)(*args))


@dataclass(frozen=True, slots=True)
class Module:
    handle: int


@dataclass(frozen=True, slots=True)
class Function:
    handle: int
    name: str


class HipDevice:
    """One AMD GPU through HIP. ``HipDevice.open()`` checks that a device exists."""

    def __init__(self, library: HipLibrary, ordinal: int) -> None:
        self.hip = library
        self.ordinal = ordinal

    @classmethod
    def open(cls, ordinal: int = 0, library: str | None = None) -> HipDevice:
        hip = HipLibrary(library)
        init = hip.raw("hipInit", 0)
        count = ctypes.c_int(0)
        status = hip.raw("hipGetDeviceCount", ctypes.byref(count))
        if status != HIP_SUCCESS:
            raise HipError.plain(
                f"no AMD GPU found: hipGetDeviceCount returned {hip.error_text(status)}"
                + (f" (hipInit returned {hip.error_text(init)})" if init != HIP_SUCCESS else "")
            )
        if count.value == 0:
            raise HipError.plain("no AMD GPU found: hipGetDeviceCount returned 0 devices")
        if init != HIP_SUCCESS:
            raise HipError.plain(f"hipInit failed: {hip.error_text(init)}")
        if not 0 <= ordinal < count.value:
            raise HipError.plain(f"AMD GPU {ordinal} requested, but HIP sees {count.value} device(s)")
        hip.call("hipSetDevice", ordinal)
        return cls(hip, ordinal)

    def name(self) -> str:
        buffer = ctypes.create_string_buffer(256)
        self.hip.call("hipDeviceGetName", buffer, len(buffer), self.ordinal)
        return buffer.value.decode("utf-8", "replace")

    # -- memory -------------------------------------------------------------------------------------
    def malloc(self, size: int) -> int:
        pointer = ctypes.c_void_p()
        self.hip.call("hipMalloc", ctypes.byref(pointer), max(size, 1))
        return int(pointer.value or 0)

    def free(self, address: int) -> None:
        self.hip.call("hipFree", ctypes.c_void_p(address))

    def copy_to_device(self, address: int, data: bytes) -> None:
        if data:
            self.hip.call("hipMemcpyHtoD", ctypes.c_void_p(address), ctypes.c_char_p(data), len(data))

    def copy_from_device(self, address: int, size: int) -> bytes:
        buffer = ctypes.create_string_buffer(size)
        if size:
            self.hip.call("hipMemcpyDtoH", buffer, ctypes.c_void_p(address), size)
        return buffer.raw

    # -- code ---------------------------------------------------------------------------------------
    def load_module(self, code_object: bytes) -> Module:
        handle = ctypes.c_void_p()
        image = ctypes.create_string_buffer(code_object, len(code_object))
        status = self.hip.raw("hipModuleLoadData", ctypes.byref(handle), image)
        if status == HIP_ERROR_NO_BINARY_FOR_GPU:
            raise HipError.plain(
                f"hipModuleLoadData failed: {self.hip.error_text(status)}: the code object "
                f"was built for another GPU architecture than this {self.name()}"
            )
        if status != HIP_SUCCESS:
            raise HipError.plain(f"hipModuleLoadData failed: {self.hip.error_text(status)}")
        return Module(int(handle.value or 0))

    def unload_module(self, module: Module) -> None:
        self.hip.call("hipModuleUnload", ctypes.c_void_p(module.handle))

    def get_function(self, module: Module, name: str) -> Function:
        handle = ctypes.c_void_p()
        self.hip.call(
            "hipModuleGetFunction", ctypes.byref(handle), ctypes.c_void_p(module.handle), name.encode()
        )
        return Function(int(handle.value or 0), name)

    def launch(
        self,
        function: Function,
        grid: Sequence[int],
        block: Sequence[int],
        parameters: bytes,
        shared_bytes: int = 0,
    ) -> None:
        """Launch on the null stream with the packed parameter buffer; returns without waiting."""
        gx, gy, gz = _dims(grid, "grid")
        bx, by, bz = _dims(block, "block")
        packed = ParameterBuffer(parameters, HIP_LAUNCH_PARAM_END)
        self.hip.call(
            "hipModuleLaunchKernel",
            ctypes.c_void_p(function.handle),
            gx,
            gy,
            gz,
            bx,
            by,
            bz,
            shared_bytes,
            None,
            None,
            ctypes.cast(packed.extra, _c_void_pp),
        )

    def launch_cooperative(
        self,
        function: Function,
        grid: Sequence[int],
        block: Sequence[int],
        kernel_params: int,
        shared_bytes: int = 0,
    ) -> None:
        """``hipModuleLaunchCooperativeKernel`` on the null stream: every block resident at once, HIP
        filling ``hidden_multigrid_sync_arg``. It takes ``kernelParams`` (``void**``, one pointer per
        explicit argument), not ``extra``. A grid larger than fits raises naming
        hipErrorCooperativeLaunchTooLarge."""
        if not self.hip.has("hipModuleLaunchCooperativeKernel"):
            raise HipError.plain(
                f"{self.hip.path} lacks hipModuleLaunchCooperativeKernel: cooperative launches need a "
                "newer HIP runtime (ROCm 6)"
            )
        gx, gy, gz = _dims(grid, "grid")
        bx, by, bz = _dims(block, "block")
        self.hip.call(
            "hipModuleLaunchCooperativeKernel",
            ctypes.c_void_p(function.handle), gx, gy, gz, bx, by, bz, shared_bytes, None,
            ctypes.cast(ctypes.c_void_p(kernel_params), _c_void_pp),
        )

    def max_active_blocks(self, function: Function, block_size: int, shared_bytes: int) -> int:
        """``hipModuleOccupancyMaxActiveBlocksPerMultiprocessor``: blocks of ``block_size`` work-items
        with ``shared_bytes`` of dynamic LDS that fit on one CU at once."""
        blocks = ctypes.c_int(0)
        self.hip.call(
            "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor",
            ctypes.byref(blocks), ctypes.c_void_p(function.handle), block_size, shared_bytes,
        )
        return int(blocks.value)

    def attribute(self, attribute: int) -> int:
        value = ctypes.c_int(0)
        self.hip.call("hipDeviceGetAttribute", ctypes.byref(value), attribute, self.ordinal)
        return int(value.value)

    def synchronize(self) -> None:
        self.hip.call("hipDeviceSynchronize")

    # -- host memory the device addresses ---------------------------------------------------------
    def host_malloc(self, size: int, flags: int) -> int:
        """``hipHostMalloc``: page-locked host memory (``flags``: hipHostMalloc* bits)."""
        pointer = ctypes.c_void_p()
        self.hip.call("hipHostMalloc", ctypes.byref(pointer), max(size, 1), flags)
        return int(pointer.value or 0)

    def host_free(self, address: int) -> None:
        self.hip.call("hipHostFree", ctypes.c_void_p(address))

    def host_register(self, address: int, size: int, flags: int) -> None:
        self.hip.call("hipHostRegister", ctypes.c_void_p(address), size, flags)

    def host_unregister(self, address: int) -> None:
        self.hip.call("hipHostUnregister", ctypes.c_void_p(address))

    def host_device_pointer(self, address: int) -> int:
        """``hipHostGetDevicePointer``: where the device sees mapped host memory at ``address``."""
        pointer = ctypes.c_void_p()
        self.hip.call("hipHostGetDevicePointer", ctypes.byref(pointer), ctypes.c_void_p(address), 0)
        return int(pointer.value or 0)

    def malloc_managed(self, size: int, flags: int) -> int:
        """``hipMallocManaged`` (``flags``: hipMemAttachGlobal 0x1 or hipMemAttachHost 0x2, CUDA's values)."""
        pointer = ctypes.c_void_p()
        self.hip.call("hipMallocManaged", ctypes.byref(pointer), max(size, 1), flags)
        return int(pointer.value or 0)


def _dims(values: Sequence[object], what: str) -> tuple[int, int, int]:
    """Up to three launch dimensions, padded with 1; each a positive 32-bit integer (checked: callers
    may pass user data)."""
    dims = [v for v in [*values, 1, 1, 1][:3] if isinstance(v, int) and 1 <= v < 1 << 32]
    if len(values) > 3 or len(dims) != 3:
        raise HipError.plain(f"{what} must be 1 to 3 positive 32-bit integers, got {list(values)}")
    return dims[0], dims[1], dims[2]
