"""Driver-API C programs (``programs/*.c``, kernels from ``nvcc -ptx``) run unmodified under
``ptx2gcn exec`` on the emulator. Each program checks its own results against values it computes
on the host and exits non-zero on any mismatch; the test checks the exit status and the output."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

RunExec = Callable[..., subprocess.CompletedProcess[str]]


def _ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    return done.stdout


def test_vector_add(build_program: Callable[[str], Path], run_exec: RunExec) -> None:
    out = _ok(run_exec(str(build_program("vector_add"))))
    assert "vector_add: 1000 sums correct" in out


def test_reduction_with_streams_events_globals_and_proc_address(
    build_program: Callable[[str], Path], run_exec: RunExec
) -> None:
    out = _ok(run_exec(str(build_program("reduction_streams"))))
    assert "reduction_streams: sums" in out and "correct" in out


def test_device_printf_lines(build_program: Callable[[str], Path], run_exec: RunExec) -> None:
    out = _ok(run_exec(str(build_program("printf_kernel"))))
    expected = {f"hello from block {b} thread {t} tag 42" for b in range(2) for t in range(4)}
    lines = [line for line in out.splitlines() if line.startswith("hello")]
    assert sorted(lines) == sorted(expected)


def test_two_host_threads_keep_their_own_current_context(
    build_program: Callable[[str], Path], run_exec: RunExec
) -> None:
    out = _ok(run_exec(str(build_program("threads"))))
    assert "threads: 2 contexts, results correct" in out


def test_failing_program_reports_cuda_error_name(build_program: Callable[[str], Path], run_exec: RunExec) -> None:
    done = run_exec(str(build_program("errors")))
    out = _ok(done)
    assert "errors: all checks passed" in out


def test_library_kernels_and_launch_kernel_ex(build_program: Callable[[str], Path], run_exec: RunExec) -> None:
    out = _ok(run_exec(str(build_program("library_launch_ex"))))
    assert "library_launch_ex: kernel, function and global correct" in out


def test_per_thread_default_stream_build_calls_ptds_and_ptsz_exports(
    build_program: Callable[..., Path], run_exec: RunExec
) -> None:
    # cuda.h's CUDA_API_PER_THREAD_DEFAULT_STREAM (nvcc --default-stream per-thread) renames the
    # copies, memsets, launches and stream calls to their _ptds/_ptsz symbols.
    program = build_program("reduction_streams", "CUDA_API_PER_THREAD_DEFAULT_STREAM")
    nm = ["nm", "-D", "--undefined-only", str(program)]
    imported = subprocess.run(nm, capture_output=True, text=True, check=True)
    assert "cuLaunchKernel_ptsz" in imported.stdout and "cuMemcpyHtoD_v2_ptds" in imported.stdout
    out = _ok(run_exec(str(program)))
    assert "reduction_streams: sums" in out


def test_client_entry_points_through_the_c_abi(build_program: Callable[[str], Path], run_exec: RunExec) -> None:
    out = _ok(run_exec(str(build_program("clients"))))
    assert "clients: link, mapped memory, attributes, 2D copy, occupancy" in out and "callbacks correct" in out


def test_arrays_and_texture_references(build_program: Callable[[str], Path], run_exec: RunExec) -> None:
    texrefs = Path(__file__).resolve().parents[1] / "driver" / "data" / "texrefs.ptx"
    out = _ok(run_exec(str(build_program("textures")), str(texrefs)))
    assert "textures: 3 texture reference samples and 15 surface reference writes correct" in out


def test_graphs_capture_and_memory_pools(
    build_program: Callable[[str], Path], run_exec: RunExec, tmp_path: Path
) -> None:
    dot = tmp_path / "graph.dot"
    out = _ok(run_exec(str(build_program("graphs")), str(dot)))
    assert "graphs: hand-built graph, capture with fork/join and pool memory, errors correct" in out
    text = dot.read_text()
    assert text.startswith("digraph") and "scale" in text and text.count("->") == 2
