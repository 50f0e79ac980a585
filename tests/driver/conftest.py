"""Fixtures for the driver-API tests: a fresh driver per test (emulator backend, JIT cache in a
temporary folder), a current context, the test kernels (data/kernels.ptx, nvcc's output for
data/kernels.cu), and ``ok(result)`` which unwraps a successful call's outputs."""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ptx2gcn import cuda
from ptx2gcn.runtime.cache.jit_cache import CacheConfig, JitCache
from ptx2gcn.runtime.driver.state import DriverConfig, reset

DATA = Path(__file__).resolve().parent / "data"
KERNELS_PTX = DATA / "kernels.ptx"


def ok(result: tuple[Any, ...]) -> Any:
    """The outputs of a call that must succeed (one value, or a tuple of several)."""
    assert result[0] == cuda.CUresult.CUDA_SUCCESS, (result, cuda.ptx2gcnGetLastErrorMessage()[1])
    return result[1] if len(result) == 2 else result[1:]


def fails(result: tuple[Any, ...], code: cuda.CUresult, message: str = "") -> str:
    """Assert a call failed with ``code`` (outputs None); returns the driver's message for it."""
    assert result[0] == code, (result, cuda.ptx2gcnGetLastErrorMessage()[1])
    assert all(value is None for value in result[1:])
    text: str = cuda.ptx2gcnGetLastErrorMessage()[1]
    assert message in text, text
    return text


def run_vector_add(n: int, seed: int, block: int = 256) -> tuple[np.ndarray, np.ndarray]:
    """data/kernels.ptx's vector_add on ``n`` random floats in a new context of the driver as it is set
    up now (``cuInit`` included; the context is destroyed): (the kernel's output, numpy's a + b)."""
    ok(cuda.cuInit(0))
    context = ok(cuda.cuCtxCreate(0, 0))
    function = ok(cuda.cuModuleGetFunction(ok(cuda.cuModuleLoad(str(KERNELS_PTX))), b"vector_add"))
    a, b = np.random.default_rng(seed).random((2, n), dtype=np.float32)
    pointers = [ok(cuda.cuMemAlloc(4 * n)) for _ in range(3)]
    ok(cuda.cuMemcpyHtoD(pointers[0], a, 4 * n))
    ok(cuda.cuMemcpyHtoD(pointers[1], b, 4 * n))
    args = ((*pointers, n), (None, None, None, ctypes.c_int))
    ok(cuda.cuLaunchKernel(function, (n + block - 1) // block, 1, 1, block, 1, 1, 0, 0, args, 0))
    out = np.zeros(n, dtype=np.float32)
    ok(cuda.cuMemcpyDtoH(out, pointers[2], 4 * n))
    ok(cuda.cuCtxDestroy(context))
    return out, a + b


@pytest.fixture(scope="session")
def jit_cache(tmp_path_factory: pytest.TempPathFactory) -> JitCache:
    return JitCache(CacheConfig(directory=tmp_path_factory.mktemp("jit")))


@pytest.fixture
def driver(jit_cache: JitCache) -> Iterator[None]:
    """A fresh, uninitialised driver on the emulator backend."""
    reset(DriverConfig(backend="emulator", cache=jit_cache))
    yield
    reset()


@pytest.fixture
def context(driver: None) -> Iterator[cuda.CUcontext]:
    ok(cuda.cuInit(0))
    context = ok(cuda.cuCtxCreate(None, 0, ok(cuda.cuDeviceGet(0))))
    yield context
    cuda.cuCtxDestroy(context)


@pytest.fixture
def module(context: cuda.CUcontext) -> cuda.CUmodule:
    return ok(cuda.cuModuleLoad(str(KERNELS_PTX)))
