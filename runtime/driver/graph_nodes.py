"""What each kind of graph node holds and does: parameters taken from the caller (checked and copied,
as CUDA copies them when a node is added or set), the parameters handed back by the ``Get`` calls, and
running a node when an executable graph is launched.

Invariant: a node's parameters were checked when they were taken, so ``run`` fails only as the same
work enqueued on a stream would (a kernel fault, a freed buffer); child-graph nodes never reach
``run`` (an executable graph is flattened into its leaf nodes first).
"""

from __future__ import annotations

import ctypes

from ptx2gcn.runtime.driver import copies, memory, mempool, stream
from ptx2gcn.runtime.driver.args import handle, invalid
from ptx2gcn.runtime.driver.graph_model import Node, NodeKind
from ptx2gcn.runtime.driver.graph_params import (
    CUDA_HOST_NODE_PARAMS,
    CUDA_KERNEL_NODE_PARAMS,
    CUDA_MEMSET_NODE_PARAMS,
    MEMCPY3D_FIELDS,
    Fields,
    HostParams,
    MemsetParams,
)
from ptx2gcn.runtime.driver.launch import KernelLaunch, prepare_launch, run_launch
from ptx2gcn.runtime.driver.library import kernel_get_function
from ptx2gcn.runtime.driver.state import driver
from ptx2gcn.runtime.driver.types import CUevent, CUfunction

_DIMS = ("gridDimX", "gridDimY", "gridDimZ", "blockDimX", "blockDimY", "blockDimZ", "sharedMemBytes")


def _value(params: object, name: str) -> object:
    value = getattr(params, name, None)
    return getattr(value, "value", value) if isinstance(value, ctypes._SimpleCData) else value


def kernel_params(nodeParams: object) -> KernelLaunch:
    """``CUDA_KERNEL_NODE_PARAMS`` (v1/v2/v3: ``func`` or ``kern``) as a checked launch holding a copy
    of the argument values."""
    if nodeParams is None:
        raise invalid("nodeParams is NULL")
    function = _value(nodeParams, "func")
    kernel = _value(nodeParams, "kern")
    if not function and kernel:
        function = kernel_get_function(kernel)
    dims = [_value(nodeParams, name) for name in _DIMS]
    return prepare_launch(function, dims, _value(nodeParams, "kernelParams"), _value(nodeParams, "extra"), False)


def memcpy_params(copyParams: object) -> Fields:
    return copies.check_3d(copyParams)


def memset_params(memsetParams: object) -> MemsetParams:
    if memsetParams is None:
        raise invalid("memsetParams is NULL")
    fields = ("dst", "value", "elementSize", "width", "height", "pitch")
    dst, value, size, width, height, pitch = (_value(memsetParams, name) or 0 for name in fields)
    if not width or not height:
        raise invalid("a memset node needs width and height of at least 1")
    return memory.memset_params(dst, value, size, width, height, pitch)


def host_params(nodeParams: object) -> HostParams:
    if nodeParams is None:
        raise invalid("nodeParams is NULL")
    params = HostParams(_value(nodeParams, "fn"), _value(nodeParams, "userData"))
    stream.host_function(params.fn, params.userData)  # checks fn
    return params


def event_param(event: object) -> int:
    return driver().event(handle(event, CUevent, "event")).handle


# -- parameters handed back -------------------------------------------------------------------------
def kernel_params_out(node: Node) -> CUDA_KERNEL_NODE_PARAMS:
    """The kernel node's parameters; ``kernelParams`` points at copies of the argument values (kept
    alive by the node), as CUDA's ``cuGraphKernelNodeGetParams`` returns them."""
    launch = _params(node, NodeKind.KERNEL, KernelLaunch)
    buffer = ctypes.create_string_buffer(launch.parameters, max(1, len(launch.parameters)))
    base = ctypes.addressof(buffer)
    pointers = (ctypes.c_void_p * max(1, len(launch.function.info.params)))(
        *[base + slot.offset for slot in launch.function.info.params]
    )
    node.keep = (buffer, pointers)
    grid, block = launch.shape.grid, launch.shape.block
    return CUDA_KERNEL_NODE_PARAMS(
        func=CUfunction(launch.function.handle), gridDimX=grid[0], gridDimY=grid[1], gridDimZ=grid[2],
        blockDimX=block[0], blockDimY=block[1], blockDimZ=block[2], sharedMemBytes=launch.shape.shared_bytes,
        kernelParams=ctypes.addressof(pointers), extra=None,
    )  # fmt: skip


def memcpy_params_out(node: Node) -> Fields:
    fields = _params(node, NodeKind.MEMCPY, Fields)
    return Fields(**{name: getattr(fields, name) for name in MEMCPY3D_FIELDS})


def memset_params_out(node: Node) -> CUDA_MEMSET_NODE_PARAMS:
    p = _params(node, NodeKind.MEMSET, MemsetParams)
    return CUDA_MEMSET_NODE_PARAMS(dst=p.dst, pitch=p.pitch, value=p.value, elementSize=p.elementSize,
                                   width=p.width, height=p.height)


def host_params_out(node: Node) -> CUDA_HOST_NODE_PARAMS:
    p = _params(node, NodeKind.HOST, HostParams)
    return CUDA_HOST_NODE_PARAMS(fn=p.fn, userData=p.userData)


def _params(node: Node, kind: NodeKind, cls: type) -> object:  # noqa: ANN401 - the kind's parameter type
    if node.kind is not kind:
        raise invalid(f"node 0x{node.handle:x} is a {node.kind.name} node, not a {kind.name} node")
    assert isinstance(node.params, cls)
    return node.params


# -- running --------------------------------------------------------------------------------------------
def run(node: Node) -> None:
    """Do the node's work now (everything it depends on has been done)."""
    kind, params = node.kind, node.params
    if kind is NodeKind.KERNEL:
        assert isinstance(params, KernelLaunch)
        run_launch(params)
    elif kind is NodeKind.MEMCPY:
        copies.copy_3d(params)
    elif kind is NodeKind.MEMSET:
        assert isinstance(params, MemsetParams)
        memory.run_memset(params)
    elif kind is NodeKind.HOST:
        assert isinstance(params, HostParams)
        stream.host_function(params.fn, params.userData)()
    elif kind is NodeKind.EVENT_RECORD:
        assert isinstance(params, int)
        stream.mark_event(driver().event(params))
    elif kind is NodeKind.MEM_FREE:
        assert isinstance(params, int)
        mempool.free_node(params)
    # EMPTY, WAIT_EVENT (work before it is done), MEM_ALLOC (its block is the graph's): nothing to do
