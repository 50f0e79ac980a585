"""Each file in ``corpora/invalid/`` is rejected, with the marked line blamed (conventions C5).

The marker ``// error: <substring>`` names the line and part of the message. "Rejected" means by the
front half of the compiler, ``module_from_ptx`` (parse, module checks, IR building, IR verification),
as an error, not as an unsupported feature. ptxas, where installed, is the independent witness that each
file really is invalid PTX.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ptx2gcn.diagnostics import Diagnostic, Ptx2GcnError, UnsupportedError
from ptx2gcn.ir.load import module_from_ptx
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


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_ptxas_rejects_too(path: Path) -> None:
    if PTXAS is None:
        pytest.skip("ptxas (CUDA toolkit) not installed")
    result = subprocess.run([PTXAS, "-arch=sm_80", str(path), "-o", "/dev/null"], capture_output=True, text=True,
                            cwd=CORPORA, check=False)
    assert result.returncode != 0, f"ptxas accepts {path.name}"
