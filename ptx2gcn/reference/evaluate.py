"""The reference model's entry point: evaluate one PTX instruction spelling on numpy operands.

Invariant: ``evaluate`` routes by opcode (and, for opcodes shared by integer and float families,
by the instruction type) to exactly one family module; an opcode or modifier the model does not
know raises ``ReferenceInputError`` naming it, never a guess. Operand order is PTX's source order;
extra implicit operands (CC.CF for ``addc``/``subc``/``madc``) come last.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ptx2gcn.reference import atomics, bits, compare, convert, floats, integer, warp
from ptx2gcn.reference.errors import ReferenceInputError
from ptx2gcn.reference.result import Result
from ptx2gcn.reference.spelling import Spelling

Handler = Callable[[Spelling, Sequence[object]], Result]

_SHARED = set(integer.HANDLERS) & set(floats.HANDLERS)
_TABLES: tuple[dict[str, Handler], ...] = (integer.HANDLERS, floats.HANDLERS, bits.HANDLERS,
                                           compare.HANDLERS, convert.HANDLERS, atomics.HANDLERS)


def opcodes() -> list[str]:
    """Every opcode the model evaluates (each still checks its own modifiers and types)."""
    names = set(warp.HANDLERS)
    for table in _TABLES:
        names |= set(table)
    return sorted(names)


def _family(sp: Spelling) -> Handler:
    if sp.opcode in _SHARED:
        table = floats.HANDLERS if sp.type.is_float else integer.HANDLERS
        return table[sp.opcode]
    for table in _TABLES:
        if sp.opcode in table:
            return table[sp.opcode]
    raise ReferenceInputError(f"{sp.text}: opcode '{sp.opcode}' is not modelled")


def evaluate(opcode: str, modifiers: Sequence[str] = (), *inputs: object) -> Result:
    """Evaluate ``opcode.modifiers...`` lane-wise on the broadcast ``inputs``.

    ``evaluate("add", ("sat", "s32"), a, b)`` or, equivalently, ``run("add.sat.s32", a, b)``.
    Warp-level instructions take whole-warp operands: see ``ptx2gcn.reference.warp``.
    """
    sp = Spelling(opcode, tuple(m.removeprefix(".") for m in modifiers))
    if sp.opcode in warp.HANDLERS:
        return warp.HANDLERS[sp.opcode](sp, inputs)
    return _family(sp)(sp, inputs)


def run(spelling: str, *inputs: object) -> Result:
    """``run("mad.hi.sat.s32", a, b, c)``: the spelling as written in PTX."""
    sp = Spelling.parse(spelling)
    return evaluate(sp.opcode, sp.modifiers, *inputs)
