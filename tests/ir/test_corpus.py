"""Every corpus PTX file builds into verified IR, round-trips as text, and survives the pipeline.

For each ``corpora/**/*.ptx`` (except ``corpora/regressions/`` and ``corpora/invalid/``; the shared
ZLUDA files when ``corpora/zluda`` is absent): build the IR, verify it, check
``print(parse(print(m))) == print(m)``; then run
every pass of the default pipeline, verifying and round-tripping after each (a checking pass may
stop a file with a located diagnostic). The builder never stops with ``unsupported``: every
instruction form in the corpus has IR ops (code generation may still refuse some). The front end may
reject only the ZLUDA files that ptxas 13.0 rejects too (``corpora/zluda/ptxas-13.0-rejected.tsv``);
those are skipped, and their diagnostics are the front end's tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ptx2gcn.diagnostics import Ptx2GcnError, Severity, UnsupportedError
from ptx2gcn.frontend import parse_ptx
from ptx2gcn.frontend.check import check_module
from ptx2gcn.ir.parser import parse_module
from ptx2gcn.ir.printer import print_module
from ptx2gcn.ir.verify import verify
from ptx2gcn.passes import PASSES
from ptx2gcn.pipeline import PIPELINE
from ptx2gcn.translate.builder import build_module
from ptx2gcn.translate.load import module_from_ptx

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(p for p in (ROOT / "corpora").glob("**/*.ptx")
               if "regressions" not in p.parts and "invalid" not in p.parts)
INVALID = sorted((ROOT / "corpora" / "invalid").glob("*.ptx"))
if not (ROOT / "corpora" / "zluda").is_dir():
    FILES += sorted((ROOT.parent / "shared" / "corpora" / "zluda-ptx-tests").glob("*.ptx"))
SLOW_BYTES = 1_000_000
PTXAS_REJECTED = ROOT / "corpora" / "zluda" / "ptxas-13.0-rejected.tsv"


def _ptxas_rejected() -> frozenset[str]:
    """Names of the corpus files ptxas 13.0 rejects (first column of the table, comments skipped)."""
    if not PTXAS_REJECTED.is_file():
        return frozenset()
    lines = PTXAS_REJECTED.read_text().splitlines()
    return frozenset(line.split("\t")[0] for line in lines if line and not line.startswith("#"))


REJECTED = _ptxas_rejected()


def _id(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return f"shared/{path.name}"


def _params() -> list[object]:
    return [pytest.param(p, id=_id(p), marks=[pytest.mark.slow] if p.stat().st_size > SLOW_BYTES else [])
            for p in FILES]


def _roundtrip(module_text: str, where: str) -> None:
    again = print_module(parse_module(module_text, "roundtrip.ir"))
    assert again == module_text, f"IR text does not round-trip {where}"


@pytest.mark.parametrize("path", _params())
def test_build_roundtrip_pipeline(path: Path) -> None:
    text = path.read_text(errors="replace")
    try:
        tree = parse_ptx(text, str(path))
        problems = [d for d in check_module(tree) if d.severity is Severity.ERROR]
    except Ptx2GcnError as error:
        problems = list(error.diagnostics)
    if problems:
        known = path.name in REJECTED or not PTXAS_REJECTED.is_file()
        assert known, f"valid PTX rejected by the front end:\n{problems[0].render()}"
        pytest.skip("rejected by the front end, as by ptxas")
    try:
        module = build_module(tree)
    except UnsupportedError as error:
        pytest.fail(f"the builder must hold every corpus instruction in IR:\n{error.render()}")
    except Ptx2GcnError as error:
        assert path.name in REJECTED, f"valid PTX rejected by the IR builder:\n{error.render()}"
        assert error.span is not None and error.span.line > 0, error.render()
        pytest.skip("rejected by the IR builder, as by ptxas")
    verify(module)
    _roundtrip(print_module(module), "after building")
    for name in PIPELINE:
        try:
            PASSES[name]().run(module)
        except Ptx2GcnError as error:
            # A checking pass may reject a program on purpose (e.g. a barrier the chosen mode cannot
            # run); that must be a located diagnostic. Invalid IR is caught by verify() below.
            assert error.span is not None and error.span.line > 0, error.render()
            return
        verify(module)
        _roundtrip(print_module(module), f"after {name}")


def test_corpus_present() -> None:
    assert len(FILES) > 100, "the corpus should be checked out"


def test_ptxas_rejection_table_present() -> None:
    assert not (ROOT / "corpora" / "zluda").is_dir() or len(REJECTED) > 10


@pytest.mark.parametrize("path", INVALID, ids=[p.name for p in INVALID])
def test_invalid_inputs_blame_the_marked_line(path: Path) -> None:
    """``corpora/invalid`` files carry ``// error: ...`` on the line that must be blamed."""
    lines = path.read_text().splitlines()
    blamed = [i + 1 for i, line in enumerate(lines) if "// error:" in line]
    assert blamed, f"{path} has no '// error:' marker"
    with pytest.raises(Ptx2GcnError) as caught:
        module_from_ptx("\n".join(lines) + "\n", str(path))
    span = caught.value.span
    assert span is not None and span.line in blamed, caught.value.render()
    assert caught.value.render().startswith(f"{path}:{span.line}:")
