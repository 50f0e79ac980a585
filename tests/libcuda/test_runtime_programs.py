"""CUDA *runtime* programs (``runtime_programs/*.cu``), built by nvcc with PTX only
(``-gencode arch=compute_80,code=compute_80``, cudart linked statically as nvcc does by default), run
unmodified under ``ptx2gcn exec`` on the emulator. The runtime reaches the driver through
``cuGetProcAddress`` and the private export tables (``runtime/libcuda/export_tables.py``): these
tests are what shows those tables are right. Each program checks its results on the host and exits
non-zero on a mismatch or a failed CUDA call (naming the call and the error).

nvcc is needed to build them: without it the tests skip, except under ``PTX2GCN_REQUIRE_NVCC=1``.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.runtime.toolchain import nvcc_run

SOURCES = Path(__file__).resolve().parent / "runtime_programs"
RunExec = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(scope="session")
def build_cuda(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    folder = tmp_path_factory.mktemp("cuda-programs")
    built: dict[str, Path] = {}

    def build(name: str) -> Path:
        if name not in built:
            out = folder / name
            nvcc_run("-gencode", "arch=compute_80,code=compute_80", f"-I{SOURCES}", "-o", str(out),
                     str(SOURCES / f"{name}.cu"))  # fmt: skip
            built[name] = out
        return built[name]

    return build


def _ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    return done.stdout


def test_runtime_vector_add(build_cuda: Callable[[str], Path], run_exec: RunExec) -> None:
    assert "vector_add: 1000 sums correct" in _ok(run_exec(str(build_cuda("vector_add"))))


def test_runtime_cooperative_groups_tiles(build_cuda: Callable[[str], Path], run_exec: RunExec) -> None:
    assert "cooperative_groups: 32 tile sums and total -4146 correct" in _ok(
        run_exec(str(build_cuda("cooperative_groups")))
    )


def test_runtime_device_printf_as_first_call(build_cuda: Callable[[str], Path], run_exec: RunExec) -> None:
    # The launch is the program's first runtime call: the runtime asks for the kernel
    # (cuLibraryGetKernel) before any context is current, which CUDA allows.
    out = _ok(run_exec(str(build_cuda("device_printf"))))
    expected = {f"hello from block {b} thread {t} tag 42 x 1.25" for b in range(2) for t in range(3)}
    assert {line for line in out.splitlines() if line.startswith("hello")} == expected
    assert out.rstrip().endswith("device_printf: launched")


def test_runtime_streams_events_pinned_memory_and_symbols(build_cuda: Callable[[str], Path], run_exec: RunExec) -> None:
    # cudaMallocHost (cuMemHostAlloc), two streams with a cross-stream event wait, event timing,
    # cudaMemcpyToSymbol/FromSymbol (cuLibraryGetGlobal), atomics on a __device__ counter.
    out = _ok(run_exec(str(build_cuda("reduction_streams"))))
    assert "reduction_streams: 16 block sums correct over 2 streams" in out


def test_runtime_unified_memory(build_cuda: Callable[[str], Path], run_exec: RunExec) -> None:
    assert "unified_memory: 3000 managed values correct" in _ok(run_exec(str(build_cuda("unified_memory"))))


def test_runtime_grid_sync_cooperative_launch(build_cuda: Callable[[str], Path], run_exec: RunExec) -> None:
    # cudaLaunchCooperativeKernel + grid.sync(): every block resident at once; an oversized grid is
    # cudaErrorCooperativeLaunchTooLarge (the limit from the kernel's occupancy on 304 CUs).
    out = _ok(run_exec(str(build_cuda("grid_sync"))))
    assert "grid_sync: 576 values correct after 3 grid barriers" in out


def test_runtime_textures_and_surfaces(build_cuda: Callable[[str], Path], run_exec: RunExec) -> None:
    # cudaMallocArray (cuArray3DCreate), cudaMemcpy2DToArray/FromArray (cuMemcpy2D with array sides),
    # cudaCreateTextureObject with linear filtering and normalised coordinates (tex2D), and
    # cudaCreateSurfaceObject (surf2Dwrite): the program checks texels and writes against the host.
    out = _ok(run_exec(str(build_cuda("textures"))))
    assert "textures: 48 filtered texels and 48 surface writes correct" in out


def test_runtime_graphs_capture_and_async_allocation(build_cuda: Callable[[str], Path], run_exec: RunExec) -> None:
    assert "graphs_pools: captured fork/join with pool memory and hand-built graph correct" in _ok(
        run_exec(str(build_cuda("graphs_pools")))
    )
