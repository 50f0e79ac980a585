"""Every valid corpus file parses and checks clean with ptx2gcn's front end.

Valid means: produced by nvcc, Triton or numba-cuda and accepted by ptxas (regen.py checks that when it
builds them). The 100k-line benchmark file is in the slow suite.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ptx2gcn.frontend import parse_file
from ptx2gcn.frontend.check import check_module
from tests.corpus.corpus_files import CORPORA, ptx_files, valid_small_files


def parses_clean(path: Path) -> None:
    module = parse_file(path)
    problems = check_module(module)
    assert not problems, "".join(d.render() for d in problems[:5])


@pytest.mark.parametrize("path", valid_small_files(), ids=lambda p: str(p.relative_to(CORPORA)))
def test_generated_ptx_parses(path: Path) -> None:
    parses_clean(path)


@pytest.mark.slow
@pytest.mark.parametrize("path", ptx_files("large"), ids=lambda p: p.name)
def test_large_ptx_parses(path: Path) -> None:
    parses_clean(path)
