"""The builder's lowering table: deferred lowering modules are named with exactly their opcodes,
are not imported until an instruction of theirs is built, and then build it."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from ptx2gcn.translate.load import module_from_ptx
from ptx2gcn.translate.lowering import DEFERRED, LOWERINGS


@pytest.mark.parametrize("module", DEFERRED)
def test_deferred_opcodes_are_the_module_table(module: str) -> None:
    table, opcodes = DEFERRED[module]
    assert sorted(opcodes) == sorted(getattr(importlib.import_module(module), table))
    assert set(opcodes) <= set(LOWERINGS)


def test_deferred_modules_load_on_first_use() -> None:
    # A fresh interpreter: this test process may have imported them already.
    code = """
import sys
from ptx2gcn.translate.load import module_from_ptx
head = ".version 7.8\\n.target sm_80\\n.address_size 64\\n"
module_from_ptx(head + ".visible .entry k() { ret; }\\n")
print("before", "ptx2gcn.translate.matrix" in sys.modules, "ptx2gcn.translate.texture" in sys.modules)
body = ".reg .b32 %r<2>; movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r0; ret;"
module_from_ptx(head + ".visible .entry k() { " + body + " }\\n")
print("after", "ptx2gcn.translate.matrix" in sys.modules, "ptx2gcn.translate.texture" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["before False False", "after True False"], out


def test_a_deferred_lowering_builds_its_instruction() -> None:
    module = module_from_ptx(".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k() {\n"
                             ".reg .b32 %r<2>;\nmovmatrix.sync.aligned.m8n8.trans.b16 %r1, %r0;\nret;\n}\n")
    names = [op.name for op in module.functions[0].ops()]
    assert "movmatrix" in names, names
