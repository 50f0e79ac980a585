"""The fuzzer's parts: generator determinism, the evaluator against numpy, the emulator against the
evaluator on hand-written structured programs, the shrinker, failure cases, and the command line."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from ptx2gcn.cli import main
from ptx2gcn.fuzz.case import case_directories, read_case
from ptx2gcn.fuzz.eval import evaluate
from ptx2gcn.fuzz.gen import generate
from ptx2gcn.fuzz.oracle import Verdict, emulator_device, judge
from ptx2gcn.fuzz.program import (
    BLOCK,
    THREADS,
    Atomic,
    Call,
    Guard,
    If,
    LocalLoad,
    LocalStore,
    Loop,
    Op,
    Operand,
    Program,
    SharedRotate,
    Warp,
)
from ptx2gcn.fuzz.runner import FuzzConfig, fuzz
from ptx2gcn.fuzz.shrink import shrink, size
from ptx2gcn.fuzz.text import ptx_text

M32 = np.uint64(0xFFFFFFFF)


def r(i: int) -> Operand:
    return Operand("i32", i)


def p(i: int) -> Operand:
    return Operand("pred", i)


def _program(*body: object, seed: int = 3) -> Program:
    return Program(tuple(body), generate(seed).inputs)  # type: ignore[arg-type]


def test_generation_is_a_function_of_the_seed() -> None:
    assert ptx_text(generate(11)) == ptx_text(generate(11))
    assert generate(11).inputs == generate(11).inputs
    assert ptx_text(generate(11)) != ptx_text(generate(12))


def test_evaluator_matches_numpy_on_straight_line_code() -> None:
    prog = _program(Op("add.u32", r(0), (r(1), r(2))), Op("xor.b32", r(3), (r(0), Operand("i32", value=255))))
    values, poison = evaluate(prog)
    start = prog.input_bits()
    want0 = (start[("i32", 1)] + start[("i32", 2)]) & M32
    np.testing.assert_array_equal(values[("i32", 0)], want0)
    np.testing.assert_array_equal(values[("i32", 3)], want0 ^ np.uint64(255))
    assert not poison[("i32", 3)].any()


def test_evaluator_control_flow_and_memory_against_numpy() -> None:
    prog = _program(
        If(0, (Op("add.u32", r(0), (r(1), r(2))),), (Op("sub.u32", r(0), (r(1), r(2))),)),
        Loop(3, (Op("add.u32", r(1), (r(1), Operand("i32", value=7))),)),
        SharedRotate(2, 0, 5),
        Atomic("atom.add.u32", "shared", False, r(3), r(1), (r(0),)),
        Op("mul.lo.u32", r(2), (r(2), r(2)), Guard(1, negated=True)),
    )
    s = prog.input_bits()
    cond = s[("pred", 0)].astype(bool)
    r0 = np.where(cond, s[("i32", 1)] + s[("i32", 2)], s[("i32", 1)] - s[("i32", 2)]) & M32
    r1 = (s[("i32", 1)] + np.uint64(7) * (s[("i32", 3)] & np.uint64(3))) & M32
    lanes = np.arange(THREADS)
    r2 = r0[(lanes // BLOCK) * BLOCK + (lanes % BLOCK + 5) % BLOCK]
    r2 = np.where(s[("pred", 1)].astype(bool), r2, (r2 * r2) & M32)
    # thread 0 of each block stores its %r1, then every thread adds its %r0
    r3 = np.repeat((r1[::BLOCK] + r0.reshape(-1, BLOCK).sum(axis=1)) & M32, BLOCK)
    values, _ = evaluate(prog)
    for index, want in enumerate((r0, r1, r2, r3)):
        np.testing.assert_array_equal(values[("i32", index)], want, err_msg=f"%r{index}")


def test_structured_programs_run_on_the_emulator_as_evaluated() -> None:
    prog = _program(
        LocalStore(1, 2),
        LocalLoad(0, 3),
        Call(Op("mad.lo.u32", r(1), (r(0), r(2), r(3)))),
        If(2, (Loop(0, (Op("shl.b32", r(3), (r(3), Operand("i32", value=1))),)),)),
        SharedRotate(2, 3, 63),
        Atomic("red.add.u32", "global", False, r(0), r(2), (r(1),)),
        Op("setp.lt.u32", p(3), (r(0), r(1))),
    )
    assert judge(prog).kind == "ok", judge(prog).details


def test_a_wrong_device_is_caught_and_the_failure_shrinks(tmp_path: Path) -> None:
    def broken(ptx: str, inputs: bytes, size_: int) -> bytes:
        out = bytearray(emulator_device(ptx, inputs, size_))
        if "xor.b32" in ptx:
            out[0] ^= 1  # thread 0's first register
        return bytes(out)

    prog = _program(
        Op("add.u32", r(1), (r(1), r(2))), Op("xor.b32", r(2), (r(0), r(3))), Op("or.b32", r(0), (r(0), r(3)))
    )
    verdict = judge(prog, broken)
    assert verdict.kind == "mismatch"
    small = shrink(prog, verdict, lambda q: judge(q, broken))
    assert size(small.body) == 1 and isinstance(small.body[0], Op) and small.body[0].spelling == "xor.b32"


def test_shrinking_keeps_the_error_kind() -> None:
    def judge_fake(q: Program) -> Verdict:
        text = ptx_text(q)
        return (
            Verdict("error", ["x.ptx:3:1: error: boom"])
            if "popc" in text and "brev" in text
            else Verdict("ok")
        )

    prog = _program(
        Op("popc.b32", r(0), (r(1),)),
        Op("add.u32", r(1), (r(1), r(2))),
        Op("brev.b32", r(2), (r(3),)),
        Op("add.u32", r(3), (r(1), r(2))),
    )
    small = shrink(prog, judge_fake(prog), judge_fake)
    assert [st.spelling for st in small.body] == ["popc.b32", "brev.b32"]  # type: ignore[union-attr]


def test_failures_are_saved_as_replayable_cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ptx2gcn.fuzz.runner as runner

    def broken(ptx: str, inputs: bytes, size_: int) -> bytes:
        out = bytearray(emulator_device(ptx, inputs, size_))
        for slot in range(0, size_, 8):  # the low bit of every register of every thread: some are compared
            out[slot] ^= 1
        return bytes(out)

    monkeypatch.setattr(runner, "device_for", lambda name: broken)
    summary = fuzz(FuzzConfig(count=2, seed=5, save=tmp_path, shrink_budget=40), show_progress=False)
    assert (summary.programs, summary.mismatches, summary.errors) == (2, 2, 0)
    cases = case_directories(tmp_path)
    assert len(cases) >= 1
    case = read_case(cases[0])
    # the saved expectation is the model's, so the honest emulator passes where the broken one failed
    raw = emulator_device(case.ptx, case.inputs.tobytes(), case.expected.size * 8)
    got = np.frombuffer(raw, dtype="<u8")
    assert not ((got != case.expected) & case.mask).any()
    assert "case.toml" in {p.name for p in cases[0].iterdir()}


def test_cli_prints_the_closing_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--count", "2", "--seed", "3", "--no-save", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "fuzz: 2 programs, 0 mismatches, 0 errors" in out
    assert "programs/minute" in out


@pytest.mark.skipif(
    importlib.util.find_spec("cuda") is not None, reason="cuda-python present: the oracle may work"
)
@pytest.mark.parametrize(
    "flags",
    [["--oracle", "cuda"], ["--backend", "cuda"], ["--record-golden", "GOLDEN"],
     ["--record-golden", "GOLDEN", "--golden-forms"]],
)
def test_cuda_oracle_fails_cleanly_without_a_gpu(
    flags: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = [str(tmp_path / f) if f == "GOLDEN" else f for f in flags]
    assert main(["fuzz", "--count", "1", "--no-save", "--no-progress", *flags]) == 1
    err = capsys.readouterr().err
    assert "cuda" in err and "Traceback" not in err
    assert not any(tmp_path.iterdir())


def test_warp_collectives_against_numpy_and_the_emulator() -> None:
    prog = _program(
        Warp(Op("shfl.sync.bfly.b32", r(0), (r(1), Operand("i32", value=5), Operand("i32", value=31)))),
        Warp(Op("redux.sync.add.u32", r(2), (r(1),))),
        Warp(Op("vote.sync.ballot.b32", r(3), (p(1),))),
        Warp(Op("shfl.sync.idx.b32", r(1), (r(1), r(2), Operand("i32", value=31)))),
    )
    s = prog.input_bits()
    lanes = np.arange(THREADS)
    warp_base = lanes // 32 * 32
    r1 = s[("i32", 1)]
    r2 = np.repeat(r1.reshape(-1, 32).sum(axis=1) & M32, 32)
    ballot = np.repeat(
        [sum(int(b) << i for i, b in enumerate(w)) for w in s[("pred", 1)].reshape(-1, 32)], 32
    )
    values, _ = evaluate(prog)
    np.testing.assert_array_equal(values[("i32", 0)], r1[warp_base + ((lanes % 32) ^ 5)])
    np.testing.assert_array_equal(values[("i32", 2)], r2)
    np.testing.assert_array_equal(values[("i32", 3)], ballot.astype(np.uint64))
    np.testing.assert_array_equal(values[("i32", 1)], r1[warp_base + (r2 & np.uint64(31)).astype(np.int64)])
    assert judge(prog).kind == "ok", judge(prog).details


def test_cuda_oracle_and_golden_recording_with_a_stand_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No NVIDIA GPU here: a stand-in 'cuda' device (the emulator, or the emulator with one flipped
    bit) takes cuda-python's place behind ``device_for``, as the driver tests fake cuda.bindings."""
    import ptx2gcn.fuzz.runner as runner

    def flipped(ptx: str, inputs: bytes, size_: int) -> bytes:
        out = bytearray(emulator_device(ptx, inputs, size_))
        out[8 * THREADS * 4] ^= 1
        return bytes(out)

    cuda_device = {"device": emulator_device}
    monkeypatch.setattr(runner, "check_backend", lambda name: None)
    monkeypatch.setattr(
        runner, "device_for", lambda name: cuda_device["device"] if name == "cuda" else emulator_device
    )
    golden = tmp_path / "golden"
    summary = fuzz(
        FuzzConfig(count=2, seed=9, save=None, oracle="cuda", record_golden=golden), show_progress=False
    )
    assert (summary.mismatches, summary.errors) == (0, 0)
    cases = case_directories(golden)
    assert len(cases) == 2
    for directory in cases:
        case = read_case(directory)
        assert case.mask.all() and case.meta["origin"] == "cuda"
        raw = emulator_device(case.ptx, case.inputs.tobytes(), case.expected.size * 8)
        assert np.array_equal(np.frombuffer(raw, dtype="<u8"), case.expected)
    cuda_device["device"] = flipped
    summary = fuzz(
        FuzzConfig(count=2, seed=9, save=None, oracle="cuda", shrink_budget=10), show_progress=False
    )
    assert summary.mismatches == 2


def test_progress_lines_in_a_log() -> None:
    import io

    stream = io.StringIO()
    summary = fuzz(FuzzConfig(count=4, seed=2, save=None), stream, show_progress=True)
    lines = [line for line in stream.getvalue().splitlines() if line.startswith("[")]
    assert len(lines) == 4 and lines[-1].startswith("[" + "#" * 30 + "] 4/4")
    assert summary.line() == "fuzz: 4 programs, 0 mismatches, 0 errors"


def test_golden_forms_needs_a_golden_directory(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--count", "1", "--no-save", "--golden-forms"]) == 2
    assert "--golden-forms needs --record-golden" in capsys.readouterr().err



def test_saved_failures_name_a_non_default_emulator_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    from ptx2gcn.fuzz.runner import _case_meta

    verdict = Verdict("mismatch", ["thread 0: %d2 = 0x0, expected 0x1"])
    monkeypatch.delenv("PTX2GCN_EMU_APPROX", raising=False)
    assert "emu_approx" not in _case_meta(FuzzConfig(count=1, seed=5), 7, 0, verdict)
    monkeypatch.setenv("PTX2GCN_EMU_APPROX", "adversarial")
    monkeypatch.setenv("PTX2GCN_EMU_APPROX_SEED", "3")
    meta = _case_meta(FuzzConfig(count=1, seed=5), 7, 0, verdict)
    assert meta["emu_approx"] == {"PTX2GCN_EMU_APPROX": "adversarial", "PTX2GCN_EMU_APPROX_SEED": "3"}
