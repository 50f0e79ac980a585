"""The form table machinery itself: candidate filtering by the model, peeling of rejected forms by
the compiler's located diagnostic, harness text, and the lane comparison."""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.conformance import forms as conformance_forms
from ptx2gcn.conformance import table as conformance_table
from ptx2gcn.conformance.forms import model_forms
from ptx2gcn.conformance.kernel import Instance, group_kernel, instances
from ptx2gcn.conformance.run import KNOWN, MATCH, MISMATCH, compare, summary_lines, verdict
from ptx2gcn.conformance.table import classify
from ptx2gcn.diagnostics import Ptx2GcnError, SourceFile, Span, UnsupportedError


def test_candidates_are_filtered_by_the_model() -> None:
    candidates = set(conformance_forms._candidates_for("add")) | set(conformance_forms._candidates_for("cvt"))
    spellings = {f.spelling for f in model_forms(["add", "cvt", "lop3"])}
    assert {"add.s32", "add.rn.ftz.f32", "cvt.rn.f16.f32", "cvt.rzi.s32.f64", "lop3.b32"} <= spellings
    # generated as candidates, refused by the model (PTX has no .ftz/.sat for bf16 add; f16 <-> bf16
    # needs a rounding modifier), so not forms
    refused = {"add.ftz.bf16", "add.sat.bf16x2", "cvt.bf16.f16"}
    assert refused <= candidates and not refused & spellings


def test_lop3_runs_once_per_lut() -> None:
    (form,) = model_forms(["lop3"])
    luts = [dict(inst.immediates)[3] for inst in instances(form)]
    assert luts == list(conformance_forms.LOP3_LUTS)


def test_carry_and_memory_harness_text() -> None:
    forms = {f.spelling: f for f in model_forms(["addc", "add", "atom"])}
    text = group_kernel([Instance(forms["addc.cc.u32"]), Instance(forms["atom.cas.b32"])]).ptx
    assert "add.cc.u32 %r6, %r5, 4294967295;" in text  # CC.CF := carry-in
    assert "addc.cc.u32 %d0_0, %s0_0, %s0_1;" in text
    assert "addc.u32 %r6, 0, 0;" in text  # carry-out read back
    assert "atom.global.cas.b32 %d1_0, [%rd5], %s1_1, %s1_2;" in text


def test_rejected_forms_are_peeled_by_the_blamed_line(monkeypatch: pytest.MonkeyPatch) -> None:
    forms = model_forms(["popc", "brev"])

    def fake_lower(text: str) -> None:
        source = SourceFile("<input>", text)
        for number, line in enumerate(text.splitlines(), 1):
            if line.startswith("brev.b64"):
                span = Span("<input>", number, 1, number, 9, source)
                raise UnsupportedError.feature(span, "brev.b64", "pretend")
            if line.startswith("popc.b32"):
                raise Ptx2GcnError.at(Span("<input>", number, 1, number, 9, source), "pretend invalid")

    monkeypatch.setattr(conformance_table, "_lower", fake_lower)
    table = classify(forms, build=False)
    assert sorted(f.spelling for f in table.supported) == ["brev.b32", "popc.b64"]
    assert (
        list(table.rejected) == ["brev.b64"]
        and "unsupported: brev.b64: pretend" in table.rejected["brev.b64"]
    )
    assert list(table.invalid) == ["popc.b32"]
    verdicts = {"brev.b32": verdict("brev.b32", ["lane 3 differs"], {"brev.b32": "a known bug"})}
    assert verdicts == {"brev.b32": KNOWN}
    assert summary_lines(verdicts, table) == [
        "conformance: 1 forms covered / 2 supported / 1 rejected by the compiler "
        "(0 match the model, 1 known mismatches, 0 new mismatches)",
        "conformance: known mismatches: brev.b32",
        "conformance: 1 supported forms not covered in this run: popc.b64",
    ]
    verdicts["popc.b64"] = verdict("popc.b64", ["lane 0 differs"], {})
    assert verdicts["popc.b64"] == MISMATCH and verdict("popc.b64", [], {}) == MATCH
    assert summary_lines(verdicts, table)[1:] == [
        "conformance: known mismatches: brev.b32",
        "conformance: new mismatches: popc.b64",
    ]


def test_compare_reports_a_wrong_lane_with_inputs() -> None:
    (form,) = [f for f in model_forms(["add"]) if f.spelling == "add.u32"]
    a = np.array([1, 2, 0xFFFFFFFF], dtype=np.uint32)
    b = np.array([1, 2, 1], dtype=np.uint32)
    assert compare(Instance(form), [a, b], [np.array([2, 4, 0], dtype=np.uint32)]) == []
    failures = compare(Instance(form), [a, b], [np.array([2, 5, 0], dtype=np.uint32)])
    assert (
        len(failures) == 1
        and "lane 1" in failures[0]
        and "0x2, 0x2" in failures[0]
        and "got 0x5" in failures[0]
    )
