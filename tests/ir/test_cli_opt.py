"""``ptx2gcn opt``: PTX or IR in, passes, IR out; located errors and usage errors, never tracebacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptx2gcn.cli import main
from ptx2gcn.pipeline import PIPELINE

PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 k_p)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [k_p];
    mov.u32 %r1, 6;
    mul.lo.u32 %r2, %r1, 7;
    mul.lo.u32 %r3, %r1, 7;
    add.u32 %r2, %r2, %r3;
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u32 [%rd2], %r2;
    ret;
}
"""


@pytest.fixture
def ptx_file(tmp_path: Path) -> Path:
    path = tmp_path / "k.ptx"
    path.write_text(PTX)
    return path


def test_opt_prints_folded_ir(ptx_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["opt", str(ptx_file), "--print", "--verify-each"]) == 0
    out = capsys.readouterr().out
    assert "const {value = 84} : i32" in out  # 6*7 + 6*7, folded
    assert "mul" not in out


def test_opt_reads_ir_and_prints_after(ptx_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ir_file = tmp_path / "k.ir"
    assert main(["opt", str(ptx_file), "--passes=", "-o", str(ir_file)]) == 0
    assert "mul" in ir_file.read_text()
    capsys.readouterr()
    assert main(["opt", str(ir_file), "--passes=cse,dce", "--print-after=cse", "--print"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("// ---- IR after cse ----\n")
    assert out.count("mul %") == 2  # once after cse, once in the final print


def test_unknown_pass_is_a_usage_error(ptx_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["opt", str(ptx_file), "--passes=dce,nope"]) == 2
    assert "unknown pass nope" in capsys.readouterr().err


@pytest.mark.parametrize(("content", "expect"), [
    (b"\xff\xfe\x00garbage", "not UTF-8"),
    (PTX.replace("mul.lo.u32 %r2, %r1, 7;", "mul.lo.u32 %r2, %r1;").encode(), "k.ptx:10:"),
])
def test_bad_input_is_located(tmp_path: Path, content: bytes, expect: str,
                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.ptx"
    path.write_bytes(content)
    assert main(["opt", str(path), "--print"]) == 1
    err = capsys.readouterr().err
    assert expect in err and "Traceback" not in err


def test_bad_ir_is_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.ir"
    path.write_text('module "x" version "" target "" address_size 64\nkernel @k () {\n^entry:\n  jump\n}\n')
    assert main(["opt", str(path)]) == 1
    assert f"{path}:4:3: error: unknown op 'jump'" in capsys.readouterr().err


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["opt", str(tmp_path / "none.ptx")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_environment_switches(ptx_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTX2GCN_PRINT_AFTER", "dce")
    monkeypatch.setenv("PTX2GCN_DUMP", str(tmp_path / "dump"))
    assert main(["opt", str(ptx_file)]) == 0
    assert capsys.readouterr().out.startswith("// ---- IR after dce ----")
    dumps = sorted(p.name for p in (tmp_path / "dump").iterdir())
    assert dumps == [f"{i + 1:02d}-{name}.ir" for i, name in enumerate(PIPELINE)]


def test_there_is_no_warp_mode_switch(capsys: pytest.CaptureFixture[str]) -> None:
    """Only Mode P (two CUDA warps per wave64) exists; no flag or option pretends otherwise."""
    from dataclasses import fields

    from ptx2gcn.options import CompileOptions

    assert not {"warp_mode", "target"} & {f.name for f in fields(CompileOptions)}
    with pytest.raises(SystemExit):
        main(["opt", "--warp-mode", "S", "x.ptx"])
    assert "unrecognized arguments: --warp-mode" in capsys.readouterr().err


def test_opt_output_that_cannot_be_written_is_a_located_error(
        ptx_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "missing" / "k.ir"
    assert main(["opt", str(ptx_file), "-o", str(out)]) == 1
    assert capsys.readouterr().err == f"{out}: error: cannot write {out}: No such file or directory\n"


def test_opt_output_replaces_the_file_whole(ptx_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "k.ir"
    out.write_text("old contents that are longer than nothing\n" * 1000)
    assert main(["opt", str(ptx_file), "-o", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("module ") and "old contents" not in text
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary left


def test_opt_kernel_translates_only_that_kernel(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--kernel k``: another kernel using an instruction ptx2gcn cannot translate stays a declaration."""
    path = tmp_path / "two.ptx"
    path.write_text(PTX + "\n.visible .entry other(.param .u64 p)\n{\n    .reg .b64 %rd<2>;\n"
                    "    ld.param.u64 %rd1, [p];\n    discard.global.L2 [%rd1], 128;\n    ret;\n}\n")
    assert main(["opt", str(path), "--print"]) == 1
    assert "unsupported: discard" in capsys.readouterr().err
    assert main(["opt", str(path), "--print", "--kernel", "k"]) == 0
    out = capsys.readouterr().out
    assert "kernel @k visible" in out and "kernel @other visible (kparam u64 %p size 8 align 8)\n" in out
