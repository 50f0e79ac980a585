"""Tokens of the IR text form, grouped by line, and a cursor over one line's tokens.

Invariant: every character of the input belongs to exactly one token, whitespace or comment; a
character no token matches is a located error. Errors raised through a ``Line`` point at the
offending token (``file:line:col`` and a caret under it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ptx2gcn.diagnostics import Ptx2GcnError, SourceFile, Span
from ptx2gcn.ir.types import Type, parse_type

_TOKEN_RE = re.compile(r"""
    (?P<ws>[ \t\r]+|//[^\n]*)
  | (?P<nl>\n)
  | (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<value>%[A-Za-z0-9_$.]+)
  | (?P<block>\^[A-Za-z0-9_$.]+)
  | (?P<sym>@[A-Za-z0-9_$.]+)
  | (?P<int>-?(?:0x[0-9A-Fa-f]+|\d+))
  | (?P<word>[A-Za-z_$][A-Za-z0-9_$.:]*)
  | (?P<arrow>->)
  | (?P<punct>[(){}\[\]<>,:=*+])
""", re.VERBOSE)


@dataclass(slots=True)
class Token:
    kind: str
    text: str
    line: int
    col: int


class Lexer:
    def __init__(self, source: SourceFile) -> None:
        self.source = source
        self.lines: list[list[Token]] = []
        current: list[Token] = []
        line, line_start, expected = 1, 0, 0
        text = source.text
        for match in _TOKEN_RE.finditer(text):
            start = match.start()
            if start != expected:
                break  # a character no token matches: reported below
            expected = match.end()
            kind = match.lastgroup
            if kind == "nl":
                if current:
                    self.lines.append(current)
                    current = []
                line += 1
                line_start = expected
            elif kind != "ws":
                current.append(Token(kind or "", match.group(), line, start - line_start + 1))
        if expected != len(text):
            raise located_error(source, line, expected - line_start + 1, f"unexpected character {text[expected]!r}")
        if current:
            self.lines.append(current)


def located_error(source: SourceFile, line: int, col: int, message: str, width: int = 1) -> Ptx2GcnError:
    return Ptx2GcnError.at(Span(source.name, line, col, line, col + width, source), message)


class Line:
    """A cursor over the tokens of one line."""

    def __init__(self, source: SourceFile, toks: list[Token]) -> None:
        self.source = source
        self.toks = toks
        self.pos = 0

    def peek(self, offset: int = 0) -> Token | None:
        index = self.pos + offset
        return self.toks[index] if index < len(self.toks) else None

    def error(self, message: str, tok: Token | None = None) -> Ptx2GcnError:
        tok = tok or self.peek()
        if tok is None:
            last = self.toks[-1]
            return located_error(self.source, last.line, last.col + len(last.text), message)
        return located_error(self.source, tok.line, tok.col, message, len(tok.text))

    def next(self, kind: str, what: str) -> Token:
        tok = self.peek()
        if tok is None or tok.kind != kind:
            raise self.error(f"expected {what}")
        self.pos += 1
        return tok

    def accept(self, text: str) -> bool:
        tok = self.peek()
        if tok is not None and tok.text == text and tok.kind in ("punct", "arrow", "word"):
            self.pos += 1
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.accept(text):
            raise self.error(f"expected '{text}'")

    def word(self, what: str = "a word") -> str:
        return self.next("word", what).text

    def integer(self, what: str = "an integer") -> int:
        return int(self.next("int", what).text, 0)

    def string(self) -> str:
        text = self.next("str", "a quoted string").text[1:-1]
        return re.sub(r"\\(.)", r"\1", text)

    def done(self) -> bool:
        return self.pos >= len(self.toks)

    def end(self) -> None:
        if not self.done():
            raise self.error("unexpected text at end of line")

    def type(self) -> Type:
        tok = self.peek()
        if tok is None:
            raise self.error("expected a type")
        if tok.text == "<":
            self.pos += 1
            count = self.integer("a vector length")
            if self.word("'x'") != "x":
                raise self.error("expected 'x' in a vector type", tok)
            elem = self.word("an element type")
            self.expect(">")
            text = f"<{count} x {elem}>"
        elif tok.text == "ptr":
            self.pos += 1
            self.expect("<")
            text = f"ptr<{self.word('an address space')}>"
            self.expect(">")
        else:
            text = self.word("a type")
        parsed = parse_type(text)
        if parsed is None:
            raise self.error(f"unknown type '{text}'", tok)
        return parsed
