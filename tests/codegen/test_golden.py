"""Golden LLVM IR (conventions C14): each ``golden/<name>.ptx`` has ``golden/<name>.ll``, the exact
unoptimised LLVM IR ``emit_llvm`` produces for it; LLVM must also verify it. ``PTX2GCN_BLESS=1``
rewrites the expected files; a mismatch prints a unified diff and that hint."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from ptx2gcn.compiler import to_ir
from ptx2gcn.emit.module import emit_llvm
from ptx2gcn.emit.target import parse_verified
from ptx2gcn.options import CompileOptions

GOLDEN = Path(__file__).resolve().parent / "golden"
SAMPLES = sorted(GOLDEN.glob("*.ptx"))


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_golden_llvm_ir(sample: Path) -> None:
    text = emit_llvm(to_ir(sample.read_text(), sample.name))
    parse_verified(text, CompileOptions())
    expected_path = sample.with_suffix(".ll")
    if os.environ.get("PTX2GCN_BLESS") == "1":
        expected_path.write_text(text)
    expected = expected_path.read_text() if expected_path.exists() else ""
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                            str(expected_path), "emitted"))
        pytest.fail(f"{diff}\n(run with PTX2GCN_BLESS=1 to accept the new output)")
