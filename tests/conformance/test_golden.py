"""CUDA goldens of the conformance forms: every stored golden (``corpora/golden/conformance``) must
satisfy the reference model, and recording + replay work end to end through a stand-in device (no
NVIDIA GPU here): the emulator through the real runtime path (``ptx run``), and a device that flips
one bit, whose golden the model must reject."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptx2gcn.conformance import golden as conformance_golden
from ptx2gcn.conformance.forms import model_forms
from ptx2gcn.conformance.golden import golden_directories, record, replay
from ptx2gcn.conformance.table import classify
from ptx2gcn.fuzz.device import run_kernel

ROOT = Path(__file__).resolve().parents[2] / "corpora" / "golden" / "conformance"


@pytest.mark.parametrize("directory", golden_directories(ROOT), ids=lambda p: p.name)
def test_stored_cuda_goldens_satisfy_the_model(directory: Path) -> None:
    failures = replay(directory)
    assert not failures, "CUDA and the reference model disagree:\n" + "\n".join(failures[:20])


def _emulator_runner(ptx: str, data: bytes, out_size: int, lanes: int) -> bytes:
    from ptx2gcn.compiler import compile as compile_ptx

    return run_kernel(compile_ptx(ptx).data, "k", data, out_size, lanes)


def test_record_and_replay_through_a_stand_in(tmp_path: Path) -> None:
    table = classify(model_forms(["popc", "lop3", "add"])[:20])
    written = record(table, conformance_golden.backend_runner("emulator"), tmp_path, "stand-in: emulator", 96)
    assert sorted(written) == golden_directories(tmp_path) and len(written) == len(table.kernels) >= 2
    for directory in written:
        assert replay(directory) == []

    def flipped(ptx: str, data: bytes, out_size: int, lanes: int) -> bytes:
        out = bytearray(_emulator_runner(ptx, data, out_size, lanes))
        out[0] ^= 1  # lane 0 of the first instance's first destination
        return bytes(out)

    bad = record(table, flipped, tmp_path / "bad", "stand-in: wrong device", 96)
    failures = replay(bad[0])
    assert len(failures) == 1 and "lane 0" in failures[0]
