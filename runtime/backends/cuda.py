"""The ``cuda`` backend: the original PTX on an NVIDIA GPU through cuda-python, for differential runs
and for recording golden outputs of case files.

It loads the PTX itself (``cuModuleLoadData``: NVIDIA's own JIT), finds each ``.entry``'s parameter
layout with ``cuFuncGetParamInfo`` and launches with the packed buffer through ``extra``
(``CU_LAUNCH_PARAM_BUFFER_POINTER``), so the same parameter bytes reach both vendors' kernels; a
cooperative launch goes through ``cuLaunchCooperativeKernel``, which takes no ``extra``, with one
pointer per parameter into that buffer (``kernelParams``), and its co-residency limit is NVIDIA's
``cuOccupancyMaxActiveBlocksPerMultiprocessor``. It works in the device's primary context and waits
for every launch.

Invariant: without cuda-python (``cuda.bindings``) or without an NVIDIA GPU, ``device_count``/``open``
raise ``BackendUnavailable`` saying which; failed driver calls later raise ``BackendError`` naming the
call and CUDA's error name. Importing this module imports nothing from cuda-python.
"""

from __future__ import annotations

import ctypes
import importlib
import re
from typing import Any, Literal, cast

from ptx2gcn.runtime.backends.base import BackendBase, BackendModule
from ptx2gcn.runtime.backends.protocol import (
    BackendError,
    BackendUnavailable,
    DeviceProperties,
    Dim3,
    KernelInfo,
    LaunchResult,
    ModuleCode,
)
from ptx2gcn.runtime.driver.enums import CU_LAUNCH_PARAM_END
from ptx2gcn.runtime.kernargs import ParameterBuffer, ParameterPointers, ParamSlot

_ENTRY = re.compile(r"\.entry\s+([A-Za-z_$%][\w$]*)\s*\(")
_KINDS = {
    "CUDA_ERROR_ILLEGAL_ADDRESS": "address",
    "CUDA_ERROR_LAUNCH_TIMEOUT": "hang",
    "CUDA_ERROR_ILLEGAL_INSTRUCTION": "instruction",
    "CUDA_ERROR_ASSERT": "assert",  # the real driver printed the message; 710 passes through
    "CUDA_ERROR_OUT_OF_MEMORY": "memory",
    "CUDA_ERROR_INVALID_PTX": "image",
    "CUDA_ERROR_INVALID_IMAGE": "image",
    "CUDA_ERROR_NO_BINARY_FOR_GPU": "image",
    "CUDA_ERROR_INVALID_VALUE": "config",
    "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE": "cooperative",
}


def bindings() -> Any:
    """cuda-python's driver module (``cuda.bindings.driver``, or ``cuda.cuda`` before 12.6)."""
    for name in ("cuda.bindings.driver", "cuda.cuda"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise BackendUnavailable.because(
        "cuda backend: cuda-python is not installed (pip install cuda-python); it is needed only to "
        "run PTX on an NVIDIA GPU for comparison"
    )


def _checked(cu: Any, result: Any, call: str, kind: str = "launch") -> Any:
    parts = cast(tuple[Any, ...], result) if isinstance(result, tuple) else (result,)
    status, *values = parts
    if int(status) != 0:
        name = getattr(status, "name", str(int(status)))
        _err, text = cu.cuGetErrorString(status)
        detail = text.decode() if isinstance(text, bytes) else str(text)
        raise BackendError.of(f"{call} failed: {name} ({detail})", _KINDS.get(name, kind))
    return values[0] if len(values) == 1 else tuple(values)


class CudaModule(BackendModule[Any, Any]):
    """PTX loaded by NVIDIA's JIT (``cuModuleLoadData``), with its kernels' ``CUfunction`` handles."""


class CudaBackend(BackendBase[CudaModule]):
    name = "cuda"
    code_format: Literal["hsaco", "ptx"] = "ptx"
    record_type = CudaModule

    def __init__(self, cu: Any, ordinal: int) -> None:
        self.cu = cu
        self.device = _checked(cu, cu.cuDeviceGet(ordinal), "cuDeviceGet")
        self.context = _checked(cu, cu.cuDevicePrimaryCtxRetain(self.device), "cuDevicePrimaryCtxRetain")
        self._current()
        attribute = cu.CUdevice_attribute

        def get(name: str) -> int:
            return int(_checked(cu, cu.cuDeviceGetAttribute(getattr(attribute, name), self.device), name))

        raw_name = _checked(cu, cu.cuDeviceGetName(256, self.device), "cuDeviceGetName")
        self.properties = DeviceProperties(
            name=bytes(raw_name).split(b"\0", 1)[0].decode(errors="replace"),
            total_memory=int(_checked(cu, cu.cuDeviceTotalMem(self.device), "cuDeviceTotalMem")),
            multiprocessors=get("CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT"),
            clock_khz=get("CU_DEVICE_ATTRIBUTE_CLOCK_RATE"),
            max_threads_per_block=get("CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK"),
            max_block=(
                get("CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X"),
                get("CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y"),
                get("CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z"),
            ),
            max_grid=(
                get("CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X"),
                get("CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y"),
                get("CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z"),
            ),
            shared_memory_per_block=get("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK"),
            compute_capability=(
                get("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR"),
                get("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR"),
            ),
            extra={
                int(attribute.CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH): get("CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH")
            },
        )

    def _current(self) -> None:
        _checked(self.cu, self.cu.cuCtxSetCurrent(self.context), "cuCtxSetCurrent")

    def _call(self, name: str, *args: Any, kind: str = "launch") -> Any:
        self._current()
        return _checked(self.cu, getattr(self.cu, name)(*args), name, kind)

    # -- memory ---------------------------------------------------------------------------------
    def malloc(self, size: int) -> int:
        return int(self._call("cuMemAlloc", size, kind="memory"))

    def free(self, address: int) -> None:
        self._call("cuMemFree", self.cu.CUdeviceptr(address))

    def write(self, address: int, data: bytes | memoryview) -> None:
        payload = bytes(data)
        if payload:
            self._call("cuMemcpyHtoD", self.cu.CUdeviceptr(address), payload, len(payload))

    def read(self, address: int, size: int) -> bytes:
        buffer = bytearray(size)
        if size:
            self._call("cuMemcpyDtoH", buffer, self.cu.CUdeviceptr(address), size)
        return bytes(buffer)

    def copy(self, destination: int, source: int, size: int) -> None:
        self._call("cuMemcpyDtoD", self.cu.CUdeviceptr(destination), self.cu.CUdeviceptr(source), size)

    def fill(self, address: int, pattern: bytes, count: int) -> None:
        value = int.from_bytes(pattern, "little")
        call = {1: "cuMemsetD8", 2: "cuMemsetD16", 4: "cuMemsetD32"}[len(pattern)]
        self._call(call, self.cu.CUdeviceptr(address), value, count)

    # -- code -----------------------------------------------------------------------------------
    def load(self, code: ModuleCode) -> CudaModule:
        if code.ptx is None:
            raise BackendError.of(
                f"{code.name}: the cuda backend runs PTX, and this module has none", "image"
            )
        handle = self._call("cuModuleLoadData", code.ptx.encode() + b"\0", kind="image")
        functions: dict[str, Any] = {}
        kernels: dict[str, KernelInfo] = {}
        for name in dict.fromkeys(_ENTRY.findall(code.ptx)):
            function = self._call("cuModuleGetFunction", handle, name.encode(), kind="image")
            functions[name] = function
            kernels[name] = self._kernel_info(name, function)
        return CudaModule(handle, kernels, functions)

    def _kernel_info(self, name: str, function: Any) -> KernelInfo:
        slots: list[ParamSlot] = []
        while True:
            status, offset, size = self.cu.cuFuncGetParamInfo(function, len(slots))
            if int(status) != 0:
                break
            align = 8
            while align > 1 and (offset % align or align > size):
                align //= 2
            slots.append(ParamSlot(int(offset), int(size), align))
        attribute = self.cu.CUfunction_attribute

        def get(key: str) -> int:
            return int(self._call("cuFuncGetAttribute", getattr(attribute, key), function))

        return KernelInfo(
            name=name,
            params=tuple(slots),
            param_buffer_size=max((s.offset + s.size for s in slots), default=0),
            max_threads_per_block=get("CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK"),
            shared_bytes=get("CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES"),
            local_bytes=get("CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES"),
            registers=get("CU_FUNC_ATTRIBUTE_NUM_REGS"),
            const_bytes=get("CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES"),
            ptx_version=get("CU_FUNC_ATTRIBUTE_PTX_VERSION"),
            binary_version=get("CU_FUNC_ATTRIBUTE_BINARY_VERSION"),
        )

    def global_symbol(self, module: object, name: str) -> tuple[int, int] | None:
        self._current()
        status, pointer, size = self.cu.cuModuleGetGlobal(self._module(module).handle, name.encode())
        return (int(pointer), int(size)) if int(status) == 0 else None

    def unload(self, module: object) -> None:
        self._call("cuModuleUnload", self._module(module).handle)

    # -- execution ------------------------------------------------------------------------------
    def _start(
        self, record: CudaModule, kernel: str, grid: Dim3, block: Dim3, shared_bytes: int, parameters: bytes,
        cooperative: bool = False,
    ) -> LaunchResult:
        if cooperative:
            pointers = ParameterPointers(parameters, record.kernels[kernel].params)
            self._call(
                "cuLaunchCooperativeKernel", record.functions[kernel], *grid, *block, shared_bytes, 0,
                pointers.address,
            )
            return LaunchResult()
        packed = ParameterBuffer(parameters, CU_LAUNCH_PARAM_END)
        self._call(
            "cuLaunchKernel",
            record.functions[kernel],
            *grid,
            *block,
            shared_bytes,
            0,
            None,
            ctypes.addressof(packed.extra),
        )
        return LaunchResult()

    def max_active_blocks(self, module: object, kernel: str, block_size: int, shared_bytes: int) -> int:
        """NVIDIA's occupancy answer (``protocol.Occupancy``)."""
        function = self._module(module).functions[kernel]
        return int(self._call("cuOccupancyMaxActiveBlocksPerMultiprocessor", function, block_size, shared_bytes))

    def synchronize(self) -> None:
        self._call("cuCtxSynchronize")

    def close(self) -> None:
        _checked(self.cu, self.cu.cuDevicePrimaryCtxRelease(self.device), "cuDevicePrimaryCtxRelease")


class CudaFactory:
    name = "cuda"

    def device_count(self) -> int:
        cu = bindings()
        status = cu.cuInit(0)[0]
        if int(status) != 0:
            raise BackendUnavailable.because(
                f"cuda backend: cuInit failed ({getattr(status, 'name', status)}); no NVIDIA driver or GPU"
            )
        status, count = cu.cuDeviceGetCount()
        if int(status) != 0 or count == 0:
            raise BackendUnavailable.because("cuda backend: no NVIDIA GPU found")
        return int(count)

    def open(self, ordinal: int) -> CudaBackend:
        self.device_count()
        return CudaBackend(bindings(), ordinal)


FACTORY = CudaFactory()
