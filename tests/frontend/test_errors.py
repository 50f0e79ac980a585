"""Negative tests: bad PTX must be reported at the blamed line with the right message.

Each file in ``corpora/invalid`` and ``tests/frontend/errors`` marks the line that must be blamed
with ``// error: <substring>`` (conventions C5). The test parses the file (and, when it parses,
runs the checker) and requires a diagnostic on every marked line containing its substring, and no
diagnostic on an unmarked line. ``corpora/invalid`` also holds instruction-semantics mistakes that
only the IR verifier sees; for those the front end must accept the file.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ptx2gcn.diagnostics import EXCERPT_WIDTH, Diagnostic, Ptx2GcnError
from ptx2gcn.frontend import parse_ptx
from ptx2gcn.frontend.check import check_module

REPO_ROOT = Path(__file__).resolve().parents[2]
CORPUS_INVALID = sorted((REPO_ROOT / "corpora" / "invalid").glob("*.ptx"))
OWN = sorted((Path(__file__).resolve().parent / "errors").glob("*.ptx"))
FILES = CORPUS_INVALID + OWN
MARKER = re.compile(r"//\s*error:\s*(.*?)\s*$")


def expected_errors(text: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        match = MARKER.search(line)
        if match:
            out[number] = match.group(1)
    return out


def diagnostics_for(text: str, name: str) -> list[Diagnostic]:
    try:
        module = parse_ptx(text, name)
    except Ptx2GcnError as error:
        return list(error.diagnostics)
    return check_module(module)


def test_there_are_negative_tests() -> None:
    assert len(OWN) >= 25


def test_front_end_rejects_the_syntax_and_module_mistakes_of_the_corpus() -> None:
    """corpora/invalid mixes syntax/module mistakes (the front end's job) with instruction
    semantics (the IR verifier's); at least the former must be caught here."""
    caught = [p for p in CORPUS_INVALID if diagnostics_for(p.read_text(), str(p))]
    assert len(caught) >= 13 or len(caught) == len(CORPUS_INVALID), [p.name for p in caught]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_error_is_located_and_worded(path: Path) -> None:
    text = path.read_text()
    expected = expected_errors(text)
    assert expected, f"{path.name} has no '// error:' marker"
    diagnostics = diagnostics_for(text, str(path))
    if not diagnostics and path in CORPUS_INVALID:
        # An instruction-semantics mistake: well-formed PTX for the front end, which must then
        # produce a module (the IR verifier owns the error; tests/corpus checks it there).
        assert parse_ptx(text, str(path)).functions
        return
    rendered = "".join(d.render() for d in diagnostics)
    by_line: dict[int, list[str]] = {}
    for diagnostic in diagnostics:
        assert diagnostic.span is not None, rendered
        assert diagnostic.span.file == str(path)
        by_line.setdefault(diagnostic.span.line, []).append(diagnostic.message)
    for line, substring in expected.items():
        messages = by_line.get(line, [])
        assert any(substring in m for m in messages), f"line {line}: want '{substring}', got:\n{rendered}"
    unexpected = set(by_line) - set(expected)
    assert not unexpected, f"diagnostics on unmarked lines {sorted(unexpected)}:\n{rendered}"


@pytest.mark.parametrize("path", OWN, ids=lambda p: p.name)
def test_rendering_has_caret_under_the_blamed_column(path: Path) -> None:
    diagnostic = diagnostics_for(path.read_text(), str(path))[0]
    rendered = diagnostic.render().splitlines()
    span = diagnostic.span
    assert span is not None
    assert rendered[0].startswith(f"{path}:{span.line}:{span.column}: error: ")
    if span.source is None:  # binary input: deliberately no excerpt
        assert len(rendered) == 1 and "binary" in rendered[0]
        return
    source_line, caret_line = rendered[1], rendered[2]
    original = path.read_text().splitlines()[span.line - 1].rstrip("\r")
    if len(original) <= EXCERPT_WIDTH:
        assert source_line == original
        assert caret_line.index("^") == span.column - 1
    else:  # a long line is shown as a window: the caret still sits under the blamed character
        assert source_line.strip(".") in original
        assert source_line[caret_line.index("^")] == original[span.column - 1]
