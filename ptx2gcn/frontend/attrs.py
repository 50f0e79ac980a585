"""Interpretation of the dotted-word runs in front of declarations, parameters and functions.

The grammar reads ``.visible .global .align 4 .v2 .u32`` as a flat run of DOTWORD / ``.align N``
tokens; this module gives it meaning. Invariant: ``interpret`` either returns an ``Attributes`` in
which every word has exactly one role (linkage, state space, alignment, vector, type, pointer
qualifier, flag) or raises a ``Ptx2GcnError`` located at the offending word.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

from lark import Token

from ptx2gcn.diagnostics import Ptx2GcnError, SourceFile, Span
from ptx2gcn.frontend.tokens import int_value, token_span

# https://docs.nvidia.com/cuda/parallel-thread-execution/#linking-directives
LINKAGE: frozenset[str] = frozenset({".extern", ".visible", ".weak", ".common"})
# https://docs.nvidia.com/cuda/parallel-thread-execution/#state-spaces
STATE_SPACES: frozenset[str] = frozenset({
    ".reg", ".sreg", ".const", ".global", ".local", ".param", ".shared", ".tex", ".generic",
})
VECTORS: frozenset[str] = frozenset({".v2", ".v4", ".v8"})
# https://docs.nvidia.com/cuda/parallel-thread-execution/#fundamental-types
TYPES: frozenset[str] = frozenset({
    ".s8", ".s16", ".s32", ".s64", ".u8", ".u16", ".u32", ".u64", ".b8", ".b16", ".b32", ".b64",
    ".b128", ".f16", ".f16x2", ".bf16", ".bf16x2", ".tf32", ".f32", ".f64", ".pred", ".e4m3",
    ".e5m2", ".e4m3x2", ".e5m2x2", ".e2m1", ".e2m1x2", ".e3m2", ".e2m3", ".ue8m0", ".s2f6",
    ".texref", ".samplerref", ".surfref",
})
_T = TypeVar("_T")

# Other qualifiers kept verbatim (``.ptr`` is handled specially for parameters).
FLAGS: frozenset[str] = frozenset({".ptr", ".unified", ".managed"})


@dataclass(slots=True)
class Attributes:
    """The meaning of one attribute run (mutable while being built, then read once)."""

    span: Span
    linkage: list[str] = field(default_factory=lambda: [])
    state_space: str | None = None
    align: int | None = None
    vector: str | None = None
    type: str | None = None
    flags: list[str] = field(default_factory=lambda: [])
    bank: int | None = None
    is_ptr: bool = False
    ptr_space: str | None = None
    ptr_align: int | None = None


def interpret(tokens: list[Token], file: str, source: SourceFile) -> Attributes:
    """Assign each word of a ``decl_attrs`` run its role (see the module docstring)."""
    spans = [token_span(t, file, source) for t in tokens]
    attrs = Attributes(Span(file, spans[0].line, spans[0].column, spans[-1].end_line,
                            spans[-1].end_column, source))
    index = 0
    while index < len(tokens):
        tok, span = tokens[index], spans[index]
        if tok.type == "ATTRIBUTE":
            index = _variable_attribute(attrs, tokens, spans, index)
            continue
        if tok.type == "ALIGN":
            value = int_value(tokens[index + 1].value, spans[index + 1])
            _set_align(attrs, value, spans[index + 1])
            index += 2
            continue
        _assign_word(attrs, tok.value, span)
        index += 1
    return attrs


def _variable_attribute(attrs: Attributes, tokens: list[Token], spans: list[Span], index: int) -> int:
    """``.attribute(.managed)`` / ``.attribute(.unified(hi, lo))``: kept as one canonical flag.
    Returns the index after the closing parenthesis."""
    name = tokens[index + 2]
    if name.value not in (".managed", ".unified"):
        raise Ptx2GcnError.at(spans[index + 2], f"unknown variable attribute '{name.value}' "
                                                "(expected .managed or .unified)")
    end = index + 3
    numbers: list[str] = []
    if tokens[end].type == "LPAR":
        end += 1
        while tokens[end].type == "INT":
            numbers.append(tokens[end].value)
            end += 1
        end += 1  # the inner ')'
    text = name.value + (f"({', '.join(numbers)})" if numbers else "")
    attrs.flags.append(f".attribute({text})")
    return end + 1


def _set_align(attrs: Attributes, value: int, span: Span) -> None:
    if value <= 0 or value & (value - 1):
        raise Ptx2GcnError.at(span, f"alignment must be a power of two, not {value}")
    if attrs.is_ptr:
        attrs.ptr_align = _once(attrs.ptr_align, value, span, ".align")
    else:
        attrs.align = _once(attrs.align, value, span, ".align")


def _once(current: _T | None, value: _T, span: Span, what: str) -> _T:
    if current is not None:
        raise Ptx2GcnError.at(span, f"more than one {what} in this declaration")
    return value


def _assign_word(attrs: Attributes, word: str, span: Span) -> None:  # noqa: C901
    if word.endswith("]"):  # `.const[2]`: a constant bank (the grammar allows digits only)
        space, _, bank = word[:-1].partition("[")
        if space != ".const" or attrs.is_ptr:
            raise Ptx2GcnError.at(span, f"only .const takes a bank number, not '{space}'")
        if len(bank) > 2 or int(bank) > 10:
            raise Ptx2GcnError.at(span, f"constant bank {bank} does not exist (banks are 0 to 10)")
        attrs.bank = int(bank)
        word = space
    if word in LINKAGE:
        if word in attrs.linkage:
            raise Ptx2GcnError.at(span, f"duplicate '{word}' in this declaration")
        attrs.linkage.append(word)
    elif word in STATE_SPACES:
        if attrs.type is not None and not attrs.is_ptr:
            raise Ptx2GcnError.at(span, f"state space '{word}' must come before the type '{attrs.type}'")
        if attrs.is_ptr:
            attrs.ptr_space = _once(attrs.ptr_space, word, span, "pointer state space")
        else:
            attrs.state_space = _once(attrs.state_space, word, span, "state space")
    elif word in VECTORS:
        if attrs.type is not None:
            raise Ptx2GcnError.at(span, f"vector width '{word}' must come before the type '{attrs.type}'")
        attrs.vector = _once(attrs.vector, word, span, "vector width")
    elif word in TYPES:
        attrs.type = _once(attrs.type, word, span, "type")
    elif word == ".ptr":
        if attrs.is_ptr:
            raise Ptx2GcnError.at(span, "duplicate '.ptr' in this declaration")
        attrs.is_ptr = True
    elif word in FLAGS:
        attrs.flags.append(word)
    else:
        raise Ptx2GcnError.at(span, f"unknown type, state space or qualifier '{word}'")


def require_declaration(attrs: Attributes, what: str) -> tuple[str, str]:
    """The (state space, type) of a variable or parameter; a clear error when either is missing."""
    if attrs.state_space is None:
        raise Ptx2GcnError.at(attrs.span, f"{what} needs a state space (.reg, .param, .global, "
                                          ".shared, .const or .local)")
    if attrs.type is None:
        raise Ptx2GcnError.at(attrs.span, f"{what} needs a type (.b32, .u64, .f32, .pred, ...)")
    return attrs.state_space, attrs.type


def require_linkage_only(attrs: Attributes, what: str) -> tuple[str, ...]:
    """The linkage words in front of ``.entry``/``.func``/``.alias``; anything else is an error."""
    if (attrs.state_space or attrs.type or attrs.vector or attrs.align is not None or attrs.flags
            or attrs.is_ptr):
        raise Ptx2GcnError.at(attrs.span, f"only .extern, .visible, .weak may precede {what}")
    return tuple(attrs.linkage)
