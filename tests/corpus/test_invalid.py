"""Each file in ``corpora/invalid/`` is rejected, with the marked line blamed (conventions C5).

The marker ``// error: <substring>`` names the line and part of the message. "Rejected" means by the
front half of the compiler, ``module_from_ptx`` (parse, module checks, IR building, IR verification),
as an error, not as an unsupported feature. ptxas, where installed, is the independent witness that each
file really is invalid PTX.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ptx2gcn.diagnostics import Diagnostic, Ptx2GcnError, UnsupportedError
from ptx2gcn.translate.load import module_from_ptx
from tests.corpus.corpus_files import CORPORA, marked_error, ptx_files

INVALID = ptx_files("invalid")
PTXAS = shutil.which("ptxas") or shutil.which("/usr/local/cuda/bin/ptxas")


def first_diagnostic(path: Path) -> Diagnostic | None:
    try:
        module_from_ptx(path.read_text(), str(path))
    except UnsupportedError as error:
        raise AssertionError(f"invalid PTX reported as unsupported:\n{error}") from None
    except Ptx2GcnError as error:
        return error.diagnostics[0]
    return None


def test_there_are_invalid_files() -> None:
    assert len(INVALID) >= 10


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_rejected_at_marked_line(path: Path) -> None:
    line, substring = marked_error(path)
    diagnostic = first_diagnostic(path)
    assert diagnostic is not None, f"{path.name} was accepted"
    assert diagnostic.span is not None and diagnostic.span.line == line, diagnostic.render()
    assert substring in diagnostic.message, diagnostic.render()
    rendered = diagnostic.render()
    assert rendered.startswith(f"{path}:{line}:"), rendered
    assert "^" in rendered, "no caret under the source line"


def ptxas_arch(text: str) -> str:
    """The file's own ``.target`` (so ptxas judges the file, not an architecture mismatch); sm_75,
    the oldest architecture ptxas 13.0 compiles for, for older targets."""
    match = re.search(r"^\s*\.target\s+(sm_(\d+)[af]?)", text, re.MULTILINE)
    if match is None or int(match.group(2)) < 75:
        return "sm_75"
    return match.group(1)


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_ptxas_rejects_too(path: Path) -> None:
    """ptxas refuses the file, blaming the same line (or, for a syntax error that ends the file,
    some line: ptxas reports those at its end)."""
    if PTXAS is None:
        pytest.skip("ptxas (CUDA toolkit) not installed")
    arch = ptxas_arch(path.read_text())
    result = subprocess.run([PTXAS, f"-arch={arch}", str(path), "-o", "/dev/null"], capture_output=True,
                            text=True, cwd=CORPORA, check=False)
    assert result.returncode != 0, f"ptxas accepts {path.name}"
    line, _ = marked_error(path)
    if path.name not in PTXAS_BLAMES_ELSEWHERE:
        assert f"line {line};" in result.stderr, f"ptxas blames another line:\n{result.stderr}"


# Files where ptxas reports the problem at a different line than ptx2gcn, which blames the cause:
# the second definition / the parameter / the line missing a token; ptxas the next token's line or
# the first directive.
PTXAS_BLAMES_ELSEWHERE = frozenset({
    "duplicate_function.ptx", "entry_param_unsized_array.ptx", "missing_close_brace.ptx",
    "missing_semicolon.ptx", "missing_version.ptx",
})
