"""Pass tests: ``tests/passes/<pass_name>/<case>.ir`` = input IR, ``// ---- output ----``, expected IR.

Each case runs its pass (the folder name, ``_`` → ``-``; a ``// PASSES: a,b`` line overrides) on
the input, verifies the result, checks that it round-trips through the IR parser, and compares it
with the expected text exactly. A case may instead (or also) carry ``// CHECK:`` lines, run
through the ``filecheck`` package in-process. ``PTX2GCN_BLESS=1`` rewrites the expected halves.
"""

from __future__ import annotations

import difflib
import io
import os
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from filecheck.matcher import Matcher
from filecheck.options import Options as FileCheckOptions

from ptx2gcn.ir.parser import parse_module
from ptx2gcn.ir.printer import print_module
from ptx2gcn.ir.verify import verify
from ptx2gcn.passes import PASSES

HERE = Path(__file__).parent
SEPARATOR = "// ---- output ----"
CASES = sorted(HERE.glob("*/*.ir"))


def _passes(path: Path, text: str) -> list[str]:
    for line in text.splitlines():
        if line.startswith("// PASSES:"):
            return [n.strip() for n in line.removeprefix("// PASSES:").split(",") if n.strip()]
    return [path.parent.name.replace("_", "-")]


def run_filecheck(checks: str, output: str) -> tuple[int, str]:
    """Run FileCheck with ``checks`` against ``output`` in-process; (exit code, messages)."""
    with tempfile.TemporaryDirectory() as tmp:
        check_path, input_path = Path(tmp, "checks"), Path(tmp, "input")
        check_path.write_text(checks)
        input_path.write_text(output)
        matcher = Matcher.from_opts(FileCheckOptions(match_filename=str(check_path),
                                                     input_file=str(input_path)))
        err = io.StringIO()
        with redirect_stderr(err), redirect_stdout(err):
            matcher.stderr = err
            code = matcher.run()
    return code, err.getvalue()


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.stem}" for p in CASES])
def test_pass_case(path: Path) -> None:
    text = path.read_text()
    source, _, expected = text.partition(SEPARATOR + "\n")
    module = parse_module(source, str(path))
    verify(module)
    for name in _passes(path, source):
        PASSES[name]().run(module)
        verify(module)
    output = print_module(module)
    assert print_module(parse_module(output, "output.ir")) == output, "output does not round-trip"
    if "// CHECK" in source:
        code, messages = run_filecheck(source, output)
        assert code == 0, f"FileCheck failed:\n{messages}\n--- output ---\n{output}"
    if os.environ.get("PTX2GCN_BLESS"):
        path.write_text(source + SEPARATOR + "\n" + output)
        return
    if SEPARATOR not in text:
        assert "// CHECK" in source, f"{path}: neither CHECK lines nor an expected output"
        return
    if output != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), output.splitlines(True),
                                            "expected", "actual"))
        pytest.fail(f"{path}: output differs (PTX2GCN_BLESS=1 rewrites the expectation):\n{diff}")


def test_every_pass_has_cases() -> None:
    folders = {p.name.replace("_", "-") for p in HERE.iterdir() if p.is_dir() and any(p.glob("*.ir"))}
    assert set(PASSES) <= folders, f"passes without test cases: {sorted(set(PASSES) - folders)}"
