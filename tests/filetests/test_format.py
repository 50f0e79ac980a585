"""The file-test directive format (``filetest.py``): value generators, wrapping, the restricted
``expr()`` language and located errors for malformed directives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.filetests.filetest import FileTestError, parse, values


def test_generators_and_wrapping() -> None:
    assert values("u32", "[1, 2, -1]").tolist() == [1, 2, 0xFFFFFFFF]
    assert values("s32", "fill(3, -15)").tolist() == [-15, -15, -15]
    assert values("u8", "iota(4, 254)").tolist() == [254, 255, 0, 1]
    assert values("u16", "iota(3, 10, -5)").tolist() == [10, 5, 0]
    assert values("u32", "zeros(2)").tolist() == [0, 0]
    assert values("u32", 'expr(4, "i ^ 1 if i < n - 1 else 7")').tolist() == [1, 0, 3, 7]
    assert values("f32", 'expr(3, "i * 0.5")').dtype == np.float32


@pytest.mark.parametrize("text", ['expr(2, "__import__(\'os\')")', 'expr(2, "i.real")', 'expr(2, "j")',
                                  'expr(2, "[i][0]")', "range(3)", "7"])
def test_expr_allows_only_arithmetic_of_i(text: str) -> None:
    with pytest.raises(ValueError):
        values("u32", text)


def test_malformed_directives_are_located(tmp_path: Path) -> None:
    cases = {
        "// ARG: x = u32 1\n": "before any LAUNCH",
        "// LAUNCH: k grid=1 bogus=2\n": "unknown launch field",
        "// LAUNCH: k\n// ARG: x = u33 1\n": "unknown element type 'u33'",
        "// LAUNCH: k\n// EXPECT: y = [1]\n": "no buffer argument named 'y'",
        "// LAUNCH: k\n// ARG: x = u32[] fill(3)\n": "ARG",
    }
    for text, message in cases.items():
        path = tmp_path / "t.ptx"
        path.write_text(text)
        with pytest.raises(FileTestError, match=message) as error:
            parse(path)
        assert f"{path}:" in str(error.value)


def test_run_lines_substitute_the_path(tmp_path: Path) -> None:
    path = tmp_path / "t.ir"
    path.write_text("// RUN: ptx2gcn opt %s --print | filecheck %s\n")
    assert parse(path).runs == [(1, f"ptx2gcn opt {path} --print | filecheck {path}")]


KERNEL = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd1, %rd1, %rd2;
	shfl.sync.idx.b32 %r2, %r1, 0, 0x1f, 0xfffffffe;
	st.global.u32 [%rd1], %r{reg};
	ret;
}
"""


@pytest.mark.parametrize(("reg", "expect", "problem"), [
    (1, 'expr(32, "i")', None),
    (1, 'expr(32, "i + (1 if i == 7 else 0)")', "out: 1 of 32 elements differ: [7] got 0x7 expected 0x8"),
    (2, "zeros(32)", "out: PTX fixes none of its elements, so the reference checks nothing"),
])
def test_the_reference_executor_can_fail(tmp_path: Path, reg: int, expect: str, problem: str | None) -> None:
    """A wrong expectation is reported, and so is one the reference cannot check at all (a shuffle
    from a lane outside membermask: PTX leaves every result undefined)."""
    from tests.filetests.test_filetests import reference_mismatches

    path = tmp_path / "k.ptx"
    path.write_text(f"// LAUNCH: k grid=1 block=32\n// ARG: out = u32[] zeros(32)\n// EXPECT: out = {expect}\n"
                    + KERNEL.replace("{reg}", str(reg)))
    test = parse(path)
    assert reference_mismatches(test, test.launches[0]) == ([] if problem is None else [problem])
