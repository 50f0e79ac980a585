"""``cuCtxSetLimit`` / ``cuCtxGetLimit``: the context limits ptx2gcn has.

Only ``CU_LIMIT_PRINTF_FIFO_SIZE`` is a real limit here: the size of the device ``printf`` FIFO
(default 1 MiB, as CUDA's). As in CUDA, it can be changed only before the context has launched a
kernel that uses ``printf`` (afterwards ``CUDA_ERROR_INVALID_VALUE``); sizes are rounded up to a
multiple of 8 bytes (records are 8-byte aligned). Every other limit is ``CUDA_ERROR_UNSUPPORTED_LIMIT``,
which CUDA also returns for limits a device does not support.

Invariant: a successful ``cuCtxSetLimit`` is exactly what the next ``cuCtxGetLimit`` returns.
"""

from __future__ import annotations

from ptx2gcn.runtime.driver.args import enum_member, integer
from ptx2gcn.runtime.driver.enums import CUlimit, CUresult
from ptx2gcn.runtime.driver.errors import CudaError
from ptx2gcn.runtime.driver.state import driver

_MAX_FIFO = 1 << 32


def _limit(limit: object) -> CUlimit:
    member = enum_member(limit, CUlimit, "limit")
    if member is not CUlimit.CU_LIMIT_PRINTF_FIFO_SIZE:
        raise CudaError(CUresult.CUDA_ERROR_UNSUPPORTED_LIMIT, f"{member.name} is not supported by ptx2gcn")
    return member


def ctx_set_limit(limit: object, value: object) -> None:
    _limit(limit)
    messages = driver().require_current().messages
    size = integer(value, "value", 64, signed=False)
    if not 0 < size <= _MAX_FIFO:
        raise CudaError(CUresult.CUDA_ERROR_INVALID_VALUE, f"printf FIFO size {size} is outside 1..{_MAX_FIFO}")
    if messages.printf_launched:
        raise CudaError(
            CUresult.CUDA_ERROR_INVALID_VALUE,
            "CU_LIMIT_PRINTF_FIFO_SIZE must be set before launching a kernel that uses printf",
        )
    messages.fifo_size = -(-size // 8) * 8


def ctx_get_limit(limit: object) -> int:
    _limit(limit)
    return int(driver().require_current().messages.fifo_size)
