"""The user's path: ``pip install ptx2gcn`` into a fresh environment, then use it.

The module builds the wheel from a copy of the tracked tree (offline: ``pip wheel --no-deps
--no-build-isolation`` with the test environment's setuptools), checks its contents against the
source folders (every module of every package, the package data, the package-dir mapping), then
installs it **without extras** with a real ``pip install`` (dependencies from the configured index)
into a new virtual environment and runs it as a user would: from a folder outside the checkout, with
empty ``HOME``, ``XDG_CACHE_HOME`` and ``PTX2GCN_CACHE_DIR`` (so the grammar analysis and the JIT
cache start cold) and no ``PTX2GCN_*`` or ``PYTHONPATH`` settings. ``fresh_install_probe.py`` imports
every installed module there; the tests here run the command line (``--help`` of every command,
compile, a located error, run, parse), the demo and a driver-API example. About 30-60 s in all.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import venv
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = Path(__file__).resolve().parent / "fresh_install_probe.py"
CASE = ROOT / "corpora" / "cases" / "atomics" / "atomics_float"
"""A launch case the user's ``ptx2gcn run`` checks on the emulator (its PTX is an nvcc corpus file)."""


def _tracked_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.split("\n")
    return [name for name in listed if name and (ROOT / name).is_file()]


def _setuptools_config() -> dict[str, object]:
    config: dict[str, object] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return config


def _expected_wheel_files() -> set[str]:
    """Each tracked file the wheel must hold, at its installed path: every ``.py`` file in a package
    folder (a folder with ``__init__.py`` under a mapped root) and the declared package data."""
    config = _setuptools_config()
    mapping: dict[str, str] = dict(config.get("package-dir", {}))  # type: ignore[arg-type]
    data: dict[str, list[str]] = dict(config.get("package-data", {}))  # type: ignore[arg-type]
    roots = {folder.rstrip("/"): package for package, folder in mapping.items()}
    expected: set[str] = set()
    for name in _tracked_files():
        parts = Path(name).parts
        folder = "/".join(parts[:-1])
        root = next((r for r in sorted(roots, key=len, reverse=True) if folder == r or folder.startswith(r + "/")),
                    None)
        if root is None or not (ROOT / folder / "__init__.py").is_file():
            continue
        package = ".".join([roots[root], *Path(folder).relative_to(root).parts])
        installed = "/".join([*package.split("."), parts[-1]])
        patterns = data.get(package, [])
        if name.endswith(".py") or any(Path(parts[-1]).match(p) for p in patterns):
            expected.add(installed)
    return expected


@dataclass(frozen=True)
class Fresh:
    """A fresh environment with the wheel installed, and where to run it."""

    wheel: Path
    python: Path
    bin: Path
    work: Path
    """Current folder of every run (outside the checkout; holds the copied inputs)."""
    env: dict[str, str]
    cache: Path
    xdg: Path

    def run(self, *args: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(a) for a in args], cwd=self.work, env=self.env, capture_output=True,
                              text=True, timeout=timeout, check=False)

    def ptx2gcn(self, *args: str | Path) -> subprocess.CompletedProcess[str]:
        return self.run(self.bin / "ptx2gcn", *args)


def _build_wheel(dest: Path) -> Path:
    tree = dest / "src"
    for name in _tracked_files():
        if not name.startswith(("corpora/", "tests/")):
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, tree / name)
    out = dest / "dist"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                            "-w", str(out), str(tree)], capture_output=True, text=True, timeout=300, check=False)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = out.glob("ptx2gcn-*.whl")
    return wheel


def _user_env(home: Path, xdg: Path, cache: Path, bin_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PTX2GCN_", "PYTHON", "VIRTUAL_ENV", "XDG_"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(xdg), PTX2GCN_CACHE_DIR=str(cache),
               PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}")
    return env


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Fresh:
    base = tmp_path_factory.mktemp("fresh-install")
    assert not base.resolve().is_relative_to(ROOT)
    wheel = _build_wheel(base / "build")
    env_dir = base / "venv"
    venv.create(env_dir, with_pip=True, clear=True)
    bin_dir = env_dir / "bin"
    python = bin_dir / "python"
    install_env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    installed = subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], cwd=base, env=install_env,
                               capture_output=True, text=True, timeout=600, check=False)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    folders = {name: base / name for name in ("home", "xdg-cache", "jit-cache", "work")}
    for folder in folders.values():
        folder.mkdir()
    env = _user_env(folders["home"], folders["xdg-cache"], folders["jit-cache"], bin_dir)
    return Fresh(wheel, python, bin_dir, folders["work"], env, folders["jit-cache"], folders["xdg-cache"])


def test_wheel_holds_every_module_and_the_package_data(fresh: Fresh) -> None:
    names = set(zipfile.ZipFile(fresh.wheel).namelist())
    expected = _expected_wheel_files()
    assert "ptx2gcn/grammar/ptx.lark" in expected and "ptx2gcn/runtime/emulator/__init__.py" in expected
    assert sorted(expected - names) == [], "source files missing from the wheel"
    packaged = {n for n in names if not n.startswith("ptx2gcn-") and ".dist-info/" not in n}
    assert sorted(packaged - expected - {LIBCUDA, LIBNVRTC}) == [], "files in the wheel that no source folder holds"
    tops = {n.split("/")[0] for n in names}
    assert all(t == "ptx2gcn" or t.startswith("ptx2gcn-") for t in tops), tops


@pytest.fixture(scope="module")
def probed(fresh: Fresh) -> subprocess.CompletedProcess[str]:
    """``fresh_install_probe.py`` run in the fresh environment."""
    probe = fresh.work / PROBE.name
    shutil.copy2(PROBE, probe)
    return fresh.run(fresh.python, probe, ROOT)


def test_installed_modules_import_without_test_extras(probed: subprocess.CompletedProcess[str]) -> None:
    """Every module (lazily imported lowering tables included), the grammar package data and the
    package-dir mapping, from the installed wheel alone; the test extra is absent."""
    assert probed.returncode == 0, probed.stdout + probed.stderr


def test_compile_with_cold_caches(fresh: Fresh) -> None:
    source = fresh.work / "vector_add.ptx"
    shutil.copy2(ROOT / "examples" / "vector_add.ptx", source)
    assert not any(fresh.xdg.iterdir()), "the grammar cache must start empty"
    done = fresh.ptx2gcn("compile", source.name, "-o", "vector_add.hsaco")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (fresh.work / "vector_add.hsaco").read_bytes()[:4] == b"\x7fELF"
    assert list((fresh.xdg / "ptx2gcn").glob("*.lark-cache")), "the grammar analysis was not cached"
    again = fresh.ptx2gcn("compile", source.name, "-o", "again.hsaco")  # now from the warm grammar cache
    assert again.returncode == 0, again.stderr
    assert (fresh.work / "again.hsaco").read_bytes() == (fresh.work / "vector_add.hsaco").read_bytes()
    parsed = fresh.ptx2gcn("parse", source.name)
    assert parsed.returncode == 0, parsed.stderr


def test_invalid_ptx_gets_a_located_error(fresh: Fresh) -> None:
    bad = fresh.work / "bad.ptx"
    bad.write_text(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tadd.u32 %r1, 1;\n}\n")
    for command in ("compile", "parse"):
        done = fresh.ptx2gcn(command, bad.name)
        assert done.returncode == 1, done.stdout + done.stderr
        assert re.match(r"bad\.ptx:6:\d+: error: ", done.stderr), done.stderr
        assert "^" in done.stderr and "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_compiler_identity_covers_the_same_sources(probed: subprocess.CompletedProcess[str]) -> None:
    """The JIT cache key hashes the compiler's sources; installed (``ptx2gcn/runtime`` inside the
    package) it must cover exactly the files it covers in the checkout (``runtime/`` outside)."""
    from ptx2gcn.runtime.cache.key import compiler_sources

    assert probed.returncode == 0, probed.stdout + probed.stderr
    assert json.loads(probed.stdout)["compiler_sources"] == [name for name, _ in compiler_sources()]


def test_help_of_every_command(fresh: Fresh, probed: subprocess.CompletedProcess[str]) -> None:
    assert probed.returncode == 0, probed.stdout + probed.stderr
    commands: list[list[str]] = json.loads(probed.stdout)["commands"]
    assert ["compile"] in commands and ["fatbin", "list"] in commands
    for path in [[], *commands]:
        done = fresh.ptx2gcn(*path, "--help")
        assert done.returncode == 0 and done.stdout.startswith("usage: ptx2gcn"), (path, done.stderr)
    version = fresh.ptx2gcn("--version")
    assert version.returncode == 0 and version.stdout.startswith("ptx2gcn "), version.stderr


def test_run_a_launch_case_on_the_emulator(fresh: Fresh) -> None:
    """``ptx2gcn run --check`` of a corpus case (copied with its PTX, same relative layout)."""
    case = tomllib.loads((CASE / "case.toml").read_text())
    ptx = (CASE / case["ptx"]).resolve()
    corpora = ROOT / "corpora"
    shutil.copytree(CASE, fresh.work / "corpora" / CASE.relative_to(corpora))
    (fresh.work / "corpora" / ptx.relative_to(corpora)).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ptx, fresh.work / "corpora" / ptx.relative_to(corpora))
    done = fresh.ptx2gcn("run", Path("corpora") / CASE.relative_to(corpora) / "case.toml", "--check",
                         "--backend", "emulator")
    assert done.returncode == 0, done.stdout + done.stderr
    assert any(fresh.cache.rglob("*")), "the JIT cache stayed empty"
    cuda = fresh.ptx2gcn("run", Path("corpora") / CASE.relative_to(corpora) / "case.toml", "--backend", "cuda")
    assert cuda.returncode == 1 and "cuda-python is not installed" in cuda.stderr, cuda.stderr  # optional import
    assert "Traceback" not in cuda.stderr


def test_demo(fresh: Fresh) -> None:
    done = fresh.run(fresh.python, "-m", "ptx2gcn.demo")
    assert done.returncode == 0, done.stdout + done.stderr


def test_driver_api_example(fresh: Fresh) -> None:
    """``examples/vector_add.py``: a cuda-python script whose only change is ``from ptx2gcn import cuda``."""
    examples = fresh.work / "examples"
    shutil.copytree(ROOT / "examples", examples)
    done = fresh.run(fresh.python, examples / "vector_add.py", "1000")
    assert done.returncode == 0, done.stdout + done.stderr


LIBCUDA = "ptx2gcn/runtime/libcuda/lib/libcuda.so.1"
"""The C shim ``setup.py`` compiles into the wheel where the build machine has a C compiler
(docs/libcuda.md), so that ``ptx2gcn exec`` needs no compiler at run time."""
LIBNVRTC = "ptx2gcn/runtime/libcuda/lib/libnvrtc.so.13"
"""The NVRTC interposer ``setup.py`` compiles beside it (``runtime/libcuda/nvrtc_shim.py``)."""


def test_wheel_carries_the_libcuda_shim_when_a_compiler_exists(fresh: Fresh) -> None:
    names = zipfile.ZipFile(fresh.wheel).namelist()
    if shutil.which("cc") is None:
        assert fresh.wheel.name.endswith("-py3-none-any.whl")
        assert LIBCUDA not in names and LIBNVRTC not in names
        return
    assert LIBCUDA in names
    assert LIBNVRTC in names  # the NVRTC interposer exec preloads
    assert "-py3-none-linux_" in fresh.wheel.name


CUINIT = """
import ctypes
lib = ctypes.CDLL("libcuda.so.1")
version = ctypes.c_int()
assert lib.cuInit(0) == 0
assert lib.cuDriverGetVersion(ctypes.byref(version)) == 0 and version.value >= 12000, version.value
count = ctypes.c_int()
assert lib.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value >= 1
print("libcuda ok", version.value)
"""


def test_exec_gives_programs_our_libcuda(fresh: Fresh) -> None:
    """``ptx2gcn exec`` from the installed wheel: a program that opens ``libcuda.so.1`` (here a
    Python one, through ctypes) reaches ptx2gcn's driver on the emulator."""
    if shutil.which("cc") is None:
        assert not os.environ.get("PTX2GCN_REQUIRE_LLVM_TOOLS"), "CI needs a C compiler for the libcuda shim"
        pytest.skip("no C compiler: the wheel carries no libcuda shim (docs/libcuda.md)")
    done = fresh.ptx2gcn("exec", "--backend", "emulator", "--", fresh.python, "-c", CUINIT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "libcuda ok" in done.stdout
