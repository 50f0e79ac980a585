"""Run by ``test_fresh_install.py`` with the Python of a fresh virtual environment that holds only the
installed ptx2gcn wheel and its runtime dependencies, from a folder outside the checkout.

Usage: ``python fresh_install_probe.py CHECKOUT``. Checks what an installed package can get wrong that
the editable checkout hides, prints one line per problem and exits 1 if there is any; on success it
prints a JSON object: ``commands``, every command path of the ``ptx2gcn`` command line (each
subcommand, and each sub-subcommand), for the caller to run with ``--help``; ``compiler_sources``, the
names of the files the JIT cache's compiler identity hash covers (``ptx2gcn.runtime.cache.key``), for
the caller to compare with the checkout's.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import pkgutil
import sys
from pathlib import Path

TEST_ONLY = ("interegular", "pytest", "hypothesis", "filecheck", "ruff")
"""The test extra's packages: a fresh install without extras must not have them."""


def _inside(path: str, folder: Path) -> bool:
    return Path(path).resolve().is_relative_to(folder)


def _environment(checkout: Path) -> list[str]:
    import ptx2gcn

    problems = []
    if not _inside(ptx2gcn.__file__ or "", Path(sys.prefix).resolve()):
        problems.append(f"ptx2gcn imported from {ptx2gcn.__file__}, not from the environment {sys.prefix}")
    problems += [f"the checkout is on sys.path: {entry!r}" for entry in sys.path
                 if entry and _inside(entry, checkout)]
    problems += [f"test-only package {name} is installed" for name in TEST_ONLY
                 if importlib.util.find_spec(name) is not None]
    return problems


def _import_everything() -> list[str]:
    """Import every module of the installed package (lazily imported ones included)."""
    import ptx2gcn

    problems = []
    names = sorted(info.name for info in pkgutil.walk_packages(ptx2gcn.__path__, "ptx2gcn."))
    for name in names:
        if name.endswith("__main__"):
            continue
        try:
            importlib.import_module(name)
        except Exception as error:  # noqa: BLE001 - every failure is reported, the probe then fails
            problems.append(f"import {name}: {type(error).__name__}: {error}")
    problems += [f"top-level module {name!r} was imported" for name in ("passes", "grammar", "runtime")
                 if name in sys.modules]
    return problems


def _deferred_tables() -> list[str]:
    """Every module the lowering tables import on first use, and the names they must define."""
    from ptx2gcn.emit import lowerings
    from ptx2gcn.translate import lowering

    wanted = {module: (table, names) for module, (table, names) in lowering.DEFERRED.items()}
    wanted.update({module: ("LOWERINGS", names) for module, names in lowerings.DEFERRED.items()})
    problems = []
    for module, (table, names) in wanted.items():
        defined = getattr(importlib.import_module(module), table)
        problems += [f"{module}.{table} lacks {name!r}" for name in names if name not in defined]
    return problems


def _package_data() -> list[str]:
    from importlib import resources

    grammar = resources.files("ptx2gcn.grammar").joinpath("ptx.lark")
    return [] if grammar.is_file() else ["ptx2gcn.grammar/ptx.lark is not installed"]


def _site_layout() -> list[str]:
    import ptx2gcn

    site = Path(ptx2gcn.__file__ or "").resolve().parent.parent
    return [f"{site / name} exists: the package-dir mapping leaked a top-level folder"
            for name in ("passes", "grammar", "runtime") if (site / name).exists()]


def _commands() -> list[list[str]]:
    from ptx2gcn.cli import build_parser

    paths: list[list[str]] = []
    pending: list[tuple[list[str], argparse.ArgumentParser]] = [([], build_parser())]
    while pending:
        prefix, parser = pending.pop()
        for action in parser._actions:  # noqa: SLF001 - argparse keeps its subparsers only here
            if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
                for name, sub in action.choices.items():
                    paths.append([*prefix, name])
                    pending.append(([*prefix, name], sub))
    return sorted(paths)


def main() -> int:
    checkout = Path(sys.argv[1]).resolve()
    problems = _environment(checkout)
    if not problems:
        problems = _import_everything() + _deferred_tables() + _package_data() + _site_layout()
    if problems:
        print(*problems, sep="\n")
        return 1
    from ptx2gcn.runtime.cache.key import compiler_sources

    print(json.dumps({"commands": _commands(), "compiler_sources": [name for name, _ in compiler_sources()]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
