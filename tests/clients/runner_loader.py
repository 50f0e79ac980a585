"""Loads a client-suite runner script (``benchmarks/clients/*.py``, not a package) as a module, so
that the unit tests of ``tests/clients`` can call its parsing functions."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_runner(path: Path) -> ModuleType:
    """The script at ``path`` imported as the module named after its file (registered in
    ``sys.modules``: its dataclasses need it)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module
