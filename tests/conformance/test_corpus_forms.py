"""Every instruction spelling in the PTX corpus (``corpora/``) is a conformance form or is listed in
``conformance.corpus.NOT_MODELLED`` with a reason; the test prints both lists (``pytest -s``).

The corpus is read once per session with the real frontend (about 8 s of CPU for its ~290k lines).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ptx2gcn.conformance.corpus import CorpusScan, Usage, corpus_files, judge_spellings, scan
from ptx2gcn.conformance.forms import model_forms

CORPORA = Path(__file__).resolve().parents[2] / "corpora"


@pytest.fixture(scope="module")
def corpus() -> CorpusScan:
    return scan(corpus_files(CORPORA))


def test_every_corpus_spelling_is_a_form_or_explained(corpus: CorpusScan) -> None:
    verdicts = judge_spellings(corpus.spellings, [f.spelling for f in model_forms()])
    print(f"\ncorpus: {corpus.files} distinct files, {len(corpus.spellings)} instruction spellings")
    print(f"covered by conformance forms: {len(verdicts.covered)}")
    by_reason: dict[str, list[str]] = {}
    for spelling, reason in verdicts.not_modelled.items():
        by_reason.setdefault(reason, []).append(spelling)
    print(f"not modelled: {len(verdicts.not_modelled)}")
    for reason, spellings in sorted(by_reason.items()):
        print(f"  {reason}:\n    {' '.join(sorted(spellings))}")
    missing = [f"{s} ({u.count}x, first at {u.first})" for s, u in verdicts.missing.items()]
    assert not missing, "corpus spellings that are neither conformance forms nor explained:\n" + "\n".join(missing)
    assert len(verdicts.covered) > 300  # the scan found the corpus' arithmetic


def test_corpus_files_outside_invalid_parse_or_are_zluda_pass_fixtures(corpus: CorpusScan) -> None:
    """ZLUDA's pass-test fixtures use its own pseudo-instructions (``.convert_implicit``, ``.constant``
    operands): not PTX. Every other corpus file must parse, or its spellings would go unchecked."""
    stray = {f: e for f, e in corpus.unreadable.items() if "ptx__src__pass__test__" not in f and "spirv_fail" not in f}
    assert not stray, stray


def test_judging_uses_form_identity() -> None:
    forms = ["div.rn.ftz.f32", "atom.add.u32", "add.s32"]
    spellings = {s: Usage(1, "x:1") for s in ("div.ftz.rn.f32", "atom.global.gpu.relaxed.add.u32", "ld.global.u32",
                                               "atom.global.add.v4.f32", "frobnicate.b32")}
    verdicts = judge_spellings(spellings, forms)
    assert verdicts.covered == {"div.ftz.rn.f32": "div.rn.ftz.f32", "atom.global.gpu.relaxed.add.u32": "atom.add.u32"}
    assert set(verdicts.not_modelled) == {"ld.global.u32", "atom.global.add.v4.f32"}
    assert list(verdicts.missing) == ["frobnicate.b32"]
