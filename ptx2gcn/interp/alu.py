"""Per-lane arithmetic: every instruction the reference model defines (``ptx2gcn.reference``), run on
the executing lanes of a warp, plus the warp collectives of ``ptx2gcn.reference.warp``.

Invariant: the values come from the reference model alone; a lane gets ``None`` (unspecified) when
any of its operands is unspecified or the model does not fix its bits (an undefined result, a NaN of
open payload, an ``.approx`` interval, two acceptable answers). A collective's result is unspecified
in every executing lane when any executing lane's operand is (it may read any lane). Whatever the
model refuses is an ``UnsupportedError`` at the instruction.
"""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt

from ptx2gcn.diagnostics import UnsupportedError
from ptx2gcn.frontend import ast
from ptx2gcn.interp.state import WARP, Cta, Value, Warp
from ptx2gcn.reference import Output, ReferenceInputError, evaluate, signature
from ptx2gcn.reference.ptxtypes import PtxType
from ptx2gcn.reference.warp import HANDLERS as WARP_HANDLERS

COLLECTIVES = frozenset(WARP_HANDLERS)

CARRY_IN = frozenset({"addc", "subc", "madc"})
CARRY_OUT = frozenset({"add", "sub", "mad", "addc", "subc", "madc"})


def spelling(ins: ast.Instruction) -> str:
    return ".".join((ins.opcode, *(m.lstrip(".") for m in ins.modifiers)))


@functools.lru_cache(maxsize=4096)
def types(text: str, count: int) -> tuple[tuple[PtxType, ...], tuple[PtxType, ...]]:
    """(source types, destination types) of ``text`` with ``count`` sources."""
    sig = signature(text)
    if len(sig.sources) == count:
        return sig.sources, sig.destinations
    opcode, *mods = text.split(".")
    result = evaluate(opcode, mods, *([np.uint64(0)] * count))
    return result.sources, tuple(out.type for out in result.outputs)


def _array(values: list[Value]) -> npt.NDArray[np.object_]:
    out = np.empty(len(values), dtype=object)
    out[:] = [0 if v is None else v for v in values]
    return out


def _destinations(ins: ast.Instruction) -> tuple[list[ast.Operand], tuple[ast.Operand, ...]]:
    first, *rest = ins.operands
    if isinstance(first, ast.Pair):
        return [first.first, first.second], tuple(rest)
    return [first], tuple(rest)


def _model(ins: ast.Instruction, text: str, inputs: list[object]) -> list[Output]:
    try:
        return list(evaluate(ins.opcode, [m.lstrip(".") for m in ins.modifiers], *inputs).outputs)
    except ReferenceInputError as error:
        raise UnsupportedError.feature(ins.span, text, f"the reference model: {error}") from None


def arithmetic(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    """A non-collective instruction of the model: ``d[|p], a, b, ...``."""
    text = spelling(ins)
    dests, sources = _destinations(ins)
    carry_in = ins.opcode in CARRY_IN
    try:
        src_types, dst_types = types(text, len(sources) + carry_in)
    except ReferenceInputError as error:
        raise UnsupportedError.feature(ins.span, text, f"the reference model: {error}") from None
    columns = [cta.read(warp, op, t.name, lanes) for op, t in zip(sources, src_types)]
    if carry_in:
        columns.append([warp.carry[lane] for lane in lanes])
    unknown = [any(column[i] is None for column in columns) for i in range(len(lanes))]
    outputs = _model(ins, text, [_array(column) for column in columns])
    for dest, out in zip(dests, outputs):
        cta.write(warp, dest, out.type.name, lanes, _values(out, unknown))
    if ins.opcode in CARRY_OUT and ".cc" in ins.modifiers and len(outputs) > len(dests):
        for lane, v in zip(lanes, _values(outputs[-1], unknown)):
            warp.carry[lane] = v


def _values(out: Output, unknown: list[bool]) -> list[Value]:
    count = len(unknown)
    bits = np.broadcast_to(np.asarray(out.bits), (count,)).tolist()
    fixed = np.broadcast_to(out.fixed(), (count,)).tolist()
    return [None if unknown[i] or not fixed[i] else bits[i] for i in range(count)]


def collective(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    """A warp collective of ``ptx2gcn.reference.warp`` (shfl/vote/match/redux.sync, activemask,
    elect.sync) executed by ``lanes``: the other lanes of the warp have exited or are not there."""
    text = spelling(ins)
    dests, sources = _destinations(ins)
    try:
        src_types, _ = types(text, len(sources))
    except ReferenceInputError as error:
        raise UnsupportedError.feature(ins.span, text, f"the reference model: {error}") from None
    columns = []
    unknown = False
    for op, t in zip(sources, src_types):
        values: list[Value] = [0] * WARP
        for lane, v in zip(lanes, cta.read(warp, op, t.name, lanes)):
            unknown |= v is None
            values[lane] = 0 if v is None else v
        columns.append(_array(values))
    active = sum(1 << lane for lane in lanes)
    outputs = _model(ins, text, [*columns, np.uint32(active)])
    for dest, out in zip(dests, outputs):
        everyone = _values(out, [unknown] * WARP)
        cta.write(warp, dest, out.type.name, lanes, [everyone[lane] for lane in lanes])
