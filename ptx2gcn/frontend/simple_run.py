"""Simple instructions from their text: one ``[@guard] opcode operands;`` line, or a whole run.

Invariant: the instructions built here are exactly the nodes, spans included, that the grammar's
``GUARD? OPCODE SIMPLE_OPERANDS`` path gives for the same text, and a bad constant inside raises
the same located ``Ptx2GcnError``. A SIMPLE_INSTRUCTIONS token (grammar/ptx.lark) was already
matched by the grammar's strict pattern, so ``split_run`` only segments it: separator (white space
and ``//`` comments), optional guard, opcode, operands up to the line's ``;``. The token may end in
a separator (the white space before a statement that is not part of the run), which is skipped.

When errors are raised matters for getting the same diagnostic as the per-instruction path, which
builds instruction *k* only once the parser has read the token after it: an error in a line of the
run that is followed by another line is raised at once (that next token always lexes), but an
error in the run's LAST line is returned to the caller, which raises it only once the parser has
accepted the token after the run (a syntax or lexical error there is reported first, as before).
"""

from __future__ import annotations

import functools
import re

from ptx2gcn.diagnostics import Ptx2GcnError, SourceFile, Span
from ptx2gcn.frontend import ast
from ptx2gcn.frontend.tokens import LABEL_OPCODES, simple_operands

# Separator (possessive: one way to match), then guard, opcode, operands; see the module docstring.
_RUN_LINE = re.compile(r"(?:[ \t\f\r\n]++|//[^\n]*+)*+(?:(@[^ \t]+)[ \t]+)?([^ \t]+)[ \t]+([^;]*;)")


def guard(text: str, span: Span) -> ast.Guard:
    """The guard node of a GUARD spelling (``@%p``, ``@!%p``) located at ``span``."""
    negated = text[1] == "!"
    return ast.Guard(span, ast.Register(span, text[2:] if negated else text[1:]), negated)


def simple_instruction(span: Span, guard_node: ast.Guard | None, head: str, operands: str,
                       operands_line: int, operands_column: int) -> ast.Instruction:
    """The instruction ``head operands`` (``head`` = opcode with its dotted modifiers; ``operands``
    a SIMPLE_OPERANDS text ending in ``;``, starting at ``operands_line``:``operands_column``)."""
    opcode, modifiers = opcode_and_modifiers(head)
    nodes = simple_operands(operands, operands_line, operands_column, span.file, span.source,
                            opcode in LABEL_OPCODES)
    return ast.Instruction(span, guard_node, opcode, modifiers, nodes)


@functools.lru_cache(maxsize=1024)  # a program spells few distinct heads, each many times
def opcode_and_modifiers(head: str) -> tuple[str, tuple[str, ...]]:
    """``"add.rn.f32"`` → ``("add", (".rn", ".f32"))``."""
    opcode, *mods = head.split(".")
    return opcode, tuple("." + m for m in mods)


def split_run(text: str, line: int, column: int, file: str,
              source: SourceFile) -> tuple[list[ast.Instruction], Ptx2GcnError | None]:
    """The instructions of a SIMPLE_INSTRUCTIONS token whose ``text`` starts at ``line``:``column``,
    and the error of its last line, if any (raised by the caller later; see the module docstring)."""
    out: list[ast.Instruction] = []
    # column(offset) = offset - base on the current line: the token's first line starts at
    # ``column``, a later one just after the newline at offset ``base``.
    base = -column
    done = 0
    # Lines are matched back to back (not searched for: the token may end in a // comment).
    m = _RUN_LINE.match(text)
    while m is not None:
        guard_text, head, operands = m.group(1, 2, 3)
        start = m.start(1) if guard_text is not None else m.start(2)
        newline = text.rfind("\n", done, start)
        if newline >= 0:
            line += text.count("\n", done, start)
            base = newline
        done = m.end()
        span = Span(file, line, start - base, line, done - base, source)
        guard_node = None
        if guard_text is not None:
            guard_node = guard(guard_text, Span(file, line, start - base, line, start - base + len(guard_text), source))
        following = _RUN_LINE.match(text, done)
        try:
            out.append(simple_instruction(span, guard_node, head, operands, line, m.start(3) - base))
        except Ptx2GcnError as error:
            if following is not None:
                raise
            return out, error
        m = following
    return out, None
