"""ptxas as an independent oracle (slow; only where a CUDA toolkit is installed).

The canonical printer must not change what PTX means: for every corpus file that ptxas accepts,
ptxas must accept the printed text too and, for files without line information (whose cubins embed
PTX line numbers), produce a byte-identical cubin.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ptx2gcn.frontend import parse_file
from ptx2gcn.frontend.printer import print_module

REPO_ROOT = Path(__file__).resolve().parents[2]
PTXAS = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if Path("/usr/local/cuda/bin/ptxas").exists() else None)
FILES = sorted((REPO_ROOT / "corpora" / "nvcc").glob("**/*.ptx")) + sorted(
    (Path(__file__).resolve().parent / "data").glob("*.ptx"))


def _ptxas(path: Path, out: Path, arch: str) -> subprocess.CompletedProcess[str]:
    assert PTXAS is not None
    return subprocess.run([PTXAS, f"-arch={arch}", str(path), "-o", str(out)], capture_output=True, text=True)


@pytest.mark.slow
@pytest.mark.skipif(PTXAS is None, reason="ptxas (CUDA toolkit) not installed")
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_printed_ptx_means_the_same_to_ptxas(path: Path, tmp_path: Path) -> None:
    text = path.read_text()
    target = re.search(r"\.target\s+(sm_\w+)", text)
    assert target is not None
    arch = target.group(1) if int(re.sub(r"\D", "", target.group(1))) >= 50 else "sm_75"
    original = _ptxas(path, tmp_path / "original.cubin", arch)
    if original.returncode != 0:
        pytest.skip(f"ptxas rejects the original: {original.stderr.strip()[:200]}")
    printed = tmp_path / "printed.ptx"
    printed.write_text(print_module(parse_file(path)))
    again = _ptxas(printed, tmp_path / "printed.cubin", arch)
    assert again.returncode == 0, again.stderr
    if ".loc" not in text:
        assert (tmp_path / "original.cubin").read_bytes() == (tmp_path / "printed.cubin").read_bytes()
