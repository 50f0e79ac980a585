"""The corpus is complete, consistent with its sources, and within its size budget.

Expected values come from the sources' own headers (through regen.py's planner, which decides what
must exist), from the folder names, and from the shared copy of the ZLUDA files; never from the PTX
under test.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.corpus.corpus_files import CORPORA, SHARED_ZLUDA, load_regen, ptx_files, valid_small_files

MIB = 1024 * 1024


def test_every_planned_nvcc_output_exists_and_nothing_else() -> None:
    regen = load_regen()
    src = CORPORA / "src"  # the committed sources (regen itself plans from its staged copy)
    planned = {job.output for collection in ("nvcc", "large") for job in regen.nvcc_jobs("nvcc", collection, src)}
    present = {p.relative_to(CORPORA) for c in ("nvcc", "large") for p in ptx_files(c)}
    assert planned, "no CUDA sources found"
    assert sorted(planned - present) == [], "generated files missing: run corpora/regen.py"
    assert sorted(present - planned) == [], "files without a source: remove them or run corpora/regen.py"


def planned_kernels(script: Path) -> list[tuple[str, int]]:
    """(name, min_arch) of every ``KernelSpec(...)`` call in a generator script, read without running it."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(script.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "KernelSpec":
            name = node.args[0]
            assert isinstance(name, ast.Constant) and isinstance(name.value, str), f"{script}: literal name"
            min_arch = 0
            for keyword in node.keywords:
                if keyword.arg == "min_arch":
                    assert isinstance(keyword.value, ast.Constant)
                    min_arch = int(keyword.value.value)
            found.append((name.value, min_arch))
    return found


@pytest.mark.parametrize("collection", ["triton", "numba"])
def test_every_planned_kernel_was_generated_and_nothing_else(collection: str) -> None:
    regen = load_regen()
    archs = {"triton": regen.TRITON_ARCHS, "numba": regen.NUMBA_ARCHS}[collection]
    scripts = [p for p in sorted((CORPORA / "src" / collection).glob("*.py")) if not p.name.startswith("_")]
    planned = {Path(collection) / f"sm_{arch}" / f"{name}.ptx"
               for script in scripts for name, min_arch in planned_kernels(script) for arch in archs
               if arch >= min_arch}
    present = {p.relative_to(CORPORA) for p in ptx_files(collection)}
    assert len(planned) >= 2 * len(scripts)
    assert sorted(planned - present) == [], "generated files missing: run corpora/regen.py"
    assert sorted(present - planned) == [], "files without a source: run corpora/regen.py"


@pytest.mark.parametrize("path", valid_small_files(), ids=lambda p: str(p.relative_to(CORPORA)))
def test_target_matches_folder(path: Path) -> None:
    text = path.read_text()
    assert re.search(r"^\.version \d+\.\d+$", text, re.MULTILINE), "no .version directive"
    target = re.search(r"^\.target (sm_\d+)(a?)\b", text, re.MULTILINE)
    assert target is not None, "no .target directive"
    assert path.parent.name == target.group(1), f"{path.parent.name} folder holds a {target.group(1)} module"
    assert re.search(r"^\.address_size 64$", text, re.MULTILINE)


OURS = ("src", "nvcc", "large", "triton", "numba", "zluda", "invalid")
"""The collections this corpus owns (``regressions/``, ``golden/``, ``cases/`` belong to other parts)."""


def test_sizes() -> None:
    everything = [p for folder in OURS for p in (CORPORA / folder).rglob("*") if p.is_file()]
    total = sum(p.stat().st_size for p in everything)
    assert total < 40 * MIB, f"corpus is {total / MIB:.1f} MiB"
    for path in everything:
        if path.relative_to(CORPORA).parts[0] != "large":
            assert path.stat().st_size < MIB, f"{path} is over 1 MiB"


def test_large_file_is_over_100k_lines() -> None:
    large = ptx_files("large")
    assert large, "corpora/large/ is empty"
    for path in large:
        with path.open() as f:
            lines = sum(1 for _ in f)
        assert lines >= 100_000, f"{path}: {lines} lines"


def test_zluda_copy_is_faithful() -> None:
    ours = {p.name: p.read_bytes() for p in ptx_files("zluda")}
    assert len(ours) == 251
    if not SHARED_ZLUDA.is_dir():
        pytest.skip(f"{SHARED_ZLUDA} not present: cannot compare with the original files")
    theirs = {p.name: p.read_bytes() for p in SHARED_ZLUDA.glob("*.ptx")}
    assert ours == theirs


def test_sources_carry_licence_and_description() -> None:
    sources = sorted((CORPORA / "src").rglob("*.cu")) + sorted((CORPORA / "src").rglob("*.py"))
    assert len(sources) > 20
    for path in sources:
        head = path.read_text().splitlines()[:3]
        assert any("SPDX-License-Identifier: Apache-2.0" in line for line in head), path
        if path.suffix == ".cu":
            assert any(line.startswith("// corpus: ") for line in head), f"{path}: no '// corpus:' description"
