"""End to end: PTX → ``ptx2gcn compile`` → code object → emulator, checked against numpy."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ptx2gcn.compiler import compile
from ptx2gcn.link.codeobject import read_code_object
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

VADD = (Path(__file__).resolve().parents[2] / "examples" / "vector_add.ptx").read_text()
"""The vector_add kernel of ``examples/vector_add.py`` (nvcc's PTX; one copy for the example and here)."""


def _run_vadd(data: bytes, n: int, block: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    memory = DeviceMemory()
    pa, pb, pc = memory.alloc(4 * n), memory.alloc(4 * n), memory.alloc(4 * n + 4)
    memory.write(pa, a.tobytes())
    memory.write(pb, b.tobytes())
    memory.write(pc, np.full(n + 1, -7.0, np.float32).tobytes())
    grid = (n + block - 1) // block
    launch(load(data, "vector_add"), "vector_add", grid=(grid, 1, 1), block=(block, 1, 1),
           kernarg=struct.pack("<QQQI", pa, pb, pc, n), memory=memory)
    c = np.frombuffer(memory.read(pc, 4 * n + 4), np.float32)
    return c, (a + b)


def test_vadd_compiles_and_runs_on_the_emulator() -> None:
    c, expected = _run_vadd(compile(VADD).data, 1000, 128)
    assert np.array_equal(c[:1000], expected)
    assert c[1000] == -7.0  # the guard kept the thread past n from writing


def test_code_object_metadata() -> None:
    co = compile(VADD)
    info = co.kernels["vector_add"]
    assert info.params == ((0, 8), (8, 8), (16, 8), (24, 4))  # CUDA's buffer: 3 pointers then n
    assert info.kernarg_size >= 28 + 256 - 4  # hidden arguments follow the explicit ones
    assert info.lds_size == 0 and info.scratch_size == 0
    assert read_code_object(co.data).target.endswith("gfx942")
    assert set(co.timings) == {"parse", "ir", "passes", "llvm-ir", "llvm-opt", "llvm-codegen", "link"}


def test_every_opt_level_and_arch_compiles() -> None:
    for opt in range(4):
        c, expected = _run_vadd(compile(VADD, opt=opt).data, 70, 64)
        assert np.array_equal(c[:70], expected)
    for arch in ("gfx90a", "gfx950"):
        assert read_code_object(compile(VADD, arch=arch).data).target.endswith(arch)


@pytest.fixture
def src(tmp_path: Path) -> Path:
    """The kernel as a file in a fresh folder (``ptx2gcn compile`` writes next to it)."""
    path = tmp_path / "vadd.ptx"
    path.write_text(VADD)
    return path


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ptx2gcn", "compile", *args], capture_output=True, text=True)


def test_cli_default_output_and_emit_kinds(src: Path) -> None:
    assert _cli(str(src)).returncode == 0
    c, expected = _run_vadd(src.with_suffix(".hsaco").read_bytes(), 64, 64)
    assert np.array_equal(c[:64], expected)
    for kind, marker in (("llvm", "define amdgpu_kernel"), ("asm", "s_endpgm")):
        result = _cli(str(src), "--emit", kind, "-o", "-", "-O", "1")
        assert result.returncode == 0 and marker in result.stdout
    assert _cli(str(src), "--emit", "obj", "-o", str(src.with_name("k.o"))).returncode == 0
    assert src.with_name("k.o").read_bytes()[:4] == b"\x7fELF"


def test_cli_usage_errors_exit_2(src: Path) -> None:
    assert _cli(str(src), "--arch", "gfx1100").returncode == 2
    assert _cli(str(src), "-O", "7").returncode == 2


def test_cli_unknown_kernel_and_bad_input_exit_1(src: Path) -> None:
    result = _cli(str(src), "--kernel", "nope")
    assert result.returncode == 1 and "no kernel named nope" in result.stderr
    bad = src.with_name("bad.ptx")
    bad.write_text(VADD.replace("add.f32 %f3,", "frobnicate.f32 %f3,"))
    result = _cli(str(bad))
    assert result.returncode == 1 and "bad.ptx:" in result.stderr and "Traceback" not in result.stderr


def test_locations_reach_llvm_without_changing_the_code_object(src: Path) -> None:
    result = _cli(str(src), "--emit", "llvm", "-g", "-o", "-")
    assert result.returncode == 0
    fadd = next(line for line in result.stdout.splitlines() if " fadd float" in line)
    line_of_add = 1 + next(i for i, line in enumerate(VADD.splitlines()) if line.lstrip().startswith("add.f32"))
    assert f"line: {line_of_add}" in result.stdout and "!dbg" in fadd
    assert compile(VADD, locations=True).data == compile(VADD).data
