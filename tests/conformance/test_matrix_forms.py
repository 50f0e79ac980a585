"""Warp-matrix conformance forms (``ptx2gcn.conformance.matrix_*``): every mma/ldmatrix/stmatrix/
movmatrix/wmma spelling ptxas accepts, compiled and run on the emulator with small-integer data (bit
exact) and random data (within the model's bound), judged by ``ptx2gcn.reference.mma``.

Default suite: a deterministic sample (every ``SAMPLE``-th unit); ``-m slow``: every unit, and the
cached ptxas verdicts rechecked against ptxas when it is installed. A rejected unit (the compiler's
located ``unsupported``) is a skip that names the compiler's sentence; it counts as rejected in the
summary, never as covered.
"""

from __future__ import annotations

import os
import shutil

import pytest

from ptx2gcn.conformance import matrix_kernel
from ptx2gcn.conformance.matrix_forms import CACHE, candidates, matrix_forms, probe_line, ptxas_accepts, wmma_pipes
from ptx2gcn.conformance.matrix_table import INVALID, MISMATCH, REJECTED, MatrixTable, Unit, run_unit, units

SAMPLE = 10
SEED = 20261
UNITS = units()
_PARAMS = [pytest.param(u, id=u.name, marks=[] if i % SAMPLE == 0 else [pytest.mark.slow])
           for i, u in enumerate(UNITS)]


@pytest.mark.parametrize("unit", _PARAMS)
def test_matrix_unit(unit: Unit, matrix_table: MatrixTable) -> None:
    outcome = run_unit(unit, SEED)
    matrix_table.record(unit, outcome)
    if outcome.kind == REJECTED:
        pytest.skip(outcome.details[0])
    assert outcome.kind != INVALID, "\n".join(outcome.details)
    assert outcome.kind != MISMATCH, "\n".join(outcome.details)


def test_every_candidate_has_a_cached_ptxas_verdict() -> None:
    import json

    cached = json.loads(CACHE.read_text(encoding="utf-8"))
    spellings = [s for s, _ in candidates()]
    assert set(cached) == set(spellings), "regenerate: python -m ptx2gcn.conformance.matrix_forms"
    forms = {f.spelling for f in matrix_forms()}
    # ptxas's documented refusals stay refusals: mixed f16/f32 accumulators of the sm_80 shapes
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16" not in forms
    assert {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "movmatrix.sync.aligned.m8n8.trans.b16",
            "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64",
            "wmma.mma.sync.aligned.col.row.m16n16k16.f32.f16"} <= forms


def test_every_form_is_in_a_unit() -> None:
    """Every ptxas-accepted spelling is run by some unit (wmma: in some all-accepted pipeline)."""
    spelled = {s for u in UNITS for s in u.spellings}
    missing = sorted({f.spelling for f in matrix_forms()} - spelled)
    assert not missing, missing


@pytest.mark.parametrize("family", ["mma", "ldmatrix", "stmatrix", "movmatrix", "wmma"])
def test_a_wrong_result_is_reported(family: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The harness can fail: one flipped output bit of the device is a reported mismatch."""
    real = matrix_kernel._launch

    def corrupt(code: bytes, inputs: bytes, out_bytes: int) -> bytes:
        out = bytearray(real(code, inputs, out_bytes))
        out[5] ^= 0x10  # lane 0 / first element of warp 0 (small-integer data: must be exact)
        return bytes(out)

    monkeypatch.setattr(matrix_kernel, "_launch", corrupt)
    unit = next(u for u in UNITS if u.name.startswith(family))
    outcome = run_unit(unit, SEED)
    assert outcome.kind == MISMATCH and outcome.details, (unit.name, outcome)


def test_wmma_pipelines_cover_every_layout_and_space() -> None:
    pipes = wmma_pipes()
    for t in {p.types for p in pipes}:
        mine = [p for p in pipes if p.types == t]
        assert {p.space for p in mine} == {"global", "shared", ""}
        assert {(p.layouts[0], p.layouts[1]) for p in mine} == {(a, b) for a in ("row", "col") for b in ("row", "col")}


@pytest.mark.slow
def test_cached_ptxas_verdicts_are_current() -> None:
    ptxas = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")
    if shutil.which(ptxas) is None:
        pytest.skip(f"{ptxas} not installed: the cached verdicts cannot be rechecked here")
    import json

    cached = json.loads(CACHE.read_text(encoding="utf-8"))
    for spelling, _ in candidates()[::7]:
        ok, _ = ptxas_accepts(probe_line(spelling), str(cached[spelling]["arch"]), ptxas)
        assert ok == cached[spelling]["accepted"], spelling
