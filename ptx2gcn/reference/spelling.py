"""An instruction spelling (``add.sat.s32``) split into opcode, modifiers and types, plus the lane
driver that applies a per-lane Python function over broadcast numpy operands.

Invariant: a handler sees only modifiers it declared (``Spelling.require`` rejects the rest with a
message naming the instruction), and per-lane functions return one of: a bit pattern ``int``, a
``bool`` (predicates), ``UNDEFINED``, or ``AnyNaN(bits, elements)``; ``build_result`` is the only
place that turns those into ``Output`` arrays.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Final

import numpy as np
import numpy.typing as npt

from ptx2gcn.reference.errors import OperandCountError, ReferenceInputError
from ptx2gcn.reference.ptxtypes import TYPES, PtxType, ptx_type, to_bits_array
from ptx2gcn.reference.result import Output, Result, make_output


class _Undefined:
    """PTX leaves this lane's result unspecified."""

    _instance: _Undefined | None = None

    def __new__(cls) -> _Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNDEFINED"


UNDEFINED: Final = _Undefined()


@dataclass(frozen=True, slots=True)
class AnyNaN:
    """A result whose packed elements flagged in ``elements`` are NaNs of unspecified payload --
    except those also flagged in ``payload``, whose fraction bits must equal ``bits`` (sign free)."""

    bits: int
    elements: int = 1
    payload: int = 0


@dataclass(frozen=True, slots=True)
class Either:
    """Two results are both correct: ``bits`` (the model's primary answer) or ``alternative``."""

    bits: int
    alternative: int


LaneValue = int | bool | _Undefined | AnyNaN | Either


@dataclass(frozen=True, slots=True)
class Spelling:
    opcode: str
    modifiers: tuple[str, ...]
    """Every dot-separated part after the opcode, types included, in written order."""

    @staticmethod
    def parse(text: str) -> Spelling:
        parts = [p for p in text.strip().split(".")]
        if not parts[0] or any(not p for p in parts):
            raise ReferenceInputError(f"malformed instruction spelling '{text}'")
        return Spelling(parts[0], tuple(parts[1:]))

    @property
    def text(self) -> str:
        return ".".join((self.opcode, *self.modifiers))

    @property
    def types(self) -> tuple[PtxType, ...]:
        return tuple(ptx_type(m) for m in self.modifiers if m in TYPES)

    @property
    def type(self) -> PtxType:
        """The (last) type modifier: the instruction type of most opcodes."""
        found = self.types
        if not found:
            raise ReferenceInputError(f"{self.text}: no type modifier")
        return found[-1]

    def has(self, modifier: str) -> bool:
        return modifier in self.modifiers

    def one_of(self, choices: Iterable[str], default: str | None = None) -> str:
        choices = tuple(choices)
        chosen = [m for m in self.modifiers if m in choices]
        if len(chosen) > 1:
            raise ReferenceInputError(f"{self.text}: conflicting modifiers {', '.join(chosen)}")
        if chosen:
            return chosen[0]
        if default is None:
            raise ReferenceInputError(f"{self.text}: needs one of .{', .'.join(choices)}")
        return default

    def require(self, allowed: Iterable[str], types: Iterable[str]) -> None:
        """Reject modifiers and types the handler does not model."""
        allowed_set = set(allowed)
        repeated = sorted({m for m in self.modifiers if self.modifiers.count(m) > 1 and m not in TYPES})
        if repeated:
            raise ReferenceInputError(f"{self.text}: modifier .{repeated[0]} given twice")
        for m in self.modifiers:
            if m in TYPES:
                if m not in set(types):
                    raise ReferenceInputError(f"{self.text}: type .{m} is not valid for {self.opcode}")
            elif m not in allowed_set:
                raise ReferenceInputError(f"{self.text}: modifier .{m} is not modelled for {self.opcode}")
        if not self.types:
            raise ReferenceInputError(f"{self.text}: missing a type")


def operands(inputs: Sequence[object], types: Sequence[PtxType],
             spelling: Spelling) -> list[npt.NDArray[np.object_]]:
    """Convert and broadcast the inputs; their count must match ``types``."""
    if len(inputs) != len(types):
        raise OperandCountError(
            f"{spelling.text}: expected {len(types)} source operands, got {len(inputs)}", (len(types),))
    arrays = [to_bits_array(x, t) for x, t in zip(inputs, types)]
    try:
        return list(np.broadcast_arrays(*arrays))
    except ValueError as err:
        raise ReferenceInputError(f"{spelling.text}: operand shapes do not broadcast: {err}") from None


def _split_lane(value: LaneValue) -> tuple[int | bool, bool, int, int, int | None]:
    """(bits, defined, any-NaN elements, payload elements, alternative bits or None)."""
    if value is UNDEFINED:
        return 0, False, 0, 0, None
    if isinstance(value, AnyNaN):
        return value.bits, True, value.elements, value.payload, None
    if isinstance(value, Either):
        return value.bits, True, 0, 0, value.alternative
    assert isinstance(value, (int, bool))
    return value, True, 0, 0, None


def build_result(out_types: Sequence[PtxType], lanes: Sequence[Sequence[LaneValue]],
                 shape: tuple[int, ...], notes: Sequence[str] = (),
                 sources: Sequence[PtxType] = ()) -> Result:
    """``lanes[i][k]`` is destination ``k`` of lane ``i`` (C order over ``shape``)."""
    outputs: list[Output] = []
    for k, t in enumerate(out_types):
        parts = [_split_lane(lane[k]) for lane in lanes]
        bits = np.empty(len(parts), dtype=object)
        bits[:] = [p[0] for p in parts]
        defined = np.array([p[1] for p in parts], dtype=np.bool_).reshape(shape)
        nan = np.array([p[2] for p in parts], dtype=np.uint8).reshape(shape)
        payload = np.array([p[3] for p in parts], dtype=np.uint8).reshape(shape)
        output = make_output(t, bits.reshape(shape), defined, nan, payload)
        if any(p[4] is not None for p in parts):
            alternative = np.array([p[4] if p[4] is not None else p[0] for p in parts],
                                   dtype=t.dtype).reshape(shape)
            output = replace(output, alternative=alternative)
        outputs.append(output)
    return Result(tuple(outputs), tuple(notes), tuple(sources))


LaneFn = Callable[..., LaneValue | tuple[LaneValue, ...]]


def run_lanes(spelling: Spelling, fn: LaneFn, inputs: Sequence[object], in_types: Sequence[PtxType],
              out_types: Sequence[PtxType], notes: Sequence[str] = ()) -> Result:
    """Apply ``fn`` to every lane of the broadcast operands (Python ints/bools per lane)."""
    arrays = operands(inputs, in_types, spelling)
    shape = arrays[0].shape if arrays else ()
    flat = [a.reshape(-1) for a in arrays]
    count = flat[0].size if flat else 1
    lanes: list[tuple[LaneValue, ...]] = []
    for i in range(count):
        out = fn(*(a[i] for a in flat))
        lanes.append(out if isinstance(out, tuple) else (out,))
    return build_result(out_types, lanes, shape, notes, in_types)
