"""The reference model's entry point: evaluate one PTX instruction spelling on numpy operands.

Invariant: ``evaluate`` routes by opcode (and, for opcodes shared by integer and float families,
by the instruction type) to exactly one family module; an opcode or modifier the model does not
know raises ``ReferenceInputError`` naming it, never a guess. Operand order is PTX's source order;
extra implicit operands (CC.CF for ``addc``/``subc``/``madc``) come last.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ptx2gcn.reference import atomics, bits, compare, convert, floats, integer, video, warp
from ptx2gcn.reference.errors import OperandCountError, ReferenceInputError
from ptx2gcn.reference.ptxtypes import PtxType
from ptx2gcn.reference.result import Result
from ptx2gcn.reference.spelling import Spelling

Handler = Callable[[Spelling, Sequence[object]], Result]

_SHARED = set(integer.HANDLERS) & set(floats.HANDLERS)
_TABLES: tuple[dict[str, Handler], ...] = (integer.HANDLERS, floats.HANDLERS, bits.HANDLERS,
                                           compare.HANDLERS, convert.HANDLERS, atomics.HANDLERS,
                                           video.HANDLERS)


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


@dataclass(frozen=True)
class Signature:
    """What a spelling reads and writes: source and destination types in PTX operand order."""

    sources: tuple[PtxType, ...]
    destinations: tuple[PtxType, ...]


def signature(spelling: str) -> Signature:
    """The operand types of ``spelling``, found by evaluating it on zeros (so every refusal the model
    would give for real operands is raised here too)."""
    sp = Spelling.parse(spelling)
    try:
        evaluate(sp.opcode, sp.modifiers)
        counts: tuple[int, ...] = (0,)
    except OperandCountError as err:
        counts = err.expected
    if not counts:
        raise ReferenceInputError(f"{spelling}: operand count not discoverable")
    for count in counts[:-1]:  # several counts (2- or 3-input min/max): the first the modifiers allow
        try:
            result = evaluate(sp.opcode, sp.modifiers, *([np.uint64(0)] * count))
        except ReferenceInputError:
            continue
        return Signature(result.sources, tuple(out.type for out in result.outputs))
    result = evaluate(sp.opcode, sp.modifiers, *([np.uint64(0)] * counts[-1]))
    return Signature(result.sources, tuple(out.type for out in result.outputs))


def disagreements(spelling: str, inputs: Sequence[object], actual: Sequence[object],
                  limit: int = 10) -> list[str]:
    """Readable reports of the lanes where ``actual`` (one array per destination, as a device
    produced them: the conformance suite's output or a CUDA golden file) differs from the model;
    empty when every lane agrees. At most ``limit`` lanes are described."""
    result = run(spelling, *inputs)
    ok = result.matches(*actual)
    arrays = [np.broadcast_to(np.asarray(a), ok.shape) for a in actual]
    reports: list[str] = []
    for index in zip(*np.nonzero(~ok)) if ok.ndim else ([()] if not ok else []):
        if len(reports) == limit:
            reports.append(f"... {int((~ok).sum()) - limit} more lanes differ")
            break
        got = ", ".join(_show(a[index]) for a in arrays)
        reports.append(f"{spelling} lane {tuple(int(i) for i in index)}: got {got}; "
                       f"expected {result.explain(index).replace(chr(10), '; ')}")
    return reports


def _show(value: object) -> str:
    array = np.asarray(value)
    if array.dtype.kind == "b":
        return str(bool(array))
    if array.dtype.kind == "f":
        array = array.view(f"uint{array.dtype.itemsize * 8}")
    return f"0x{int(array):x}"


def run(spelling: str, *inputs: object) -> Result:
    """``run("mad.hi.sat.s32", a, b, c)``: the spelling as written in PTX."""
    sp = Spelling.parse(spelling)
    return evaluate(sp.opcode, sp.modifiers, *inputs)
