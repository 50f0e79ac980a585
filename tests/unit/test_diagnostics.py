"""Rendering of located diagnostics: position, source line, caret, long-line windows."""

from __future__ import annotations

from ptx2gcn.diagnostics import EXCERPT_WIDTH, Ptx2GcnError, SourceFile, Span, UnsupportedError


def test_error_renders_location_line_and_caret() -> None:
    source = SourceFile("k.ptx", ".version 8.0\n\tadd.s32 %r1, %r2;\n")
    error = Ptx2GcnError.at(Span("k.ptx", 2, 14, 2, 18, source), "expected 3 operands")
    assert error.render() == "k.ptx:2:14: error: expected 3 operands\n\tadd.s32 %r1, %r2;\n\t            ^~~~\n"


def test_unsupported_message_shape() -> None:
    error = UnsupportedError.feature(Span("k.ptx", 3, 1), "tex.2d", "textures are not supported")
    assert str(error) == "k.ptx:3:1: error: unsupported: tex.2d: textures are not supported"


def test_long_line_is_windowed_around_the_span() -> None:
    line = "a" * 50_000 + "BAD" + "b" * 50_000
    source = SourceFile("big.ptx", line + "\n")
    column = 50_001
    rendered = Ptx2GcnError.at(Span("big.ptx", 1, column, 1, column + 3, source), "here").render()
    shown, caret = rendered.splitlines()[1:3]
    assert len(shown) <= EXCERPT_WIDTH + 6
    assert shown.startswith("...") and shown.endswith("...")
    position = caret.index("^")
    assert shown[position:position + 3] == "BAD"
    assert caret.strip() == "^~~"


def test_span_without_source_renders_position_only() -> None:
    assert Ptx2GcnError.at(Span("x.ptx", 4, 2), "oops").render() == "x.ptx:4:2: error: oops\n"
