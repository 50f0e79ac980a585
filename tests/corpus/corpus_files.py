"""Where the corpus files are, by collection, for the tests in this folder.

Invariant: every function returns sorted paths under ``corpora/`` and never looks into the folders
owned by others (``corpora/regressions/``, ``corpora/golden/``).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

CORPORA = Path(__file__).resolve().parents[2] / "corpora"
SHARED_ZLUDA = CORPORA.parent.parent / "shared" / "corpora" / "zluda-ptx-tests"

GENERATED = ("nvcc", "triton", "numba")
"""Collections of generated, valid PTX (small files)."""


def ptx_files(collection: str) -> list[Path]:
    return sorted((CORPORA / collection).rglob("*.ptx"))


def valid_small_files() -> list[Path]:
    return [p for c in GENERATED for p in ptx_files(c)]


def load_regen() -> ModuleType:
    """``corpora/regen.py`` as a module (it is a script, not part of the package)."""
    name = "ptx2gcn_corpus_regen"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, CORPORA / "regen.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def marked_error(path: Path) -> tuple[int, str]:
    """The 1-based line of the single ``// error: <substring>`` marker in ``path``, and the substring."""
    marks = [(n, line.split("// error:", 1)[1].strip())
             for n, line in enumerate(path.read_text().splitlines(), start=1) if "// error:" in line]
    assert len(marks) == 1, f"{path}: want exactly one '// error:' marker, found {len(marks)}"
    return marks[0]
