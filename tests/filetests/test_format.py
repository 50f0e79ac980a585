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
