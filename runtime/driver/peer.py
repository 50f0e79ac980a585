"""Peer access and inter-process sharing: ``cuDeviceCanAccessPeer``, ``cuCtxEnablePeerAccess``,
``cuCtxDisablePeerAccess``, ``cuIpcGetMemHandle``, ``cuIpcCloseMemHandle``, ``cuIpcGetEventHandle``.

ptx2gcn's backends present one device per process and no memory shared between processes: no device
is a peer of another (``cuDeviceCanAccessPeer`` answers 0, and enabling access is
``CUDA_ERROR_PEER_ACCESS_UNSUPPORTED``), and IPC handles are ``CUDA_ERROR_NOT_SUPPORTED``, the code
CUDA returns where IPC is unavailable.

Invariant: arguments are validated (devices, contexts, pointers) before the not-supported answer, so
a bad argument still gets the error CUDA gives for it.
"""

from __future__ import annotations

from ptx2gcn.runtime.driver.args import handle, integer, invalid
from ptx2gcn.runtime.driver.enums import CUresult
from ptx2gcn.runtime.driver.errors import CudaError
from ptx2gcn.runtime.driver.memory import check_range
from ptx2gcn.runtime.driver.state import driver
from ptx2gcn.runtime.driver.types import CUcontext, CUdeviceptr, CUevent

_NO_IPC = "IPC is not supported: ptx2gcn's devices share no memory between processes"


def device_can_access_peer(dev: object, peerDev: object) -> int:
    state = driver()
    state.check_device(integer(dev, "dev", 32, signed=True))
    state.check_device(integer(peerDev, "peerDev", 32, signed=True))
    return 0


def ctx_enable_peer_access(peerContext: object, Flags: object) -> None:
    state = driver()
    state.require_current()
    state.context(handle(peerContext, CUcontext, "peerContext"))
    if integer(Flags, "Flags") != 0:
        raise invalid("Flags must be 0")
    raise CudaError(CUresult.CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "no device here is a peer of another")


def ctx_disable_peer_access(peerContext: object) -> None:
    state = driver()
    state.require_current()
    state.context(handle(peerContext, CUcontext, "peerContext"))
    raise CudaError(CUresult.CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "peer access was never enabled")


def ipc_get_mem_handle(dptr: object) -> None:
    context = driver().require_current()
    check_range(context, handle(dptr, CUdeviceptr, "dptr"), 1, "dptr")
    raise CudaError(CUresult.CUDA_ERROR_NOT_SUPPORTED, _NO_IPC)


def ipc_close_mem_handle(dptr: object) -> None:
    driver().require_current()
    handle(dptr, CUdeviceptr, "dptr")
    raise invalid("dptr was not opened with cuIpcOpenMemHandle (" + _NO_IPC + ")")


def ipc_get_event_handle(event: object) -> None:
    state = driver()
    state.require_current()
    state.event(handle(event, CUevent, "event"))
    raise CudaError(CUresult.CUDA_ERROR_NOT_SUPPORTED, _NO_IPC)
