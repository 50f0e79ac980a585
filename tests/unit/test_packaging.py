"""Packaging invariants from conventions §2: explicit package list, no top-level twins."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
import tomllib
from pathlib import Path

import ptx2gcn

ROOT = Path(__file__).resolve().parents[2]
MAPPING = {"ptx2gcn.grammar": "grammar", "ptx2gcn.passes": "passes", "ptx2gcn.runtime": "runtime"}


def _declared_packages() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return set(config["tool"]["setuptools"]["packages"])


def _package_folders() -> set[str]:
    found: set[str] = set()
    for init in ROOT.glob("ptx2gcn/**/__init__.py"):
        found.add(".".join(init.parent.relative_to(ROOT).parts))
    for package, folder in MAPPING.items():
        for init in (ROOT / folder).glob("**/__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((package, *rel)))
    return found


def test_declared_packages_match_folders() -> None:
    assert _declared_packages() == _package_folders()


def test_no_top_level_twins_after_importing_everything() -> None:
    for package in sorted(_declared_packages()):
        importlib.import_module(package)
    for info in pkgutil.walk_packages(ptx2gcn.__path__, "ptx2gcn."):
        if info.name.endswith("__main__"):
            continue
        importlib.import_module(info.name)
    for name in ("passes", "grammar", "runtime"):
        assert name not in sys.modules, f"top-level module {name!r} was imported"


def test_ptx2gcn_has_no_same_named_folders() -> None:
    for folder in MAPPING.values():
        assert not (ROOT / "ptx2gcn" / folder).exists()


def test_cli_version() -> None:
    result = subprocess.run([sys.executable, "-m", "ptx2gcn", "--version"], capture_output=True, text=True)
    assert result.returncode == 0
    assert result.stdout.strip() == f"ptx2gcn {ptx2gcn.__version__}"
