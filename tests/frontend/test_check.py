"""Checker behaviour that the one-error-per-marker files in errors/ cannot express: clean cases."""

from __future__ import annotations

from ptx2gcn.diagnostics import Severity
from ptx2gcn.frontend import parse_ptx
from ptx2gcn.frontend.check import check_module


def test_pre_abi_targets_allow_module_scope_registers() -> None:
    assert check_module(parse_ptx(".version 1.4\n.target sm_13\n.reg .u32 r;\n.local .u32 l;\n")) == []


def test_shadowing_in_nested_scopes_and_forward_labels_are_fine() -> None:
    text = (".version 8.5\n.target sm_90\n.entry k()\n{\n\t.reg .b32 %r<2>;\n\tbra $L1;\n"
            "\t{\n\t\t.reg .b32 %r<2>;\n\t\tmov.b32 %r1, 0;\n\t}\n$L1:\n\tret;\n}\n")
    assert check_module(parse_ptx(text)) == []


def test_a_prototype_makes_a_later_definition_callable() -> None:
    text = (".version 8.5\n.target sm_90\n.func f();\n.entry k()\n{\n\tcall f;\n\tret;\n}\n"
            ".func f()\n{\n\tret;\n}\n")
    assert check_module(parse_ptx(text)) == []


def test_extern_variables_may_be_defined_later() -> None:
    text = ".version 8.5\n.target sm_90\n.extern .global .u32 g;\n.visible .global .u32 g = 1;\n"
    assert check_module(parse_ptx(text)) == []


def test_loc_without_file_is_only_a_warning() -> None:
    text = ".version 8.5\n.target sm_90\n.entry k()\n{\n\t.loc 2 1 1\n\tret;\n}\n"
    diagnostics = check_module(parse_ptx(text))
    assert [(d.severity, d.span.line if d.span else 0) for d in diagnostics] == [(Severity.WARNING, 5)]
