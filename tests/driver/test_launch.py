"""cuLaunchKernel in every kernelParams/extra form cuda-python allows, checked against numpy; launch
shape, argument count and size errors; kernel faults; streams and events."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from ptx2gcn import cuda
from tests.driver.conftest import fails, ok

R = cuda.CUresult
N = 300


@pytest.fixture
def vadd(module: cuda.CUmodule) -> tuple[cuda.CUfunction, list[cuda.CUdeviceptr], np.ndarray]:
    rng = np.random.default_rng(5)
    a, b = rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32)
    pointers = [ok(cuda.cuMemAlloc(4 * N)) for _ in range(3)]
    ok(cuda.cuMemcpyHtoD(pointers[0], a, 4 * N))
    ok(cuda.cuMemcpyHtoD(pointers[1], b, 4 * N))
    return ok(cuda.cuModuleGetFunction(module, b"vector_add")), pointers, a + b


def _result(pointer: cuda.CUdeviceptr) -> np.ndarray:
    out = np.zeros(N, dtype=np.float32)
    ok(cuda.cuMemcpyDtoH(out, pointer, 4 * N))
    return out


def _launch(
    function: cuda.CUfunction, params: object, extra: object = 0, block: int = 128
) -> tuple[object, ...]:
    return cuda.cuLaunchKernel(function, (N + block - 1) // block, 1, 1, block, 1, 1, 0, 0, params, extra)


def test_tuple_params(vadd: tuple[cuda.CUfunction, list[cuda.CUdeviceptr], np.ndarray]) -> None:
    function, (a, b, c), expected = vadd
    ok(_launch(function, ((a, b, c, N), (None, None, None, ctypes.c_int))))
    assert np.array_equal(_result(c), expected)
    ok(cuda.cuMemsetD32(c, 0, N))
    ok(_launch(function, ((int(a), int(b), int(c), np.int32(N)), (ctypes.c_void_p,) * 3 + (ctypes.c_int,))))
    assert np.array_equal(_result(c), expected)


def test_pointer_array_params(vadd: tuple[cuda.CUfunction, list[cuda.CUdeviceptr], np.ndarray]) -> None:
    function, (a, b, c), expected = vadd
    cells = [ctypes.c_uint64(int(a)), ctypes.c_uint64(int(b)), ctypes.c_uint64(int(c)), ctypes.c_int(N)]
    array = (ctypes.c_void_p * 4)(*[ctypes.addressof(cell) for cell in cells])
    ok(_launch(function, ctypes.addressof(array)))  # void** as an int
    assert np.array_equal(_result(c), expected)
    ok(cuda.cuMemsetD32(c, 0, N))
    ok(_launch(function, array))  # the array itself (buffer protocol)
    assert np.array_equal(_result(c), expected)


def test_extra_buffer(vadd: tuple[cuda.CUfunction, list[cuda.CUdeviceptr], np.ndarray]) -> None:
    function, (a, b, c), expected = vadd
    packed = ctypes.create_string_buffer(
        np.array([int(a), int(b), int(c)], dtype=np.uint64).tobytes() + np.int32(N).tobytes() + bytes(4)
    )
    size = ctypes.c_size_t(len(packed.raw))
    extra = (ctypes.c_void_p * 5)(
        cuda.CU_LAUNCH_PARAM_BUFFER_POINTER,
        ctypes.addressof(packed),
        cuda.CU_LAUNCH_PARAM_BUFFER_SIZE,
        ctypes.addressof(size),
        cuda.CU_LAUNCH_PARAM_END,
    )
    ok(_launch(function, None, ctypes.addressof(extra)))
    assert np.array_equal(_result(c), expected)
    ok(cuda.cuMemsetD32(c, 0, N))
    ok(
        _launch(
            function,
            0,
            (
                cuda.CU_LAUNCH_PARAM_BUFFER_POINTER,
                packed.raw,
                cuda.CU_LAUNCH_PARAM_BUFFER_SIZE,
                ctypes.c_size_t(28),
                cuda.CU_LAUNCH_PARAM_END,
            ),
        )
    )
    assert np.array_equal(_result(c), expected)
    short = (
        cuda.CU_LAUNCH_PARAM_BUFFER_POINTER,
        packed.raw,
        cuda.CU_LAUNCH_PARAM_BUFFER_SIZE,
        ctypes.c_size_t(20),
        0,
    )
    fails(_launch(function, 0, short), R.CUDA_ERROR_INVALID_VALUE, "needs 28")
    fails(
        _launch(function, 0, (cuda.CU_LAUNCH_PARAM_BUFFER_POINTER, packed.raw, 0)),
        R.CUDA_ERROR_INVALID_VALUE,
        "BUFFER_SIZE",
    )
    fails(
        _launch(function, ((a, b, c, N), (None, None, None, ctypes.c_int)), ctypes.addressof(extra)),
        R.CUDA_ERROR_INVALID_VALUE,
        "not both",
    )


def test_scalar_conversions_and_globals(module: cuda.CUmodule) -> None:
    function = ok(cuda.cuModuleGetFunction(module, b"scale_add"))
    out = ok(cuda.cuMemAlloc(8 * 64))
    ok(
        cuda.cuLaunchKernel(
            function,
            1,
            1,
            1,
            64,
            1,
            1,
            0,
            0,
            ((out, 2.5, -3, 7), (None, ctypes.c_double, ctypes.c_byte, ctypes.c_short)),
            0,
        )
    )
    values = np.zeros(64, dtype=np.int64)
    ok(cuda.cuMemcpyDtoH(values, out, 8 * 64))
    i = np.arange(64)
    assert values.tolist() == (np.trunc(2.5 * i).astype(np.int64) - 3 + 7 * i).tolist()
    counter, _size = ok(cuda.cuModuleGetGlobal(module, b"counter"))
    counts = np.zeros(4, dtype=np.int32)
    ok(cuda.cuMemcpyDtoH(counts, counter, 16))
    assert counts.tolist() == [1, 2, 3, 4]
    fails(
        cuda.cuLaunchKernel(
            function,
            1,
            1,
            1,
            64,
            1,
            1,
            0,
            0,
            ((out, 2.5, 300, 7), (None, ctypes.c_double, ctypes.c_byte, ctypes.c_short)),
            0,
        ),
        R.CUDA_ERROR_INVALID_VALUE,
        "8-bit",
    )


def test_argument_errors(vadd: tuple[cuda.CUfunction, list[cuda.CUdeviceptr], np.ndarray]) -> None:
    function, (a, b, c), _ = vadd
    fails(
        _launch(function, ((a, b, c), (None, None, None))),
        R.CUDA_ERROR_INVALID_VALUE,
        "takes 4 parameter(s), but 3",
    )
    fails(
        _launch(function, ((a, b, c, N, 1), (None,) * 3 + (ctypes.c_int,) * 2)),
        R.CUDA_ERROR_INVALID_VALUE,
        "but 5",
    )
    fails(
        _launch(function, ((a, b, c, N), (None, None, None))),
        R.CUDA_ERROR_INVALID_VALUE,
        "4 values but 3 types",
    )
    fails(_launch(function, None), R.CUDA_ERROR_INVALID_VALUE, "but 0 were given")
    fails(
        _launch(function, ((a, b, c, N), (None, None, None, ctypes.c_char_p))),
        R.CUDA_ERROR_INVALID_VALUE,
        "unsupported type",
    )
    fails(
        _launch(function, ((a, b, c, "x"), (None, None, None, ctypes.c_int))),
        R.CUDA_ERROR_INVALID_VALUE,
        "integer",
    )
    fails(
        _launch(function, ((a, b, 5, N), (None, None, None, ctypes.c_int))),
        R.CUDA_ERROR_INVALID_VALUE,
        "handle such as CUdeviceptr",
    )
    fails(_launch(function, "params"), R.CUDA_ERROR_INVALID_VALUE, "kernelParams must be")
    fails(_launch(function, bytes(16)), R.CUDA_ERROR_INVALID_VALUE, "holds 2 pointer(s)")


def test_float_launch_dimensions_convert_as_c_does(
    vadd: tuple[cuda.CUfunction, list[cuda.CUdeviceptr], np.ndarray],
) -> None:
    # cuda-python accepts floats here (its Cython converts them to unsigned int, truncating).
    function, (a, b, c), expected = vadd
    params = ((a, b, c, N), (None, None, None, ctypes.c_int))
    ok(cuda.cuLaunchKernel(function, N / 100, 1.0, 1.0, 100.0, 1.0, 1.0, 0.0, 0, params, 0))
    assert np.array_equal(_result(c), expected)
    ok(cuda.cuMemsetD32(c, 0, N))
    ok(cuda.cuLaunchKernel(function, 2.9, 1, 1, 128, 1, 1, 0, 0, params, 0))  # 2 blocks: 256 elements
    got = _result(c)
    assert np.array_equal(got[:256], expected[:256]) and not got[256:].any()


def test_launch_shape_and_handle_errors(
    vadd: tuple[cuda.CUfunction, list[cuda.CUdeviceptr], np.ndarray],
) -> None:
    function, (a, b, c), _ = vadd
    params = ((a, b, c, N), (None, None, None, ctypes.c_int))
    fails(
        cuda.cuLaunchKernel(function, 0, 1, 1, 64, 1, 1, 0, 0, params, 0),
        R.CUDA_ERROR_INVALID_VALUE,
        "gridDimX = 0",
    )
    fails(
        cuda.cuLaunchKernel(function, 1, 1, 1, 2048, 1, 1, 0, 0, params, 0),
        R.CUDA_ERROR_INVALID_VALUE,
        "blockDimX = 2048",
    )
    fails(
        cuda.cuLaunchKernel(function, 1, 1, 1, 64, 32, 1, 0, 0, params, 0),
        R.CUDA_ERROR_INVALID_VALUE,
        "2048 threads",
    )
    fails(
        cuda.cuLaunchKernel(function, 1, 1, 1, 64, 1, 1, 1 << 20, 0, params, 0),
        R.CUDA_ERROR_INVALID_VALUE,
        "shared memory",
    )
    fails(
        cuda.cuLaunchKernel(function, float("nan"), 1, 1, 64, 1, 1, 0, 0, params, 0),
        R.CUDA_ERROR_INVALID_VALUE,
        "finite",
    )
    fails(
        cuda.cuLaunchKernel(function, "2", 1, 1, 64, 1, 1, 0, 0, params, 0),
        R.CUDA_ERROR_INVALID_VALUE,
        "integer",
    )
    # CUDA allows 2**31-1 blocks of 1024 threads; one AMD dispatch holds 2**32-1 work-items per axis.
    fails(
        cuda.cuLaunchKernel(function, 2**31 - 1, 1, 1, 1024, 1, 1, 0, 0, params, 0),
        R.CUDA_ERROR_INVALID_VALUE,
        "32-bit grid size",
    )
    fails(
        cuda.cuLaunchKernel(cuda.CUfunction(0x42), 1, 1, 1, 64, 1, 1, 0, 0, params, 0),
        R.CUDA_ERROR_INVALID_HANDLE,
        "function",
    )
    fails(
        cuda.cuLaunchKernel(function, 1, 1, 1, 64, 1, 1, 0, cuda.CUstream(0x42), params, 0),
        R.CUDA_ERROR_INVALID_HANDLE,
        "stream",
    )
    fails(cuda.cuLaunchKernel(function, 1, 1, 1, 64, 1, 1, 0, 0, params), R.CUDA_ERROR_INVALID_VALUE, "extra")


def test_fault_is_illegal_address(module: cuda.CUmodule) -> None:
    function = ok(cuda.cuModuleGetFunction(module, b"poke"))
    p = ok(cuda.cuMemAlloc(64))
    ok(cuda.cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, 0, ((p, 15), (None, ctypes.c_longlong)), 0))
    # As with cudaMalloc, a block spans whole 256-byte granules: p[16..63] exist; p[64] is past the end.
    ok(cuda.cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, 0, ((p, 63), (None, ctypes.c_longlong)), 0))
    message = fails(
        cuda.cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, 0, ((p, 64), (None, ctypes.c_longlong)), 0),
        R.CUDA_ERROR_ILLEGAL_ADDRESS,
        "kernel 'poke'",
    )
    assert "past the end" in message
    out = np.zeros(16, dtype=np.int32)  # the error sticks to the context, as in CUDA
    fails(cuda.cuMemcpyDtoH(out, p, 64), R.CUDA_ERROR_ILLEGAL_ADDRESS, "ruined this context")
    fails(cuda.cuCtxSynchronize(), R.CUDA_ERROR_ILLEGAL_ADDRESS)
    fails(cuda.cuMemAlloc(4), R.CUDA_ERROR_ILLEGAL_ADDRESS)
    context = ok(cuda.cuCtxGetCurrent())
    ok(cuda.cuCtxDestroy(context))
    fresh = ok(cuda.cuCtxCreate(0, 0))
    ok(cuda.cuMemAlloc(4))
    ok(cuda.cuCtxDestroy(fresh))


def test_reduction_with_dynamic_shared_memory(module: cuda.CUmodule) -> None:
    function = ok(cuda.cuModuleGetFunction(module, b"block_sum"))
    data = np.random.default_rng(1).integers(0, 100, 1000).astype(np.float32)  # exact sums in f32
    blocks, threads = 4, 128
    d_in, d_out = ok(cuda.cuMemAlloc(4000)), ok(cuda.cuMemAlloc(4 * blocks))
    ok(cuda.cuMemcpyHtoD(d_in, data, 4000))
    ok(
        cuda.cuLaunchKernel(
            function,
            blocks,
            1,
            1,
            threads,
            1,
            1,
            4 * threads,
            0,
            ((d_in, d_out, 1000), (None, None, ctypes.c_uint)),
            0,
        )
    )
    out = np.zeros(blocks, dtype=np.float32)
    ok(cuda.cuMemcpyDtoH(out, d_out, 4 * blocks))
    assert out.tolist() == [float(data[256 * k : 256 * (k + 1)].sum()) for k in range(blocks)]


def test_streams_and_events(vadd: tuple[cuda.CUfunction, list[cuda.CUdeviceptr], np.ndarray]) -> None:
    function, (a, b, c), expected = vadd
    stream = ok(cuda.cuStreamCreate(cuda.CUstream_flags.CU_STREAM_NON_BLOCKING))
    start, end = ok(cuda.cuEventCreate(0)), ok(cuda.cuEventCreate(0))
    fails(cuda.cuEventElapsedTime(start, end), R.CUDA_ERROR_INVALID_HANDLE, "not been recorded")
    ok(cuda.cuEventRecord(start, stream))
    ok(
        cuda.cuLaunchKernel(
            function, 3, 1, 1, 128, 1, 1, 0, stream, ((a, b, c, N), (None, None, None, ctypes.c_int)), 0
        )
    )
    ok(cuda.cuEventRecord(end, stream))
    ok(cuda.cuEventSynchronize(end))
    assert ok(cuda.cuEventElapsedTime(start, end)) > 0.0
    assert np.array_equal(_result(c), expected)
    untimed = ok(cuda.cuEventCreate(cuda.CUevent_flags.CU_EVENT_DISABLE_TIMING))
    ok(cuda.cuEventRecord(untimed, 0))
    fails(cuda.cuEventElapsedTime(start, untimed), R.CUDA_ERROR_INVALID_HANDLE, "DISABLE_TIMING")
    fails(cuda.cuEventCreate(0x40), R.CUDA_ERROR_INVALID_VALUE)
    fails(cuda.cuStreamCreate(4), R.CUDA_ERROR_INVALID_VALUE)
    ok(cuda.cuStreamSynchronize(stream))
    ok(cuda.cuStreamSynchronize(0))
    ok(cuda.cuStreamQuery(stream))
    ok(cuda.cuEventQuery(end))
    ok(cuda.cuStreamDestroy(stream))
    fails(cuda.cuStreamDestroy(stream), R.CUDA_ERROR_INVALID_HANDLE, "destroyed")
    fails(cuda.cuStreamSynchronize(stream), R.CUDA_ERROR_INVALID_HANDLE)
    fails(cuda.cuEventRecord(start, stream), R.CUDA_ERROR_INVALID_HANDLE)
    ok(cuda.cuEventDestroy(start))
    fails(cuda.cuEventSynchronize(start), R.CUDA_ERROR_INVALID_HANDLE)
    fails(cuda.cuEventQuery(start), R.CUDA_ERROR_INVALID_HANDLE)
    fails(cuda.cuStreamQuery(stream), R.CUDA_ERROR_INVALID_HANDLE)
    fails(cuda.cuStreamDestroy(0), R.CUDA_ERROR_INVALID_HANDLE, "default stream")


def test_cuda_python_test_suite_conventions(module: cuda.CUmodule) -> None:
    """Forms from cuda-python's own tests/test_kernelParams.py: ctypes instances as values, empty
    ``((), ())`` for no parameters, ctypes scalars as host destinations of DtoH copies."""
    function = ok(cuda.cuModuleGetFunction(module, b"scale_add"))
    out = ok(cuda.cuMemAlloc(8 * 32))
    values = (out, ctypes.c_double(-1.5), ctypes.c_byte(-128), ctypes.c_short(300))
    types = (None, ctypes.c_double, ctypes.c_byte, ctypes.c_short)
    stream = ok(cuda.cuStreamCreate(0))
    ok(cuda.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, (values, types), 0))
    last = ctypes.c_longlong()
    ok(cuda.cuMemcpyDtoHAsync(last, int(out) + 8 * 31, ctypes.sizeof(last), stream))
    ok(cuda.cuStreamSynchronize(stream))
    assert last.value == int(-1.5 * 31) - 128 + 300 * 31  # C truncates toward zero
    poke = ok(cuda.cuModuleGetFunction(module, b"poke"))
    fails(cuda.cuLaunchKernel(poke, 1, 1, 1, 1, 1, 1, 0, 0, ((), ()), 0), R.CUDA_ERROR_INVALID_VALUE, "but 0")


def test_parameterless_kernel(module: cuda.CUmodule) -> None:
    """cuda-python's test_kernelParams_empty forms: ``((), ())`` and ``None`` for a kernel without
    parameters."""
    function = ok(cuda.cuModuleGetFunction(module, b"set_done"))
    stream = ok(cuda.cuStreamCreate(0))
    ok(cuda.cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, stream, ((), ()), 0))
    ok(cuda.cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, stream, None, 0))
    fails(
        cuda.cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, 0, ((1,), (ctypes.c_int,)), 0),
        R.CUDA_ERROR_INVALID_VALUE,
        "takes 0 parameter(s), but 1",
    )


def test_static_global_written_by_a_kernel(module: cuda.CUmodule) -> None:
    """The rest of cuda-python's test_kernelParams_empty: ``static __device__ bool isDone`` read back."""
    function = ok(cuda.cuModuleGetFunction(module, b"set_done"))
    ok(cuda.cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, 0, None, 0))
    pointer, size = ok(cuda.cuModuleGetGlobal(module, b"isDone"))
    assert size == ctypes.sizeof(ctypes.c_bool)
    done = ctypes.c_bool()
    ok(cuda.cuMemcpyDtoH(done, pointer, size))
    assert done.value is True


def test_sticky_fault_in_primary_context_cleared_by_reset(driver: None) -> None:
    # CUDA: a kernel fault sticks to the context (every call needing it, events included, returns
    # it); cuDevicePrimaryCtxReset clears it, keeping the handle and the retain count.
    from tests.driver.conftest import KERNELS_PTX

    ok(cuda.cuInit(0))
    primary = ok(cuda.cuDevicePrimaryCtxRetain(0))
    assert ok(cuda.cuDevicePrimaryCtxGetState(0)) == (0, 1)
    ok(cuda.cuCtxSetCurrent(primary))
    poke = ok(cuda.cuModuleGetFunction(ok(cuda.cuModuleLoad(str(KERNELS_PTX))), b"poke"))
    p = ok(cuda.cuMemAlloc(64))
    event = ok(cuda.cuEventCreate(0))
    fails(cuda.cuMemAlloc(1 << 62), R.CUDA_ERROR_OUT_OF_MEMORY)  # not sticky: the next call works
    ok(cuda.cuMemsetD32(p, 0, 16))
    args = ((p, 1 << 20), (None, ctypes.c_longlong))
    fails(cuda.cuLaunchKernel(poke, 1, 1, 1, 1, 1, 1, 0, 0, args, 0), R.CUDA_ERROR_ILLEGAL_ADDRESS)
    fails(cuda.cuEventRecord(event, 0), R.CUDA_ERROR_ILLEGAL_ADDRESS, "ruined")
    fails(cuda.cuEventSynchronize(event), R.CUDA_ERROR_ILLEGAL_ADDRESS)
    fails(cuda.cuEventQuery(event), R.CUDA_ERROR_ILLEGAL_ADDRESS)
    fails(cuda.cuMemAlloc(4), R.CUDA_ERROR_ILLEGAL_ADDRESS)
    ok(cuda.cuDevicePrimaryCtxReset(0))
    assert ok(cuda.cuCtxGetCurrent()) == primary  # same handle, still current, still retained
    assert ok(cuda.cuDevicePrimaryCtxGetState(0)) == (0, 1)
    fails(cuda.cuEventQuery(event), R.CUDA_ERROR_INVALID_HANDLE)  # the reset destroyed it
    q = ok(cuda.cuMemAlloc(64))
    fresh = ok(cuda.cuModuleGetFunction(ok(cuda.cuModuleLoad(str(KERNELS_PTX))), b"poke"))
    ok(cuda.cuLaunchKernel(fresh, 1, 1, 1, 1, 1, 1, 0, 0, ((q, 3), (None, ctypes.c_longlong)), 0))
    ok(cuda.cuDevicePrimaryCtxRelease(0))
    assert ok(cuda.cuDevicePrimaryCtxGetState(0)) == (0, 0)
    ok(cuda.cuDevicePrimaryCtxReset(0))  # nothing retained: nothing to reset
