"""Device printf end to end: nvcc-compiled kernels (tests/runtime/data/printf_formats.cu → .ptx, and
the corpus' printf_assert.ptx) through ``ptx2gcn.cuda`` on the emulator, their stdout compared with
what the C library's ``snprintf`` prints for the same format strings and values (the reference is
glibc through ctypes, not our formatter)."""

from __future__ import annotations

import ctypes
import ctypes.util
import struct
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from ptx2gcn import cuda
from ptx2gcn.compiler import compile
from ptx2gcn.options import CompileOptions
from ptx2gcn.runtime.cache.jit_cache import CacheConfig, JitCache
from ptx2gcn.runtime.driver.state import DriverConfig, reset
from ptx2gcn.runtime.printf import format_printf

ROOT = Path(__file__).resolve().parents[2]
FORMATS = ROOT / "tests/runtime/data/printf_formats.ptx"
CORPUS = ROOT / "corpora/nvcc/sm_80/printf_assert.ptx"
LIBC = ctypes.CDLL(ctypes.util.find_library("c"))
LIBC.snprintf.restype = ctypes.c_int


def c_printf(fmt: bytes, *args: Any) -> bytes:
    """What C's printf writes for ``fmt`` and ``args`` (ctypes values), NUL bytes included."""
    size = LIBC.snprintf(None, 0, fmt, *args)
    buffer = ctypes.create_string_buffer(size + 1)
    assert LIBC.snprintf(buffer, size + 1, fmt, *args) == size
    return buffer.raw[:size]


def ok(result: tuple[Any, ...]) -> Any:
    assert result[0] == cuda.CUresult.CUDA_SUCCESS, (result, cuda.ptx2gcnGetLastErrorMessage()[1])
    return result[1] if len(result) == 2 else result[1:]


@pytest.fixture
def context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    reset(DriverConfig(backend="emulator", cache=JitCache(CacheConfig(directory=tmp_path_factory.mktemp("jit")))))
    ok(cuda.cuInit(0))
    ctx = ok(cuda.cuCtxCreate(0, ok(cuda.cuDeviceGet(0))))
    yield
    cuda.cuCtxDestroy(ctx)
    reset()


def device(array: npt.NDArray[Any]) -> Any:
    pointer = ok(cuda.cuMemAlloc(max(array.nbytes, 1)))
    ok(cuda.cuMemcpyHtoD(pointer, array.ctypes.data, array.nbytes))
    return pointer


def launch(path: Path, kernel: str, args: Sequence[Any], types: Sequence[Any], block: int = 32, grid: int = 1) -> None:
    module = ok(cuda.cuModuleLoadData(path.read_bytes()))
    function = ok(cuda.cuModuleGetFunction(module, kernel.encode()))
    ok(cuda.cuLaunchKernel(function, grid, 1, 1, block, 1, 1, 0, 0, (tuple(args), tuple(types)), 0))


INTS = np.array([0, 1, -1, 42, -42, 255, 256, 65535, 65536, 2**31 - 1, -(2**31), 1234567, -7, 97, 0x7F80, 200],
                dtype=np.int32)
LONGS = np.array([0, 1, -1, 2**63 - 1, -(2**63), 2**32, -(2**32) - 5, 10**18, 12345678901, -98765,
                  255, 256, 2**40, -3, 7, 8], dtype=np.int64)


def _format(path: Path, kernel: str) -> tuple[bytes, bytes]:
    """The kernel's two format strings, read from the PTX (nvcc writes them as .global byte arrays)."""
    strings = []
    for line in path.read_text().splitlines():
        if line.startswith(".global .align 1 .b8 $str"):
            values = line.split("{", 1)[1].rsplit("}", 1)[0]
            strings.append(bytes(int(v) for v in values.split(",")).rstrip(b"\0"))
    return strings[0], strings[1]


def test_integer_conversions_match_c(context: None, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    n = len(INTS)
    launch(FORMATS, "ints", [device(INTS), device(LONGS), n], [None, None, ctypes.c_int])
    out = capsysbinary.readouterr().out
    first, second = _format(FORMATS, "ints")
    expected = b""
    for x in INTS.tolist():
        expected += c_printf(first, *[ctypes.c_int(x)] * 19)
    for x, y in zip(INTS.tolist(), LONGS.tolist(), strict=True):
        expected += c_printf(second, *[ctypes.c_longlong(y)] * 8, *[ctypes.c_int(x)] * 3)
    # the two printf calls of a thread are separate records: all first lines (one warp, in lane
    # order), then all second lines
    assert out == expected


FLOATS = np.array([0.0, -0.0, 1.0, -1.5, 0.1, 2.5, 0.5, 1e300, -1e-300, 5e-324, 2.2250738585072014e-308,
                   float("inf"), float("-inf"), float("nan"), -float("nan"), 123456789.125, 1.9999999999,
                   0.000123456, 65504.0, 3.141592653589793], dtype=np.float64)


def test_floating_point_conversions_match_c(context: None, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    n = len(FLOATS)
    launch(FORMATS, "floats", [device(FLOATS), n], [None, ctypes.c_int])
    out = capsysbinary.readouterr().out
    fmt = next(s for s in _all_strings(FORMATS) if s.startswith(b"[%f] [%e]"))
    with np.errstate(over="ignore"):
        as_float = FLOATS.astype(np.float32).astype(np.float64).tolist()
    expected = b"".join(
        c_printf(fmt, *[ctypes.c_double(x)] * 21, ctypes.c_double(f)) for x, f in zip(FLOATS.tolist(), as_float)
    )
    assert out == expected


def _all_strings(path: Path) -> list[bytes]:
    strings = []
    for line in path.read_text().splitlines():
        if line.startswith(".global .align 1 .b8 $str"):
            values = line.split("{", 1)[1].rsplit("}", 1)[0]
            strings.append(bytes(int(v) for v in values.split(",")).rstrip(b"\0"))
    return strings


def test_strings_pointers_and_percent_match_c(context: None, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    s_text, t_text = b"hello, world", b"ab"
    s, t = device(np.frombuffer(s_text + b"\0", np.uint8)), device(np.frombuffer(t_text + b"\0", np.uint8))
    n = 8
    launch(FORMATS, "strings", [s, t, n], [None, None, ctypes.c_int])
    out = capsysbinary.readouterr().out
    fmt = next(x for x in _all_strings(FORMATS) if x.startswith(b"[%s] [%.3s]"))
    expected = b""
    for i in range(n):
        which = t_text if i & 1 else s_text
        maybe = None if i & 2 else s_text
        maybe_address = None if i & 2 else int(s)
        expected += c_printf(fmt, *[ctypes.c_char_p(which)] * 4, ctypes.c_char_p(maybe),
                             ctypes.c_void_p(maybe_address), ctypes.c_void_p(None), ctypes.c_int(i))
    assert out == expected


def test_printf_returns_the_argument_count(context: None, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """CUDA Programming Guide, Formatted Output: printf returns the number of arguments parsed."""
    result = ok(cuda.cuMemAlloc(3 * 4 * 4))
    launch(FORMATS, "counted", [result], [None], block=4)
    values = np.zeros(12, np.int32)
    ok(cuda.cuMemcpyDtoH(values.ctypes.data, result, values.nbytes))
    assert values.tolist() == [1, 0, 3] * 4
    out = capsysbinary.readouterr().out
    assert out.count(b"no arguments\n") == 4 and out.count(b"1.500000 x\n") == 4


def test_corpus_printf_kernels(context: None, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    launch(CORPUS, "hello", [7], [ctypes.c_int], block=3, grid=2)
    expected = b"".join(c_printf(b"Hello from block %d thread %d of %d\n", ctypes.c_int(b), ctypes.c_int(t),
                                 ctypes.c_int(7)) for b in range(2) for t in range(3))
    assert capsysbinary.readouterr().out == expected


def test_fifo_overflow_drops_records_and_the_limit_is_settable(
    context: None, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """A 200-byte FIFO holds 6 records of 32 bytes (16-byte header + 12 argument bytes, rounded up to
    8): the first six of the launch's records appear, the rest are dropped, as CUDA drops output
    beyond cudaLimitPrintfFifoSize; the size cannot change once printf has run."""
    limit = cuda.CUlimit.CU_LIMIT_PRINTF_FIFO_SIZE
    assert ok(cuda.cuCtxGetLimit(limit)) == 1 << 20
    ok(cuda.cuCtxSetLimit(limit, 200))
    assert ok(cuda.cuCtxGetLimit(limit)) == 200
    launch(FORMATS, "many", [3], [ctypes.c_int], block=4)
    lines = capsysbinary.readouterr().out.splitlines()
    assert lines == [b"block 0 thread %d round %d" % (t, r) for r in range(2) for t in range(4)][:6]
    assert cuda.cuCtxSetLimit(limit, 4096)[0] == cuda.CUresult.CUDA_ERROR_INVALID_VALUE
    assert cuda.cuCtxSetLimit(cuda.CUlimit.CU_LIMIT_STACK_SIZE, 4096)[0] == cuda.CUresult.CUDA_ERROR_UNSUPPORTED_LIMIT
    launch(FORMATS, "many", [1], [ctypes.c_int], block=2)  # the next launch starts with an empty FIFO
    assert capsysbinary.readouterr().out == b"block 0 thread 0 round 0\nblock 0 thread 1 round 0\n"


def test_printf_without_a_fifo_returns_minus_two() -> None:
    """Run directly on the emulator, with nobody setting up the FIFO: the call reports an internal
    error (-2, CUDA's code for it) and writes nothing."""
    from ptx2gcn.runtime.emulator.launch import launch as emu_launch
    from ptx2gcn.runtime.emulator.loader import load
    from ptx2gcn.runtime.emulator.memory import DeviceMemory

    memory = DeviceMemory()
    result = memory.alloc(3 * 4 * 2)
    program = load(compile(str(FORMATS)).data, "printf_formats")
    emu_launch(program, "counted", (1, 1, 1), (2, 1, 1), struct.pack("<Q", result), memory=memory)
    assert struct.unpack("<6i", memory.read(result, 24)) == (-2,) * 6


@pytest.mark.parametrize(
    ("fmt", "values"),
    [
        (b"%#x %#o %#X %#.0o|%.0x|", [0, 0, 0, 0, 0]),
        (b"%c|%c|%-3c|", [0, 65, 66]),
        (b"%a %a %a %.1a %.0a %A", [1.0, -0.0, 0.75, 1.96875, 1.5, 255.5]),
        (b"%5.1e|%-8.3g|%08.3f|%+g|%#x", [12345.678, 0.0001, -3.14159, 1e-5, 255]),
        (b"%hhu %hhd %hu %hd", [511, 255, 70000, 40000]),
        (b"100%% done, %%%d%%", [5]),
        (b"%lld %llx", [-(2**63), 2**64 - 1]),
    ],
)
def test_formatter_against_c(fmt: bytes, values: list[int | float]) -> None:
    """The host formatter alone, with argument bytes packed as CUDA packs them."""
    packed, args = _pack(fmt, values)
    assert format_printf(fmt, packed, lambda address, size: b"") == c_printf(fmt, *args)


def _pack(fmt: bytes, values: list[int | float]) -> tuple[bytes, list[Any]]:
    data = bytearray()
    args: list[Any] = []
    longs = fmt.count(b"ll")
    for index, value in enumerate(values):
        if isinstance(value, float):
            size, raw, arg = 8, struct.pack("<d", value), ctypes.c_double(value)
        elif index >= len(values) - longs:
            size, raw, arg = 8, (value & (2**64 - 1)).to_bytes(8, "little"), ctypes.c_ulonglong(value & (2**64 - 1))
        else:
            size, raw, arg = 4, (value & 0xFFFFFFFF).to_bytes(4, "little"), ctypes.c_uint(value & 0xFFFFFFFF)
        data += bytes(-len(data) % size) + raw
        args.append(arg)
    return bytes(data), args


CALLS = ROOT / "tests/runtime/data/printf_calls.ptx"


@pytest.mark.parametrize("opt", [0, 3])
def test_printf_in_a_device_function_and_divergent_branches(
    opt: int, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """A non-inlined ``.func`` calling vprintf, under divergence, at -O0 (the format walk is a real
    call until LLVM's always-inliner) and -O3. Lines of different branches may come in either
    order (CUDA does not order them either); each thread's line appears exactly once, and the lines
    of one call site in lane order (the emulator reserves records lane by lane)."""
    reset(DriverConfig(backend="emulator", cache=JitCache(CacheConfig(directory=tmp_path)),
                       options=CompileOptions(opt=opt)))
    try:
        ok(cuda.cuInit(0))
        ok(cuda.cuCtxCreate(0, 0))
        result = ok(cuda.cuMemAlloc(4 * 8))
        launch(CALLS, "from_function", [result], [None], block=8)
        values = np.zeros(8, np.int32)
        ok(cuda.cuMemcpyDtoH(values.ctypes.data, result, values.nbytes))
    finally:
        reset()
    assert values.tolist() == [2 if i % 3 == 0 else 1 for i in range(8)]
    expected = [c_printf(b"f(%d) = %.3f\n", ctypes.c_int(i), ctypes.c_double(i * 0.5)) if i % 3 == 0
                else c_printf(b"skip %u\n", ctypes.c_uint(i)) for i in range(8)]
    lines = capsysbinary.readouterr().out.splitlines(keepends=True)
    assert sorted(lines) == sorted(expected)
    for prefix in (b"f(", b"skip"):  # one call site: its records in lane order
        assert [x for x in lines if x.startswith(prefix)] == [x for x in expected if x.startswith(prefix)]


def test_strings_in_local_and_shared_memory_are_copied_at_the_call(
    context: None, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """Local and shared memory are gone when the host formats: the record carries the text."""
    launch(CALLS, "local_strings", [5], [ctypes.c_int], block=6)
    expected = b""
    for i in range(5):
        name = bytes([ord("a") + i, ord("-"), ord("0") + i % 10])
        expected += c_printf(b"%s %s %.2s|%s\n", name, b"SH", name, ctypes.c_char_p(None))
    assert capsysbinary.readouterr().out == expected


def test_precision_bounds_the_string_read(context: None, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """``%.3s`` of "abc" in the last 3 bytes of a 256-byte allocation (the emulator's allocation
    granule), no NUL after it: reading a fourth byte would fault, and C reads no further than the
    precision."""
    block = device(np.frombuffer(b"x" * 253 + b"abc", np.uint8))
    unterminated = cuda.CUdeviceptr(int(block) + 253)
    text = device(np.frombuffer(b"hello world\0", np.uint8))
    launch(CALLS, "precise_strings", [unterminated, text], [None, None], block=2)
    line = c_printf(b"[%.3s] [%.5s] [%.0s] [%-6.2s] [%s]\n", b"abc", b"hello world", b"abc", b"abc", b"hello world")
    assert capsysbinary.readouterr().out == line * 2


def test_numba_print(context: None, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """numba's ``print(...)`` (corpus numba/print_kernel: ``print("x[0] =", x[0], "size", x.size)``
    from global thread 0) is vprintf("%s %f %s %lld\\n") with .const strings."""
    path = ROOT / "corpora/numba/sm_80/print_kernel.ptx"
    kernel = next(line.split("(")[0].split()[-1] for line in path.read_text().splitlines() if ".entry" in line)
    data = device(np.array([3.5, 1.0], np.float64))
    launch(path, kernel, [0, 0, 2, 8, int(data), 2, 8], [ctypes.c_uint64] * 7, block=4)
    expected = c_printf(b"%s %f %s %lld\n", b"x[0] =", ctypes.c_double(3.5), b"size", ctypes.c_longlong(2))
    assert capsysbinary.readouterr().out == expected


def test_only_modules_calling_vprintf_export_the_control_block() -> None:
    """The runtime finds the FIFO control block by name: an exported 24-byte object (checked in the
    code object's symbol table), absent from modules without printf."""
    from ptx2gcn.link.codeobject import PRINTF_CONTROL_SIZE, PRINTF_CONTROL_SYMBOL, read_code_object
    from ptx2gcn.link.elf import STT_OBJECT

    def symbols(path: Path) -> dict[str, tuple[int, int]]:
        code = read_code_object(compile(str(path)).data, path.name)
        return {s.name: (s.type, s.size) for s in code.elf.symtab if s.defined}

    assert symbols(FORMATS)[PRINTF_CONTROL_SYMBOL] == (STT_OBJECT, PRINTF_CONTROL_SIZE)
    assert PRINTF_CONTROL_SYMBOL not in symbols(ROOT / "tests/driver/data/kernels.ptx")
