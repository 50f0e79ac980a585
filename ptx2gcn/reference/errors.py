"""The one error the reference model raises for a spelling or operand it cannot evaluate.

Invariant: every refusal names the instruction (or type) and the reason; the model never answers a
question it does not model with a guess. It is an ``UnsupportedError`` (a ``Ptx2GcnError``), so a
command that drives the model renders it like any other diagnostic; there is no source location,
because the model is called with spellings, not PTX text.
"""

from __future__ import annotations

from collections.abc import Sequence

from ptx2gcn.diagnostics import Diagnostic, Severity, UnsupportedError


class ReferenceInputError(UnsupportedError, ValueError):
    """An opcode/modifier combination or operand the reference model does not accept."""

    def __init__(self, message: str | Diagnostic | Sequence[Diagnostic]) -> None:
        if isinstance(message, str):
            message = Diagnostic(Severity.ERROR, None, f"reference model: {message}")
        super().__init__(message)


class OperandCountError(ReferenceInputError):
    """The instruction was given the wrong number of source operands; ``expected`` lists the counts
    it accepts (so a generator can discover an instruction's arity). Pickling keeps the message
    only (``expected`` comes back empty)."""

    def __init__(self, message: str | Diagnostic | Sequence[Diagnostic],
                 expected: tuple[int, ...] = ()) -> None:
        super().__init__(message)
        self.expected = expected
