"""The wheel layout from conventions §2: the mapped packages land under ptx2gcn/, nothing else at top.

The default test builds the wheel without network (the venv's setuptools) from a copy of the tracked
tree and inspects it; the slow test installs it non-editable into a fresh venv and imports everything.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _tracked_copy(dest: Path) -> Path:
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split("\n")
    tree = dest / "src"
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file() and not name.startswith(("corpora/", "tests/")):
            target = tree / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return tree


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    tree = _tracked_copy(work)
    out = work / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(out), str(tree)], check=True, capture_output=True)
    (built,) = out.glob("ptx2gcn-*.whl")
    return built


def test_wheel_layout(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert all(t == "ptx2gcn" or t.startswith("ptx2gcn-") for t in tops), tops
    assert "ptx2gcn/grammar/__init__.py" in names
    assert "ptx2gcn/passes/__init__.py" in names
    assert "ptx2gcn/runtime/__init__.py" in names
    assert "ptx2gcn/runtime/emulator/__init__.py" in names
    if (ROOT / "grammar" / "ptx.lark").exists():
        assert "ptx2gcn/grammar/ptx.lark" in names


@pytest.mark.slow
def test_non_editable_install_imports(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], check=True)
    code = (
        "import sys, importlib.resources as r, ptx2gcn, ptx2gcn.grammar, ptx2gcn.passes, ptx2gcn.runtime;"
        "assert 'site-packages' in ptx2gcn.__file__;"
        "assert r.files('ptx2gcn.grammar').joinpath('ptx.lark').is_file();"
        "assert not any(m in sys.modules for m in ('passes','grammar','runtime'))"
    )
    subprocess.run([str(python), "-c", code], check=True, cwd=tmp_path)
    site = next((env_dir / "lib").glob("python*/site-packages"))
    for name in ("passes", "grammar", "runtime"):
        assert not (site / name).exists()


def test_wheel_carries_the_libcuda_shim_when_a_compiler_exists(wheel: Path) -> None:
    # setup.py compiles ptx2gcn's libcuda.so.1 into the wheel (docs/libcuda.md), so that
    # 'ptx2gcn exec' needs no compiler at run time; without a compiler the wheel stays pure.
    names = zipfile.ZipFile(wheel).namelist()
    if shutil.which("cc") is None:
        assert wheel.name.endswith("-py3-none-any.whl")
        assert not any(n.endswith("libcuda.so.1") for n in names)
        return
    assert "ptx2gcn/runtime/libcuda/lib/libcuda.so.1" in names
    assert wheel.name.startswith("ptx2gcn-") and "-py3-none-linux_" in wheel.name
