"""The grammar loads by package name and passes Lark's strict check; grammar rules and builder callbacks match."""

from __future__ import annotations

from pathlib import Path

import pytest
from lark import Lark

from ptx2gcn.frontend.builder import AstBuilder, callback_names
from ptx2gcn.frontend.parse import (  # pyright: ignore[reportPrivateUsage]
    _grammar_cache,
    build_parser,
    cached_parser,
    grammar_parser,
    grammar_text,
    parse_ptx,
)
from ptx2gcn.frontend.printer import print_module


def _rule_names(parser: Lark) -> set[str]:
    names = set()
    for rule in parser.rules:
        name = rule.alias or rule.origin.name
        if not str(name).startswith("_"):
            names.add(str(name))
    return names


def test_grammar_loads_lalr_from_the_package_without_strict_mode() -> None:
    # Strict mode needs interegular, a test-only dependency: the shipped parser must not ask for it.
    parser = grammar_parser()
    assert parser.options.parser == "lalr" and not parser.options.strict
    assert parser is grammar_parser()  # built once


def test_grammar_passes_larks_strict_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """No shift/reduce conflict and no colliding terminals (what strict mode rejects, using the test
    extra's interegular), so the non-strict shipped parser resolves nothing silently; both parse a
    corpus file into the same AST."""
    import ptx2gcn.frontend.parse as parse_module

    strict = build_parser(grammar_text(), strict=True, cache=False)
    assert strict.options.strict
    sample = sorted((Path(__file__).resolve().parents[2] / "corpora" / "nvcc").rglob("*.ptx"))[0]
    text = sample.read_text()
    shipped = print_module(parse_ptx(text, sample.name))
    monkeypatch.setattr(parse_module, "_PARSER", strict)
    assert print_module(parse_ptx(text, sample.name)) == shipped


def test_every_rule_has_a_builder_callback_and_vice_versa() -> None:
    rules = _rule_names(grammar_parser())
    # `?rule`s that only ever inline a single child need no callback of their own.
    inlined = {"operand", "vector_element", "bracket_item", "initializer", "section_value", "const_expr",
               "or_expr", "xor_expr", "and_expr", "shift_expr", "add_expr", "mul_expr", "unary_expr",
               "atom_expr", "operand_expr", "operand_xor", "operand_and", "operand_shift", "operand_add",
               "operand_mul", "operand_unary", "operand_atom"}
    assert rules - inlined <= set(callback_names()), rules - inlined - set(callback_names())
    assert set(callback_names()) <= rules, set(callback_names()) - rules
    assert all(callable(getattr(AstBuilder, name)) for name in callback_names())


def test_grammar_cache_file_is_per_user_and_per_grammar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Two installations with different grammars must not share (and keep rebuilding) one file.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first, second = _grammar_cache("start: A\nA: \"a\"\n"), _grammar_cache("start: B\nB: \"b\"\n")
    assert isinstance(first, str) and isinstance(second, str) and first != second
    assert Path(first).parent == tmp_path / "ptx2gcn" == Path(second).parent
    assert (tmp_path / "ptx2gcn").stat().st_mode & 0o777 == 0o700
    assert _grammar_cache("start: A\nA: \"a\"\n") == first


_TINY = 'start: A+\nA: "a"\n'
"""A grammar that builds in milliseconds (the cache logic does not depend on the grammar)."""


def test_grammar_cache_is_built_once_then_read(tmp_path: Path) -> None:
    cache = tmp_path / "g.lark-cache"
    built = cached_parser(_TINY, str(cache))
    assert built.source_path != "<deserialized>" and cache.is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.lark-cache"]  # no temporary file left
    stored = cache.stat()
    read = cached_parser(_TINY, str(cache))
    assert read.source_path == "<deserialized>"  # Lark's marker for a parser read from a file
    assert (cache.stat().st_ino, cache.stat().st_mtime_ns) == (stored.st_ino, stored.st_mtime_ns)  # not rewritten
    assert repr(read.parse("aa")) == repr(built.parse("aa"))


@pytest.mark.parametrize("damage", [lambda b: b[: len(b) // 2], lambda b: b"", lambda b: b"garbage\n" + b[8:]])
def test_a_damaged_grammar_cache_is_rebuilt_and_replaced_atomically(tmp_path: Path, damage) -> None:  # noqa: ANN001
    """A truncated, empty or foreign file costs a build, not a wrong parser or an error; the fresh file
    is a new one renamed over the damaged one (a concurrent reader never sees it half-written)."""
    cache = tmp_path / "g.lark-cache"
    expected = repr(cached_parser(_TINY, str(cache)).parse("aaa"))
    cache.write_bytes(damage(cache.read_bytes()))
    damaged = cache.stat().st_ino
    rebuilt = cached_parser(_TINY, str(cache))
    assert rebuilt.source_path != "<deserialized>" and repr(rebuilt.parse("aaa")) == expected
    assert cache.stat().st_ino != damaged  # replaced by rename, not rewritten in place
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.lark-cache"]
    assert cached_parser(_TINY, str(cache)).source_path == "<deserialized>"


def test_no_grammar_cache_folder_still_gives_a_parser(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder" / "g.lark-cache"
    assert repr(cached_parser(_TINY, str(missing)).parse("a")) == repr(cached_parser(_TINY, False).parse("a"))
    assert not missing.parent.exists()


def test_a_second_process_reads_the_stored_parser(tmp_path: Path) -> None:
    """The file one process stores is read by the next (not rebuilt: the stored key must not depend
    on anything private to the writing process)."""
    import subprocess
    import sys

    cache = tmp_path / "g.lark-cache"
    code = ("import sys; from ptx2gcn.frontend.parse import cached_parser; "
            "print(cached_parser(sys.argv[1], sys.argv[2]).source_path)")
    runs = [subprocess.run([sys.executable, "-c", code, _TINY, str(cache)], capture_output=True, text=True,
                           check=True).stdout.strip() for _ in range(2)]
    assert runs[0] != "<deserialized>" and runs[1] == "<deserialized>"


def test_the_stored_ptx_parser_parses_as_a_built_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped grammar's tables read back from the file (with this process's builder and lexer
    callbacks) give the AST a freshly built parser gives."""
    import ptx2gcn.frontend.parse as parse_module

    cache = str(tmp_path / "ptx.lark-cache")
    built = cached_parser(grammar_text(), cache)
    read = cached_parser(grammar_text(), cache)
    assert built.source_path != "<deserialized>" and read.source_path == "<deserialized>"
    sample = sorted((Path(__file__).resolve().parents[2] / "corpora" / "triton").rglob("*.ptx"))[0]
    text = sample.read_text()
    printed = []
    for parser in (built, read):
        monkeypatch.setattr(parse_module, "_PARSER", parser)
        printed.append(print_module(parse_ptx(text, sample.name)))
    assert printed[0] == printed[1]
