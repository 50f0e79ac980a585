"""The parser builds the AST the PTX ISA describes: expected nodes are written out by hand here.

Values of immediates are computed by hand from their spelling (e.g. ``017`` is octal 15,
``0f3F800000`` is the IEEE-754 single 1.0); spans are counted by hand from the source text.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lark.exceptions import UnexpectedInput

from ptx2gcn.diagnostics import Ptx2GcnError, Span
from ptx2gcn.frontend import ast, parse_ptx
from ptx2gcn.frontend.parse import grammar_parser

HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"
S = Span("t", 0, 0)  # spans do not take part in equality


def kernel(*lines: str) -> str:
    decls = ["\t.reg .b32 %r<4>;", "\t.reg .pred %p<2>;", "\t.reg .b64 %rd<4>;", "\t.reg .f32 %f<2>;"]
    return HEADER + ".visible .entry k(.param .u64 k_p)\n{\n" + "\n".join(decls + list(lines)) + "\n}\n"


def body(*lines: str) -> tuple[ast.Statement, ...]:
    module = parse_ptx(kernel(*lines))
    function = module.functions[0]
    assert function.body is not None
    return function.body.statements[4:]


def one(line: str) -> ast.Instruction:
    statement = body("\t" + line)[0]
    assert isinstance(statement, ast.Instruction)
    return statement


def test_instruction_opcode_and_modifiers_in_source_order() -> None:
    ins = one("shfl.sync.down.b32 %r1|%p1, %r2, 1, 31, -1;")
    assert ins.opcode == "shfl"
    assert ins.modifiers == (".sync", ".down", ".b32")
    assert ins.operands == (
        ast.Pair(S, ast.Register(S, "%r1"), ast.Register(S, "%p1")),
        ast.Register(S, "%r2"),
        ast.IntImmediate(S, 1, "1"),
        ast.IntImmediate(S, 31, "31"),
        ast.IntImmediate(S, -1, "-1"),
    )


def test_modifiers_with_double_colons() -> None:
    ins = one("ld.global.L1::no_allocate.L2::256B.v2.f32 {%f0, %f1}, [%rd1];")
    assert ins.modifiers == (".global", ".L1::no_allocate", ".L2::256B", ".v2", ".f32")


@pytest.mark.parametrize(("text", "value"), [
    ("42", 42), ("0x1F", 31), ("0X1f", 31), ("017", 15), ("0", 0), ("0b101", 5), ("42U", 42),
    ("0xFFFFFFFFU", 4294967295), ("-0x10", -16), ("-7", -7), ("0B11", 3),
])
def test_integer_spellings(text: str, value: int) -> None:
    operand = one(f"add.s32 %r1, %r2, {text};").operands[2]
    assert operand == ast.IntImmediate(S, value, text)
    assert isinstance(operand, ast.IntImmediate) and operand.value == value
    assert operand.unsigned == text.endswith(("U", "u"))


@pytest.mark.parametrize(("text", "value", "bits", "width"), [
    ("0f3F800000", 1.0, 0x3F800000, 32),
    ("0F40490FDB", 3.1415927410125732, 0x40490FDB, 32),
    ("0d3FF0000000000000", 1.0, 0x3FF0000000000000, 64),
    ("-0f3F800000", -1.0, 0xBF800000, 32),
    ("1.5", 1.5, 0x3FF8000000000000, 64),
    ("1e3", 1000.0, 0x408F400000000000, 64),
    ("0.5e-1", 0.05, 0x3FA999999999999A, 64),
])
def test_float_spellings(text: str, value: float, bits: int, width: int) -> None:
    operand = one(f"add.f32 %f1, %f0, {text};").operands[2]
    assert isinstance(operand, ast.FloatImmediate)
    assert operand.text == text and operand.value == value
    assert operand.bits == bits and operand.width == width


def test_nan_immediate_keeps_its_bits() -> None:
    operand = one("mov.f32 %f1, 0f7FC00001;").operands[1]
    assert isinstance(operand, ast.FloatImmediate)
    assert math.isnan(operand.value) and operand.bits == 0x7FC00001


@pytest.mark.parametrize(("text", "base", "offset"), [
    ("[%rd1]", ast.Register(S, "%rd1"), None),
    ("[%rd1+4]", ast.Register(S, "%rd1"), ast.IntImmediate(S, 4, "4")),
    ("[%rd1+-4]", ast.Register(S, "%rd1"), ast.IntImmediate(S, -4, "-4")),
    ("[%rd1-4]", ast.Register(S, "%rd1"), ast.IntImmediate(S, -4, "-4")),
    ("[ %rd1 + 0x10 ]", ast.Register(S, "%rd1"), ast.IntImmediate(S, 16, "0x10")),
    ("[k_p]", ast.Symbol(S, "k_p"), None),
    ("[k_p+8]", ast.Symbol(S, "k_p"), ast.IntImmediate(S, 8, "8")),
    ("[0x100]", ast.IntImmediate(S, 256, "0x100"), None),
])
def test_addresses(text: str, base: ast.Operand, offset: ast.IntImmediate | None) -> None:
    assert one(f"ld.global.u32 %r1, {text};").operands[1] == ast.Address(S, base, offset)


def test_vectors_sinks_guards_and_special_registers() -> None:
    ins = one("@!%p1 mov.b64 {%r1, _}, %rd1;")
    assert ins.guard == ast.Guard(S, ast.Register(S, "%p1"), negated=True)
    assert ins.operands[0] == ast.Vector(S, (ast.Register(S, "%r1"), ast.Sink(S)))
    special = one("mov.u32 %r1, %tid.x;").operands[1]
    assert special == ast.SpecialRegister(S, "%tid", "x")
    for name in ("%laneid", "%clock64", "%envreg3", "%pm7_64", "%lanemask_lt", "%dynamic_smem_size"):
        assert one(f"mov.u32 %r1, {name};").operands[1] == ast.SpecialRegister(S, name)
    assert one("mov.u32 %r1, %r2;").operands[1] == ast.Register(S, "%r2")


def test_not_negation_texture_and_call_operands() -> None:
    assert one("selp.b32 %r1, 1, 0, !%p1;").operands[3] == ast.Not(S, ast.Register(S, "%p1"))
    assert one("neg.s32 %r1, -%r2;").operands[1] == ast.Negated(S, ast.Register(S, "%r2"))
    tex = one("tex.2d.v4.f32.f32 {%f0, %f1, %f0, %f1}, [tex, {%f0, %f1}];").operands[1]
    assert tex == ast.BracketList(S, (ast.Symbol(S, "tex"),
                                      ast.Vector(S, (ast.Register(S, "%f0"), ast.Register(S, "%f1")))))
    call = one("call.uni (retval0), vprintf, (param0, param1);")
    assert call.operands == (
        ast.ParenList(S, (ast.Symbol(S, "retval0"),)), ast.Symbol(S, "vprintf"),
        ast.ParenList(S, (ast.Symbol(S, "param0"), ast.Symbol(S, "param1"))),
    )


def test_branch_targets_are_labels() -> None:
    statements = body("\t@%p1 bra $L__BB0_2;", "$L__BB0_2:", "\tbra.uni $L__BB0_2;")
    assert statements[0] == ast.Instruction(S, ast.Guard(S, ast.Register(S, "%p1")), "bra", (),
                                            (ast.Label(S, "$L__BB0_2"),))
    assert statements[1] == ast.LabelDecl(S, "$L__BB0_2")
    assert isinstance(statements[2], ast.Instruction) and statements[2].operands == (ast.Label(S, "$L__BB0_2"),)


def test_fast_and_general_operand_paths_agree_including_spans() -> None:
    # One line is a SIMPLE_INSTRUCTIONS run; a comment after the opcode leaves the operand list one
    # SIMPLE_OPERANDS token; a comment inside the operand list forces the general path.
    fast = one("add.s32 %r1, %r2, -4;")
    split = one("add.s32/**/%r1, %r2, -4;")
    slow = one("add.s32 %r1, /* c */ %r2, -4;")
    assert token_types("\tadd.s32 %r1, %r2, -4;") == ["SIMPLE_INSTRUCTIONS"]
    assert token_types("\tadd.s32/**/%r1, %r2, -4;") == ["OPCODE", "SIMPLE_OPERANDS"]
    assert "SIMPLE_OPERANDS" not in token_types("\tadd.s32 %r1, /* c */ %r2, -4;")
    assert fast == split == slow
    # Columns are 1-based and counted by hand; the line starts with a tab.
    first, second, third = fast.operands
    assert (first.span.column, first.span.end_column) == (10, 13)
    assert (second.span.column, second.span.end_column) == (15, 18)
    assert (third.span.column, third.span.end_column) == (20, 22)
    assert (fast.span.line, fast.span.column, fast.span.end_line, fast.span.end_column) == (10, 2, 10, 23)
    assert [(o.span.column, o.span.end_column) for o in split.operands] == [(13, 16), (18, 21), (23, 25)]


def test_operands_on_the_line_after_the_opcode_keep_their_own_line() -> None:
    # OPCODE, a line break, then one SIMPLE_OPERANDS token: the operands are located on line 11.
    assert token_types("\tmov.u32", "\t\t%r1, 7;") == ["OPCODE", "SIMPLE_OPERANDS"]
    ins = body("\tmov.u32", "\t\t%r1, 7;")[0]
    assert isinstance(ins, ast.Instruction)
    assert (ins.span.line, ins.span.column, ins.span.end_line, ins.span.end_column) == (10, 2, 11, 10)
    assert [(o.span.line, o.span.column, o.span.end_column) for o in ins.operands] == [(11, 3, 6), (11, 8, 9)]


def test_a_run_of_simple_instructions_is_one_token_with_the_same_nodes_and_spans() -> None:
    # Blank lines, // comments, CRLF line ends and guards between the instructions of one run; the
    # same lines with '/* g */' before each ';' (same columns up to there) take the general path.
    lines = ["\tmov.u32 %r1, 1;  // one", "", "\t@%p1 add.s32 %r2, %r1, 4;\r", "// whole line",
             "\t@!%p0\tbra $L__BB0_1;", "$L__BB0_1:", "\tld.global.u32 %r3, [%rd1+-8];", "st.global.u32 [%rd1], %r3;"]
    fast = body(*lines)
    slow = body(*(line.replace(";", " /* g */;") for line in lines))
    assert token_types(*lines) == ["SIMPLE_INSTRUCTIONS", "LABEL_DEF", "SIMPLE_INSTRUCTIONS"]
    assert fast == slow
    for a, b in zip(fast, slow, strict=True):
        assert (a.span.line, a.span.column) == (b.span.line, b.span.column)
        if isinstance(a, ast.Instruction) and isinstance(b, ast.Instruction):
            assert [o.span for o in a.operands] == [o.span for o in b.operands]
            assert (a.guard and a.guard.span) == (b.guard and b.guard.span)
    # Counted by hand: line 12 is '\t@%p1 add.s32 %r2, %r1, 4;\r', line 14 '\t@!%p0\tbra $L__BB0_1;'.
    add, bra, st_ = fast[1], fast[2], fast[5]
    assert isinstance(add, ast.Instruction) and add.guard is not None
    assert (add.span.line, add.span.column, add.span.end_column) == (12, 2, 27)
    assert (add.guard.span.column, add.guard.span.end_column) == (2, 6)
    assert (add.operands[2].span.column, add.operands[2].span.end_column) == (25, 26)
    assert isinstance(bra, ast.Instruction) and bra.guard == ast.Guard(S, ast.Register(S, "%p0"), True)
    assert bra.operands == (ast.Label(S, "$L__BB0_1"),) and bra.operands[0].span.column == 12
    assert isinstance(st_, ast.Instruction) and (st_.span.line, st_.span.column) == (17, 1)
    # Two instructions on one line: the second starts at column 32 (after '...[%rd1+-8]; ').
    ld, st2 = body("\tld.global.u32 %r3, [%rd1+-8]; st.global.u32 [%rd1], %r3;")
    assert isinstance(ld, ast.Instruction) and isinstance(st2, ast.Instruction)
    assert (st2.span.line, st2.span.column, st2.span.end_column) == (10, 32, 58)
    assert (st2.operands[0].span.column, st2.operands[0].span.end_column) == (46, 52)


@pytest.mark.parametrize("operands", ["%r1,;", "%r1, ;", "%r1 %r2;", "%r1,, %r2;", ", %r1;", "%r1, %r2,;"])
def test_malformed_operand_lists_are_not_simple_tokens(operands: str) -> None:
    # SIMPLE_OPERANDS is `atom (, atom)* ;` written with lookaheads: a comma must be followed by an
    # atom, the last atom by ';'. Anything else takes the general rules, which reject it.
    types = token_types(f"\tmov.b32 {operands}")
    assert "SIMPLE_INSTRUCTIONS" not in types and "SIMPLE_OPERANDS" not in types
    with pytest.raises(Ptx2GcnError):
        parse_ptx(kernel(f"\tmov.b32 {operands}"))


def test_a_comment_after_a_run_is_not_split_into_instructions() -> None:
    # The run token takes the comment and blanks before 'ret' along; the builder must not find the
    # commented-out store in them.
    statements = body("\tmov.u32 %r1, 1;", " //   st.f32 [out], %f1;", "\tret;")
    assert [s.opcode for s in statements if isinstance(s, ast.Instruction)] == ["mov", "ret"]
    assert len(statements) == 2


def test_an_error_in_a_run_is_reported_where_the_per_instruction_path_reports_it() -> None:
    # The per-instruction path builds an instruction once the next token is read: a bad constant
    # followed by another instruction wins over a later lexical error, a bad constant in the last
    # instruction before that error does not.
    with pytest.raises(Ptx2GcnError, match="invalid integer constant '09'"):
        parse_ptx(kernel("\tmov.u32 %r1, 09;", "\tmov.u32 %r2, 1;", "#junk"))
    with pytest.raises(Ptx2GcnError, match="preprocessor directives are not PTX"):
        parse_ptx(kernel("\tmov.u32 %r2, 1;", "\tmov.u32 %r1, 09;", "#junk"))
    with pytest.raises(Ptx2GcnError, match="found '\\)'"):
        parse_ptx(kernel("\tmov.u32 %r1, 09;", ")"))
    # The run token takes the blanks before '@' along; the bad guard is still reported first.
    with pytest.raises(Ptx2GcnError, match="unexpected character '@'"):
        parse_ptx(kernel("\tmov.u32 %r1, 09;", "\t@#"))
    with pytest.raises(Ptx2GcnError, match="invalid integer constant '09'") as caught:
        parse_ptx(kernel("\tmov.u32 %r1, 1;", "\tmov.u32 %r2, 09;", "\tmov.u32 %r1 1;"))
    assert str(caught.value.diagnostics[0].span) == "<input>:11:15"


def test_register_declarations_and_ranges() -> None:
    decl = body("\t.reg .v4 .f32 %v<2>, %w;")[0]
    assert decl == ast.VariableDecl(S, ".reg", ".f32", (
        ast.Declarator(S, "%v", count=2), ast.Declarator(S, "%w")), vector=".v4")
    assert isinstance(decl, ast.VariableDecl)
    assert decl.declarators[0].names() == ["%v0", "%v1"]


def test_module_variables_with_initializers() -> None:
    module = parse_ptx(HEADER + (
        ".visible .global .align 4 .u32 a[2][3] = {{1, 2, 3}, {4, 5, 6}};\n"
        ".global .align 8 .u64 p = generic(a)+8;\n"
        ".extern .shared .align 16 .b8 smem[];\n"
        ".const .f32 pi = 0f40490FDB;\n"
    ))
    a, p, smem, pi = module.items[3:]
    row = lambda *v: ast.InitList(S, tuple(ast.IntImmediate(S, x, str(x)) for x in v))  # noqa: E731
    assert a == ast.VariableDecl(S, ".global", ".u32", (ast.Declarator(
        S, "a", dims=(2, 3), initializer=ast.InitList(S, (row(1, 2, 3), row(4, 5, 6)))),),
        linkage=(".visible",), align=4)
    assert p == ast.VariableDecl(S, ".global", ".u64", (ast.Declarator(S, "p", initializer=ast.BinaryExpr(
        S, "+", ast.Generic(S, ast.Symbol(S, "a")), ast.IntImmediate(S, 8, "8"))),), align=8)
    assert smem == ast.VariableDecl(S, ".shared", ".b8", (ast.Declarator(S, "smem", dims=(None,)),),
                                    linkage=(".extern",), align=16)
    assert pi == ast.VariableDecl(S, ".const", ".f32", (ast.Declarator(
        S, "pi", initializer=ast.FloatImmediate(S, 3.1415927410125732, "0f40490FDB")),))


def test_function_headers_params_and_directives() -> None:
    module = parse_ptx(HEADER + (
        ".visible .entry k(.param .u64 .ptr .global .align 16 k_p, .param .align 8 .b8 k_s[16])\n"
        ".maxntid 256, 1, 1\n.minnctapersm 2\n{\n\tret;\n}\n"
        ".weak .func (.param .b32 r) f(.reg .b32 x) .noreturn;\n"
        ".extern .func g;\n"
    ))
    k, f, g = module.functions
    assert k.params == (
        ast.Param(S, ".param", ".u64", "k_p", is_ptr=True, ptr_space=".global", ptr_align=16),
        ast.Param(S, ".param", ".b8", "k_s", align=8, dims=(16,)),
    )
    assert k.directives == (ast.PerformanceDirective(S, ".maxntid", (256, 1, 1)),
                            ast.PerformanceDirective(S, ".minnctapersm", (2,)))
    assert k.is_kernel and k.linkage == (".visible",) and k.return_params is None
    assert f == ast.Function(S, ".func", "f", (ast.Param(S, ".reg", ".b32", "x"),), None,
                             (ast.Param(S, ".param", ".b32", "r"),), (".weak",),
                             (ast.PerformanceDirective(S, ".noreturn"),))
    assert g == ast.Function(S, ".func", "g", None, None, None, (".extern",))


def test_prototypes_target_lists_and_nested_scopes() -> None:
    statements = body(
        "\tprototype_0 : .callprototype (.param .b32 _) _ (.param .b64 _);",
        "\tts: .branchtargets $L1, $L2;",
        "\tct: .calltargets f1;",
        "\t{ .reg .b32 t; mov.b32 t, 1; }",
        "$L1:", "$L2:",
    )
    assert statements[0] == ast.CallPrototype(S, "prototype_0", (ast.Param(S, ".param", ".b32", "_"),),
                                              (ast.Param(S, ".param", ".b64", "_"),))
    assert statements[1] == ast.BranchTargets(S, "ts", ("$L1", "$L2"))
    assert statements[2] == ast.CallTargets(S, "ct", ("f1",))
    assert statements[3] == ast.Block(S, (
        ast.VariableDecl(S, ".reg", ".b32", (ast.Declarator(S, "t"),)),
        ast.Instruction(S, None, "mov", (".b32",), (ast.Register(S, "t"), ast.IntImmediate(S, 1, "1"))),
    ))


def test_debug_directives() -> None:
    module = parse_ptx(HEADER + (
        '.file 1 "/src/a.cu", 1700000000, 1234\n'
        ".visible .entry k()\n{\n"
        "\t.loc 1 10 5, function_name $L__info_string0, inlined_at 1 20 3\n"
        "\t.loc 1 11 0\n\tret;\n}\n"
        ".section .debug_str\n{\n$L__info_string0:\n.b8 95, 90\n.b8 0\n}\n"
        ".section .debug_info\n{\n.b32 .debug_abbrev\n.b32 .debug_loc+62\n.b64 $L__func_begin0\n}\n"
        "@@DWARF .byte 0x2d, 0x01\n"
    ))
    file, kernel_, strings, info, dwarf = module.items[3:]
    assert file == ast.FileDirective(S, 1, "/src/a.cu", 1700000000, 1234)
    assert isinstance(kernel_, ast.Function) and kernel_.body is not None
    assert kernel_.body.statements[:2] == (
        ast.LocDirective(S, 1, 10, 5, ast.Symbol(S, "$L__info_string0"), None, (1, 20, 3)),
        ast.LocDirective(S, 1, 11, 0),
    )
    int_ = lambda v: ast.IntImmediate(S, v, str(v))  # noqa: E731
    assert strings == ast.SectionDirective(S, ".debug_str", (
        ast.LabelDecl(S, "$L__info_string0"), ast.SectionData(S, ".b8", (int_(95), int_(90))),
        ast.SectionData(S, ".b8", (int_(0),))))
    assert info == ast.SectionDirective(S, ".debug_info", (
        ast.SectionData(S, ".b32", (ast.Symbol(S, ".debug_abbrev"),)),
        ast.SectionData(S, ".b32", (ast.BinaryExpr(S, "+", ast.Symbol(S, ".debug_loc"), int_(62)),)),
        ast.SectionData(S, ".b64", (ast.Symbol(S, "$L__func_begin0"),))))
    assert dwarf == ast.DwarfDirective(S, ".byte 0x2d, 0x01")


def test_registers_named_without_percent_and_params_named_with_it() -> None:
    module = parse_ptx(HEADER + (
        ".visible .func (.reg .b32 out) f(.reg .b32 in, .param .b32 %pp)\n{\n"
        "\t.reg .v2 .b32 vec;\n\tmov.b32 out, in;\n\tmov.b32 out, vec.y;\n\tld.param.b32 out, [%pp];\n}\n"
    ))
    function = module.functions[0]
    assert function.body is not None
    _, mov, extract, load = function.body.statements
    assert isinstance(mov, ast.Instruction) and mov.operands == (ast.Register(S, "out"), ast.Register(S, "in"))
    assert isinstance(extract, ast.Instruction) and extract.operands[1] == ast.Register(S, "vec", "y")
    assert isinstance(load, ast.Instruction) and load.operands[1] == ast.Address(S, ast.Symbol(S, "%pp"))


def test_module_directives_and_old_targets() -> None:
    module = parse_ptx(".version 4.3\n.target sm_20, texmode_independent\n.address_size 32\n"
                       '.pragma "nounroll";\n.alias a, b;\n')
    assert module.items == (ast.VersionDirective(S, 4, 3),
                            ast.TargetDirective(S, ("sm_20", "texmode_independent")),
                            ast.AddressSizeDirective(S, 32), ast.PragmaDirective(S, ("nounroll",)),
                            ast.AliasDirective(S, "a", "b"))
    assert module.address_size == 32 and module.version == ast.VersionDirective(S, 4, 3)
    assert parse_ptx(".version 1.4\n.target sm_13\n").address_size == 32


def test_empty_input_is_an_empty_module() -> None:
    assert parse_ptx("") == ast.Module(S, ())
    assert parse_ptx("// only a comment\n/* and a block\ncomment */\n").items == ()


def test_variable_attributes() -> None:
    module = parse_ptx(HEADER + ".global .attribute(.managed) .align 4 .u32 counter;\n"
                       ".global .attribute( .unified(0x12, 34) ) .u32 u;\n")
    managed, unified = module.items[3:]
    assert managed == ast.VariableDecl(S, ".global", ".u32", (ast.Declarator(S, "counter"),), align=4,
                                       attributes=(".attribute(.managed)",))
    assert isinstance(unified, ast.VariableDecl) and unified.attributes == (".attribute(.unified(0x12, 34))",)


def test_sampler_field_initializers() -> None:
    module = parse_ptx(HEADER + ".global .samplerref smp = { addr_mode_0 = clamp_to_edge, filter_mode = linear };\n"
                       ".global .texref t = {width = 64};\n")
    smp, tex = module.items[3:]
    assert smp == ast.VariableDecl(S, ".global", ".samplerref", (ast.Declarator(S, "smp", initializer=ast.FieldInit(
        S, (("addr_mode_0", ast.Symbol(S, "clamp_to_edge")), ("filter_mode", ast.Symbol(S, "linear"))))),))
    assert isinstance(tex, ast.VariableDecl)
    assert tex.declarators[0].initializer == ast.FieldInit(S, (("width", ast.IntImmediate(S, 64, "64")),))


def test_constant_expression_operands() -> None:
    int_ = lambda v: ast.IntImmediate(S, v, str(v))  # noqa: E731
    grouped = one("add.u32 %r1, %r2, (1+2)*4;").operands[2]
    assert grouped == ast.BinaryExpr(S, "*", ast.ParenExpr(S, ast.BinaryExpr(S, "+", int_(1), int_(2))), int_(4))
    # C precedence: shift binds looser than addition, so 1<<2+1 is 1<<(2+1).
    assert one("mov.u32 %r1, 1<<2+1;").operands[1] == ast.BinaryExpr(
        S, "<<", int_(1), ast.BinaryExpr(S, "+", int_(2), int_(1)))
    assert one("mov.u32 %r1, -(4);").operands[1] == ast.UnaryExpr(S, "-", ast.ParenExpr(S, int_(4)))
    assert one("mov.u32 %r1, (7);").operands[1] == ast.ParenExpr(S, int_(7))
    assert one("mov.u32 %r1, ~0x0F & 0xFF;").operands[1] == ast.BinaryExpr(
        S, "&", ast.UnaryExpr(S, "~", ast.IntImmediate(S, 15, "0x0F")), ast.IntImmediate(S, 255, "0xFF"))
    call = one("call (retval0), f, (7);")
    assert call.operands[2] == ast.ParenList(S, (int_(7),))


_INT_SPELLINGS = st.one_of(
    st.integers(0, 2**64 - 1).map(str), st.integers(0, 2**32).map(hex), st.integers(0, 255).map(bin),
    st.integers(1, 4095).map(lambda v: "0" + format(v, "o")),
)
_ATOMS = st.one_of(
    st.from_regex(r"%[a-z][a-z0-9_$]{0,6}(\.[xyzw])?", fullmatch=True),
    st.from_regex(r"[a-zA-Z][a-zA-Z0-9_$]{0,6}|[_$][a-zA-Z0-9_$]{1,6}", fullmatch=True),
    st.tuples(st.sampled_from(["", "-"]), _INT_SPELLINGS, st.sampled_from(["", "U"])).map("".join),
    st.integers(0, 2**32 - 1).map(lambda v: f"0f{v:08X}"),
    st.tuples(st.sampled_from(["%rd1", "sym", "0x40"]), st.sampled_from(["", "+", "+-", "-", " + ", " - "]),
              _INT_SPELLINGS).map(lambda t: f"[{t[0]}]" if not t[1] else f"[{t[0]}{t[1]}{t[2]}]"),
)


@given(st.lists(_ATOMS, min_size=1, max_size=6))
def test_fast_operand_token_agrees_with_the_general_rules(atoms: list[str]) -> None:
    """SIMPLE_OPERANDS (one token) and the per-operand grammar rules build the same operands; a
    comment before the ';' forces the general path."""
    operands = ", ".join(atoms)
    fast = one(f"mov.b32 {operands};")
    slow = one(f"mov.b32 {operands} /* general path */;")
    assert fast == slow
    assert token_types(f"mov.b32 {operands};") == ["SIMPLE_INSTRUCTIONS"]
    assert "SIMPLE_OPERANDS" not in token_types(f"mov.b32 {operands} /* general path */;")


def token_types(*lines: str) -> list[str]:
    """The terminals the contextual lexer produces for ``lines`` inside a kernel body (which start
    on line 10, after the header and the declarations of ``kernel``)."""
    text = kernel(*lines)
    interactive = grammar_parser().parse_interactive(text)
    types: list[str] = []
    try:
        for token in interactive.iter_parse():
            if (token.line or 0) >= 10 and token.type != "RBRACE":
                types.append(token.type)
    except UnexpectedInput:  # malformed input: the tokens up to the error
        pass
    return types


def test_percent_named_functions_and_params_are_symbols() -> None:
    module = parse_ptx((Path(__file__).parent / "data" / "percent_names.ptx").read_text())
    f, k = module.functions
    assert f.name == "%f" and f.body is not None
    load = f.body.statements[1]
    assert isinstance(load, ast.Instruction) and load.operands[1] == ast.Address(S, ast.Symbol(S, "%a"))
    assert k.body is not None
    scope = k.body.statements[1]
    assert isinstance(scope, ast.Block)
    call = scope.statements[3]
    assert isinstance(call, ast.Instruction) and call.operands[1] == ast.Symbol(S, "%f")


def test_cpp_line_markers_are_ignored_like_ptxas_does() -> None:
    with_markers = HEADER + '# 1 "kernel.cu"\n.global .u32 g;\n# 12 "kernel.cu" 2\n'
    assert parse_ptx(with_markers) == parse_ptx(HEADER + ".global .u32 g;\n")



def test_constant_banks_of_old_ptx() -> None:
    module = parse_ptx(".version 2.0\n.target sm_20\n.const[2] .f32 c;\n.entry k()\n{\n\t.reg .f32 %f1;\n"
                       "\tld.const[2].f32 %f1, [c];\n\texit;\n}\n")
    assert module.items[2] == ast.VariableDecl(S, ".const", ".f32", (ast.Declarator(S, "c"),), bank=2)
    body = module.functions[0].body
    assert body is not None and isinstance(body.statements[1], ast.Instruction)
    assert body.statements[1].modifiers == (".const[2]", ".f32")
