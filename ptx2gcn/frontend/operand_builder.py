"""Callbacks for operands and constant expressions, shared by the AST builder.

Invariant: as for ``ptx2gcn.frontend.builder``: each public method is a rule or alias callback of
``grammar/ptx.lark``; the private helpers turn tokens into spans and operand nodes. Expression
nodes record their depth, which is capped at ``MAX_EXPRESSION_DEPTH`` (later stages recurse over
expressions, so depth must stay bounded whatever the input).
"""

from __future__ import annotations

from typing import Any, TypeVar

from lark import Token

from ptx2gcn.diagnostics import Ptx2GcnError, SourceFile, Span
from ptx2gcn.frontend import ast
from ptx2gcn.frontend.tokens import float_value, int_value, token_operand

MAX_EXPRESSION_DEPTH = 100
"""Deepest constant expression accepted (``1+1+...`` chains included)."""

Child = Any  # a lark Token or an AST node / helper produced by another callback
_Node = TypeVar("_Node", bound=ast.Operand)


class OperandBuilder:
    """Operand and expression callbacks plus the span/token helpers every callback uses."""

    def __init__(self) -> None:
        self.filename = "<input>"
        self.source = SourceFile("<input>", "")
        self._depth: dict[int, int] = {}

    def reset(self, source: SourceFile) -> None:
        """Point the callbacks at the next source file."""
        self.filename = source.name
        self.source = source
        self._depth = {}

    def _nest(self, node: _Node, *children: ast.Operand) -> _Node:
        """Record the depth of a constant-expression node; too deep is an error (later passes and
        the printer recurse over expressions, so their depth must stay bounded)."""
        depth = 1 + max((self._depth.get(id(c), 0) for c in children), default=0)
        if depth > MAX_EXPRESSION_DEPTH:
            raise Ptx2GcnError.at(node.span, f"constant expression nested more than {MAX_EXPRESSION_DEPTH} deep")
        self._depth[id(node)] = depth
        return node

    # -- helpers -----------------------------------------------------------------------------------

    def _span(self, first: Child, last: Child) -> Span:
        start = first.span if not isinstance(first, Token) else None
        end = last.span if not isinstance(last, Token) else None
        line, column = (start.line, start.column) if start else (first.line, first.column)
        end_line, end_column = (end.end_line, end.end_column) if end else (last.end_line, last.end_column)
        return Span(self.filename, line, column, end_line, end_column, self.source)

    def _tok_span(self, tok: Token) -> Span:
        return Span(self.filename, tok.line, tok.column, tok.end_line, tok.end_column, self.source)

    def _operand(self, child: Child) -> ast.Operand:
        if isinstance(child, Token):
            return token_operand(child, self.filename, self.source)
        return child

    def _int(self, tok: Token) -> int:
        return int_value(tok.value, self._tok_span(tok))

    # -- constant expressions ------------------------------------------------------------------------

    def init_list(self, c: list[Child]) -> ast.InitList:
        return ast.InitList(self._span(c[0], c[-1]), tuple(self._operand(x) for x in c[1:-1]))

    def field_init(self, c: list[Token]) -> tuple[str, ast.Operand]:
        return c[0].value, self._operand(c[2])

    def field_init_list(self, c: list[Child]) -> ast.FieldInit:
        return ast.FieldInit(self._span(c[0], c[-1]), tuple(c[1:-1]))

    def _expr_operand(self, child: Child) -> ast.Operand:
        """An expression child: a one-item parenthesised list is grouping (``ParenExpr``)."""
        operand = self._operand(child)
        if type(operand) is ast.ParenList and len(operand.items) == 1:
            return self._nest(ast.ParenExpr(operand.span, operand.items[0]), operand)
        return operand

    def binary(self, c: list[Child]) -> ast.BinaryExpr:
        lhs, rhs = self._expr_operand(c[0]), self._expr_operand(c[2])
        return self._nest(ast.BinaryExpr(self._span(c[0], c[2]), c[1].value, lhs, rhs), lhs, rhs)

    def unary(self, c: list[Child]) -> ast.Operand:
        op: Token = c[0]
        operand = c[1]
        if op.type == "MINUS" and isinstance(operand, Token) and operand.type in ("INT", "FLOAT"):
            return token_operand(operand, self.filename, self.source, negate=True)
        inner = self._expr_operand(operand)
        return self._nest(ast.UnaryExpr(self._span(op, operand), op.value, inner), inner)

    def generic(self, c: list[Token]) -> ast.Generic:
        return ast.Generic(self._span(c[0], c[3]), ast.Symbol(self._tok_span(c[2]), c[2].value))

    def paren_expr(self, c: list[Child]) -> ast.ParenExpr:
        inner = self._operand(c[1])
        return self._nest(ast.ParenExpr(self._span(c[0], c[2]), inner), inner)

    # -- compound operands ---------------------------------------------------------------------------

    def negative(self, c: list[Token]) -> ast.Operand:
        if c[1].type in ("INT", "FLOAT"):
            span = self._span(c[0], c[1])
            text = "-" + c[1].value
            if c[1].type == "INT":
                return ast.IntImmediate(span, int_value(text, span), text)
            return ast.FloatImmediate(span, float_value(text, span), text)
        return ast.Negated(self._span(c[0], c[1]), self._operand(c[1]))

    def logical_not(self, c: list[Token]) -> ast.Not:
        return ast.Not(self._span(c[0], c[1]), self._operand(c[1]))

    def pair(self, c: list[Token]) -> ast.Pair:
        return ast.Pair(self._span(c[0], c[2]), self._operand(c[0]), self._operand(c[2]))

    def offset_expr(self, c: list[Token]) -> ast.BinaryExpr:
        """``reg+imm`` / ``reg+-imm`` / ``reg-imm`` as an instruction operand."""
        negative = len(c) == 4
        number = c[-1]
        text = ("-" if negative else "") + number.value
        imm_span = self._span(c[2] if negative else number, number)
        rhs = ast.IntImmediate(imm_span, int_value(text, imm_span), text)
        return ast.BinaryExpr(self._span(c[0], number), c[1].value, self._operand(c[0]), rhs)

    def vector(self, c: list[Child]) -> ast.Vector:
        return ast.Vector(self._span(c[0], c[-1]), tuple(self._operand(x) for x in c[1:-1]))

    def address(self, c: list[Token]) -> ast.Address:
        span = self._span(c[0], c[-1])
        base = self._operand(c[1])
        inner = c[2:-1]
        if not inner:
            return ast.Address(span, base, None)
        negative = any(t.type == "MINUS" for t in inner)
        number = inner[-1]
        text = ("-" if negative else "") + number.value
        sign = next((t for t in inner if t.type == "MINUS"), number)
        off_span = self._span(sign, number)
        return ast.Address(span, base, ast.IntImmediate(off_span, int_value(text, off_span), text))

    def bracket_list(self, c: list[Child]) -> ast.BracketList:
        return ast.BracketList(self._span(c[0], c[-1]), tuple(self._operand(x) for x in c[1:-1]))

    def paren_list(self, c: list[Child]) -> ast.ParenList:
        items = tuple(self._operand(x) for x in c[1:-1])
        return self._nest(ast.ParenList(self._span(c[0], c[-1]), items), *items)
