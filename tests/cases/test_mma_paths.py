"""The tensor-core GEMM launch cases (``corpora/cases/tensor_gemm``: wmma, ldmatrix + mma.sync f16/bf16,
a cuda::pipeline cp.async GEMM, cuda::barrier) pass with the exact VALU path too (``ptx2gcn run --mma
exact``); ``test_corpus_cases.py`` runs every case under the default ``--mma auto``, where these wmma and
mma kernels take the MFMA path. The expectations are the cases' own (numpy models,
``corpora/cases/generators/tensor_gemm.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cases.case_outcomes import CASES, case_name, run_case

GEMM_CASES = sorted((CASES / "tensor_gemm").glob("*/case.toml"))


def test_gemm_cases_exist() -> None:
    assert len(GEMM_CASES) >= 10


@pytest.mark.parametrize("case_file", GEMM_CASES, ids=[case_name(p) for p in GEMM_CASES])
def test_exact_path(case_file: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTX2GCN_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "jit-mma-exact"))
    monkeypatch.setenv("PTX2GCN_BACKEND", "emulator")
    status, printed = run_case(case_file, "--mma", "exact")
    assert status == 0, printed


@pytest.mark.parametrize(("mode", "uses_mfma"), [("auto", True), ("exact", False)])
def test_mma_option_reaches_the_compiler(mode: str, uses_mfma: bool, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``ptx2gcn run --mma``: the 4-warp wmma GEMM runs MFMAs under auto and none under exact."""
    from ptx2gcn.cli import main

    monkeypatch.setenv("PTX2GCN_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("PTX2GCN_BACKEND", "emulator")
    case = CASES / "tensor_gemm" / "wmma_gemm_f16_f32" / "case.toml"
    assert main(["run", str(case), "--check", "--stats", "--mma", mode]) == 0
    counts = [line for line in capsys.readouterr().out.splitlines() if line.startswith("mfma-instructions:")]
    assert len(counts) == 1 and (int(counts[0].split()[1]) > 0) == uses_mfma, counts
