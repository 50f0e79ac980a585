"""The API surface: every function the issue lists exists with cuda-python's name, every public
function is exercised by a test in this folder, and no call raises whatever its arguments."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ptx2gcn import cuda

REQUIRED = [
    "cuInit",
    "cuDriverGetVersion",
    "cuDeviceGet",
    "cuDeviceGetCount",
    "cuDeviceGetName",
    "cuDeviceGetAttribute",
    "cuCtxCreate",
    "cuCtxDestroy",
    "cuCtxSynchronize",
    "cuCtxGetCurrent",
    "cuCtxSetCurrent",
    "cuModuleLoad",
    "cuModuleLoadData",
    "cuModuleLoadDataEx",
    "cuModuleLoadFatBinary",
    "cuModuleUnload",
    "cuModuleGetFunction",
    "cuModuleGetGlobal",
    "cuFuncGetAttribute",
    "cuMemAlloc",
    "cuMemFree",
    "cuMemAllocHost",
    "cuMemcpyHtoD",
    "cuMemcpyDtoH",
    "cuMemcpyDtoD",
    "cuMemcpyHtoDAsync",
    "cuMemcpyDtoHAsync",
    "cuMemcpyDtoDAsync",
    "cuMemsetD8",
    "cuMemsetD32",
    "cuLaunchKernel",
    "cuStreamCreate",
    "cuStreamSynchronize",
    "cuStreamDestroy",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuEventElapsedTime",
    "cuGetErrorName",
    "cuGetErrorString",
]
FUNCTIONS = [name for name in cuda.__all__ if name.startswith(("cu", "ptx2gcn"))]


def test_required_functions_exist() -> None:
    assert set(REQUIRED) <= set(FUNCTIONS)
    assert all(callable(getattr(cuda, name)) for name in cuda.__all__ if name.startswith("cu"))


def test_every_function_is_tested() -> None:
    text = "".join(
        path.read_text() for path in Path(__file__).parent.glob("*.py") if path.name != Path(__file__).name
    )
    untested = [name for name in FUNCTIONS if not re.search(rf"cuda\.{name}\(", text)]
    assert untested == []


@pytest.mark.parametrize("name", FUNCTIONS)
def test_garbage_arguments_return_codes(name: str, driver: None) -> None:
    """Before and after cuInit, nonsense arguments give a CUresult, never an exception."""
    function = getattr(cuda, name)
    for args in [(), (object(),), ("x", None, 3.5), (None,) * 11, (-1,) * 4]:
        result = function(*args)
        assert isinstance(result, tuple) and isinstance(result[0], cuda.CUresult), (name, args, result)
    cuda.cuInit(0)
    for args in [(object(),), (None,) * 11, (2**70,) * 3]:
        result = function(*args)
        assert isinstance(result[0], cuda.CUresult), (name, args, result)
