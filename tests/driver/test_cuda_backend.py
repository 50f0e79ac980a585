"""The cuda backend's calls into cuda-python, against a fake ``cuda.bindings.driver`` (no NVIDIA GPU
here): the PTX reaches cuModuleLoadData unchanged and NUL-terminated, parameter layouts come from
cuFuncGetParamInfo, and launches pass the packed buffer through ``extra``. The fake "runs"
vector_add on the host from that buffer, so a wrong layout gives wrong sums."""

from __future__ import annotations

import ctypes
import sys
import types
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from ptx2gcn import cuda
from ptx2gcn.runtime.driver_enums import CUdevice_attribute, CUfunction_attribute, CUresult
from ptx2gcn.runtime.driver_state import DriverConfig, reset
from ptx2gcn.runtime.driver_types import CUcontext, CUdevice, CUdeviceptr, CUfunction, CUmodule
from tests.driver.conftest import KERNELS_PTX, fails, ok

OK = CUresult.CUDA_SUCCESS
VECTOR_ADD_PARAMS = [(0, 8), (8, 8), (16, 8), (24, 4)]


class FakeDriver:
    """Just enough of cuda.bindings.driver for ptx2gcn.runtime.backend_cuda."""

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
        values = {"MAX_BLOCK_DIM_Z": 64, "COMPUTE_CAPABILITY_MAJOR": 9, "MAX_SHARED_MEMORY_PER_BLOCK": 49152}
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
        load = lambda p: np.frombuffer(bytes(self._at(p, 4 * n)[0][: 4 * n]), dtype=np.float32)
        self.cuMemcpyHtoD(CUdeviceptr(c), (load(a) + load(b)).tobytes(), 4 * n)
        return (OK,)


@pytest.fixture
def fake_cuda(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDriver]:
    fake = FakeDriver()
    module = types.ModuleType("cuda.bindings.driver")
    for name in dir(fake):
        if name.startswith(("cu", "CU")):
            setattr(module, name, getattr(fake, name))
    monkeypatch.setitem(sys.modules, "cuda.bindings.driver", module)
    reset(DriverConfig(backend="cuda"))
    yield fake
    reset()


def test_vector_add_on_the_cuda_backend(fake_cuda: FakeDriver) -> None:
    ok(cuda.cuInit(0))
    context = ok(cuda.cuCtxCreate(0, 0))
    assert ok(cuda.cuDeviceGetName(64, 0)).split(b"\0")[0] == b"NVIDIA H200"
    assert ok(cuda.cuDeviceGetAttribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 0)) == 64
    module = ok(cuda.cuModuleLoad(str(KERNELS_PTX)))
    assert fake_cuda.modules == [KERNELS_PTX.read_bytes() + b"\0"]  # the original PTX, unchanged
    function = ok(cuda.cuModuleGetFunction(module, b"vector_add"))
    a, b = np.arange(10, dtype=np.float32), np.full(10, 0.5, dtype=np.float32)
    pointers = [ok(cuda.cuMemAlloc(40)) for _ in range(3)]
    ok(cuda.cuMemcpyHtoD(pointers[0], a, 40))
    ok(cuda.cuMemcpyHtoD(pointers[1], b, 40))
    ok(
        cuda.cuLaunchKernel(
            function, 1, 1, 1, 32, 1, 1, 0, 0, ((*pointers, 10), (None, None, None, ctypes.c_int)), 0
        )
    )
    out = np.zeros(10, dtype=np.float32)
    ok(cuda.cuMemcpyDtoH(out, pointers[2], 40))
    assert out.tolist() == (a + b).tolist()
    grid, block, shared, buffer = fake_cuda.launches[0]
    assert (grid, block, shared, len(buffer)) == ((1, 1, 1), (32, 1, 1), 0, 28)
    fails(
        cuda.cuLaunchKernel(
            function, 1, 1, 1, 32, 1, 128, 0, 0, ((*pointers, 10), (None,) * 3 + (ctypes.c_int,)), 0
        ),
        CUresult.CUDA_ERROR_INVALID_VALUE,
        "blockDimZ = 128 is outside 1..64",
    )
    fails(
        cuda.cuModuleLoadData(b"\x7fELF" + bytes(14) + (224).to_bytes(2, "little") + bytes(44)),
        CUresult.CUDA_ERROR_NO_BINARY_FOR_GPU,
        "cuda backend",
    )
    ok(cuda.cuCtxDestroy(context))


@pytest.mark.gpu
def test_vector_add_on_a_real_nvidia_gpu() -> None:
    """Differential check on an NVIDIA machine: the cuda backend and the emulator agree bit for bit."""
    from ptx2gcn.runtime.backend import BackendUnavailable
    from ptx2gcn.runtime.backend_cuda import FACTORY

    try:
        FACTORY.device_count()
    except BackendUnavailable as error:
        pytest.skip(str(error))
    results = []
    for backend in ("cuda", "emulator"):
        reset(DriverConfig(backend=backend))
        try:
            ok(cuda.cuInit(0))
            context = ok(cuda.cuCtxCreate(0, 0))
            function = ok(cuda.cuModuleGetFunction(ok(cuda.cuModuleLoad(str(KERNELS_PTX))), b"vector_add"))
            n = 4096
            a, b = np.random.default_rng(9).random((2, n), dtype=np.float32)
            pointers = [ok(cuda.cuMemAlloc(4 * n)) for _ in range(3)]
            ok(cuda.cuMemcpyHtoD(pointers[0], a, 4 * n))
            ok(cuda.cuMemcpyHtoD(pointers[1], b, 4 * n))
            args = ((*pointers, n), (None, None, None, ctypes.c_int))
            ok(cuda.cuLaunchKernel(function, n // 256, 1, 1, 256, 1, 1, 0, 0, args, 0))
            out = np.zeros(n, dtype=np.float32)
            ok(cuda.cuMemcpyDtoH(out, pointers[2], 4 * n))
            results.append(out)
            ok(cuda.cuCtxDestroy(context))
        finally:
            reset()
    assert results[0].tobytes() == results[1].tobytes()
