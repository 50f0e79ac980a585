"""The grammar loads in strict mode by package name, and grammar rules and builder callbacks match."""

from __future__ import annotations

from lark import Lark

from ptx2gcn.frontend.builder import AstBuilder, callback_names
from ptx2gcn.frontend.parse import grammar_parser


def _rule_names(parser: Lark) -> set[str]:
    names = set()
    for rule in parser.rules:
        name = rule.alias or rule.origin.name
        if not str(name).startswith("_"):
            names.add(str(name))
    return names


def test_grammar_loads_strict_lalr_from_the_package() -> None:
    parser = grammar_parser()
    assert parser.options.parser == "lalr" and parser.options.strict
    assert parser is grammar_parser()  # built once


def test_every_rule_has_a_builder_callback_and_vice_versa() -> None:
    rules = _rule_names(grammar_parser())
    # `?rule`s that only ever inline a single child need no callback of their own.
    inlined = {"operand", "vector_element", "bracket_item", "initializer", "section_value", "const_expr",
               "or_expr", "xor_expr", "and_expr", "shift_expr", "add_expr", "mul_expr", "unary_expr",
               "atom_expr", "operand_expr", "operand_xor", "operand_and", "operand_shift", "operand_add",
               "operand_mul", "operand_unary", "operand_atom"}
    assert rules - inlined <= set(callback_names()), rules - inlined - set(callback_names())
    assert set(callback_names()) <= rules, set(callback_names()) - rules
    assert all(callable(getattr(AstBuilder, name)) for name in callback_names())
