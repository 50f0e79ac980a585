"""Every corpus file compiles for gfx942 or gives exactly the located diagnostic pinned for it.

``corpus_outcomes.json`` (written by ``corpus_outcomes.py --write``, reviewed in its diff) pins each
file's outcome: ``compiles``, or the first line of the located ``unsupported:`` (or, for ZLUDA
inputs that are not valid PTX, front-end) error it must give. A file that stops compiling, starts
compiling, or changes its message fails with a per-file diff and the command that regenerates the
table. The default run takes every fifth file; ``-m slow`` takes all of them and the 100k-line file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ptx2gcn.emit.module import emit_llvm
from ptx2gcn.translate.load import read_text
from tests.codegen.corpus_outcomes import (
    COMPILES,
    LOCATED,
    corpus_files,
    differences,
    is_large,
    key,
    load_table,
    survey,
)

FILES = corpus_files()
SMALL = [p for p in FILES if not is_large(p)]
REGENERATE = ".venv/bin/python tests/codegen/corpus_outcomes.py --write"


def _check(files: list[Path]) -> None:
    table = load_table()
    outcomes, broken = survey(files)
    assert not broken, "compilations that end in neither a code object nor a located diagnostic:\n" + \
        "\n".join(broken)
    changed = differences({key(p): table[key(p)] for p in files}, outcomes)
    assert not changed, (f"{len(changed)} corpus outcomes changed (review, then regenerate the table with "
                         f"`{REGENERATE}`):\n" + "\n".join(changed))


def test_table_covers_exactly_the_corpus() -> None:
    table = load_table()
    assert sorted(table) == sorted(key(p) for p in FILES), f"corpus files added or removed: `{REGENERATE}`"
    assert all(v == COMPILES or LOCATED.match(v) for v in table.values())
    assert sum(v == COMPILES for v in table.values()) > 0.75 * len(table)


def test_corpus_sample() -> None:
    _check(SMALL[::5])


@pytest.mark.slow
def test_whole_corpus() -> None:
    _check(SMALL)


@pytest.mark.slow
def test_large_file() -> None:
    (large,) = [p for p in FILES if is_large(p)]
    _check([large])


def test_emitted_llvm_ir_of_a_sample_verifies() -> None:
    """LLVM's verifier accepts the unoptimised IR of every sample file that reaches code generation."""
    from ptx2gcn.compiler import to_ir
    from ptx2gcn.emit.target import parse_verified
    from ptx2gcn.options import CompileOptions

    table = load_table()
    sample = [p for p in SMALL[::9] if table[key(p)] == COMPILES]
    assert sample
    for path in sample:
        parse_verified(emit_llvm(to_ir(read_text(str(path)), str(path))), CompileOptions())
