"""``corpora/zluda/ptxas-13.0-rejected.tsv`` is exactly what ptxas 13.0 says about the ZLUDA files.

ptxas is the independent judge here: the test assembles every file and compares the rejected ones (and
ptxas's first message) with the committed list. It needs the CUDA 13.0 toolkit, so it skips without it
and is in the slow suite. ``PTX2GCN_BLESS=1`` rewrites the list instead of comparing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.corpus.corpus_files import CORPORA, ptx_files

LIST = CORPORA / "zluda" / "ptxas-13.0-rejected.tsv"
HEADER = ("# file\tptxas -arch\tfirst ptxas 13.0 (V13.0.88) message; every other .ptx here is accepted by "
          "`ptxas -c -arch=<arch>`")
PTXAS = shutil.which("ptxas") or shutil.which("/usr/local/cuda/bin/ptxas")


def ptxas_arch(text: str) -> str:
    """The module's own target, raised to sm_75 (the oldest that CUDA 13 assembles)."""
    found = re.search(r"^\s*\.target\s+(sm_(\d+)\w*)", text, re.MULTILINE)
    if found is None or int(found.group(2)) < 75:
        return "sm_75"
    return found.group(1)


def verdict(ptxas: str, path: Path) -> tuple[str, str] | None:
    """None when ptxas accepts ``path``, else (arch, first message)."""
    arch = ptxas_arch(path.read_text())
    result = subprocess.run([ptxas, "-c", f"-arch={arch}", str(path), "-o", os.devnull], capture_output=True,
                            text=True, check=False)
    if result.returncode == 0:
        return None
    if result.returncode < 0 or result.returncode >= 128:
        code = -result.returncode if result.returncode < 0 else result.returncode - 128
        return arch, f"ptxas crashes: signal {code}, no verdict"
    lines = [line for line in result.stderr.splitlines() if "error" in line or "fatal" in line]
    message = re.sub(r"^ptxas (\S+\.ptx, )?", "", lines[0] if lines else result.stderr.strip())
    return arch, re.sub(r"\s+", " ", message)


def read_list() -> dict[str, tuple[str, str]]:
    rows: dict[str, tuple[str, str]] = {}
    for line in LIST.read_text().splitlines():
        if line and not line.startswith("#"):
            name, arch, message = line.split("\t")
            rows[name] = (arch, message)
    return rows


@pytest.mark.slow
def test_rejected_list_matches_ptxas() -> None:
    if PTXAS is None:
        pytest.skip("ptxas (CUDA toolkit) not installed")
    version = subprocess.run([PTXAS, "--version"], capture_output=True, text=True, check=False).stdout
    if "V13.0.88" not in version:
        pytest.skip("the list was made with ptxas V13.0.88; another version says other things")
    found = {p.name: v for p in ptx_files("zluda") if (v := verdict(PTXAS, p)) is not None}
    if os.environ.get("PTX2GCN_BLESS"):
        rows = [f"{name}\t{arch}\t{message}" for name, (arch, message) in sorted(found.items())]
        LIST.write_text("\n".join([HEADER, *rows]) + "\n")
    assert found == read_list()
