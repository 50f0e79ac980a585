"""The one error the reference model raises for a spelling or operand it cannot evaluate.

Invariant: every refusal names the instruction (or type) and the reason; the model never answers a
question it does not model with a guess.
"""

from __future__ import annotations


class ReferenceInputError(ValueError):
    """An opcode/modifier combination or operand the reference model does not accept."""
