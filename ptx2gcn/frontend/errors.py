"""Syntax errors in PTX terms: Lark's ``UnexpectedInput`` → a located ``Ptx2GcnError``.

Invariant: every message names what PTX expected in words a PTX author uses (``expected ';' after
instruction``, ``expected a register or immediate``), never a Lark terminal name, and points at the
blamed place: a missing ``;`` is reported just after the previous token, not on the next line.
Common mistakes are recognised by example (``UnexpectedInput.match_examples``) before falling back
to a description of the expected-token set.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ptx2gcn.diagnostics import Ptx2GcnError, SourceFile, Span

_HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"
_KERNEL = _HEADER + ".visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<4>;\n.reg .pred %p;\n"

# Example-based messages (Lark ``match_examples``): each example fails exactly like the mistake.
EXAMPLES: dict[str, list[str]] = {
    "expected ',' between operands": [
        _KERNEL + "add.s32 %r1 %r2, %r3;\n}",
        _KERNEL + "add.s32 %r1, %r2 %r3;\n}",
        _KERNEL + "mov.u32 %r1 1;\n}",
    ],
    "a label needs ':' after its name": [
        _KERNEL + "$L__BB0_1\nret;\n}",
        _KERNEL + "loop\nret;\n}",
    ],
    "expected ']' to close the address": [
        _KERNEL + "ld.global.u32 %r1, [%r2;\n}",
        _KERNEL + "ld.global.u32 %r1, [%r2+4;\n}",
    ],
    "an instruction must start with a lower-case opcode": [
        _KERNEL + "MOV.U32 %r1, %r2;\n}",
        _KERNEL + "Add.s32 %r1, %r2, %r3;\n}",
    ],
    "missing '}' at the end of the function body": [
        _KERNEL + "ret;\n",
        _KERNEL + "ret;\n$L__x:\n",
    ],
}

_PRETTY: dict[str, str] = {
    "SEMI": "';'", "COMMA": "','", "LBRACE": "'{'", "RBRACE": "'}'", "LSQB": "'['", "RSQB": "']'",
    "LPAR": "'('", "RPAR": "')'", "LT": "'<'", "GT": "'>'", "EQUAL": "'='", "PLUS": "'+'",
    "MINUS": "'-'", "BANG": "'!'", "BAR": "'|'", "REGISTER": "a register", "IDENT": "a name",
    "INT": "an integer", "FLOAT": "a floating-point constant", "STRING": "a string",
    "DOTWORD": "a type or state space (.b32, .global, ...)", "OPCODE": "an instruction",
    "LABEL_DEF": "a label", "GUARD": "a predicate guard", "SINK": "'_'", "ALIGN": "'.align'",
    "ENTRY": "'.entry'", "FUNC": "'.func'", "DWARF": "'@@DWARF'", "SIMPLE_OPERANDS": "operands",
    "SIMPLE_INSTRUCTIONS": "an instruction",
    "$END": "end of file",
}


_NOT_TEXT = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f\udc80-\udcff]")


def binary_error(source: SourceFile) -> Ptx2GcnError | None:
    """A prompt error for the first byte that cannot be in PTX text: a control byte, or (when the
    text was decoded with ``surrogateescape``) a byte that is not valid UTF-8."""
    match = _NOT_TEXT.search(source.text)
    if match is None:
        return None
    line, column = source.position(match.start())
    # No excerpt: echoing binary data to a terminal helps nobody.
    span = Span(source.name, line, column, line, column + 1, None)
    char = ord(match.group())
    if char >= 0xDC80:
        offset = len(source.text[:match.start()].encode("utf-8", "surrogateescape"))
        return Ptx2GcnError.at(span, f"invalid UTF-8 byte 0x{char - 0xDC00:02x} at offset {offset}: "
                                     "this is not a PTX text file")
    return Ptx2GcnError.at(span, f"unexpected control byte 0x{char:02x}: this is binary data, not PTX text")


MAX_EXCERPT_LINE = 1000
"""Source lines longer than this are not echoed under an error (junk input can be one huge line)."""


def syntax_error(error: UnexpectedInput, source: SourceFile,
                 reparse: Callable[[str], object]) -> Ptx2GcnError:
    """Translate a Lark parse error on ``source`` into a located PTX diagnostic."""
    found = _syntax_error(error, source, reparse)
    span = found.span
    if span is not None and len(source.line_text(span.line)) > MAX_EXCERPT_LINE:
        span = Span(span.file, span.line, span.column, span.end_line, span.end_column, None)
        return Ptx2GcnError.at(span, found.diagnostics[0].message)
    return found


def _syntax_error(error: UnexpectedInput, source: SourceFile,
                  reparse: Callable[[str], object]) -> Ptx2GcnError:
    if isinstance(error, UnexpectedCharacters):
        return _bad_character(error, source)
    token = error.token if isinstance(error, (UnexpectedToken, UnexpectedEOF)) else None
    expected: set[str] = set()
    if isinstance(error, UnexpectedToken):
        expected = set(error.accepts or error.expected)
    elif isinstance(error, UnexpectedEOF):
        expected = set(error.expected)
    if token is not None and token.type != "$END":
        start = token.start_pos or 0
        if source.text.startswith("/*", start):
            line, column = source.position(start)
            return Ptx2GcnError.at(Span(source.name, line, column, line, column + 2, source),
                                   "unterminated comment (missing '*/')")
    missing = _missing_semicolon(token, expected, source)
    if missing is not None:
        return missing
    label = _match_example(error, reparse)
    if label is not None:
        if label.startswith("missing '}'"):
            return Ptx2GcnError.at(_end_span(source), label)
        return Ptx2GcnError.at(_token_span(token, source), f"{label}, found {_describe(token)}")
    if token is None or token.type == "$END":
        what = _expected_words(expected)
        return Ptx2GcnError.at(_end_span(source), f"unexpected end of file; expected {what}")
    return _unexpected_token(token, expected, source)


def _match_example(error: UnexpectedInput, reparse: Callable[[str], object]) -> str | None:
    try:
        return error.match_examples(reparse, EXAMPLES, use_accepts=True)
    except (UnexpectedInput, RecursionError):  # an example that parses differently: no match
        return None


def _missing_semicolon(token: Token | None, expected: set[str], source: SourceFile) -> Ptx2GcnError | None:
    """``expected ';'`` at the end of the previous line when the statement simply lacks its ';'."""
    if token is None or "SEMI" not in expected or "OPCODE" in expected:
        return None
    end = len(source.text) if token.type == "$END" else (token.start_pos or 0)
    previous = _previous_end(source, end)
    if previous is None or (token.type != "$END" and previous.line >= (token.line or 0)):
        return None
    # The statement that lacks its ';' starts the blamed line in practice: a directive or
    # declaration starts with '.', anything else in a body is an instruction.
    context = "declaration" if source.line_text(previous.line).lstrip().startswith(".") else "instruction"
    return Ptx2GcnError.at(previous, f"expected ';' after {context}")


def _unexpected_token(token: Token, expected: set[str], source: SourceFile) -> Ptx2GcnError:
    span = _token_span(token, source)
    found = _describe(token)
    start = token.start_pos or 0
    if start > 0 and source.text[start - 1] == "0" and str(token.value)[:1] in ("f", "F", "d", "D"):
        line, column = source.position(start - 1)
        return Ptx2GcnError.at(Span(source.name, line, column, line, column + 2, source),
                               "a hexadecimal float needs exactly 8 hex digits after 0f or 16 after 0d")
    if expected and expected <= {"MINUS", "INT"} and token.type in ("REGISTER", "IDENT", "SIMPLE_OPERANDS"):
        return Ptx2GcnError.at(span, "an address offset must be an integer constant (PTX has no "
                                     f"[register+register] addressing), found {found}")
    in_instruction = "OPCODE" not in expected and not _on_directive_line(source, token)
    if in_instruction and {"SEMI", "COMMA"} <= expected:
        return Ptx2GcnError.at(span, f"expected ',' or ';' after operand, found {found}")
    if in_instruction and {"REGISTER", "INT"} <= expected:
        return Ptx2GcnError.at(span, f"expected a register or immediate, found {found}")
    if "OPCODE" in expected:
        text = str(token.value)
        if token.type == "IDENT" and text != text.lower():
            return Ptx2GcnError.at(span, f"an instruction must start with a lower-case opcode, found {found}")
        if token.type in ("IDENT", "REGISTER") and source.text[token.end_pos or 0:].lstrip(" \t")[:1] in ("\n", ""):
            return Ptx2GcnError.at(span, f"a label needs ':' after its name, found {found}")
        return Ptx2GcnError.at(span, f"expected an instruction, label, declaration or '}}', found {found}")
    if "ENTRY" in expected and "FUNC" in expected and "VERSION" in expected:
        return Ptx2GcnError.at(span, "expected a directive (.version, .target, .entry, .func, "
                                     f"a variable declaration), found {found}")
    return Ptx2GcnError.at(span, f"unexpected {found}; expected {_expected_words(expected)}")


def _on_directive_line(source: SourceFile, token: Token) -> bool:
    """Whether the statement around ``token`` is a directive or declaration (its line starts with
    '.'), so operand-specific wording would mislead."""
    return source.line_text(token.line or 0).lstrip().startswith(".")


def _bad_character(error: UnexpectedCharacters, source: SourceFile) -> Ptx2GcnError:
    pos = error.pos_in_stream
    line, column = source.position(pos)
    span = Span(source.name, line, column, line, column + 1, source)
    rest = source.text[pos:pos + 2]
    if rest.startswith('"'):
        return Ptx2GcnError.at(span, "unterminated string constant (missing closing '\"')")
    if rest == "/*":
        return Ptx2GcnError.at(span, "unterminated comment (missing '*/')")
    char = source.text[pos] if pos < len(source.text) else ""
    if char == "#":
        return Ptx2GcnError.at(span, "preprocessor directives are not PTX (only '# <line> \"file\"' "
                                     "line markers are accepted); run the C preprocessor first")
    if char and not char.isprintable() and not char.isspace():
        return Ptx2GcnError.at(span, f"unexpected character U+{ord(char):04X}; PTX is plain text")
    allowed = {n for n in (error.allowed or ()) if n != "IGNORED"}
    if allowed:
        return Ptx2GcnError.at(span, f"unexpected character '{char}'; expected {_expected_words(allowed)}")
    return Ptx2GcnError.at(span, f"unexpected character '{char}'")


def _first_atom(token: Token) -> str:
    """The text a user sees as "the token": the first operand of a SIMPLE_OPERANDS token, the guard
    or opcode that starts a SIMPLE_INSTRUCTIONS run (what GUARD/OPCODE would have been)."""
    text = str(token.value)
    if token.type == "SIMPLE_OPERANDS":
        text = text.split(",", 1)[0].rstrip(" \t;")
    elif token.type == "SIMPLE_INSTRUCTIONS":
        text = text.split(None, 1)[0]
    return text


def _describe(token: Token | None) -> str:
    if token is None or token.type == "$END":
        return "end of file"
    text = _first_atom(token)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"'{text}'"


_LITERALS: dict[str, str] = {}
"""Terminal name → its literal text, for string terminals (set once by ``set_literal_terminals``)."""


def set_literal_terminals(literals: Mapping[str, str]) -> None:
    """Tell the error wording what each string terminal spells (``__ANON_3`` → ``.maxntid``)."""
    _LITERALS.update(literals)


def _expected_words(expected: set[str]) -> str:
    words = sorted({_PRETTY.get(n) or _literal(n) for n in expected if n not in ("IGNORED", "LINE_MARKER", "$END")})
    if not words:
        return "nothing more"
    if len(words) > 8:
        words = words[:8] + ["..."]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _literal(name: str) -> str:
    """A string terminal in quotes (VERSION → "'.version'"); other names as a last resort."""
    if name in _LITERALS:
        return f"'{_LITERALS[name]}'"
    return name.lower()


def _token_span(token: Token | None, source: SourceFile) -> Span:
    if token is None or token.line is None:
        return _end_span(source)
    if token.type in ("SIMPLE_OPERANDS", "SIMPLE_INSTRUCTIONS"):
        column = token.column or 0
        return Span(source.name, token.line, column, token.line, column + len(_first_atom(token)), source)
    return Span(source.name, token.line, token.column or 0, token.end_line or token.line,
                token.end_column or 0, source)


def _end_span(source: SourceFile) -> Span:
    line, column = source.position(len(source.text.rstrip()))
    return Span(source.name, line, column, line, column + 1, source)


def _previous_end(source: SourceFile, pos: int) -> Span | None:
    """The position just after the last non-comment, non-space character before ``pos``."""
    line, _ = source.position(pos)
    text = source.line_text(line)[:source.position(pos)[1] - 1]
    while True:
        code = text.split("//", 1)[0].rstrip()
        if code:
            column = len(code) + 1
            return Span(source.name, line, column, line, column + 1, source)
        line -= 1
        if line < 1:
            return None
        text = source.line_text(line)
