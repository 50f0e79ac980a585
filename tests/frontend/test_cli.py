"""``ptx2gcn parse``: exit status, located diagnostics on stderr, ``--print`` output that re-parses."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptx2gcn.cli import main
from ptx2gcn.frontend import parse_file, parse_ptx

DATA = Path(__file__).resolve().parent / "data"
GOOD = DATA / "features_sm90.ptx"


def test_clean_files_exit_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", str(GOOD), str(DATA / "legacy_isa14.ptx")]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_print_emits_canonical_ptx(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", "--print", str(GOOD)]) == 0
    assert parse_ptx(capsys.readouterr().out) == parse_file(GOOD)


def test_errors_are_located_and_every_file_is_tried(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.ptx"
    broken.write_text(".version 8.5\n.target sm_90\n.entry k()\n{\n\tret\n}\n")
    unchecked = tmp_path / "unchecked.ptx"
    unchecked.write_text(".version 8.5\n.target sm_90\n.entry k()\n{\n\tbra L;\n}\n")
    assert main(["parse", str(broken), str(GOOD), str(unchecked)]) == 1
    err = capsys.readouterr().err
    assert f"{broken}:5:5: error: expected ';' after instruction\n\tret\n\t   ^\n" in err
    assert f"{unchecked}:5:6: error: undeclared label 'L'" in err
    assert main(["parse", "--no-check", str(unchecked)]) == 0


def test_missing_file_is_an_error_not_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", str(tmp_path / "absent.ptx")]) == 1
    assert "cannot read file" in capsys.readouterr().err


def test_help_explains_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["parse", "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert "--print" in out and "Exit status" in out and "file:line:col" in out


def test_no_files_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["parse"])
    assert exited.value.code == 2


def test_warnings_are_printed_but_do_not_fail(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ptx = tmp_path / "loc.ptx"
    ptx.write_text(".version 8.5\n.target sm_90\n.entry k()\n{\n\t.loc 3 1 1\n\tret;\n}\n")
    assert main(["parse", str(ptx)]) == 0
    assert capsys.readouterr().err.startswith(
        f"{ptx}:5:2: warning: .loc refers to file 3, which no .file directive declares\n")
