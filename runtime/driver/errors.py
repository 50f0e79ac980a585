"""How driver-API failures travel: ``CudaError`` inside, ``CUresult`` tuples at the API boundary.

Implementation functions raise ``CudaError(result, message)``; ``entry(function, outputs)`` wraps
one into a cuda-python-style call that returns ``(CUresult.CUDA_SUCCESS, *outputs)`` or
``(error, None, ...)``. The message of the last failure on each thread is kept for
``last_error_message()`` (ptx2gcn's extension; CUDA itself only has the code).

Invariant: a wrapped call never raises. ``CudaError`` becomes its code; ``Ptx2GcnError`` (a bad
image, an unreadable file) becomes ``CUDA_ERROR_INVALID_IMAGE`` unless the raiser chose a code; any
other exception is a ptx2gcn bug and becomes ``CUDA_ERROR_UNKNOWN`` with the exception's text kept as
the message (``PTX2GCN_TRACEBACK=1`` re-raises it instead, for debugging).
"""

from __future__ import annotations

import functools
import inspect
import os
import threading
from collections.abc import Callable
from typing import Any

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.runtime.driver.enums import CUresult

_last = threading.local()


class CudaError(Exception):
    """A driver-API failure: the code to return and a sentence saying why."""

    def __init__(self, result: CUresult, message: str = "", diagnostic: Ptx2GcnError | None = None) -> None:
        self.result = result
        self.message = message or f"{result.name}"
        self.diagnostic = diagnostic
        """The located error behind this one (a compile error), for tools that print diagnostics."""
        super().__init__(f"{result.name}: {self.message}")


def last_error_message() -> str:
    """The message of the most recent failed driver call on this thread ('' when none failed)."""
    return str(getattr(_last, "message", ""))


def _remember(message: str) -> None:
    _last.message = message


def entry(function: Callable[..., Any], outputs: int) -> Callable[..., tuple[Any, ...]]:
    """``function`` as a driver entry point returning ``(CUresult, ...)`` with ``outputs`` values.

    ``function`` returns None (no outputs), one value (one output) or a tuple of ``outputs`` values."""

    signature = inspect.signature(function)

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> tuple[Any, ...]:
        try:
            signature.bind(*args, **kwargs)
        except TypeError as error:
            # Wrong number of arguments: cuda-python raises here; a driver entry point returns a code.
            _remember(f"{function.__name__}: {error}")
            return (CUresult.CUDA_ERROR_INVALID_VALUE, *([None] * outputs))
        try:
            value = function(*args, **kwargs)
        except CudaError as error:
            _remember(error.message)
            return (error.result, *([None] * outputs))
        except Ptx2GcnError as error:
            _remember(error.render().rstrip("\n"))
            return (CUresult.CUDA_ERROR_INVALID_IMAGE, *([None] * outputs))
        except Exception as error:
            if os.environ.get("PTX2GCN_TRACEBACK"):
                raise
            _remember(f"internal error in {function.__name__}: {type(error).__name__}: {error}")
            return (CUresult.CUDA_ERROR_UNKNOWN, *([None] * outputs))
        if outputs == 0:
            return (CUresult.CUDA_SUCCESS,)
        if outputs == 1:
            return (CUresult.CUDA_SUCCESS, value)
        return (CUresult.CUDA_SUCCESS, *value)

    return call


_BACKEND_RESULTS: dict[str, CUresult] = {
    "address": CUresult.CUDA_ERROR_ILLEGAL_ADDRESS,
    "hang": CUresult.CUDA_ERROR_LAUNCH_TIMEOUT,
    "instruction": CUresult.CUDA_ERROR_ILLEGAL_INSTRUCTION,
    "launch": CUresult.CUDA_ERROR_LAUNCH_FAILED,
    "trap": CUresult.CUDA_ERROR_LAUNCH_FAILED,
    "assert": CUresult.CUDA_ERROR_ASSERT,
    "memory": CUresult.CUDA_ERROR_OUT_OF_MEMORY,
    "image": CUresult.CUDA_ERROR_INVALID_IMAGE,
    "config": CUresult.CUDA_ERROR_INVALID_VALUE,
    "unsupported": CUresult.CUDA_ERROR_NOT_SUPPORTED,
    "cooperative": CUresult.CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
    "unavailable": CUresult.CUDA_ERROR_NO_DEVICE,
}


def from_backend(kind: str, message: str) -> CudaError:
    """The ``CudaError`` for a ``BackendError`` of ``kind`` (see ``ptx2gcn.runtime.backends.protocol``)."""
    return CudaError(_BACKEND_RESULTS.get(kind, CUresult.CUDA_ERROR_UNKNOWN), message)


def plain(error: Ptx2GcnError) -> str:
    """An error's text for a driver message: located diagnostics rendered in full, bare ones as their
    sentence (without the ``error:`` prefix)."""
    if all(d.span is None and not d.notes for d in error.diagnostics):
        return "; ".join(d.message for d in error.diagnostics)
    return error.render().rstrip("\n")
