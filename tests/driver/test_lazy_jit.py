"""The lazy, parallel JIT (``runtime/driver/module_units.py``, ``jit.py``, ``jit_pool.py``): what is
compiled when, with which errors, and what the cache holds.

The module is ``data/lazy.ptx`` (hand-written, accepted by ptxas); every result a kernel computes is
checked against what its PTX says, computed here in Python.
"""

from __future__ import annotations

import concurrent.futures
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from ptx2gcn import cuda
from ptx2gcn.options import CompileOptions
from ptx2gcn.runtime.cache.jit_cache import CacheConfig, JitCache
from ptx2gcn.runtime.cache.key import CacheKey
from ptx2gcn.runtime.cache.store import DiskStore
from ptx2gcn.runtime.driver.jit import compile_many, default_compiler, kernel_code, split_module, unit_text
from ptx2gcn.runtime.driver.jit_pool import jit_workers, run_in_workers
from ptx2gcn.runtime.driver.module_units import LoadingMode, loading_mode
from ptx2gcn.runtime.driver.state import DriverConfig, reset
from tests.driver.conftest import DATA, fails, ok

R = cuda.CUresult
LAZY_PTX = DATA / "lazy.ptx"
TEXT = LAZY_PTX.read_text()
ROOT = Path(__file__).resolve().parents[2]


def _entries(ptx: str) -> tuple[str, ...]:
    return tuple(re.findall(r"\.entry\s+(\w+)", ptx))


class Recorder:
    """A JIT compiler that records the kernels of every unit it compiles, then compiles it."""

    def __init__(self) -> None:
        self.units: list[tuple[str, ...]] = []

    def __call__(self, ptx: str, source: str, options: CompileOptions) -> bytes:
        self.units.append(_entries(ptx))
        return default_compiler(ptx, source, options)


@pytest.fixture
def recorder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorder]:
    """A current context on a driver compiling with a ``Recorder`` into an empty cache."""
    monkeypatch.delenv("CUDA_MODULE_LOADING", raising=False)
    seen = Recorder()
    reset(DriverConfig(backend="emulator", cache=JitCache(CacheConfig(directory=tmp_path / "cache")),
                       compiler=seen))
    ok(cuda.cuInit(0))
    context = ok(cuda.cuCtxCreate(None, 0, ok(cuda.cuDeviceGet(0))))
    yield seen
    cuda.cuCtxDestroy(context)
    reset()


def _buffer(values: list[int]) -> int:
    pointer = ok(cuda.cuMemAlloc(4 * len(values)))
    ok(cuda.cuMemcpyHtoD(pointer, np.array(values, dtype=np.uint32), 4 * len(values)))
    return pointer


def _read(pointer: int, count: int) -> list[int]:
    out = np.zeros(count, dtype=np.uint32)
    ok(cuda.cuMemcpyDtoH(out, pointer, 4 * count))
    return [int(v) for v in out]


def _launch(function: object, threads: int, *pointers: int) -> None:
    args = (tuple(pointers), tuple(None for _ in pointers)) if pointers else 0
    ok(cuda.cuLaunchKernel(function, 1, 1, 1, threads, 1, 1, 0, 0, args, 0))


# -- when kernels compile ----------------------------------------------------------------------------
def test_lazy_load_compiles_each_kernel_on_first_use_only(recorder: Recorder) -> None:
    module = ok(cuda.cuModuleLoadData(TEXT.encode()))
    assert recorder.units == []
    add_one = ok(cuda.cuModuleGetFunction(module, b"add_one"))
    assert recorder.units == [("add_one",)]  # that kernel only (with its callee)
    assert ok(cuda.cuModuleGetFunction(module, b"add_one")) == add_one
    data = _buffer([1, 2, 3, 40])
    _launch(add_one, 4, data)
    assert _read(data, 4) == [2, 3, 4, 41]  # helper adds one
    twice = ok(cuda.cuModuleGetFunction(module, b"twice"))
    _launch(twice, 4, data)
    assert _read(data, 4) == [4, 6, 8, 82]
    assert recorder.units == [("add_one",), ("twice",)]
    fails(cuda.cuModuleGetFunction(module, b"helper"), R.CUDA_ERROR_NOT_FOUND, "no kernel named 'helper'")
    assert len(recorder.units) == 2


def test_threads_asking_for_one_kernel_compile_it_once(recorder: Recorder) -> None:
    module = ok(cuda.cuModuleLoadData(TEXT.encode()))
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        handles = list(pool.map(lambda _: cuda.cuModuleGetFunction(module, b"lookup"), range(4)))
    assert all(h[0] == R.CUDA_SUCCESS for h in handles) and len({int(h[1]) for h in handles}) == 1
    assert recorder.units == [("lookup",)]


def test_library_kernel_compiles_at_its_first_launch(recorder: Recorder) -> None:
    library = ok(cuda.cuLibraryLoadData(TEXT.encode(), None, None, 0, None, None, 0))
    kernel = ok(cuda.cuLibraryGetKernel(library, b"twice"))
    assert ok(cuda.cuLibraryGetKernelCount(library)) == 5
    assert recorder.units == []
    data = _buffer([7, 8])
    _launch(kernel, 2, data)
    assert _read(data, 2) == [14, 16]
    assert recorder.units == [("twice",)]


def test_eager_loading_compiles_every_unit_at_load(recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUDA_MODULE_LOADING", "eager")
    assert ok(cuda.cuModuleGetLoadingMode()) == cuda.CUmoduleLoadingMode.CU_MODULE_EAGER_LOADING
    module = ok(cuda.cuModuleLoadData(TEXT.encode()))
    assert sorted(recorder.units) == [(), ("add_one",), ("bump", "read_count"), ("lookup",), ("twice",)]
    ok(cuda.cuModuleGetFunction(module, b"lookup"))
    assert len(recorder.units) == 5


def test_loading_mode_follows_cuda_module_loading() -> None:
    assert loading_mode({}) is LoadingMode.CU_MODULE_LAZY_LOADING  # CUDA's default since 12.2
    assert loading_mode({"CUDA_MODULE_LOADING": "EAGER"}) is LoadingMode.CU_MODULE_EAGER_LOADING
    assert loading_mode({"CUDA_MODULE_LOADING": " lazy "}) is LoadingMode.CU_MODULE_LAZY_LOADING
    assert loading_mode({"CUDA_MODULE_LOADING": "sometimes"}) is LoadingMode.CU_MODULE_LAZY_LOADING


# -- module data ------------------------------------------------------------------------------------
def test_globals_are_one_copy_shared_by_host_and_kernels(recorder: Recorder) -> None:
    module = ok(cuda.cuModuleLoadData(TEXT.encode()))
    fails(cuda.cuModuleGetGlobal(module, b"missing"), R.CUDA_ERROR_NOT_FOUND, "missing")
    assert recorder.units == []
    address, size = ok(cuda.cuModuleGetGlobal(module, b"host_only"))
    assert recorder.units == [()] and size == 8  # the data-only unit: no kernel compiled
    assert _read(int(address), 2) == [5, 6]
    count, size = ok(cuda.cuModuleGetGlobal(module, b"shared_count"))
    assert recorder.units == [(), ("bump", "read_count")] and size == 4
    ok(cuda.cuMemcpyHtoD(count, np.array([41], dtype=np.uint32), 4))
    _launch(ok(cuda.cuModuleGetFunction(module, b"bump")), 3)
    out = _buffer([0])
    _launch(ok(cuda.cuModuleGetFunction(module, b"read_count")), 1, out)
    assert _read(out, 1) == [44] == _read(int(count), 1)  # 41 from the host, 3 atomic increments
    assert len(recorder.units) == 2  # bump and read_count came with the global's unit
    table = _buffer([0, 0, 0, 0])
    _launch(ok(cuda.cuModuleGetFunction(module, b"lookup")), 4, table)
    assert _read(table, 4) == [10, 20, 30, 40]


# -- errors -----------------------------------------------------------------------------------------
def _line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def test_module_scope_syntax_error_fails_the_load(recorder: Recorder) -> None:
    broken = TEXT.replace(".global .align 4 .u32 shared_count;", ".global .align 4 .u32 shared_count")
    message = fails(cuda.cuModuleLoadData(broken.encode()), R.CUDA_ERROR_INVALID_PTX, "error:")
    assert f":{_line_of(broken, '.global .align 4 .u32 shared_count')}:" in message
    assert recorder.units == []


BODY_SYNTAX_ERROR = ("shl.b32 \t%r3, %r2, 1;", "shl.b32 \t%r3 %r2, 1;")
UNSUPPORTED = ("shl.b32 \t%r3, %r2, 1;", "shl.b32 \t%r3, %r2, 1;\n\tdiscard.global.L2 \t[%rd2], 128;")


@pytest.mark.parametrize(("change", "expected"), [(BODY_SYNTAX_ERROR, "error:"),
                                                  (UNSUPPORTED, "unsupported: discard")])
def test_error_in_one_kernel_surfaces_when_that_kernel_is_used(
    recorder: Recorder, change: tuple[str, str], expected: str
) -> None:
    broken = TEXT.replace(*change)
    module = ok(cuda.cuModuleLoadData(broken.encode()))
    message = fails(cuda.cuModuleGetFunction(module, b"twice"), R.CUDA_ERROR_INVALID_PTX, expected)
    # Located at the module's own line: a unit keeps the module's line numbers.
    assert f"<module image>:{_line_of(broken, change[1].splitlines()[-1].strip())}:" in message
    data = _buffer([3])
    _launch(ok(cuda.cuModuleGetFunction(module, b"add_one")), 1, data)  # the other kernels still work
    assert _read(data, 1) == [4]


def test_eager_loading_fails_the_load_on_any_kernel(recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUDA_MODULE_LOADING", "EAGER")
    fails(cuda.cuModuleLoadData(TEXT.replace(*UNSUPPORTED).encode()), R.CUDA_ERROR_INVALID_PTX,
          "unsupported: discard")


# -- parallel compilation and the cache -------------------------------------------------------------
def _unit_jobs() -> list[tuple[str, str]]:
    return [(unit_text(TEXT, plan.ranges), "lazy.ptx") for plan in split_module(TEXT, "lazy.ptx", _no_cache())]


def _no_cache() -> JitCache:
    return JitCache(CacheConfig(enabled=False))


def test_worker_processes_are_other_processes() -> None:
    pids = run_in_workers(os.getpid, [(), (), ()], 2)
    assert len(pids) == 3 and os.getpid() not in pids


def test_parallel_compile_gives_the_serial_bytes() -> None:
    jobs = _unit_jobs()
    serial = compile_many(jobs, CompileOptions(), cache=_no_cache(), workers=1)
    parallel = compile_many(jobs, CompileOptions(), cache=_no_cache(), workers=2)
    assert all(isinstance(code, bytes) for code in serial)
    assert parallel == serial


def test_parallel_compile_reports_each_units_error() -> None:
    broken = TEXT.replace(*UNSUPPORTED)
    jobs = [(unit_text(broken, plan.ranges), "lazy.ptx") for plan in split_module(broken, "lazy.ptx", _no_cache())]
    results = compile_many(jobs, CompileOptions(), cache=_no_cache(), workers=2)
    failed = [_entries(ptx) for (ptx, _), result in zip(jobs, results, strict=True) if not isinstance(result, bytes)]
    assert failed == [("twice",)]


def test_cache_holds_one_entry_per_unit(tmp_path: Path) -> None:
    cache = JitCache(CacheConfig(directory=tmp_path))
    jobs = _unit_jobs()
    first = compile_many(jobs[:2], CompileOptions(), cache=cache, workers=2)
    assert len(list(cache.store.entries())) == 2  # one entry per unit compiled
    # A later request for all units builds only the missing ones and serves the rest.
    fresh = JitCache(CacheConfig(directory=tmp_path))
    everything = compile_many(jobs, CompileOptions(), cache=fresh, workers=1)
    assert everything[:2] == first
    assert fresh.stats().disk_hits == 2 and fresh.stats().builds == len(jobs) - 2
    for (ptx, source), code in zip(jobs, everything, strict=True):
        assert fresh.lookup(CacheKey.for_options(ptx, CompileOptions())) == code
        assert default_compiler(ptx, source, CompileOptions()) == code  # a hit is what a fresh compile gives


WRITER = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from ptx2gcn.runtime.cache.key import CacheKey
    from ptx2gcn.runtime.cache.store import DiskStore
    os.fsync = lambda fd: os._exit(3)  # the process dies after writing its data, before the rename
    key = CacheKey.for_ptx(b"ptx", "gfx942", "x", llvm="22", identity="id")
    DiskStore(Path(sys.argv[1])).write(key, b"code" * 1000)
""")


def test_a_writer_crashing_mid_write_leaves_no_entry(tmp_path: Path) -> None:
    crashed = subprocess.run([sys.executable, "-c", WRITER, str(tmp_path)], cwd=ROOT, check=False)
    assert crashed.returncode == 3
    store = DiskStore(tmp_path)
    key = CacheKey.for_ptx(b"ptx", "gfx942", "x", llvm="22", identity="id")
    assert list(store.entries()) == []
    assert len(list((tmp_path / "tmp").iterdir())) == 1  # its private temp file, never read
    result = store.read(key)
    assert result.payload is None and result.corrupt is None
    store.write(key, b"code")
    assert store.read(key).payload == b"code"


FILLER = textwrap.dedent("""
    import sys
    from ptx2gcn import cuda
    assert cuda.cuInit(0)[0] == 0
    assert cuda.cuCtxCreate(0, 0)[0] == 0
    result = cuda.cuModuleLoadData(open(sys.argv[1], "rb").read())
    assert result[0] == 0, cuda.ptx2gcnGetLastErrorMessage()
""")


def test_two_processes_filling_one_cache_leave_valid_entries(tmp_path: Path) -> None:
    env = {**os.environ, "PTX2GCN_CACHE_DIR": str(tmp_path), "PTX2GCN_BACKEND": "emulator",
           "CUDA_MODULE_LOADING": "EAGER", "PTX2GCN_JIT_WORKERS": "1"}
    fillers = [subprocess.Popen([sys.executable, "-c", FILLER, str(LAZY_PTX)], cwd=ROOT, env=env)
               for _ in range(2)]
    assert [p.wait(timeout=600) for p in fillers] == [0, 0]
    cache = JitCache(CacheConfig(directory=tmp_path))
    jobs = _unit_jobs()
    for ptx, source in jobs:
        stored = cache.lookup(CacheKey.for_options(ptx, CompileOptions()))
        assert stored == default_compiler(ptx, source, CompileOptions())
    assert cache.stats().corrupt == 0
    assert len(list(cache.store.entries())) == len(jobs) + 1  # the units and the module's plan


def test_jit_workers_from_the_environment() -> None:
    assert jit_workers({"PTX2GCN_JIT_WORKERS": "3"}) == 3
    assert jit_workers({}) >= 1
    with pytest.raises(ValueError, match="PTX2GCN_JIT_WORKERS"):
        jit_workers({"PTX2GCN_JIT_WORKERS": "0"})



def test_a_tool_launching_one_kernel_compiles_only_its_unit() -> None:
    """``ptx2gcn run`` (``kernel_code``) compiles the launched kernel's unit, or the whole module when
    no unit holds the name (the runner then reports the missing kernel)."""
    seen = Recorder()
    code = kernel_code(TEXT.encode(), "lazy.ptx", CompileOptions(), "hsaco", "read_count", compiler=seen,
                       cache=_no_cache())
    assert seen.units == [("bump", "read_count")] and code.ptx is not None and code.hsaco is not None
    kernel_code(TEXT.encode(), "lazy.ptx", CompileOptions(), "hsaco", "nope", compiler=seen, cache=_no_cache())
    assert seen.units[-1] == ("add_one", "bump", "read_count", "lookup", "twice")
