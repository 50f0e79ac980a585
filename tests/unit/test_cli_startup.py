"""Start-up and teardown of the ``ptx2gcn`` command (``ptx2gcn.cli``), functional checks only.

A command line naming a subcommand registers only that subcommand and must parse exactly as the
full parser does; run as the process's own command, ``compile`` runs without the cyclic garbage
collector and freezes what it leaves, while in-process calls (``main(argv)``) keep the caller's
collector untouched. The output reaches its file or standard output complete, with the exit
status and diagnostics of an ordinary run.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ptx2gcn.cli import SUBCOMMANDS, build_parser, named_subcommand
from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.output_file import write_output
from tests.unit.test_compile_speed_gc import PTX


def _choices(parser: argparse.ArgumentParser) -> list[str]:
    return sorted(parser._subparsers._group_actions[0].choices)  # type: ignore[union-attr]


def _outcome(parser: argparse.ArgumentParser, argv: list[str],
             capsys: pytest.CaptureFixture[str]) -> tuple[object, str, str]:
    """(namespace or exit status, stdout, stderr) of ``parser.parse_args(argv)``."""
    try:
        result: object = vars(parser.parse_args(argv))
    except SystemExit as stop:
        result = stop.code
    captured = capsys.readouterr()
    return result, captured.out, captured.err


def test_named_subcommand_is_the_first_argument_only() -> None:
    assert named_subcommand(["compile", "k.ptx"]) == "compile"
    assert named_subcommand(["fatbin", "list", "x"]) == "fatbin"
    assert named_subcommand([]) is None
    assert named_subcommand(["--help"]) is None
    assert named_subcommand(["--version", "compile"]) is None
    assert named_subcommand(["compil"]) is None
    assert named_subcommand(["k.ptx", "compile"]) is None


def test_a_named_subcommand_is_registered_alone() -> None:
    assert _choices(build_parser("compile")) == ["compile"]
    assert _choices(build_parser()) == sorted(SUBCOMMANDS)


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_one_subcommand_parses_as_the_full_parser_does(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Help, a usage error and the bare name read the same with the subcommand alone."""
    full, alone = build_parser(), build_parser(name)
    for argv, status in (([name, "--help"], 0), ([name, "--no-such-option"], 2), ([name], None)):
        expected = _outcome(full, argv, capsys)
        assert status is None or expected[0] == status
        assert _outcome(alone, argv, capsys) == expected


def test_compile_arguments_parse_to_the_same_namespace(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["compile", "k.ptx", "-O", "2", "--emit", "llvm", "--kernel", "a", "--kernel", "b", "-o", "-"]
    expected = _outcome(build_parser(), argv, capsys)
    assert isinstance(expected[0], dict) and expected[0]["kernel"] == ["a", "b"]
    assert _outcome(build_parser("compile"), argv, capsys) == expected


_PROBE = """\
import gc, json, sys
import ptx2gcn.commands.compile as command
from ptx2gcn.cli import main
starts, marks = [], []
gc.callbacks.append(lambda phase, info: starts.append(1) if phase == "start" else None)
handler = command.run
def marked(args):
    marks.append(len(starts))
    try:
        return handler(args)
    finally:
        marks.append(len(starts))
command.run = marked
gc.set_threshold(1, 1, 1)
own = sys.argv[1] == "own"
sys.argv = ["ptx2gcn", *sys.argv[2:]]
status = main() if own else main(sys.argv[1:])
gc.set_threshold(700, 10, 10)
report = {"status": status, "marks": marks, "frozen": gc.get_freeze_count(), "enabled": gc.isenabled(),
          "modules": sorted(sys.modules)}
sys.stderr.write("\\n" + json.dumps(report) + "\\n")
"""
"""Runs ``main`` with a collection due after nearly every allocation and reports the number of
collections started when the compile command's handler began and when it ended (``marks``)."""


def _probe(how: str, *argv: str) -> dict[str, object]:
    """Run ``main`` in a fresh interpreter: ``own`` as its own command line, ``call`` with argv."""
    result = subprocess.run([sys.executable, "-c", _PROBE, how, *argv], capture_output=True, check=True)
    return dict(json.loads(result.stderr.decode().splitlines()[-1]))


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "k.ptx"
    path.write_text(PTX)
    return path


def test_compile_as_the_process_command_leaves_its_objects_uncollected(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "k.hsaco"
    report = _probe("own", "compile", str(source), "-o", str(out))
    assert report["status"] == 0 and out.read_bytes()[:4] == b"\x7fELF"
    marks = report["marks"]
    assert isinstance(marks, list) and len(marks) == 2 and marks[0] == marks[1]
    assert isinstance(report["frozen"], int) and report["frozen"] > 10_000
    assert report["enabled"]


def test_compile_called_in_process_collects_as_usual(source: Path, tmp_path: Path) -> None:
    """The probe can tell: with an argv list, main() is an ordinary call."""
    out = tmp_path / "k.hsaco"
    report = _probe("call", "compile", str(source), "-o", str(out))
    assert report["status"] == 0 and out.read_bytes()[:4] == b"\x7fELF"
    marks = report["marks"]
    assert isinstance(marks, list) and len(marks) == 2 and marks[1] > marks[0]
    assert report["frozen"] == 0 and report["enabled"]


def test_other_commands_are_not_one_shot(source: Path) -> None:
    report = _probe("own", "parse", str(source))
    assert report["status"] == 0
    assert report["frozen"] == 0


def test_the_compile_command_loads_no_other_subcommand(source: Path, tmp_path: Path) -> None:
    report = _probe("own", "compile", str(source), "-o", str(tmp_path / "k.hsaco"))
    modules = report["modules"]
    assert isinstance(modules, list) and "ptx2gcn.link.linker" in modules
    assert [m for m in modules if m.startswith(("ptx2gcn.runtime", "ptx2gcn.commands."))] == [
        "ptx2gcn.commands.compile"]


def _ptx2gcn(*argv: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "ptx2gcn", *argv], capture_output=True)


def test_stdout_output_is_complete_and_equals_the_file(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "k.hsaco"
    assert _ptx2gcn("compile", str(source), "-o", str(out)).returncode == 0
    piped = _ptx2gcn("compile", str(source), "-o", "-")
    assert piped.returncode == 0 and piped.stderr == b""
    assert piped.stdout == out.read_bytes()
    text = _ptx2gcn("compile", str(source), "--emit", "llvm", "-o", "-")
    assert text.returncode == 0 and b"define amdgpu_kernel void @add_one(" in text.stdout
    assert text.stdout.endswith(b"\n")


def test_a_rejected_input_prints_its_diagnostic_and_exits_1(source: Path, tmp_path: Path) -> None:
    source.write_text(PTX.replace("add.s32", "add.bogus32"))
    out = tmp_path / "k.hsaco"
    result = _ptx2gcn("compile", str(source), "-o", str(out))
    assert result.returncode == 1
    line = 1 + PTX.splitlines().index("    add.s32 %r2, %r1, 1;")
    assert result.stderr.decode().startswith(f"{source}:{line}:")
    assert not out.exists()


def test_an_unwritable_output_is_an_error_not_a_crash(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "missing" / "k.hsaco"
    result = _ptx2gcn("compile", str(source), "-o", str(out))
    assert result.returncode == 1
    assert result.stderr.decode() == f"{out}: error: cannot write {out}: No such file or directory\n"


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_write_output_creates_a_file_as_open_would(tmp_path: Path) -> None:
    out = tmp_path / "new.bin"
    write_output(str(out), b"abc")
    assert out.read_bytes() == b"abc"
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~_umask()
    assert os.listdir(tmp_path) == ["new.bin"]


def test_write_output_keeps_the_mode_and_follows_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real.bin"
    real.write_bytes(b"old contents")
    real.chmod(0o640)
    link = tmp_path / "link.bin"
    link.symlink_to(real)
    write_output(str(link), b"new")
    assert link.is_symlink() and real.read_bytes() == b"new"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(os.listdir(tmp_path)) == ["link.bin", "real.bin"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "k.hsaco"
    out.write_bytes(b"old")

    def refuse(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(Ptx2GcnError, match="cannot write .*k.hsaco: No space left on device"):
        write_output(str(out), b"new")
    assert out.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["k.hsaco"]


def test_write_output_writes_a_fifo_in_place(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    write_output(str(fifo), b"through the pipe")
    reader.join(timeout=10)
    assert received == [b"through the pipe"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_time_report_accounts_for_the_process_cpu(source: Path, tmp_path: Path) -> None:
    from ptx2gcn.compiler import STAGES

    result = _ptx2gcn("compile", str(source), "-o", str(tmp_path / "k.hsaco"), "--time-report")
    assert result.returncode == 0
    prefix = "ptx2gcn compile: CPU seconds: "
    line = result.stderr.decode().strip()
    assert line.startswith(prefix) and "\n" not in line
    figures = {name: float(value) for name, value in (item.split("=") for item in line[len(prefix):].split())}
    assert list(figures) == ["start-up", *STAGES, "total"]
    assert all(value >= 0 for value in figures.values())
    assert figures["start-up"] > 0  # the interpreter and the imports take some CPU
    assert figures["total"] >= figures["start-up"] + sum(figures[s] for s in STAGES) - 1e-6


@pytest.mark.parametrize("traceback", [False, True])
def test_an_internal_error_is_one_line_or_a_traceback_on_request(
        traceback: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import ptx2gcn.commands.compile as command
    from ptx2gcn.cli import main

    def broken(args: argparse.Namespace) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr(command, "run", broken)
    if traceback:
        monkeypatch.setenv("PTX2GCN_TRACEBACK", "1")
    else:
        monkeypatch.delenv("PTX2GCN_TRACEBACK", raising=False)
    assert main(["compile", "k.ptx"]) == 3
    err = capsys.readouterr().err
    assert "ptx2gcn: internal error: RuntimeError: boom\n" in err
    assert ("Traceback (most recent call last):" in err) == traceback


@pytest.mark.parametrize("emit", ["llvm", "hsaco"])
def test_a_full_standard_output_is_an_error(emit: str, source: Path) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    with open("/dev/full", "wb") as full:
        result = subprocess.run([sys.executable, "-m", "ptx2gcn", "compile", str(source), "--emit", emit, "-o", "-"],
                                stdout=full, stderr=subprocess.PIPE)
    assert result.returncode == 1
    assert result.stderr.decode() == "<stdout>: error: cannot write standard output: No space left on device\n"
