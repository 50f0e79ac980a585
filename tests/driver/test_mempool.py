"""Stream-ordered memory pools through ``ptx2gcn.cuda`` (allocations used by real kernels, the pool
counters, release threshold, trimming, pools chosen per device, allocation inside a capture), and the
graph-node parameter calls that ``test_graphs.py`` does not reach."""

from __future__ import annotations

import ctypes

import numpy as np

from ptx2gcn import cuda
from tests.driver.conftest import fails, ok

R = cuda.CUresult
N = 256
RESERVED, USED, THRESHOLD, USED_HIGH = 5, 7, 4, 8


def _attribute(pool: cuda.CUmemoryPool, which: int) -> int:
    return int(ok(cuda.cuMemPoolGetAttribute(pool, which)))


def test_async_allocations_counters_threshold_and_trim(module: cuda.CUmodule) -> None:
    add = ok(cuda.cuModuleGetFunction(module, b"vector_add"))
    device = ok(cuda.cuDeviceGet(0))
    assert ok(cuda.cuDeviceGetAttribute(cuda.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, device))
    pool = ok(cuda.cuDeviceGetDefaultMemPool(device))
    assert ok(cuda.cuDeviceGetMemPool(device)) == pool
    stream = ok(cuda.cuStreamCreate(0))
    a, b, c = (ok(cuda.cuMemAllocAsync(4 * N, stream)) for _ in range(3))
    assert _attribute(pool, USED) == _attribute(pool, RESERVED) == 3 * 4 * N
    x = np.arange(N, dtype=np.float32)
    ok(cuda.cuMemcpyHtoDAsync(a, x, 4 * N, stream))
    ok(cuda.cuMemcpyHtoDAsync(b, 3 * x, 4 * N, stream))
    ok(cuda.cuLaunchKernel(add, 2, 1, 1, 128, 1, 1, 0, stream, ((a, b, c, N), (None, None, None, ctypes.c_int)), 0))
    out = np.zeros(N, np.float32)
    ok(cuda.cuMemcpyDtoHAsync(out, c, 4 * N, stream))
    np.testing.assert_array_equal(out, 4 * x)
    # with a release threshold, freed memory stays reserved and is reused at the same address
    ok(cuda.cuMemPoolSetAttribute(pool, THRESHOLD, 1 << 20))
    ok(cuda.cuMemFreeAsync(c, stream))
    assert (_attribute(pool, USED), _attribute(pool, RESERVED)) == (2 * 4 * N, 3 * 4 * N)
    assert ok(cuda.cuMemAllocAsync(4 * N, stream)) == c
    ok(cuda.cuMemFree(c))  # cuMemFree takes pool memory too
    ok(cuda.cuMemPoolTrimTo(pool, 0))
    assert _attribute(pool, RESERVED) == 2 * 4 * N
    assert _attribute(pool, USED_HIGH) == 3 * 4 * N
    ok(cuda.cuMemPoolSetAttribute(pool, USED_HIGH, 0))
    assert _attribute(pool, USED_HIGH) == 2 * 4 * N
    fails(cuda.cuMemPoolSetAttribute(pool, USED_HIGH, 5), R.CUDA_ERROR_INVALID_VALUE, "reset")
    # threshold 0: memory goes back to the device at the free
    ok(cuda.cuMemPoolSetAttribute(pool, THRESHOLD, 0))
    ok(cuda.cuMemFreeAsync(a, stream))
    ok(cuda.cuMemFreeAsync(b, stream))
    assert _attribute(pool, RESERVED) == _attribute(pool, USED) == 0
    fails(cuda.cuMemFreeAsync(b, stream), R.CUDA_ERROR_INVALID_VALUE, "cuMemAllocAsync")
    fails(cuda.cuMemcpyHtoD(b, x, 4 * N), R.CUDA_ERROR_INVALID_VALUE)  # freed memory is not device memory


def test_created_pools_and_the_device_pool_choice(context: cuda.CUcontext) -> None:
    device = ok(cuda.cuDeviceGet(0))
    props = cuda.CUmemPoolProps(location=cuda.CUmemLocation(type=1, id=0), maxSize=4096)
    pool = ok(cuda.cuMemPoolCreate(props))
    stream = ok(cuda.cuStreamCreate(0))
    first = ok(cuda.cuMemAllocFromPoolAsync(1000, pool, stream))
    assert _attribute(pool, USED) == 1024
    fails(cuda.cuMemAllocFromPoolAsync(4000, pool, stream), R.CUDA_ERROR_OUT_OF_MEMORY)
    ok(cuda.cuMemsetD8Async(first, 0xAB, 1000, stream))
    data = bytearray(1000)
    ok(cuda.cuMemcpyDtoH(data, first, 1000))
    assert data == b"\xab" * 1000
    ok(cuda.cuDeviceSetMemPool(device, pool))
    second = ok(cuda.cuMemAllocAsync(8, stream))
    assert _attribute(pool, USED) == 1536
    fails(cuda.cuMemPoolDestroy(pool), R.CUDA_ERROR_ILLEGAL_STATE)
    ok(cuda.cuMemFreeAsync(first, stream))
    ok(cuda.cuMemFreeAsync(second, stream))
    ok(cuda.cuMemPoolDestroy(pool))
    assert ok(cuda.cuDeviceGetMemPool(device)) == ok(cuda.cuDeviceGetDefaultMemPool(device))
    fails(cuda.cuMemPoolDestroy(ok(cuda.cuDeviceGetDefaultMemPool(device))), R.CUDA_ERROR_INVALID_VALUE)


def test_allocation_inside_a_capture_is_the_graphs(module: cuda.CUmodule) -> None:
    poke = ok(cuda.cuModuleGetFunction(module, b"poke"))
    stream = ok(cuda.cuStreamCreate(1))
    pool = ok(cuda.cuDeviceGetMemPool(ok(cuda.cuDeviceGet(0))))
    result = ok(cuda.cuMemAlloc(4 * N))
    ok(cuda.cuStreamBeginCapture_v2(stream, 0))
    scratch = ok(cuda.cuMemAllocAsync(4 * N, stream))
    ok(cuda.cuMemsetD32Async(scratch, 0, N, stream))
    ok(cuda.cuLaunchKernel(poke, 1, 1, 1, 1, 1, 1, 0, stream, ((scratch, 5), (None, ctypes.c_longlong)), 0))
    ok(cuda.cuMemcpyDtoDAsync(result, scratch, 4 * N, stream))
    ok(cuda.cuMemFreeAsync(scratch, stream))
    graph = ok(cuda.cuStreamEndCapture(stream))
    types = [ok(cuda.cuGraphNodeGetType(node)) for node in ok(cuda.cuGraphGetNodes(graph, 5))[0]]
    assert types == [10, 2, 0, 1, 11]  # mem alloc, memset, kernel, memcpy, mem free
    executable = ok(cuda.cuGraphInstantiateWithFlags(graph, 0))
    for _ in range(2):  # the block is the graph's: a second launch finds it again
        ok(cuda.cuMemsetD32(result, 1, N))
        ok(cuda.cuGraphLaunch(executable, stream))
        out = np.zeros(N, np.int32)
        ok(cuda.cuMemcpyDtoH(out, result, 4 * N))
        expected = np.zeros(N, np.int32)
        expected[5] = 7
        np.testing.assert_array_equal(out, expected)
    assert _attribute(pool, USED) == 1024
    ok(cuda.cuGraphExecDestroy(executable))
    ok(cuda.cuGraphDestroy(graph))
    assert _attribute(pool, USED) == 0


def test_node_parameters_round_trip(module: cuda.CUmodule) -> None:
    add = ok(cuda.cuModuleGetFunction(module, b"vector_add"))
    a, b = ok(cuda.cuMemAlloc(4 * N)), ok(cuda.cuMemAlloc(4 * N))
    graph = ok(cuda.cuGraphCreate(0))
    fill = ok(cuda.cuGraphAddMemsetNode(
        graph, None, 0, cuda.CUDA_MEMSET_NODE_PARAMS(dst=a, value=3, elementSize=4, width=N, height=1), None
    ))  # fmt: skip
    assert ok(cuda.cuGraphMemsetNodeGetParams(fill)).value == 3
    ok(cuda.cuGraphMemsetNodeSetParams(
        fill, cuda.CUDA_MEMSET_NODE_PARAMS(dst=a, value=0x3F800000, elementSize=4, width=N, height=1)
    ))  # fmt: skip
    copy = cuda.CUDA_MEMCPY3D()
    copy.srcMemoryType, copy.srcDevice = cuda.CUmemorytype.CU_MEMORYTYPE_DEVICE, int(a)
    copy.dstMemoryType, copy.dstDevice = cuda.CUmemorytype.CU_MEMORYTYPE_DEVICE, int(b)
    copy.WidthInBytes, copy.Height, copy.Depth = 4 * N, 1, 1
    move = ok(cuda.cuGraphAddMemcpyNode(graph, [fill], 1, copy, None))
    assert ok(cuda.cuGraphMemcpyNodeGetParams(move)).dstDevice == int(b)
    copy.WidthInBytes = 4 * (N // 2)
    ok(cuda.cuGraphMemcpyNodeSetParams(move, copy))
    calls: list[object] = []
    host = ok(cuda.cuGraphAddHostNode(graph, [move], 1, cuda.CUDA_HOST_NODE_PARAMS(fn=calls.append, userData=1)))
    ok(cuda.cuGraphHostNodeSetParams(host, cuda.CUDA_HOST_NODE_PARAMS(fn=calls.append, userData=2)))
    assert ok(cuda.cuGraphHostNodeGetParams(host)).userData == 2
    kernel = ok(cuda.cuGraphAddKernelNode(graph, [move], 1, cuda.CUDA_KERNEL_NODE_PARAMS(
        func=add, gridDimX=2, blockDimX=128, kernelParams=((a, a, b, N), (None, None, None, ctypes.c_int)))))
    ok(cuda.cuGraphKernelNodeSetParams(kernel, cuda.CUDA_KERNEL_NODE_PARAMS(
        func=add, gridDimX=2, blockDimX=128, kernelParams=((a, b, b, N), (None, None, None, ctypes.c_int)))))
    assert ok(cuda.cuGraphNodeGetDependencies(kernel, 0))[-1] == 1
    assert ok(cuda.cuGraphNodeGetDependentNodes(move, 4))[0] == [host, kernel]
    event, other = ok(cuda.cuEventCreate(0)), ok(cuda.cuEventCreate(0))
    wait = ok(cuda.cuGraphAddEventWaitNode(graph, None, 0, event))
    record = ok(cuda.cuGraphAddEventRecordNode(graph, [wait], 1, event))
    ok(cuda.cuGraphEventRecordNodeSetEvent(record, other))
    ok(cuda.cuGraphEventWaitNodeSetEvent(wait, other))
    assert ok(cuda.cuGraphEventRecordNodeGetEvent(record)) == other == ok(cuda.cuGraphEventWaitNodeGetEvent(wait))
    ok(cuda.cuGraphRemoveDependencies(graph, [wait], [record], None, 1))
    ok(cuda.cuGraphDestroyNode(wait))
    assert ok(cuda.cuGraphGetNodes(graph, 0))[1] == 5
    params = cuda.CUgraphExecUpdateResultInfo()  # any object with a flags field does for WithParams
    params.flags = 0
    executable = ok(cuda.cuGraphInstantiateWithParams(graph, params))
    ok(cuda.cuGraphUpload(executable, 0))
    ok(cuda.cuGraphExecHostNodeSetParams(executable, host, cuda.CUDA_HOST_NODE_PARAMS(fn=calls.append, userData=3)))
    ok(cuda.cuGraphExecMemsetNodeSetParams(
        executable, fill, cuda.CUDA_MEMSET_NODE_PARAMS(dst=a, value=0x40000000, elementSize=4, width=N, height=1), None
    ))  # fmt: skip
    copy.WidthInBytes = 4 * N
    ok(cuda.cuGraphExecMemcpyNodeSetParams(executable, move, copy, None))
    ok(cuda.cuGraphLaunch(executable, 0))
    out = np.zeros(N, np.float32)
    ok(cuda.cuMemcpyDtoH(out, b, 4 * N))
    np.testing.assert_array_equal(out, np.full(N, 4.0, np.float32))  # a = 2.0 copied to b, then b = a + b
    assert calls == [3]


def test_capture_dependencies_can_be_replaced(context: cuda.CUcontext) -> None:
    a = ok(cuda.cuMemAlloc(4 * N))
    stream = ok(cuda.cuStreamCreate(1))
    ok(cuda.cuStreamBeginCapture(stream, 0))
    ok(cuda.cuMemsetD32Async(a, 1, N, stream))
    first = ok(cuda.cuStreamGetCaptureInfo(stream))[3]
    ok(cuda.cuMemsetD32Async(a, 2, N, stream))
    ok(cuda.cuStreamUpdateCaptureDependencies(stream, first, 1, 1))  # the next node follows the first only
    ok(cuda.cuMemsetD32Async(a, 3, N, stream))
    graph = ok(cuda.cuStreamEndCapture(stream))
    nodes = ok(cuda.cuGraphGetNodes(graph, 3))[0]
    assert ok(cuda.cuGraphNodeGetDependentNodes(nodes[0], 2))[0] == [nodes[1], nodes[2]]


def test_memory_nodes_stay_top_level_and_a_failed_capture_returns_its_memory(context: cuda.CUcontext) -> None:
    stream = ok(cuda.cuStreamCreate(1))
    pool = ok(cuda.cuDeviceGetMemPool(ok(cuda.cuDeviceGet(0))))
    ok(cuda.cuStreamBeginCapture(stream, 0))
    ok(cuda.cuMemAllocAsync(64, stream))
    fails(cuda.cuStreamSynchronize(stream), R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)
    fails(cuda.cuStreamEndCapture(stream), R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
    assert _attribute(pool, USED) == 0  # the discarded graph's block went back to the pool
    ok(cuda.cuStreamBeginCapture(stream, 0))
    ok(cuda.cuMemAllocAsync(64, stream))
    graph = ok(cuda.cuStreamEndCapture(stream))
    parent = ok(cuda.cuGraphCreate(0))
    fails(cuda.cuGraphAddChildGraphNode(parent, None, 0, graph), R.CUDA_ERROR_INVALID_VALUE, "child graph")
    clone = ok(cuda.cuGraphClone(graph))
    ok(cuda.cuGraphDestroy(graph))
    assert _attribute(pool, USED) == 512  # the clone still owns the block
    ok(cuda.cuGraphDestroy(clone))
    assert _attribute(pool, USED) == 0


def test_hand_built_memory_nodes_and_executable_switches(module: cuda.CUmodule) -> None:
    poke = ok(cuda.cuModuleGetFunction(module, b"poke"))
    pool = ok(cuda.cuDeviceGetMemPool(ok(cuda.cuDeviceGet(0))))
    result = ok(cuda.cuMemAlloc(4 * N))
    graph = ok(cuda.cuGraphCreate(0))
    params = cuda.CUDA_MEM_ALLOC_NODE_PARAMS(bytesize=4 * N)
    params.poolProps.location = cuda.CUmemLocation(type=1, id=0)
    alloc = ok(cuda.cuGraphAddMemAllocNode(graph, None, 0, params))
    scratch = int(params.dptr)  # written by the call, as CUDA writes nodeParams.dptr
    assert int(ok(cuda.cuGraphMemAllocNodeGetParams(alloc)).dptr) == scratch != 0
    fill = ok(cuda.cuGraphAddMemsetNode(
        graph, [alloc], 1, cuda.CUDA_MEMSET_NODE_PARAMS(dst=scratch, value=4, elementSize=4, width=N, height=1), None
    ))  # fmt: skip
    kernel = ok(cuda.cuGraphAddKernelNode(graph, [fill], 1, cuda.CUDA_KERNEL_NODE_PARAMS(
        func=poke, kernelParams=((scratch, 3), (ctypes.c_void_p, ctypes.c_longlong)))))
    copy = cuda.CUDA_MEMCPY3D()
    copy.srcMemoryType, copy.srcDevice = cuda.CUmemorytype.CU_MEMORYTYPE_DEVICE, scratch
    copy.dstMemoryType, copy.dstDevice = cuda.CUmemorytype.CU_MEMORYTYPE_DEVICE, int(result)
    copy.WidthInBytes, copy.Height, copy.Depth = 4 * N, 1, 1
    move = ok(cuda.cuGraphAddMemcpyNode(graph, [kernel], 1, copy, None))
    free = ok(cuda.cuGraphAddMemFreeNode(graph, [move], 1, scratch))
    assert int(ok(cuda.cuGraphMemFreeNodeGetParams(free))) == scratch
    event = ok(cuda.cuEventCreate(0))
    record = ok(cuda.cuGraphAddEventRecordNode(graph, [free], 1, event))
    executable = ok(cuda.cuGraphInstantiate(graph, 1))  # CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH
    assert ok(cuda.cuGraphExecGetFlags(executable)) == 1
    expected = np.full(N, 4, np.int32)
    expected[3] = 7
    for enabled, want in ((1, expected), (0, np.full(N, 4, np.int32))):
        ok(cuda.cuGraphNodeSetEnabled(executable, kernel, enabled))
        assert ok(cuda.cuGraphNodeGetEnabled(executable, kernel)) == enabled
        ok(cuda.cuGraphLaunch(executable, 0))
        out = np.zeros(N, np.int32)
        ok(cuda.cuMemcpyDtoH(out, result, 4 * N))
        np.testing.assert_array_equal(out, want)
    other = ok(cuda.cuEventCreate(0))
    ok(cuda.cuGraphExecEventRecordNodeSetEvent(executable, record, other))
    ok(cuda.cuGraphLaunch(executable, 0))
    ok(cuda.cuEventSynchronize(other))
    assert _attribute(pool, USED) == 4 * N
    ok(cuda.cuGraphExecDestroy(executable))
    ok(cuda.cuGraphDestroy(graph))
    assert _attribute(pool, USED) == 0


def test_child_graph_parameters_in_an_executable(context: cuda.CUcontext) -> None:
    a = ok(cuda.cuMemAlloc(4 * N))
    child, replacement = ok(cuda.cuGraphCreate(0)), ok(cuda.cuGraphCreate(0))
    for graph, value in ((child, 1), (replacement, 2)):
        ok(cuda.cuGraphAddMemsetNode(
            graph, None, 0, cuda.CUDA_MEMSET_NODE_PARAMS(dst=a, value=value, elementSize=4, width=N, height=1), None
        ))  # fmt: skip
    parent = ok(cuda.cuGraphCreate(0))
    node = ok(cuda.cuGraphAddChildGraphNode(parent, None, 0, child))
    executable = ok(cuda.cuGraphInstantiate(parent, 0))
    ok(cuda.cuGraphExecChildGraphNodeSetParams(executable, node, replacement))
    ok(cuda.cuGraphLaunch(executable, 0))
    out = np.zeros(N, np.uint32)
    ok(cuda.cuMemcpyDtoH(out, a, 4 * N))
    np.testing.assert_array_equal(out, np.full(N, 2, np.uint32))
    ok(cuda.cuGraphAddEmptyNode(replacement, None, 0))
    fails(cuda.cuGraphExecChildGraphNodeSetParams(executable, node, replacement), R.CUDA_ERROR_INVALID_VALUE)
    wait = ok(cuda.cuGraphAddEventWaitNode(parent, None, 0, ok(cuda.cuEventCreate(0))))
    executable = ok(cuda.cuGraphInstantiate(parent, 0))
    ok(cuda.cuGraphExecEventWaitNodeSetEvent(executable, wait, ok(cuda.cuEventCreate(0))))
    ok(cuda.cuGraphLaunch(executable, 0))


def test_managed_and_pinned_host_pools(module: cuda.CUmodule) -> None:
    """CUDA 13's managed pools (``CU_MEM_ALLOCATION_TYPE_MANAGED``) and pinned host pools (a host
    location): their blocks are host memory at the device address (the host reads what a kernel
    wrote, through the pointer itself), counted, reused and released like a device pool's."""
    add = ok(cuda.cuModuleGetFunction(module, b"vector_add"))
    stream = ok(cuda.cuStreamCreate(0))
    managed = ok(cuda.cuMemPoolCreate(cuda.CUmemPoolProps(allocType=2, location=cuda.CUmemLocation(type=0, id=0))))
    host = ok(cuda.cuMemPoolCreate(cuda.CUmemPoolProps(allocType=1, location=cuda.CUmemLocation(type=2, id=0))))
    x = np.arange(N, dtype=np.float32)
    y = 2 * x  # kept alive: memmove reads it
    for pool in (managed, host):
        ok(cuda.cuMemPoolSetAttribute(pool, THRESHOLD, 1 << 20))
        a, b, c = (ok(cuda.cuMemAllocFromPoolAsync(4 * N, pool, stream)) for _ in range(3))
        assert _attribute(pool, USED) == _attribute(pool, RESERVED) == 3 * 4 * N
        ctypes.memmove(int(a), x.ctypes.data, 4 * N)  # host stores straight into the block
        ctypes.memmove(int(b), y.ctypes.data, 4 * N)
        ok(cuda.cuLaunchKernel(add, 2, 1, 1, 128, 1, 1, 0, stream, ((a, b, c, N), (None, None, None, ctypes.c_int)), 0))
        ok(cuda.cuStreamSynchronize(stream))
        out = np.frombuffer((ctypes.c_float * N).from_address(int(c)), dtype=np.float32).copy()
        np.testing.assert_array_equal(out, 3 * x)
        ok(cuda.cuMemFreeAsync(c, stream))
        assert (_attribute(pool, USED), _attribute(pool, RESERVED)) == (2 * 4 * N, 3 * 4 * N)
        assert ok(cuda.cuMemAllocFromPoolAsync(4 * N, pool, stream)) == c  # reused
        ok(cuda.cuMemFree(c))  # cuMemFree returns a pool block to its pool, managed ones too
        for block in (a, b):
            ok(cuda.cuMemFreeAsync(block, stream))
        ok(cuda.cuMemPoolTrimTo(pool, 0))
        assert _attribute(pool, RESERVED) == 0
        ok(cuda.cuMemPoolDestroy(pool))
    fails(cuda.cuMemPoolCreate(cuda.CUmemPoolProps(allocType=3, location=cuda.CUmemLocation(type=1, id=0))),
          R.CUDA_ERROR_INVALID_VALUE, "allocType")
    fails(cuda.cuMemPoolCreate(cuda.CUmemPoolProps(allocType=1, location=cuda.CUmemLocation(type=0, id=0))),
          R.CUDA_ERROR_INVALID_VALUE, "location")
