"""Single-token PTX values: number spellings, special-register names, and token → operand nodes.

Invariant: every function here is total on the token shapes the grammar's terminals admit (INT,
FLOAT, REGISTER, IDENT, SINK); a spelling that is lexically a number but not a valid value (``09``
is not octal) raises a located ``Ptx2GcnError``, never ``ValueError``.
"""

from __future__ import annotations

import re
import struct

from lark import Token

from ptx2gcn.diagnostics import Ptx2GcnError, SourceFile, Span
from ptx2gcn.frontend import ast

# https://docs.nvidia.com/cuda/parallel-thread-execution/#special-registers
SPECIAL_REGISTERS: frozenset[str] = frozenset({
    "%tid", "%ntid", "%laneid", "%warpid", "%nwarpid", "%ctaid", "%nctaid", "%smid", "%nsmid",
    "%gridid", "%is_explicit_cluster", "%clusterid", "%nclusterid", "%cluster_ctaid",
    "%cluster_nctaid", "%cluster_ctarank", "%cluster_nctarank", "%lanemask_eq", "%lanemask_le",
    "%lanemask_lt", "%lanemask_ge", "%lanemask_gt", "%clock", "%clock_hi", "%clock64",
    "%globaltimer", "%globaltimer_lo", "%globaltimer_hi", "%total_smem_size", "%aggr_smem_size",
    "%dynamic_smem_size", "%current_graph_exec", "%reserved_smem_offset_begin",
    "%reserved_smem_offset_end", "%reserved_smem_offset_cap", "%reserved_smem_offset_0",
    "%reserved_smem_offset_1",
})
_NUMBERED_SPECIAL = re.compile(r"%(?:envreg(?:[12]?[0-9]|3[01])|pm[0-7](?:_64)?)")

# Opcodes whose name operands are code labels rather than data symbols.
LABEL_OPCODES: frozenset[str] = frozenset({"bra"})


def is_special_register(name: str) -> bool:
    """Whether ``name`` (without component) is a predefined PTX special register."""
    return name in SPECIAL_REGISTERS or _NUMBERED_SPECIAL.fullmatch(name) is not None


# SIMPLE_OPERANDS text (grammar/ptx.lark) was already matched by the grammar's stricter pattern, so
# splitting it needs no full tokeniser: no atom contains ',' ';' or outer blanks, and an atom's first
# character says what it is ('[' address, '-' or a digit number, else a name). Only an address is
# taken apart, by this pattern.
_INT_BODY = r"(?:0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)[uU]?"
_SIMPLE_ADDRESS = re.compile(
    rf"""\[[ \t]*(?P<base>%?[\w$]+)[ \t]*
        (?:(?P<sign>\+[ \t]*-?|-)[ \t]*(?P<off>{_INT_BODY})[ \t]*)?\]""",
    re.VERBOSE,
)
_NUMBER_START = frozenset("-0123456789")
_HEX_FLOAT_PREFIXES = ("0f", "0F", "0d", "0D")


def token_span(tok: Token, file: str, source: SourceFile) -> Span:
    return Span(file, tok.line or 0, tok.column or 0, tok.end_line or 0, tok.end_column or 0, source)


def join_span(first: Span, last: Span) -> Span:
    """The span from the start of ``first`` to the end of ``last``."""
    return Span(first.file, first.line, first.column, last.end_line, last.end_column, first.source)


def int_value(text: str, span: Span) -> int:
    """The value of an INT spelling: ``0x``/``0X`` hex, ``0b`` binary, ``0``-led octal, decimal,
    each with an optional ``U`` suffix and (when passed in) a leading ``-``. PTX integer constants
    are 64-bit values: a magnitude of 2**64 or more is an error here (ptxas reports "Constant
    overflow" for long decimals but silently wraps some 65-bit spellings; we do not guess)."""
    if text.isdigit() and (text[0] != "0" or len(text) == 1) and len(text) < 20:  # the common case
        return int(text)
    body = text.lstrip("-").rstrip("uU")
    sign = -1 if text.startswith("-") else 1
    prefix = body[:2].lower()
    base, digits = (16, body[2:]) if prefix == "0x" else (2, body[2:]) if prefix == "0b" else (
        (8, body[1:]) if len(body) > 1 and body[0] == "0" else (10, body))
    if len(digits.lstrip("0")) > 64:  # 64 binary digits is the longest valid spelling
        raise Ptx2GcnError.at(span, f"integer constant '{text[:24]}...' does not fit in 64 bits")
    try:
        value = int(digits, base)
    except ValueError:
        raise Ptx2GcnError.at(span, f"invalid integer constant '{text}' (a leading 0 means octal)") from None
    if value >= 1 << 64:
        raise Ptx2GcnError.at(span, f"integer constant '{text}' does not fit in 64 bits")
    return sign * value


def float_value(text: str, span: Span) -> float:
    """The value of a FLOAT spelling: ``0f`` + 8 hex digits (f32 bits), ``0d`` + 16 (f64 bits), or
    a decimal floating-point literal; a leading ``-`` negates."""
    body = text.lstrip("-")
    sign = -1.0 if text.startswith("-") else 1.0
    prefix = body[:2].lower()
    if prefix == "0f":
        return sign * struct.unpack(">f", bytes.fromhex(body[2:]))[0]
    if prefix == "0d":
        return sign * struct.unpack(">d", bytes.fromhex(body[2:]))[0]
    try:
        return sign * float(body)
    except ValueError:
        raise Ptx2GcnError.at(span, f"invalid floating-point constant '{text}'") from None


def name_operand(text: str, span: Span) -> ast.Operand:
    """REGISTER → Register/SpecialRegister; IDENT → Symbol, or Register when it has a component."""
    if "." in text:
        base, _, component = text.partition(".")
        comp: str | None = component
    else:
        base, comp = text, None
    if base[0] == "%":
        if base in SPECIAL_REGISTERS or (base[1:2] in ("e", "p") and is_special_register(base)):
            return ast.SpecialRegister(span, base, comp)
        return ast.Register(span, base, comp)
    if comp is not None:
        return ast.Register(span, base, comp)
    return ast.Symbol(span, base)


def token_operand(tok: Token, file: str, source: SourceFile, negate: bool = False) -> ast.Operand:
    """The operand node for one token (``negate`` folds a preceding ``-`` into an immediate)."""
    span = token_span(tok, file, source)
    kind = tok.type
    if kind == "REGISTER" or kind == "IDENT":
        return name_operand(tok.value, span)
    text = "-" + tok.value if negate else tok.value
    if kind == "INT":
        return ast.IntImmediate(span, int_value(text, span), text)
    if kind == "FLOAT":
        return ast.FloatImmediate(span, float_value(text, span), text)
    if kind == "SINK":
        return ast.Sink(span)
    raise Ptx2GcnError.at(span, f"unexpected '{tok.value}' in operand position")


def simple_operands(text: str, line: int, col0: int, file: str, source: SourceFile | None,
                    labels: bool) -> tuple[ast.Operand, ...]:
    """The operands of a SIMPLE_OPERANDS text (one line, trailing ';') starting at ``line``:``col0``;
    ``labels`` makes bare names ``Label``s (branch targets) instead of ``Symbol``s."""
    out: list[ast.Operand] = []
    column = col0  # of the current comma-separated part
    for part in text[:-1].split(","):
        atom = part.strip(" \t")
        start = column + len(part) - len(part.lstrip(" \t"))
        column += len(part) + 1
        span = Span(file, line, start, line, start + len(atom), source)
        first = atom[0]
        operand: ast.Operand
        if first == "[":
            match = _SIMPLE_ADDRESS.fullmatch(atom)
            assert match is not None, atom  # the grammar admitted it
            operand = _simple_address(match, span)
        elif first in _NUMBER_START:
            if atom.lstrip("-").startswith(_HEX_FLOAT_PREFIXES):
                operand = ast.FloatImmediate(span, float_value(atom, span), atom)
            else:
                operand = ast.IntImmediate(span, int_value(atom, span), atom)
        else:
            operand = name_operand(atom, span)
            if labels and type(operand) is ast.Symbol:
                operand = ast.Label(span, atom)
        out.append(operand)
    return tuple(out)


def _simple_address(m: re.Match[str], span: Span) -> ast.Address:
    base_text = m.group("base")
    start = span.column + m.start("base") - m.start()
    base_span = Span(span.file, span.line, start, span.line, start + len(base_text), span.source)
    base: ast.Operand
    if base_text[0].isdigit():
        base = ast.IntImmediate(base_span, int_value(base_text, base_span), base_text)
    else:
        base = name_operand(base_text, base_span)
    off_text = m.group("off")
    if off_text is None:
        return ast.Address(span, base, None)
    negative = "-" in m.group("sign")
    first = m.start("sign") + m.group("sign").index("-") if negative else m.start("off")
    begin = span.column + first - m.start()
    off_span = Span(span.file, span.line, begin, span.line, span.column + m.end("off") - m.start(), span.source)
    text = "-" + off_text if negative else off_text
    return ast.Address(span, base, ast.IntImmediate(off_span, int_value(text, off_span), text))
