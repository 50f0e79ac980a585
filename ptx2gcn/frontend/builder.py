"""Lark LALR callbacks that build ``ptx2gcn.frontend.ast`` nodes directly (no parse tree).

Invariant: each public method is named after a rule (or ``-> alias``) of ``grammar/ptx.lark`` and
receives that rule's kept children: named tokens, raw single-token operands (the grammar's ``?``
rules inline them) and nodes returned by other callbacks. Every node gets a span from its first to
its last token. Errors found here (bad attribute runs, invalid numbers) are ``Ptx2GcnError`` at the
offending token. Lark types stop at this module and ``parse.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

from lark import Token

from ptx2gcn.diagnostics import Ptx2GcnError, SourceFile, Span
from ptx2gcn.frontend import ast
from ptx2gcn.frontend.attrs import interpret, require_declaration, require_linkage_only
from ptx2gcn.frontend.fixups import classify_function_names, classify_module_names
from ptx2gcn.frontend.operand_builder import Child, OperandBuilder
from ptx2gcn.frontend.simple_run import guard, opcode_and_modifiers, simple_instruction, split_run
from ptx2gcn.frontend.tokens import LABEL_OPCODES, token_operand

CALL_OPCODES = frozenset({"call"})
"""Opcodes whose parenthesised operands are argument lists, never grouping."""


class _ParamList:
    """A parenthesised parameter list with the span of its parentheses."""

    __slots__ = ("span", "params", "is_return")

    def __init__(self, span: Span, params: tuple[ast.Param, ...], is_return: bool) -> None:
        self.span = span
        self.params = params
        self.is_return = is_return


class AstBuilder(OperandBuilder):
    """Callbacks for one parse at a time; ``reset`` points it at the next source file."""

    def __init__(self) -> None:
        super().__init__()
        self._runs: dict[int, tuple[list[ast.Instruction], Ptx2GcnError | None]] = {}
        """SIMPLE_INSTRUCTIONS runs built when lexed, by token offset, until their reduction."""

    def reset(self, source: SourceFile) -> None:
        super().reset(source)
        self._runs = {}

    # -- module-level directives -------------------------------------------------------------------

    def start(self, children: list[Child]) -> ast.Module:
        text = self.source.text
        lines = text.count("\n") + 1
        # The end of the last line, as SourceFile.line_text(lines) would measure it (without
        # building the whole line index here: only a diagnostic needs that).
        last_line = text[text.rfind("\n") + 1:].rstrip("\r")
        span = Span(self.filename, 1, 1, lines, len(last_line) + 1, self.source)
        return ast.Module(span, classify_module_names(tuple(children)))

    def version(self, c: list[Token]) -> ast.VersionDirective:
        text = c[1].value
        major, dot, minor = text.partition(".")
        if not (dot and major.isdigit() and minor.isdigit() and len(major) <= 3 and len(minor) <= 3):
            raise Ptx2GcnError.at(self._tok_span(c[1]), f"malformed PTX version '{text[:20]}' (expected e.g. 8.5)")
        return ast.VersionDirective(self._span(c[0], c[1]), int(major), int(minor))

    def target(self, c: list[Token]) -> ast.TargetDirective:
        return ast.TargetDirective(self._span(c[0], c[-1]), tuple(t.value for t in c[1:]))

    def address_size(self, c: list[Token]) -> ast.AddressSizeDirective:
        size = self._int(c[1])
        if size not in (32, 64):
            raise Ptx2GcnError.at(self._tok_span(c[1]), f".address_size must be 32 or 64, not {size}")
        return ast.AddressSizeDirective(self._span(c[0], c[1]), size)

    def file(self, c: list[Token]) -> ast.FileDirective:
        extra = [self._int(t) for t in c[3:]]
        timestamp, size = (extra[0], extra[1]) if extra else (None, None)
        return ast.FileDirective(self._span(c[0], c[-1]), self._int(c[1]), c[2].value[1:-1], timestamp, size)

    def loc(self, c: list[Child]) -> ast.LocDirective:
        fn: ast.Symbol | None = None
        offset: int | None = None
        inlined: tuple[int, int, int] | None = None
        for extra in c[4:]:
            if isinstance(extra, tuple) and len(extra) == 2:
                fn, offset = extra
            else:
                inlined = extra
        return ast.LocDirective(self._span(c[0], c[-1] if isinstance(c[-1], Token) else c[3]),
                                self._int(c[1]), self._int(c[2]), self._int(c[3]), fn, offset, inlined)

    def loc_function_name(self, c: list[Token]) -> tuple[ast.Symbol, int | None]:
        offset = self._int(c[3]) if len(c) > 3 else None
        return ast.Symbol(self._tok_span(c[1]), c[1].value), offset

    def loc_inlined_at(self, c: list[Token]) -> tuple[int, int, int]:
        return self._int(c[1]), self._int(c[2]), self._int(c[3])

    def section(self, c: list[Child]) -> ast.SectionDirective:
        return ast.SectionDirective(self._span(c[0], c[-1]), c[1].value, tuple(c[2:]))

    def section_label(self, c: list[Token]) -> ast.LabelDecl:
        return self.label(c)

    def section_data(self, c: list[Child]) -> ast.SectionData:
        values = tuple(self._operand(v) for v in c[1:])
        return ast.SectionData(self._span(c[0], c[-1]), c[0].value, values)

    def section_name(self, c: list[Token]) -> ast.Symbol | ast.BinaryExpr:
        name = ast.Symbol(self._tok_span(c[0]), c[0].value)
        if len(c) == 1:
            return name
        offset = ast.IntImmediate(self._tok_span(c[2]), self._int(c[2]), c[2].value)
        return ast.BinaryExpr(self._span(c[0], c[2]), "+", name, offset)

    def dwarf(self, c: list[Token]) -> ast.DwarfDirective:
        return ast.DwarfDirective(self._tok_span(c[0]), c[0].value[len("@@DWARF"):].strip())

    def alias(self, c: list[Token]) -> ast.AliasDirective:
        return ast.AliasDirective(self._span(c[0], c[2]), c[1].value, c[2].value)

    def pragma(self, c: list[Token]) -> ast.PragmaDirective:
        return ast.PragmaDirective(self._span(c[0], c[-1]), tuple(t.value[1:-1] for t in c[1:]))

    # -- declarations --------------------------------------------------------------------------------

    def decl_attrs(self, c: list[Token]) -> list[Token]:
        return c

    def var_decl(self, c: list[Child]) -> ast.VariableDecl:
        attrs = interpret(c[0], self.filename, self.source)
        declarators: tuple[ast.Declarator, ...] = tuple(c[1:])
        space, type_ = require_declaration(attrs, f"declaration of '{declarators[0].name}'")
        flags = tuple(attrs.flags) + ((".ptr",) if attrs.is_ptr else ())
        return ast.VariableDecl(self._span(c[0][0], declarators[-1]), space, type_, declarators,
                                tuple(attrs.linkage), attrs.align, attrs.vector, flags, attrs.bank)

    def declarator(self, c: list[Child]) -> ast.Declarator:
        name_tok: Token = c[0]
        count: int | None = None
        dims: tuple[int | None, ...] = ()
        init: ast.Initializer | None = None
        index = 1
        if index < len(c) and isinstance(c[index], Token) and c[index].type == "LT":
            count = self._int(c[index + 1])
            if count >= 1 << 32:  # ptxas: "Constant overflow"
                raise Ptx2GcnError.at(self._tok_span(c[index + 1]), f"register range <{count}> does not fit in 32 bits")
            index += 3
        if index < len(c) and isinstance(c[index], tuple):
            dims = c[index]
            index += 1
        if index < len(c):  # EQUAL initializer
            init = self._operand(c[index + 1])
        last = c[-1] if len(c) > 1 and not isinstance(c[-1], tuple) else name_tok
        return ast.Declarator(self._span(name_tok, last), name_tok.value, count, dims, init)

    def dims(self, c: list[Token]) -> tuple[int | None, ...]:
        out: list[int | None] = []
        for tok in c:
            if tok.type == "LSQB":
                out.append(None)
            elif tok.type == "INT":
                out[-1] = self._int(tok)
        return tuple(out)

    # -- functions -----------------------------------------------------------------------------------

    def ret_params(self, c: list[Child]) -> _ParamList:
        return _ParamList(self._span(c[0], c[-1]), tuple(c[1:-1]), True)

    def params(self, c: list[Child]) -> _ParamList:
        return _ParamList(self._span(c[0], c[-1]), tuple(c[1:-1]), False)

    def param(self, c: list[Child]) -> ast.Param:
        attrs = interpret(c[0], self.filename, self.source)
        name: Token = c[1]
        space, type_ = require_declaration(attrs, f"parameter '{name.value}'")
        if attrs.linkage or attrs.flags or attrs.bank is not None:
            raise Ptx2GcnError.at(attrs.span, f"parameter '{name.value}' cannot have linkage or flags")
        dims: tuple[int | None, ...] = c[2] if len(c) > 2 else ()
        return ast.Param(self._span(c[0][0], name), space, type_, name.value, attrs.align,
                         attrs.vector, dims, attrs.is_ptr, attrs.ptr_space, attrs.ptr_align)

    def perf_name(self, c: list[Token]) -> Token:
        return c[0]

    def perf(self, c: list[Token]) -> ast.PerformanceDirective:
        values = tuple(self._int(t) for t in c[1:])
        return ast.PerformanceDirective(self._span(c[0], c[-1]), c[0].value, values)

    def function(self, c: list[Child]) -> ast.Function:
        index = 0
        linkage: tuple[str, ...] = ()
        if isinstance(c[0], list):
            linkage = require_linkage_only(interpret(c[0], self.filename, self.source), "a function")
            index = 1
        kind: Token = c[index]
        rets: tuple[ast.Param, ...] | None = None
        params: tuple[ast.Param, ...] | None = None
        if isinstance(c[index + 1], _ParamList):
            rets = c[index + 1].params
            index += 1
        name: Token = c[index + 1]
        rest = c[index + 2:]
        if rest and isinstance(rest[0], _ParamList):
            params = rest[0].params
            rest = rest[1:]
        body = rest[-1] if isinstance(rest[-1], ast.Block) else None
        directives = tuple(rest[:-1])
        if kind.value == ".entry" and rets is not None:
            raise Ptx2GcnError.at(self._tok_span(kind), f"kernel '{name.value}': .entry cannot have return parameters")
        if body is not None:
            body = classify_function_names(body, params or (), rets or ())
        first = c[0][0] if isinstance(c[0], list) else kind
        return ast.Function(self._span(first, rest[-1]), kind.value, name.value, params, body,
                            rets, linkage, directives)

    # -- statements ----------------------------------------------------------------------------------

    def block(self, c: list[Child]) -> ast.Block:
        statements: list[ast.Statement] = []
        for child in c[1:-1]:
            if type(child) is list:  # a run of simple instructions
                statements += child
            else:
                statements.append(child)
        return ast.Block(self._span(c[0], c[-1]), tuple(statements))

    def label(self, c: list[Token]) -> ast.LabelDecl:
        return ast.LabelDecl(self._tok_span(c[0]), c[0].value[:-1].rstrip())

    def _targets(self, c: list[Token]) -> tuple[Span, str, tuple[str, ...]]:
        return self._span(c[0], c[-1]), c[0].value[:-1].rstrip(), tuple(t.value for t in c[2:])

    def branchtargets(self, c: list[Token]) -> ast.BranchTargets:
        return ast.BranchTargets(*self._targets(c))

    def calltargets(self, c: list[Token]) -> ast.CallTargets:
        return ast.CallTargets(*self._targets(c))

    def callprototype(self, c: list[Child]) -> ast.CallPrototype:
        rets = params = None
        noreturn = False
        for child in c[2:]:
            if isinstance(child, _ParamList):
                if child.is_return:
                    rets = child.params
                else:
                    params = child.params
            elif child.type == "NORETURN":
                noreturn = True
        last = c[-1]
        return ast.CallPrototype(self._span(c[0], last), c[0].value[:-1].rstrip(), rets, params, noreturn)

    def instruction(self, c: list[Child]) -> ast.Instruction:
        first: Token = c[0]
        guard: ast.Guard | None = None
        if first.type == "GUARD":
            guard = self._guard(first)
            head: Token = c[1]
            raw = c[2:-1]
        else:
            head = first
            raw = c[1:-1]
        opcode, modifiers = opcode_and_modifiers(head.value)
        file, source = self.filename, self.source
        operands: list[ast.Operand] = []
        for child in raw:
            if isinstance(child, Token):
                operand = token_operand(child, file, source)
                if opcode in LABEL_OPCODES and type(operand) is ast.Symbol:
                    operand = ast.Label(operand.span, operand.name)
                operands.append(operand)
            elif opcode not in CALL_OPCODES and type(child) is ast.ParenList and len(child.items) == 1:
                operands.append(self._expr_operand(child))  # `(3)` outside a call is grouping
            else:
                operands.append(child)
        last: Token = c[-1]
        span = Span(file, first.line, first.column, last.end_line, last.end_column, source)
        return ast.Instruction(span, guard, opcode, modifiers, tuple(operands))

    def simple_instruction(self, c: list[Token]) -> ast.Instruction:
        """An instruction whose operands came as one SIMPLE_OPERANDS token (split from its opcode by
        a line break or comment, so not part of a SIMPLE_INSTRUCTIONS run)."""
        first = c[0]
        guard_node = self._guard(first) if first.type == "GUARD" else None
        last = c[-1]
        span = Span(self.filename, first.line, first.column, last.end_line, last.end_column, self.source)
        return simple_instruction(span, guard_node, c[-2].value, last.value, last.line or 0, last.column or 0)

    def lex_simple_instructions(self, tok: Token) -> Token:
        """Lexer callback: build a SIMPLE_INSTRUCTIONS run as soon as it is lexed (errors before the
        next token, as the per-instruction path raises them; see ``ptx2gcn.frontend.simple_run``)."""
        self._runs[tok.start_pos or 0] = split_run(tok.value, tok.line or 0, tok.column or 0, self.filename,
                                                   self.source)
        return tok

    def simple_instructions(self, c: list[Token]) -> list[ast.Instruction]:
        """The instructions of a SIMPLE_INSTRUCTIONS run (``block`` splices them in)."""
        tok = c[0]
        built = self._runs.pop(tok.start_pos or 0, None)
        if built is None:  # a parser without the lexer callback (benchmarks/parse.py's variants)
            built = split_run(tok.value, tok.line or 0, tok.column or 0, self.filename, self.source)
        instructions, error = built
        if error is not None:
            raise error
        return instructions

    def _guard(self, tok: Token) -> ast.Guard:
        return guard(tok.value, self._tok_span(tok))


def callback_names() -> Sequence[str]:
    """The rule/alias names this builder handles (tests compare them with the grammar)."""
    names = {*vars(AstBuilder), *vars(OperandBuilder)}
    return sorted(n for n in names if not n.startswith(("_", "lex_")) and n != "reset")
