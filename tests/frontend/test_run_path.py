"""The SIMPLE_INSTRUCTIONS run path builds the same AST, spans included, as the per-instruction path.

The reference is the same grammar without its ``-> simple_instructions`` alternative (so every
instruction goes through ``GUARD? OPCODE SIMPLE_OPERANDS`` or the general operand rules, one
reduction per instruction, as before runs existed), parsed by a separate builder. AST equality
ignores spans, so the comparison walks both trees and compares every node's span as well.
"""

from __future__ import annotations

import dataclasses
import importlib.resources
from collections.abc import Iterator
from pathlib import Path

import pytest
from lark import Lark

from ptx2gcn.diagnostics import SourceFile, Span
from ptx2gcn.frontend import ast, parse_ptx
from ptx2gcn.frontend.builder import AstBuilder
from tests.frontend.test_corpus import corpus_files, is_expected_failure, ptx_text

LARGE = 300_000
"""Files above this many bytes (the 104k-line file) run in the slow suite only."""


class _PerInstruction:
    """A parser for the grammar without the run alternative."""

    def __init__(self) -> None:
        text = importlib.resources.files("ptx2gcn.grammar").joinpath("ptx.lark").read_text()
        kept = [line for line in text.splitlines() if not line.rstrip().endswith("-> simple_instructions")]
        assert len(kept) == len(text.splitlines()) - 1
        self.builder = AstBuilder()
        self.parser = Lark("\n".join(kept), parser="lalr", lexer="contextual", transformer=self.builder,
                           maybe_placeholders=False)

    def parse(self, text: str, name: str) -> ast.Module:
        self.builder.reset(SourceFile(name, text))
        module = self.parser.parse(text)
        assert isinstance(module, ast.Module)
        return module


@pytest.fixture(scope="module")
def per_instruction() -> _PerInstruction:
    return _PerInstruction()


def located(node: object, path: str = "module") -> Iterator[tuple[str, object]]:
    """Every value in the tree with where it is; spans as plain tuples (their ``source`` aside)."""
    if isinstance(node, Span):
        yield path, (node.file, node.line, node.column, node.end_line, node.end_column)
    elif dataclasses.is_dataclass(node) and not isinstance(node, type):
        yield path, type(node).__name__
        for field in dataclasses.fields(node):
            yield from located(getattr(node, field.name), f"{path}.{field.name}")
    elif isinstance(node, tuple):
        yield path, len(node)
        for index, item in enumerate(node):
            yield from located(item, f"{path}[{index}]")
    else:
        yield path, repr(node)


def _files(large: bool) -> list[Path]:
    """Valid corpus files (the spirv_fail ones are PTX that must be rejected)."""
    return [p for p in corpus_files() if (p.stat().st_size > LARGE) == large and not is_expected_failure(p)]


def _check(path: Path, reference: _PerInstruction) -> None:
    text = ptx_text(path)
    expected = list(located(reference.parse(text, path.name)))
    assert list(located(parse_ptx(text, path.name))) == expected


@pytest.mark.parametrize("path", _files(large=False), ids=lambda p: p.name)
def test_runs_give_the_per_instruction_ast_and_spans(path: Path, per_instruction: _PerInstruction) -> None:
    _check(path, per_instruction)


@pytest.mark.slow
@pytest.mark.parametrize("path", _files(large=True), ids=lambda p: p.name)
def test_runs_give_the_per_instruction_ast_and_spans_large(path: Path, per_instruction: _PerInstruction) -> None:
    _check(path, per_instruction)
