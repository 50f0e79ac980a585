"""Module loading (PTX text, file, fatbin, code object; JIT options), functions, globals and
attributes, with the error paths: bad images, cubin-only fatbins, compile errors with the log,
unloaded modules, unknown names."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ptx2gcn import cuda
from ptx2gcn.compiler import compile as compile_ptx
from tests.driver.conftest import DATA, KERNELS_PTX, fails, ok
from tests.runtime.toolchain import nvcc_run

R = cuda.CUresult
J = cuda.CUjit_option
F = cuda.CUfunction_attribute
BAD_PTX = b""".version 8.0
.target sm_80
.address_size 64
.visible .entry broken(.param .u64 p)
{
    add.s33 %r1, %r2, 1;
    ret;
}
"""


@pytest.fixture(scope="session")
def nvcc_fatbins(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("fatbins")
    built = {}
    for name, code in (("ptx", "compute_80"), ("sass", "sm_80")):
        target = out / f"{name}.fatbin"
        nvcc_run("-fatbin", f"-gencode=arch=compute_80,code={code}", str(DATA / "kernels.cu"), "-o", str(target))
        built[name] = target
    return built


def _kernels(module: cuda.CUmodule) -> set[str]:
    return {
        name
        for name in ("vector_add", "block_sum", "scale_add", "poke")
        if cuda.cuModuleGetFunction(module, name.encode())[0] == R.CUDA_SUCCESS
    }


def test_load_forms(context: cuda.CUcontext) -> None:
    text = KERNELS_PTX.read_bytes()
    every = {"vector_add", "block_sum", "scale_add", "poke"}
    assert _kernels(ok(cuda.cuModuleLoad(str(KERNELS_PTX)))) == every
    assert _kernels(ok(cuda.cuModuleLoad(str(KERNELS_PTX).encode()))) == every
    assert _kernels(ok(cuda.cuModuleLoadData(text))) == every
    assert _kernels(ok(cuda.cuModuleLoadData(np.char.array(text)))) == every  # cuda-python's own example
    assert _kernels(ok(cuda.cuModuleLoadData(text.decode()))) == every
    buffer = np.frombuffer(text + b"\0", dtype=np.uint8)
    assert (
        _kernels(ok(cuda.cuModuleLoadData(int(buffer.ctypes.data)))) == every
    )  # void* to NUL-terminated PTX
    hsaco = compile_ptx(KERNELS_PTX).data
    assert _kernels(ok(cuda.cuModuleLoadData(hsaco))) == every
    image = np.frombuffer(hsaco, dtype=np.uint8)  # an ELF by address: its headers give its size
    assert _kernels(ok(cuda.cuModuleLoadData(int(image.ctypes.data)))) == every


def test_load_fatbin(context: cuda.CUcontext, nvcc_fatbins: dict[str, Path]) -> None:
    data = nvcc_fatbins["ptx"].read_bytes()
    assert _kernels(ok(cuda.cuModuleLoadFatBinary(data))) == {"vector_add", "block_sum", "scale_add", "poke"}
    in_memory = np.frombuffer(data, dtype=np.uint8)  # as a C program hands it over: a pointer
    assert "poke" in _kernels(ok(cuda.cuModuleLoadFatBinary(int(in_memory.ctypes.data))))
    assert "vector_add" in _kernels(ok(cuda.cuModuleLoad(str(nvcc_fatbins["ptx"]))))
    message = fails(
        cuda.cuModuleLoadFatBinary(nvcc_fatbins["sass"].read_bytes()),
        R.CUDA_ERROR_NO_BINARY_FOR_GPU,
        "no PTX",
    )
    assert "compute_80" in message


def test_load_errors(context: cuda.CUcontext, tmp_path: Path) -> None:
    fails(cuda.cuModuleLoad(str(tmp_path / "missing.ptx")), R.CUDA_ERROR_FILE_NOT_FOUND, "missing.ptx")
    fails(cuda.cuModuleLoad(42), R.CUDA_ERROR_INVALID_VALUE, "path")
    fails(cuda.cuModuleLoadData(b"hello world"), R.CUDA_ERROR_INVALID_IMAGE, "not PTX")
    fails(cuda.cuModuleLoadData(None), R.CUDA_ERROR_INVALID_VALUE)
    fails(cuda.cuModuleLoadData(3.5), R.CUDA_ERROR_INVALID_VALUE, "float")
    cubin = b"\x7fELF" + bytes(14) + (190).to_bytes(2, "little") + bytes(44)  # e_machine = EM_CUDA
    fails(cuda.cuModuleLoadData(cubin), R.CUDA_ERROR_NO_BINARY_FOR_GPU, "cubin")
    # A lazy load checks declarations; a body's error surfaces when its kernel is compiled (docs/jit.md).
    broken = ok(cuda.cuModuleLoadData(BAD_PTX))
    message = fails(cuda.cuModuleGetFunction(broken, b"broken"), R.CUDA_ERROR_INVALID_PTX, ":6:")
    assert "^" in message  # the caret excerpt of the located diagnostic


def test_error_log_buffer(context: cuda.CUcontext) -> None:
    log = bytearray(4096)
    result = cuda.cuModuleLoadDataEx(
        BAD_PTX, 2, [J.CU_JIT_ERROR_LOG_BUFFER, J.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES], [log, len(log)]
    )
    fails(result, R.CUDA_ERROR_INVALID_PTX)
    text = bytes(log).split(b"\0")[0].decode()
    assert ":6:" in text and "error" in text
    small = bytearray(16)
    fails(
        cuda.cuModuleLoadDataEx(
            BAD_PTX, 2, [J.CU_JIT_ERROR_LOG_BUFFER, J.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES], [small, 16]
        ),
        R.CUDA_ERROR_INVALID_PTX,
    )
    assert small[15] == 0 and small[:15] == text.encode()[:15]  # truncated, NUL-terminated
    module = ok(cuda.cuModuleLoadDataEx(KERNELS_PTX.read_bytes(), 1, [J.CU_JIT_OPTIMIZATION_LEVEL], [2]))
    assert "poke" in _kernels(module)
    fails(
        cuda.cuModuleLoadDataEx(BAD_PTX, 2, [J.CU_JIT_ERROR_LOG_BUFFER], [log]),
        R.CUDA_ERROR_INVALID_VALUE,
        "numOptions",
    )
    fails(cuda.cuModuleLoadDataEx(BAD_PTX, 1, [999], [0]), R.CUDA_ERROR_INVALID_VALUE, "CUjit_option")


def test_functions_globals_unload(module: cuda.CUmodule) -> None:
    function = ok(cuda.cuModuleGetFunction(module, b"vector_add"))
    assert ok(cuda.cuModuleGetFunction(module, "vector_add")) == function
    fails(cuda.cuModuleGetFunction(module, b"nope"), R.CUDA_ERROR_NOT_FOUND, "kernels: block_sum, poke")
    fails(cuda.cuModuleGetFunction(module, 5), R.CUDA_ERROR_INVALID_VALUE, "bytes or str")
    pointer, size = ok(cuda.cuModuleGetGlobal(module, b"counter"))
    assert size == 16 and isinstance(pointer, cuda.CUdeviceptr)
    ok(cuda.cuMemcpyHtoD(pointer, np.array([1, 2, 3, 4], dtype=np.int32), 16))
    values = np.zeros(4, dtype=np.int32)
    ok(cuda.cuMemcpyDtoH(values, pointer, 16))
    assert values.tolist() == [1, 2, 3, 4]
    fails(cuda.cuModuleGetGlobal(module, b"vector_add"), R.CUDA_ERROR_NOT_FOUND, "global variable")
    ok(cuda.cuModuleUnload(module))
    fails(cuda.cuMemcpyDtoH(values, pointer, 16), R.CUDA_ERROR_INVALID_VALUE, "not inside device memory")
    fails(cuda.cuModuleUnload(module), R.CUDA_ERROR_INVALID_HANDLE, "not loaded")
    fails(cuda.cuModuleGetFunction(module, b"vector_add"), R.CUDA_ERROR_INVALID_HANDLE)
    fails(cuda.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_NUM_REGS, function), R.CUDA_ERROR_INVALID_HANDLE)
    fails(cuda.cuModuleGetGlobal(module, b"counter"), R.CUDA_ERROR_INVALID_HANDLE)


def test_function_attributes(module: cuda.CUmodule) -> None:
    function = ok(cuda.cuModuleGetFunction(module, b"block_sum"))
    assert ok(cuda.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function)) == 1024
    assert ok(cuda.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_NUM_REGS, function)) > 0
    assert ok(cuda.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function)) == 0  # dynamic only
    assert ok(cuda.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, function)) == 65536
    fails(cuda.cuFuncGetAttribute(77, function), R.CUDA_ERROR_INVALID_VALUE)
    fails(
        cuda.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_NUM_REGS, cuda.CUfunction(0x99)),
        R.CUDA_ERROR_INVALID_HANDLE,
    )


def test_destroying_the_context_unloads(context: cuda.CUcontext) -> None:
    module = ok(cuda.cuModuleLoad(str(KERNELS_PTX)))
    ok(cuda.cuCtxDestroy(context))
    fails(cuda.cuModuleGetFunction(module, b"poke"), R.CUDA_ERROR_INVALID_HANDLE)
    fails(cuda.cuModuleLoad(str(KERNELS_PTX)), R.CUDA_ERROR_INVALID_CONTEXT)
