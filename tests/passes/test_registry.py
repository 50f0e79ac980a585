"""Every module in passes/ defines one registered Pass with a kebab-case name and a contract."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import ptx2gcn.passes
from ptx2gcn.ir.passbase import Pass
from ptx2gcn.passes import PASSES


def _pass_modules() -> list[str]:
    return [m.name for m in pkgutil.iter_modules(ptx2gcn.passes.__path__)]


def test_every_pass_module_is_registered() -> None:
    registered = {cls.__module__ for cls in PASSES.values()}
    for name in _pass_modules():
        module = importlib.import_module(f"ptx2gcn.passes.{name}")
        classes = [c for _, c in inspect.getmembers(module, inspect.isclass)
                   if issubclass(c, Pass) and c is not Pass and c.__module__ == module.__name__]
        assert len(classes) == 1, f"{name} must define exactly one Pass, has {classes}"
        assert module.__name__ in registered, f"{name} is not in ptx2gcn.passes.PASSES"


def test_names_and_contracts() -> None:
    for name, cls in PASSES.items():
        assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", name), name
        module_file = cls.__module__.rsplit(".", 1)[1]
        assert module_file == name.replace("-", "_"), f"{name} lives in {module_file}.py"
        doc = inspect.getmodule(cls).__doc__ or ""  # type: ignore[union-attr]
        for part in ("Requires:", "Ensures:", "Not handled"):
            assert part in doc, f"{name}: module docstring lacks '{part}'"
