"""A fake ``cuda.bindings.driver`` (just enough of cuda-python for ``ptx2gcn.runtime.backends.cuda``),
used by the cuda-backend tests of tests/driver and tests/run on machines without an NVIDIA GPU.

Invariant: the fake keeps host-side "device" blocks, records every loaded image and launch, and
"runs" only ``vector_add`` (c = a + b over n floats) from the packed parameter buffer passed through
``extra`` (or, for ``cuLaunchCooperativeKernel``, from the per-parameter pointers of ``kernelParams``),
so a wrong parameter layout gives wrong sums; any access outside its blocks fails the test.
"""

from __future__ import annotations

import ctypes
import sys
import types
from typing import Any

import numpy as np
import pytest

from ptx2gcn.runtime.driver.enums import CUdevice_attribute, CUfunction_attribute, CUresult
from ptx2gcn.runtime.driver.types import CUcontext, CUdevice, CUdeviceptr, CUfunction, CUmodule

OK = CUresult.CUDA_SUCCESS
VECTOR_ADD_PARAMS = [(0, 8), (8, 8), (16, 8), (24, 4)]


class FakeDriver:
    """Just enough of cuda.bindings.driver for ptx2gcn.runtime.backends.cuda."""

    CUresult = CUresult
    CUdevice_attribute = CUdevice_attribute
    CUfunction_attribute = CUfunction_attribute
    CUdeviceptr = CUdeviceptr

    def __init__(self) -> None:
        self.memory: dict[int, bytearray] = {}
        self.modules: list[bytes] = []
        self.launches: list[tuple[Any, ...]] = []
        self.next = 0x7F0000000000

    def cuInit(self, flags: int) -> tuple[Any, ...]:
        return (OK,)

    def cuDeviceGetCount(self) -> tuple[Any, ...]:
        return (OK, 1)

    def cuDeviceGet(self, ordinal: int) -> tuple[Any, ...]:
        return (OK, CUdevice(ordinal))

    def cuDevicePrimaryCtxRetain(self, device: CUdevice) -> tuple[Any, ...]:
        return (OK, CUcontext(0x55))

    def cuDevicePrimaryCtxRelease(self, device: CUdevice) -> tuple[Any, ...]:
        return (OK,)

    def cuCtxSetCurrent(self, context: CUcontext) -> tuple[Any, ...]:
        return (OK,)

    def cuCtxSynchronize(self) -> tuple[Any, ...]:
        return (OK,)

    def cuDeviceGetAttribute(self, attribute: CUdevice_attribute, device: CUdevice) -> tuple[Any, ...]:
        values = {
            "MAX_BLOCK_DIM_Z": 64, "COMPUTE_CAPABILITY_MAJOR": 9, "MAX_SHARED_MEMORY_PER_BLOCK": 49152,
            "MULTIPROCESSOR_COUNT": 132, "COOPERATIVE_LAUNCH": 1,
        }
        return (OK, values.get(attribute.name.removeprefix("CU_DEVICE_ATTRIBUTE_"), 1024))

    def cuDeviceGetName(self, length: int, device: CUdevice) -> tuple[Any, ...]:
        return (OK, b"NVIDIA H200\0".ljust(length, b" "))

    def cuDeviceTotalMem(self, device: CUdevice) -> tuple[Any, ...]:
        return (OK, 141 << 30)

    def cuGetErrorString(self, error: CUresult) -> tuple[Any, ...]:
        return (OK, b"fake error")

    def cuMemAlloc(self, size: int) -> tuple[Any, ...]:
        self.next += 0x10000
        self.memory[self.next] = bytearray(size)
        return (OK, CUdeviceptr(self.next))

    def cuMemFree(self, pointer: CUdeviceptr) -> tuple[Any, ...]:
        del self.memory[int(pointer)]
        return (OK,)

    def _at(self, pointer: int, size: int) -> tuple[bytearray, int]:
        for start, block in self.memory.items():
            if start <= pointer and pointer + size <= start + len(block):
                return block, pointer - start
        raise AssertionError(f"fake device: bad access 0x{pointer:x}+{size}")

    def _floats(self, pointer: int, count: int) -> np.ndarray:
        block, offset = self._at(pointer, 4 * count)
        return np.frombuffer(bytes(block[offset : offset + 4 * count]), dtype=np.float32)

    def cuMemcpyHtoD(self, pointer: CUdeviceptr, source: bytes, size: int) -> tuple[Any, ...]:
        block, offset = self._at(int(pointer), size)
        block[offset : offset + size] = bytes(source)[:size]
        return (OK,)

    def cuMemcpyDtoH(self, target: bytearray, pointer: CUdeviceptr, size: int) -> tuple[Any, ...]:
        block, offset = self._at(int(pointer), size)
        target[:size] = block[offset : offset + size]
        return (OK,)

    def cuModuleLoadData(self, image: bytes) -> tuple[Any, ...]:
        if not image.endswith(b"\0") or b".entry vector_add" not in image:
            return (CUresult.CUDA_ERROR_INVALID_PTX, None)
        self.modules.append(image)
        return (OK, CUmodule(len(self.modules)))

    def cuModuleUnload(self, module: CUmodule) -> tuple[Any, ...]:
        return (OK,)

    def cuModuleGetFunction(self, module: CUmodule, name: bytes) -> tuple[Any, ...]:
        return (OK, CUfunction(hash(name) & 0xFFFF))

    def cuFuncGetParamInfo(self, function: CUfunction, index: int) -> tuple[Any, ...]:
        if index >= len(VECTOR_ADD_PARAMS):
            return (CUresult.CUDA_ERROR_INVALID_VALUE, None, None)
        return (OK, *VECTOR_ADD_PARAMS[index])

    def cuFuncGetAttribute(self, attribute: CUfunction_attribute, function: CUfunction) -> tuple[Any, ...]:
        return (OK, 1024 if attribute == CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK else 0)

    def cuModuleGetGlobal(self, module: CUmodule, name: bytes) -> tuple[Any, ...]:
        return (CUresult.CUDA_ERROR_NOT_FOUND, None, None)

    def cuLaunchKernel(self, function: CUfunction, *args: Any) -> tuple[Any, ...]:
        grid, block, shared, params, extra = args[0:3], args[3:6], args[6], args[8], args[9]
        assert params is None and isinstance(extra, int)
        markers = (ctypes.c_void_p * 5).from_address(extra)
        assert (markers[0], markers[2], markers[4]) == (1, 2, None)
        size = ctypes.c_size_t.from_address(markers[3]).value
        buffer = ctypes.string_at(markers[1], size)
        self.launches.append((grid, block, shared, buffer))
        a, b, c = (int.from_bytes(buffer[i : i + 8], "little") for i in (0, 8, 16))
        n = int.from_bytes(buffer[24:28], "little", signed=True)
        total = self._floats(a, n) + self._floats(b, n)
        self.cuMemcpyHtoD(CUdeviceptr(c), total.tobytes(), 4 * n)
        return (OK,)


    def cuOccupancyMaxActiveBlocksPerMultiprocessor(
        self, function: CUfunction, block_size: int, shared: int
    ) -> tuple[Any, ...]:
        return (OK, 2 if block_size <= 512 else 1)

    def cuLaunchCooperativeKernel(self, function: CUfunction, *args: Any) -> tuple[Any, ...]:
        """vector_add from ``kernelParams`` (one pointer per parameter), recorded as launches are."""
        grid, block, shared, params = args[0:3], args[3:6], args[6], args[8]
        assert isinstance(params, int)
        pointers = (ctypes.c_void_p * len(VECTOR_ADD_PARAMS)).from_address(params)
        values = [ctypes.string_at(p, size) for p, (_offset, size) in zip(pointers, VECTOR_ADD_PARAMS, strict=True)]
        self.launches.append((grid, block, shared, b"".join(values), "cooperative"))
        a, b, c = (int.from_bytes(v, "little") for v in values[:3])
        n = int.from_bytes(values[3], "little", signed=True)
        self.cuMemcpyHtoD(CUdeviceptr(c), (self._floats(a, n) + self._floats(b, n)).tobytes(), 4 * n)
        return (OK,)


def install_fake_cuda(monkeypatch: pytest.MonkeyPatch) -> FakeDriver:
    """Make ``import cuda.bindings.driver`` give a new ``FakeDriver`` (until the test ends)."""
    fake = FakeDriver()
    module = types.ModuleType("cuda.bindings.driver")
    for name in dir(fake):
        if name.startswith(("cu", "CU")):
            setattr(module, name, getattr(fake, name))
    monkeypatch.setitem(sys.modules, "cuda.bindings.driver", module)
    return fake
