"""``Span`` is an immutable record that behaves as the frozen dataclass it replaced: position-only
equality and hash (its ``source`` aside), the same repr, no assignment, no ordering, pickling."""

from __future__ import annotations

import copy
import pickle
from dataclasses import FrozenInstanceError

import pytest

from ptx2gcn.diagnostics import Diagnostic, Ptx2GcnError, Severity, SourceFile, Span

SOURCE = SourceFile("k.ptx", ".version 8.0\n\tadd.s32 %r1, %r2;\n")


def test_fields_and_defaults() -> None:
    span = Span("k.ptx", 2, 14)
    assert (span.file, span.line, span.column, span.end_line, span.end_column, span.source) == (
        "k.ptx", 2, 14, 0, 0, None)
    named = Span(file="k.ptx", line=2, column=14, end_line=2, end_column=18, source=SOURCE)
    assert (named.end_line, named.end_column, named.source) == (2, 18, SOURCE)


def test_equality_and_hash_ignore_the_source() -> None:
    with_text = Span("k.ptx", 2, 14, 2, 18, SOURCE)
    without = Span("k.ptx", 2, 14, 2, 18, None)
    other_text = Span("k.ptx", 2, 14, 2, 18, SourceFile("k.ptx", "other"))
    assert with_text == without == other_text
    assert hash(with_text) == hash(without) == hash(("k.ptx", 2, 14, 2, 18))
    assert len({with_text, without, other_text}) == 1


@pytest.mark.parametrize("changed", [Span("j.ptx", 2, 14, 2, 18), Span("k.ptx", 3, 14, 2, 18),
                                     Span("k.ptx", 2, 15, 2, 18), Span("k.ptx", 2, 14, 3, 18),
                                     Span("k.ptx", 2, 14, 2, 19)])
def test_every_position_field_counts(changed: Span) -> None:
    assert Span("k.ptx", 2, 14, 2, 18) != changed


def test_a_span_is_not_a_tuple() -> None:
    span = Span("k.ptx", 2, 14, 2, 18)
    assert span != ("k.ptx", 2, 14, 2, 18) and span != ("k.ptx", 2, 14, 2, 18, None)
    assert not isinstance(span, tuple)
    with pytest.raises(TypeError):
        _ = span < Span("k.ptx", 3, 1)  # type: ignore[operator]


def test_repr_shows_the_position_only() -> None:
    assert repr(Span("k.ptx", 2, 14, 2, 18, SOURCE)) == (
        "Span(file='k.ptx', line=2, column=14, end_line=2, end_column=18)")
    assert str(Span("k.ptx", 2, 14, 2, 18, SOURCE)) == "k.ptx:2:14"


def test_fields_cannot_be_assigned_or_deleted() -> None:
    span = Span("k.ptx", 2, 14, 2, 18, SOURCE)
    with pytest.raises(FrozenInstanceError):
        span.line = 3  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del span.source  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):  # (the dataclass raised an internal TypeError here)
        span.extra = 1  # type: ignore[attr-defined]
    assert (span.line, span.source) == (2, SOURCE)


def test_pickle_and_copy_keep_position_and_source() -> None:
    span = Span("k.ptx", 2, 14, 2, 18, SOURCE)
    for clone in (pickle.loads(pickle.dumps(span)), copy.copy(span), copy.deepcopy(span)):
        assert clone == span and clone.source is not None and clone.source.text == SOURCE.text
    assert copy.copy(span).source is SOURCE


def test_an_error_with_a_span_survives_pickling_and_renders_the_same() -> None:
    error = Ptx2GcnError(Diagnostic(Severity.ERROR, Span("k.ptx", 2, 14, 2, 18, SOURCE), "expected 3 operands"))
    again = pickle.loads(pickle.dumps(error))
    assert again.render() == error.render() == (
        "k.ptx:2:14: error: expected 3 operands\n\tadd.s32 %r1, %r2;\n\t            ^~~~\n")


def test_match_by_position() -> None:
    match Span("k.ptx", 2, 14, 2, 18):
        case Span(file, line, column):
            assert (file, line, column) == ("k.ptx", 2, 14)
        case _:
            pytest.fail("no match")
