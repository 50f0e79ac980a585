"""Slow smoke test across the project: every PTX file of ``corpora/`` that ``ptx2gcn.compiler``
compiles runs in the emulator (one work-group of 64, pointer parameters aimed at a scratch buffer)
without an unknown instruction, an internal emulator error or a hang. Faults from the made-up
arguments are fine; what is checked is that every instruction the compiler emits has semantics."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from ptx2gcn.runtime.emulator.errors import EmulatorFault, KernelHang, UnknownInstruction
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import Program, load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

CORPORA = Path(__file__).resolve().parents[2] / "corpora"
FILES = sorted(p for folder in ("zluda", "nvcc", "triton", "numba") for p in (CORPORA / folder).glob("*.ptx"))


def _compile(path: Path) -> Program | None:
    compiler = pytest.importorskip("ptx2gcn.compiler")
    try:
        result = compiler.compile(path.read_text(), arch="gfx942", opt=3)
    except Exception:  # noqa: BLE001 - files the compiler does not handle yet are not this test's subject
        return None
    data = result if isinstance(result, (bytes, bytearray)) else getattr(result, "data", None)
    return load(bytes(data), path.name) if isinstance(data, (bytes, bytearray)) else None


def _run(program: Program, name: str) -> str:
    kernel = program.kernels[name]
    memory = DeviceMemory()
    buffer = memory.alloc(1 << 20)
    explicit = kernel.meta.explicit_args
    args = bytearray(max((a.offset + a.size for a in explicit), default=0))
    for arg in explicit:
        if arg.size == 8:
            struct.pack_into("<Q", args, arg.offset, buffer + 4096)
        elif arg.size == 4:
            struct.pack_into("<I", args, arg.offset, 1)
    try:
        launch(program, name, (1,), (64,), bytes(args), dynamic_lds=1024, memory=memory, step_budget=200_000)
    except EmulatorFault as fault:
        return "internal" if "internal emulator error" in str(fault) else "fault"
    except (UnknownInstruction, KernelHang) as error:
        return f"{type(error).__name__}: {error}"
    return "ok"


@pytest.mark.slow
def test_compiled_corpus_runs_without_unknown_instructions() -> None:
    results: dict[str, str] = {}
    for path in FILES:
        program = _compile(path)
        if program is not None:
            for name in program.kernels:
                results[f"{path.name}:{name}"] = _run(program, name)
    assert len(results) > 100
    bad = {key: outcome for key, outcome in results.items() if outcome not in ("ok", "fault")}
    assert not bad, bad
    assert sum(outcome == "ok" for outcome in results.values()) > 0.9 * len(results)
