"""``ptx2gcn run CASE.toml`` on PTX, fatbin (nvcc) and code-object inputs: outputs checked against
numpy, --check pass/fail reports, --save, --stats, and clear errors for bad cases and unavailable
backends. Also runs the examples/ scripts unchanged."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ptx2gcn.cli import main
from ptx2gcn.compiler import compile as compile_ptx
from tests.driver.fake_cuda import install_fake_cuda
from tests.runtime.toolchain import nvcc_run

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "tests" / "driver" / "data"
N = 500


def _case(folder: Path, source: str, expect: np.ndarray | None, extra: str = "") -> Path:
    rng = np.random.default_rng(3)
    a, b = rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32)
    np.save(folder / "a.npy", a)
    np.save(folder / "b.npy", b)
    np.save(folder / "c.npy", a + b if expect is None else expect)
    case = folder / "vadd.toml"
    case.write_text(f"""{source}
kernel = "vector_add"
grid = 2
block = 256
{extra}
[[args]]
name = "a"
buffer = "f32"
data = "a.npy"
[[args]]
name = "b"
buffer = "f32"
data = "b.npy"
[[args]]
name = "c"
buffer = "f32"
count = {N}
[[args]]
name = "n"
scalar = "s32"
value = {N}
[expect]
c = "c.npy"
""")
    return case


@pytest.fixture
def cache_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTX2GCN_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "jit-run"))
    monkeypatch.setenv("PTX2GCN_BACKEND", "emulator")


def test_ptx_case_check_save_stats(
    tmp_path: Path, cache_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(KERNELS / "kernels.ptx", tmp_path)
    case = _case(tmp_path, 'ptx = "kernels.ptx"', None)
    assert main(["run", str(case), "--check", "--stats", "--save", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "c: ok (500 elements)" in out and "wave-instructions: " in out and "work-groups: 2" in out
    assert "mfma-instructions: 0" in out and "mfma-busy-cycles: 0" in out
    saved = np.load(tmp_path / "out" / "c.npy")
    assert np.array_equal(saved, np.load(tmp_path / "a.npy") + np.load(tmp_path / "b.npy"))


def test_check_mismatch_exits_1(tmp_path: Path, cache_env: None, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(KERNELS / "kernels.ptx", tmp_path)
    wrong = np.zeros(N, dtype=np.float32)
    case = _case(tmp_path, 'ptx = "kernels.ptx"', wrong)
    assert main(["run", str(case), "--check"]) == 1
    out = capsys.readouterr().out
    assert "c: FAILED: " in out and "of 500 elements differ" in out


def test_hsaco_case(tmp_path: Path, cache_env: None, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "k.hsaco").write_bytes(compile_ptx(KERNELS / "kernels.ptx").data)
    assert main(["run", str(_case(tmp_path, 'hsaco = "k.hsaco"', None)), "--check"]) == 0
    assert "c: ok" in capsys.readouterr().out


def test_fatbin_case(tmp_path: Path, cache_env: None, capsys: pytest.CaptureFixture[str]) -> None:
    kernels = str(KERNELS / "kernels.cu")
    nvcc_run("-fatbin", "-gencode=arch=compute_80,code=compute_80", kernels, "-o", str(tmp_path / "k.fatbin"))
    assert main(["run", str(_case(tmp_path, 'fatbin = "k.fatbin"', None)), "--check"]) == 0
    assert "c: ok" in capsys.readouterr().out


def test_errors(tmp_path: Path, cache_env: None, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(KERNELS / "kernels.ptx", tmp_path)
    case = _case(tmp_path, 'ptx = "kernels.ptx"', None, "shared_bytes = -1")
    assert main(["run", str(case)]) == 1
    assert "vadd.toml:5:1: error: shared_bytes: expected a byte count >= 0" in capsys.readouterr().err
    case = _case(tmp_path, 'ptx = "kernels.ptx"', None)
    case.write_text(case.read_text().replace('"vector_add"', '"vector_sub"'))
    assert main(["run", str(case)]) == 1
    assert (
        "vadd.toml:2:1: error: kernel: kernels.ptx has no kernel 'vector_sub' "
        '(kernels: block_sum, poke, scale_add, set_done, vector_add)\nkernel = "vector_sub"\n^~~~~~'
        in capsys.readouterr().err
    )
    (tmp_path / "bad.ptx").write_text(
        ".version 8.0\n.target sm_80\n.address_size 64\n"
        ".visible .entry vector_add() {\n  frob.u32 %r1;\n  ret;\n}\n"
    )
    case = _case(tmp_path, 'ptx = "bad.ptx"', None)
    assert main(["run", str(case)]) == 1
    err = capsys.readouterr().err
    assert "bad.ptx:5:" in err and "^" in err
    case = _case(tmp_path, 'ptx = "kernels.ptx"', None)
    assert main(["run", str(case), "--check", "--backend", "cuda"]) == 1
    assert "cuda backend" in capsys.readouterr().err


@pytest.mark.skipif(os.path.exists("/dev/kfd"), reason="an AMD GPU is present")
def test_hip_backend_fails_cleanly(
    tmp_path: Path, cache_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(KERNELS / "kernels.ptx", tmp_path)
    assert main(["run", str(_case(tmp_path, 'ptx = "kernels.ptx"', None)), "--backend", "hip"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: hip backend: ") and "Traceback" not in err


@pytest.mark.parametrize(
    ("script", "needle"),
    [("vector_add.py", "vector_add of 3000 floats"), ("reduction.py", "sum of 3000 values")],
)
def test_examples_run_unchanged(script: str, needle: str, cache_env: None) -> None:
    env = {**os.environ, "PTX2GCN_BACKEND": "emulator"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), "3000"],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert needle in done.stdout and "PASS" in done.stdout


def test_kernel_fault_is_reported(
    tmp_path: Path, cache_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(KERNELS / "kernels.ptx", tmp_path)
    case = tmp_path / "poke.toml"
    case.write_text(
        'ptx = "kernels.ptx"\nkernel = "poke"\n[[args]]\nname = "p"\nbuffer = "s32"\ncount = 4\n'
        '[[args]]\nname = "i"\nscalar = "s64"\nvalue = 64\n'
    )  # a 16-byte buffer spans one 256-byte granule (as with cudaMalloc): p[64] is the first int past it
    assert main(["run", str(case)]) == 1
    err = capsys.readouterr().err
    assert "kernel 'poke', work-group (0,0,0), wave 0" in err and "past the end" in err
    case.write_text(case.read_text().replace("value = 64", "value = 3"))
    assert main(["run", str(case)]) == 0
    assert "p (int32): [0, 0, 0, 7]" in capsys.readouterr().out


def test_cuda_backend_differential(
    tmp_path: Path, cache_env: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--backend cuda hands the original PTX and the same packed parameters to cuda-python (here the fake
    of tests/driver/fake_cuda.py, which computes vector_add on the host)."""
    fake = install_fake_cuda(monkeypatch)
    shutil.copy(KERNELS / "kernels.ptx", tmp_path)
    assert (
        main(["run", str(_case(tmp_path, 'ptx = "kernels.ptx"', None)), "--backend", "cuda", "--check"]) == 0
    )
    assert "c: ok (500 elements)" in capsys.readouterr().out
    assert fake.modules == [(KERNELS / "kernels.ptx").read_bytes() + b"\0"]
    assert not fake.memory  # every buffer freed


def test_trace(tmp_path: Path, cache_env: None, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(KERNELS / "kernels.ptx", tmp_path)
    case = _case(tmp_path, 'ptx = "kernels.ptx"', None)
    assert main(["run", str(case), "--trace", "--check"]) == 0
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert lines[0].startswith("wg(0,0,0) w0 0x") and any("global_store_dword" in line for line in lines)
    assert {line.split()[1] for line in lines if line.startswith("wg(1,0,0)")} == {"w0", "w1", "w2", "w3"}
    assert "c: ok" in captured.out
    assert main(["run", str(case), "--trace", "--backend", "cuda"]) == 1
    assert "tracing needs the emulator backend, not cuda" in capsys.readouterr().err


def test_executable_with_several_modules(
    tmp_path: Path, cache_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """A case may name a whole nvcc-built program: the module that defines the kernel is chosen."""
    program = tmp_path / "app"
    main_unit = str(ROOT / "tests" / "run" / "data" / "app_main.cu")
    nvcc_run("-gencode=arch=compute_80,code=compute_80", main_unit, str(KERNELS / "kernels.cu"), "-o", str(program))
    assert main(["run", str(_case(tmp_path, 'fatbin = "app"', None)), "--check"]) == 0
    assert "c: ok (500 elements)" in capsys.readouterr().out
    np.save(tmp_path / "filled.npy", np.arange(40, dtype=np.int32) + 5)
    fill = tmp_path / "fill.toml"
    fill.write_text(
        'fatbin = "app"\nkernel = "fill"\ngrid = 1\nblock = 64\n[[args]]\nname = "out"\nbuffer = "s32"\n'
        'count = 40\n[[args]]\nscalar = "s32"\nvalue = 5\n[[args]]\nscalar = "s32"\nvalue = 40\n'
        '[expect]\nout = "filled.npy"\n'
    )
    assert main(["run", str(fill), "--check"]) == 0
    assert "out: ok (40 elements)" in capsys.readouterr().out


def test_check_needs_expect_and_save_errors(
    tmp_path: Path, cache_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(KERNELS / "kernels.ptx", tmp_path)
    case = _case(tmp_path, 'ptx = "kernels.ptx"', None)
    case.write_text(case.read_text().split("[expect]")[0])
    assert main(["run", str(case), "--check"]) == 1
    assert "--check needs an [expect] table" in capsys.readouterr().err
    (tmp_path / "file").write_text("not a folder")
    assert main(["run", str(case), "--save", str(tmp_path / "file")]) == 1
    assert "--save" in capsys.readouterr().err
    assert main(["run", str(tmp_path / "missing.toml")]) == 1
    assert "missing.toml: error: cannot read" in capsys.readouterr().err


def test_emulator_approximation_policy_options(
    tmp_path: Path, cache_env: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--emu-approx runs the case under that policy (an exact kernel still checks bit for bit); a bad
    PTX2GCN_EMU_APPROX is one clear sentence and exit 1."""
    shutil.copy(KERNELS / "kernels.ptx", tmp_path)
    case = _case(tmp_path, 'ptx = "kernels.ptx"', None)
    monkeypatch.setenv("PTX2GCN_EMU_APPROX", "nominal")  # restored after --emu-approx sets it
    monkeypatch.setenv("PTX2GCN_EMU_APPROX_SEED", "0")
    assert main(["run", str(case), "--check", "--emu-approx", "adversarial", "--emu-approx-seed", "7"]) == 0
    assert os.environ["PTX2GCN_EMU_APPROX"] == "adversarial" and os.environ["PTX2GCN_EMU_APPROX_SEED"] == "7"
    capsys.readouterr()
    monkeypatch.setenv("PTX2GCN_EMU_APPROX", "sloppy")
    assert main(["run", str(case), "--check"]) == 1
    err = capsys.readouterr().err
    assert "PTX2GCN_EMU_APPROX: emulator approximation policy 'sloppy'" in err and "Traceback" not in err
