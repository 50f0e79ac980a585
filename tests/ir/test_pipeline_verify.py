"""The verifier on the real path: after the pass pipeline on every compile, after each pass under
``verify_each`` (``--verify-each``, ``PTX2GCN_VERIFY_EACH``, which ``tests/conftest.py`` sets for the
whole test session). A pass that breaks the IR is caught before LLVM sees the module."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ptx2gcn.cli import main
from ptx2gcn.compiler import compile
from ptx2gcn.ir.core import Module, Op
from ptx2gcn.ir.passbase import Pass
from ptx2gcn.options import CompileOptions
from ptx2gcn.passes import PASSES
from ptx2gcn.pipeline import PIPELINE, PassError

PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 k_p)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [k_p];
    mov.u32 %r1, 6;
    st.global.u32 [%rd1], %r1;
    ret;
}
"""

BROKEN_AFTER = PIPELINE[1]
"""The pipeline pass replaced by one that also breaks the IR (not the last: after the last pass
the pipeline verifies anyway, so only an earlier one tells verify-each apart)."""


def _break(module: Module) -> None:
    """A second terminator at the end of the first block (verifier: a block ends in its only terminator)."""
    module.functions[0].blocks[0].append(Op("ret"))


@pytest.fixture
def broken_pass() -> Iterator[None]:
    real = PASSES[BROKEN_AFTER]

    @dataclass(frozen=True)
    class Breaking(real):  # type: ignore[valid-type, misc]
        def run(self, module: Module) -> bool:
            changed = super().run(module)
            _break(module)
            return changed

    PASSES[BROKEN_AFTER] = Breaking
    try:
        yield
    finally:
        PASSES[BROKEN_AFTER] = real


def _notes(error: PassError) -> list[str]:
    return [d.message for d in error.diagnostics]


def test_the_test_session_verifies_after_each_pass() -> None:
    assert os.environ.get("PTX2GCN_VERIFY_EACH") == "1"
    assert CompileOptions.from_env().verify_each


@pytest.mark.usefixtures("broken_pass")
def test_compile_verifies_after_the_pipeline() -> None:
    with pytest.raises(PassError) as info:
        compile(PTX, verify_each=False)
    notes = _notes(info.value)
    assert any("invalid IR" in n for n in notes), notes
    assert notes[-1] == "the IR became invalid during the pass pipeline (--verify-each names the pass)"


@pytest.mark.usefixtures("broken_pass")
def test_compile_under_tests_names_the_pass_that_broke_the_ir() -> None:
    with pytest.raises(PassError) as info:
        compile(PTX)  # verify_each None: PTX2GCN_VERIFY_EACH=1 from tests/conftest.py
    assert _notes(info.value)[-1] == f"the IR became invalid after pass '{BROKEN_AFTER}'"


@pytest.mark.usefixtures("broken_pass")
def test_compile_command_verify_each(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "k.ptx"
    source.write_text(PTX)
    monkeypatch.delenv("PTX2GCN_VERIFY_EACH")
    assert main(["compile", str(source), "-o", str(tmp_path / "k.hsaco")]) == 1
    assert "during the pass pipeline" in capsys.readouterr().err
    assert main(["compile", str(source), "--verify-each", "-o", str(tmp_path / "k.hsaco")]) == 1
    assert f"after pass '{BROKEN_AFTER}'" in capsys.readouterr().err
    assert not (tmp_path / "k.hsaco").exists()


def test_a_sound_pipeline_passes_both_ways() -> None:
    assert compile(PTX, verify_each=False).data == compile(PTX, verify_each=True).data


def test_a_breaking_last_pass_is_caught_without_verify_each() -> None:
    @dataclass(frozen=True)
    class Breaker(Pass):
        name = "breaker"

        def run(self, module: Module) -> bool:
            _break(module)
            return True

    from ptx2gcn.frontend import parse_ptx
    from ptx2gcn.pipeline import run_passes
    from ptx2gcn.translate.builder import build_module

    PASSES["breaker"] = Breaker
    try:
        with pytest.raises(PassError):
            run_passes(build_module(parse_ptx(PTX)), CompileOptions(passes=("dce", "breaker")))
    finally:
        del PASSES["breaker"]
