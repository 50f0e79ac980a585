"""CUDA graphs through ``ptx2gcn.cuda`` on the emulator: graphs built by hand and by stream capture,
launched and checked against numpy; capture's error rules; executable updates; DOT output."""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np

from ptx2gcn import cuda
from tests.driver.conftest import fails, ok

R = cuda.CUresult
N = 300
BLOCK = 128
GRID = (N + BLOCK - 1) // BLOCK


def _buffers(count: int, n: int = N) -> list[cuda.CUdeviceptr]:
    return [ok(cuda.cuMemAlloc(4 * n)) for _ in range(count)]


def _read(pointer: cuda.CUdeviceptr, n: int = N, dtype: type = np.float32) -> np.ndarray:
    out = np.zeros(n, dtype=dtype)
    ok(cuda.cuMemcpyDtoH(out, pointer, out.nbytes))
    return out


def _add_args(a: cuda.CUdeviceptr, b: cuda.CUdeviceptr, c: cuda.CUdeviceptr, n: int = N) -> tuple[object, object]:
    return (a, b, c, n), (None, None, None, ctypes.c_int)


def _kernel_params(function: cuda.CUfunction, args: object) -> cuda.CUDA_KERNEL_NODE_PARAMS:
    return cuda.CUDA_KERNEL_NODE_PARAMS(func=function, gridDimX=GRID, blockDimX=BLOCK, kernelParams=args)


def test_hand_built_graph_copies_fills_and_adds(module: cuda.CUmodule) -> None:
    add = ok(cuda.cuModuleGetFunction(module, b"vector_add"))
    a, b, c = _buffers(3)
    host_a = np.random.default_rng(1).random(N, dtype=np.float32)
    graph = ok(cuda.cuGraphCreate(0))
    copy = cuda.CUDA_MEMCPY3D()
    copy.srcMemoryType, copy.srcHost = cuda.CUmemorytype.CU_MEMORYTYPE_HOST, host_a.ctypes.data
    copy.dstMemoryType, copy.dstDevice = cuda.CUmemorytype.CU_MEMORYTYPE_DEVICE, int(a)
    copy.WidthInBytes, copy.Height, copy.Depth = 4 * N, 1, 1
    upload = ok(cuda.cuGraphAddMemcpyNode(graph, None, 0, copy, None))
    one = np.float32(1.5).view(np.uint32)
    fill = ok(cuda.cuGraphAddMemsetNode(
        graph, None, 0, cuda.CUDA_MEMSET_NODE_PARAMS(dst=b, value=int(one), elementSize=4, width=N, height=1), None
    ))  # fmt: skip
    kernel = ok(cuda.cuGraphAddKernelNode(graph, [upload, fill], 2, _kernel_params(add, _add_args(a, b, c))))
    seen: list[int] = []
    host = ok(cuda.cuGraphAddHostNode(graph, [kernel], 1, cuda.CUDA_HOST_NODE_PARAMS(fn=seen.append, userData=7)))
    assert ok(cuda.cuGraphGetNodes(graph, 0))[1] == 4
    roots, count = ok(cuda.cuGraphGetRootNodes(graph, 0))[0:2]
    assert count == 2 and roots == []
    sources, targets, _data, edges = ok(cuda.cuGraphGetEdges(graph, 10))
    assert edges == 3 and set(zip(sources, targets)) == {(upload, kernel), (fill, kernel), (kernel, host)}
    assert ok(cuda.cuGraphNodeGetType(kernel)) == 0
    executable = ok(cuda.cuGraphInstantiate(graph, 0))
    host_a[:] = 2.0  # a memcpy node reads its host memory when it runs
    ok(cuda.cuGraphLaunch(executable, 0))
    np.testing.assert_array_equal(_read(c), np.full(N, 3.5, np.float32))
    assert seen == [7]
    ok(cuda.cuGraphLaunch(executable, 0))
    assert seen == [7, 7]
    ok(cuda.cuGraphExecDestroy(executable))
    ok(cuda.cuGraphDestroy(graph))


def test_kernel_node_copies_argument_values_at_add_time(module: cuda.CUmodule) -> None:
    add = ok(cuda.cuModuleGetFunction(module, b"vector_add"))
    a, b, c, d = _buffers(4)
    x = np.arange(N, dtype=np.float32)
    ok(cuda.cuMemcpyHtoD(a, x, 4 * N))
    ok(cuda.cuMemcpyHtoD(b, x * 10, 4 * N))
    pointer = ctypes.c_uint64(int(c))
    count = ctypes.c_int(N)
    cells = [ctypes.c_uint64(int(a)), ctypes.c_uint64(int(b)), pointer, count]
    array = (ctypes.c_void_p * 4)(*[ctypes.addressof(cell) for cell in cells])
    graph = ok(cuda.cuGraphCreate(0))
    node = ok(cuda.cuGraphAddKernelNode(graph, None, 0, _kernel_params(add, ctypes.addressof(array))))
    pointer.value, count.value = int(d), 5  # too late: the node holds the values it was given
    executable = ok(cuda.cuGraphInstantiate(graph, 0))
    ok(cuda.cuGraphLaunch(executable, 0))
    np.testing.assert_array_equal(_read(c), x * 11)
    # GetParams hands back pointers to the node's copies of the arguments
    params = ok(cuda.cuGraphKernelNodeGetParams(node))
    assert (params.gridDimX, params.blockDimX) == (GRID, BLOCK)
    slots = (ctypes.c_void_p * 4).from_address(params.kernelParams)
    assert ctypes.c_uint64.from_address(slots[2]).value == int(c)
    assert ctypes.c_int.from_address(slots[3]).value == N
    # an executable's kernel node takes new parameters without touching the graph
    ok(cuda.cuGraphExecKernelNodeSetParams(executable, node, _kernel_params(add, _add_args(a, a, d))))
    ok(cuda.cuGraphLaunch(executable, 0))
    np.testing.assert_array_equal(_read(d), x * 2)
    assert ok(cuda.cuGraphKernelNodeGetParams(node)).kernelParams != 0


def test_stream_capture_fork_join_and_replay(module: cuda.CUmodule) -> None:
    add = ok(cuda.cuModuleGetFunction(module, b"vector_add"))
    a, b, c, d = _buffers(4)
    x = np.random.default_rng(2).random(N, dtype=np.float32)
    y = np.random.default_rng(3).random(N, dtype=np.float32)
    origin, side = ok(cuda.cuStreamCreate(1)), ok(cuda.cuStreamCreate(1))  # non-blocking: see the read below
    forked, joined = ok(cuda.cuEventCreate(0)), ok(cuda.cuEventCreate(0))
    ok(cuda.cuStreamBeginCapture(origin, 0))
    assert ok(cuda.cuStreamIsCapturing(origin)) == 1
    ok(cuda.cuEventRecord(forked, origin))
    ok(cuda.cuStreamWaitEvent(side, forked, 0))  # side joins the capture
    ok(cuda.cuMemcpyHtoDAsync(a, x, 4 * N, origin))
    assert ok(cuda.cuStreamIsCapturing(side)) == 1
    ok(cuda.cuMemcpyHtoDAsync(b, y, 4 * N, side))
    ok(cuda.cuEventRecord(joined, side))
    ok(cuda.cuStreamWaitEvent(origin, joined, 0))
    ok(cuda.cuLaunchKernel(add, GRID, 1, 1, BLOCK, 1, 1, 0, origin, _add_args(a, b, c), 0))
    ok(cuda.cuLaunchKernel(add, GRID, 1, 1, BLOCK, 1, 1, 0, origin, _add_args(c, c, d), 0))
    status, identifier, captured, frontier, _data, count = ok(cuda.cuStreamGetCaptureInfo(origin))
    assert (status, count) == (1, 1) and identifier > 0 and captured is not None
    previous = ok(cuda.cuThreadExchangeStreamCaptureMode(2))  # relaxed: this thread may read memory now
    assert not _read(d).any()  # nothing ran during the capture
    ok(cuda.cuThreadExchangeStreamCaptureMode(previous))
    graph = ok(cuda.cuStreamEndCapture(origin))
    assert ok(cuda.cuStreamIsCapturing(origin)) == 0 and ok(cuda.cuStreamIsCapturing(side)) == 0
    assert ok(cuda.cuGraphGetNodes(graph, 0))[1] == 4
    assert ok(cuda.cuGraphGetRootNodes(graph, 0))[1] == 2  # the two copies run side by side
    executable = ok(cuda.cuGraphInstantiate(graph, 0))
    ok(cuda.cuGraphLaunch(executable, origin))
    ok(cuda.cuStreamSynchronize(origin))
    np.testing.assert_allclose(_read(d), 2 * (x + y), rtol=1e-6)
    x[:] = 1.0  # the captured copy reads the host array at each launch
    ok(cuda.cuGraphLaunch(executable, side))
    np.testing.assert_allclose(_read(d), 2 * (1.0 + y), rtol=1e-6)


def test_unjoined_fork_and_illegal_calls_during_capture(module: cuda.CUmodule) -> None:
    (a,) = _buffers(1)
    origin, side = ok(cuda.cuStreamCreate(0)), ok(cuda.cuStreamCreate(0))
    event = ok(cuda.cuEventCreate(0))
    ok(cuda.cuStreamBeginCapture(origin, 0))
    ok(cuda.cuEventRecord(event, origin))
    ok(cuda.cuStreamWaitEvent(side, event, 0))
    ok(cuda.cuMemsetD32Async(a, 1, N, side))
    fails(cuda.cuStreamEndCapture(origin), R.CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "joined")
    # a synchronous copy in global mode is refused and invalidates the capture
    ok(cuda.cuStreamBeginCapture(origin, 0))
    fails(cuda.cuMemcpyHtoD(a, np.zeros(N, np.float32), 4 * N), R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)
    assert ok(cuda.cuStreamIsCapturing(origin)) == 2
    fails(cuda.cuMemsetD32Async(a, 1, N, origin), R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
    fails(cuda.cuStreamEndCapture(origin), R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
    # synchronising a capturing stream is refused
    ok(cuda.cuStreamBeginCapture(origin, 0))
    fails(cuda.cuStreamSynchronize(origin), R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)
    fails(cuda.cuStreamEndCapture(origin), R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
    # relaxed mode on this thread allows the synchronous copy (on a non-blocking stream: no implicit sync)
    quiet = ok(cuda.cuStreamCreate(1))
    ok(cuda.cuStreamBeginCapture(quiet, 0))
    assert ok(cuda.cuThreadExchangeStreamCaptureMode(2)) == 0
    ok(cuda.cuMemcpyHtoD(a, np.zeros(N, np.float32), 4 * N))
    assert ok(cuda.cuThreadExchangeStreamCaptureMode(0)) == 2
    ok(cuda.cuMemsetD32Async(a, 9, N, quiet))
    graph = ok(cuda.cuStreamEndCapture(quiet))
    assert not _read(a, dtype=np.uint32).any()
    ok(cuda.cuGraphLaunch(ok(cuda.cuGraphInstantiate(graph, 0)), 0))
    np.testing.assert_array_equal(_read(a, dtype=np.uint32), np.full(N, 9, np.uint32))
    # the legacy stream cannot be captured; a launch on it during a blocking stream's capture is implicit sync
    fails(cuda.cuStreamBeginCapture(0, 0), R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)
    ok(cuda.cuStreamBeginCapture(origin, 1))
    fails(cuda.cuStreamIsCapturing(0), R.CUDA_ERROR_STREAM_CAPTURE_IMPLICIT)  # an answer, not an invalidation
    assert ok(cuda.cuStreamIsCapturing(origin)) == 1
    fails(cuda.cuMemsetD32Async(a, 1, N, 0), R.CUDA_ERROR_STREAM_CAPTURE_IMPLICIT)
    fails(cuda.cuStreamEndCapture(origin), R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
    # an event recorded in a capture cannot be queried
    ok(cuda.cuStreamBeginCapture(origin, 1))
    ok(cuda.cuEventRecord(event, origin))
    fails(cuda.cuEventQuery(event), R.CUDA_ERROR_CAPTURED_EVENT)
    ok(cuda.cuStreamEndCapture(origin))


def test_child_graph_event_nodes_clone_and_update(module: cuda.CUmodule, tmp_path: Path) -> None:
    add = ok(cuda.cuModuleGetFunction(module, b"vector_add"))
    a, b, c = _buffers(3)
    x = np.arange(N, dtype=np.float32)
    ok(cuda.cuMemcpyHtoD(a, x, 4 * N))
    ok(cuda.cuMemcpyHtoD(b, x, 4 * N))
    child = ok(cuda.cuGraphCreate(0))
    ok(cuda.cuGraphAddKernelNode(child, None, 0, _kernel_params(add, _add_args(a, b, c))))
    start, end = ok(cuda.cuEventCreate(0)), ok(cuda.cuEventCreate(0))
    graph = ok(cuda.cuGraphCreate(0))
    first = ok(cuda.cuGraphAddEventRecordNode(graph, None, 0, start))
    empty = ok(cuda.cuGraphAddEmptyNode(graph, [first], 1))
    inner = ok(cuda.cuGraphAddChildGraphNode(graph, [empty], 1, child))
    ok(cuda.cuGraphAddEventRecordNode(graph, None, 0, end))
    last = ok(cuda.cuGraphGetNodes(graph, 4))[0][3]
    ok(cuda.cuGraphAddDependencies(graph, [inner], [last], None, 1))
    fails(cuda.cuGraphAddDependencies(graph, [last], [first], None, 1), R.CUDA_ERROR_INVALID_VALUE, "cycle")
    ok(cuda.cuGraphDestroy(child))  # the node holds its own copy
    clone = ok(cuda.cuGraphClone(graph))
    executable = ok(cuda.cuGraphInstantiate(clone, 0))
    ok(cuda.cuGraphLaunch(executable, 0))
    np.testing.assert_array_equal(_read(c), 2 * x)
    assert ok(cuda.cuEventElapsedTime(start, end)) >= 0.0
    assert ok(cuda.cuGraphNodeFindInClone(inner, clone)) != inner
    # update: same topology, new kernel arguments
    other = ok(cuda.cuGraphCreate(0))
    ok(cuda.cuGraphAddKernelNode(other, None, 0, _kernel_params(add, _add_args(c, c, a))))
    single = ok(cuda.cuGraphInstantiate(child := ok(cuda.cuGraphChildGraphNodeGetGraph(inner)), 0))
    assert ok(cuda.cuGraphGetNodes(child, 0))[1] == 1
    assert ok(cuda.cuGraphExecUpdate(single, other)).result == 0
    ok(cuda.cuGraphLaunch(single, 0))
    np.testing.assert_array_equal(_read(a), 4 * x)
    fails(cuda.cuGraphExecUpdate(single, graph), R.CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE)
    path = tmp_path / "graph.dot"
    ok(cuda.cuGraphDebugDotPrint(graph, str(path).encode(), 0))
    text = path.read_text()
    assert text.startswith("digraph") and "vector_add" in text and text.count("->") >= 4


def test_user_objects_live_as_long_as_their_graphs(context: cuda.CUcontext) -> None:
    destroyed: list[object] = []
    thing = ok(cuda.cuUserObjectCreate("payload", destroyed.append, 1, 1))
    ok(cuda.cuUserObjectRetain(thing, 2))
    ok(cuda.cuUserObjectRelease(thing, 2))
    graph = ok(cuda.cuGraphCreate(0))
    ok(cuda.cuGraphAddEmptyNode(graph, None, 0))
    ok(cuda.cuGraphRetainUserObject(graph, thing, 1, 1))  # CU_GRAPH_USER_OBJECT_MOVE: the caller's reference
    executable = ok(cuda.cuGraphInstantiate(graph, 0))  # the executable owns a reference too
    ok(cuda.cuGraphReleaseUserObject(graph, thing, 1))
    ok(cuda.cuGraphDestroy(graph))
    assert destroyed == []
    ok(cuda.cuGraphLaunch(executable, 0))
    ok(cuda.cuGraphExecDestroy(executable))
    assert destroyed == ["payload"]
    fails(cuda.cuUserObjectRetain(thing, 1), R.CUDA_ERROR_INVALID_VALUE, "released")
    fails(cuda.cuUserObjectCreate(None, destroyed.append, 1, 0), R.CUDA_ERROR_INVALID_VALUE, "NO_DESTRUCTOR_SYNC")
