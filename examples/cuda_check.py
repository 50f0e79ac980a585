"""Shared by the example scripts: the driver API module and the result check cuda-python code uses.

This is the one place an example names its driver API: with NVIDIA's cuda-python, replace the import
below by ``from cuda.bindings import driver as cuda`` and every example runs unchanged.

Invariant: ``check`` returns a call's values only when the call returned ``CUDA_SUCCESS``; any other
result raises ``RuntimeError`` naming the error.
"""

from pathlib import Path
from typing import Any

from ptx2gcn import cuda  # with cuda-python: from cuda.bindings import driver as cuda

__all__ = ["check", "cuda", "kernel_ptx"]


def check(result: tuple[Any, ...]) -> Any:
    """The values of a ``(CUresult, *values)`` tuple: one value bare, several as a list."""
    err, *values = result
    if err != cuda.CUresult.CUDA_SUCCESS:
        _, name = cuda.cuGetErrorName(err)
        raise RuntimeError(f"CUDA error {name.decode()}")
    return values[0] if len(values) == 1 else values


def kernel_ptx(name: str) -> bytes:
    """The PTX text of ``examples/<name>.ptx`` (nvcc's output, with its CUDA source in a comment)."""
    return (Path(__file__).resolve().parent / f"{name}.ptx").read_bytes()
