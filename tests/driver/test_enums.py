"""Enum values agree with cuda.h (the CUDA toolkit's header, an independent source) and errors have
names and strings."""

from __future__ import annotations

import re
from enum import IntEnum
from pathlib import Path

import pytest

from ptx2gcn import cuda

HEADERS = [Path("/usr/local/cuda/include/cuda.h"), Path("/usr/include/cuda.h")]


def _header_enum(text: str, name: str) -> dict[str, int]:
    match = re.search(r"typedef enum " + name + r"\s*\{(.*?)\}", text, re.DOTALL)
    assert match, name
    body = re.sub(r"/\*.*?\*/", "", match.group(1), flags=re.DOTALL)
    pairs = re.findall(r"^\s*(\w+)\s*=\s*(0x[0-9a-fA-F]+|\d+)", body, re.MULTILINE)
    return {key: int(value, 0) for key, value in pairs}


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (cuda.CUresult, "cudaError_enum"),
        (cuda.CUdevice_attribute, "CUdevice_attribute_enum"),
        (cuda.CUfunction_attribute, "CUfunction_attribute_enum"),
        (cuda.CUjit_option, "CUjit_option_enum"),
        (cuda.CUevent_flags, "CUevent_flags_enum"),
        (cuda.CUstream_flags, "CUstream_flags_enum"),
        (cuda.CUctx_flags, "CUctx_flags_enum"),
    ],
)
def test_enum_values_match_cuda_h(ours: type[IntEnum], theirs: str) -> None:
    header = next((h for h in HEADERS if h.exists()), None)
    if header is None:
        pytest.skip("cuda.h not installed")
    expected = _header_enum(header.read_text(), theirs)
    assert expected
    assert {name: ours[name].value for name in expected} == expected


def test_well_known_values() -> None:  # from the CUDA driver API reference
    assert cuda.CUresult.CUDA_ERROR_INVALID_PTX == 218
    assert cuda.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_WARP_SIZE == 10
    assert cuda.CUjit_option.CU_JIT_ERROR_LOG_BUFFER == 5
    assert (
        cuda.CU_LAUNCH_PARAM_END,
        cuda.CU_LAUNCH_PARAM_BUFFER_POINTER,
        cuda.CU_LAUNCH_PARAM_BUFFER_SIZE,
    ) == (0, 1, 2)


def test_error_name_and_string() -> None:
    assert cuda.cuGetErrorName(cuda.CUresult.CUDA_ERROR_INVALID_VALUE) == (
        cuda.CUresult.CUDA_SUCCESS,
        b"CUDA_ERROR_INVALID_VALUE",
    )
    assert cuda.cuGetErrorString(cuda.CUresult.CUDA_ERROR_OUT_OF_MEMORY) == (
        cuda.CUresult.CUDA_SUCCESS,
        b"out of memory",
    )
    assert cuda.cuGetErrorString(700)[1] == b"an illegal memory access was encountered"
    assert cuda.cuGetErrorName(12345) == (cuda.CUresult.CUDA_ERROR_INVALID_VALUE, None)
    assert cuda.cuGetErrorString("x") == (cuda.CUresult.CUDA_ERROR_INVALID_VALUE, None)
