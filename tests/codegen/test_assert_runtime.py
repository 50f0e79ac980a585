"""Device-side assert end to end: nvcc-compiled kernels with ``assert()`` (the corpus' printf_assert.ptx
and tests/runtime/data/assert_kernels.ptx) through ``ptx2gcn.cuda`` and ``ptx2gcn run`` on the
emulator. Expected: CUDA's message on stderr, ``CUDA_ERROR_ASSERT`` (710) from the launch and from
every later call that needs the context (sticky, as cuda-python users see on an NVIDIA GPU), printf
output written before the message, a plain ``__trap()`` is CUDA_ERROR_LAUNCH_FAILED (719) without
it, and ``__brkpt()`` without a debugger does nothing."""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ptx2gcn import cuda
from ptx2gcn.cli import main
from ptx2gcn.compiler import compile
from ptx2gcn.runtime.backends.emulator import EmulatorBackend
from ptx2gcn.runtime.backends.messages import DeviceMessages, launch_with_messages
from ptx2gcn.runtime.backends.protocol import BackendError, ModuleCode
from ptx2gcn.runtime.cache.jit_cache import CacheConfig, JitCache
from ptx2gcn.runtime.driver.state import DriverConfig, reset

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpora/nvcc/sm_80/printf_assert.ptx"
KERNELS = ROOT / "tests/runtime/data/assert_kernels.ptx"
ASSERT = cuda.CUresult.CUDA_ERROR_ASSERT
# What CUDA prints for the corpus kernel (printf_assert.cu line 24, nvcc's __PRETTY_FUNCTION__ and
# the path the corpus was compiled under), for the only failing thread, 2 of block 0.
CORPUS_MESSAGE = ("/tmp/ptx2gcn-corpus/src/cuda/printf_assert.cu:24: void checked_divide(const int *, "
                  "const int *, int *, int): block: [0,0,0], thread: [2,0,0] Assertion `b[i] != 0` failed.")


def ok(result: tuple[Any, ...]) -> Any:
    assert result[0] == cuda.CUresult.CUDA_SUCCESS, (result, cuda.ptx2gcnGetLastErrorMessage()[1])
    return result[1] if len(result) == 2 else result[1:]


@pytest.fixture
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    reset(DriverConfig(backend="emulator", cache=JitCache(CacheConfig(directory=tmp_path_factory.mktemp("jit")))))
    ok(cuda.cuInit(0))
    yield
    reset()


def device(values: list[int]) -> Any:
    array = np.array(values, dtype=np.int32)
    pointer = ok(cuda.cuMemAlloc(array.nbytes))
    ok(cuda.cuMemcpyHtoD(pointer, array.ctypes.data, array.nbytes))
    return pointer


def function(path: Path, name: str) -> Any:
    return ok(cuda.cuModuleGetFunction(ok(cuda.cuModuleLoadData(path.read_bytes())), name.encode()))


def test_failed_assert_prints_cuda_text_and_ruins_the_context(
    driver: None, capsys: pytest.CaptureFixture[str]
) -> None:
    context = ok(cuda.cuCtxCreate(0, 0))
    divide = function(CORPUS, "checked_divide")
    a, b, out = device([10, 20, 30, 40]), device([1, 2, 0, 4]), device([0] * 4)
    result = cuda.cuLaunchKernel(divide, 1, 1, 1, 4, 1, 1, 0, 0, ((a, b, out, 4), (None, None, None, ctypes.c_int)), 0)
    assert result == (ASSERT,)
    assert capsys.readouterr().err == CORPUS_MESSAGE + "\n"
    assert CORPUS_MESSAGE in cuda.ptx2gcnGetLastErrorMessage()[1]
    # sticky: the context is unusable, as with CUDA (cuda-python returns 710 from these calls too)
    assert cuda.cuCtxSynchronize() == (ASSERT,)
    assert cuda.cuMemAlloc(16) == (ASSERT, None)
    assert cuda.cuLaunchKernel(divide, 1, 1, 1, 1, 1, 1, 0, 0, ((a, b, out, 4), (None, None, None, ctypes.c_int)),
                               0) == (ASSERT,)
    ok(cuda.cuCtxDestroy(context))
    # a new context works, and the same kernel with good data passes
    context = ok(cuda.cuCtxCreate(0, 0))
    divide = function(CORPUS, "checked_divide")
    a, b, out = device([10, 20, 30, 40]), device([1, 2, 3, 4]), device([0] * 4)
    ok(cuda.cuLaunchKernel(divide, 1, 1, 1, 4, 1, 1, 0, 0, ((a, b, out, 4), (None, None, None, ctypes.c_int)), 0))
    values = np.zeros(4, np.int32)
    ok(cuda.cuMemcpyDtoH(values.ctypes.data, out, 16))
    assert values.tolist() == [10, 10, 10, 10]
    assert capsys.readouterr().err == ""
    ok(cuda.cuCtxDestroy(context))


def test_the_first_failing_thread_is_reported_with_its_block(driver: None, capsys: pytest.CaptureFixture[str]) -> None:
    """Second assert of the corpus kernel (``i < n && "index in range"`` cannot fail), first one in
    block 1: threads 0..3 of block 1 are i = 4..7; i = 5 and 7 divide by zero."""
    ok(cuda.cuCtxCreate(0, 0))
    divide = function(CORPUS, "checked_divide")
    a, b, out = device([1] * 8), device([1, 1, 1, 1, 1, 0, 1, 0]), device([0] * 8)
    assert cuda.cuLaunchKernel(divide, 2, 1, 1, 4, 1, 1, 0, 0, ((a, b, out, 8), (None, None, None, ctypes.c_int)),
                               0) == (ASSERT,)
    assert capsys.readouterr().err == CORPUS_MESSAGE.replace("[0,0,0]", "[1,0,0]").replace("[2,0,0]", "[1,0,0]") + "\n"


def test_printf_output_comes_before_the_assertion(driver: None, capfd: pytest.CaptureFixture[str]) -> None:
    ok(cuda.cuCtxCreate(0, 0))
    check = function(KERNELS, "check_positive")
    a, out = device([3, 1, -2, 5]), device([0] * 4)
    assert cuda.cuLaunchKernel(check, 1, 1, 1, 4, 1, 1, 0, 0, ((a, out, 4), (None, None, ctypes.c_int)), 0) == (ASSERT,)
    captured = capfd.readouterr()
    assert captured.out == "".join(f"before {i}\n" for i in range(4))
    assert captured.err.endswith("block: [0,0,0], thread: [2,0,0] Assertion `a[i] > 0` failed.\n")
    assert captured.err.startswith("assert_kernels.cu:10: void check_positive(const int *, int *, int): ")


def test_plain_trap_is_a_launch_failure_and_brkpt_continues(driver: None, capsys: pytest.CaptureFixture[str]) -> None:
    ok(cuda.cuCtxCreate(0, 0))
    out = device([0] * 4)
    ok(cuda.cuLaunchKernel(function(KERNELS, "breakpoint"), 1, 1, 1, 4, 1, 1, 0, 0, ((out,), (None,)), 0))
    values = np.zeros(4, np.int32)
    ok(cuda.cuMemcpyDtoH(values.ctypes.data, out, 16))
    assert values.tolist() == [7] * 4
    trap = function(KERNELS, "plain_trap")
    assert cuda.cuLaunchKernel(trap, 1, 1, 1, 2, 1, 1, 0, 0, ((device([1, -1]),), (None,)), 0) == (
        cuda.CUresult.CUDA_ERROR_LAUNCH_FAILED,)
    assert "s_trap 2" in cuda.ptx2gcnGetLastErrorMessage()[1]
    assert capsys.readouterr().err == ""


def test_the_record_is_cleared_before_each_launch(capsys: pytest.CaptureFixture[str]) -> None:
    """The same loaded module on one emulated device: a failed launch, then a passing one (which must
    not report the old record), then a failing one again."""
    backend = EmulatorBackend()
    module = backend.load(ModuleCode("assert_kernels", None, compile(str(KERNELS)).data))
    messages = DeviceMessages()
    a, out = backend.malloc(16), backend.malloc(16)

    def run(values: list[int]) -> str | None:
        backend.write(a, struct.pack("<4i", *values))
        try:
            launch_with_messages(backend, module, "check_positive", (1, 1, 1), (4, 1, 1), 0,
                                 struct.pack("<QQi", a, out, 4), messages)
        except BackendError as error:
            assert error.kind == "assert"
            return capsys.readouterr().err
        return None

    assert "thread: [1,0,0]" in (run([1, 0, 1, 1]) or "")
    assert run([1, 2, 3, 4]) is None
    assert struct.unpack("<4i", backend.read(out, 16)) == (2, 4, 6, 8)
    assert "thread: [3,0,0]" in (run([1, 2, 3, -4]) or "")


def test_ptx2gcn_run_shows_printf_and_assertion(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    np.save(tmp_path / "a.npy", np.array([4, 5, 6], dtype=np.int32))
    case = tmp_path / "case.toml"
    case.write_text(f'''ptx = "{KERNELS}"
kernel = "check_positive"
grid = [1, 1, 1]
block = [3, 1, 1]
[[args]]
name = "a"
buffer = "s32"
data = "a.npy"
[[args]]
name = "out"
buffer = "s32"
count = 3
[[args]]
scalar = "s32"
value = 3
''')
    assert main(["run", str(case), "--backend", "emulator"]) == 0
    captured = capfd.readouterr()
    assert captured.out.startswith("before 0\nbefore 1\nbefore 2\n")
    np.save(tmp_path / "a.npy", np.array([4, -5, 6], dtype=np.int32))
    assert main(["run", str(case), "--backend", "emulator"]) == 1
    captured = capfd.readouterr()
    assert captured.out == "before 0\nbefore 1\nbefore 2\n"
    assert "thread: [1,0,0] Assertion `a[i] > 0` failed." in captured.err
    assert "error: device-side assertion failed" in captured.err
