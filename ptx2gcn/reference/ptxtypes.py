"""PTX scalar and packed types as the reference model sees them: widths, signedness, bit helpers.

Invariant: every value inside the model is a bit pattern (a non-negative Python ``int`` below
``2**width``) or, for predicates, a ``bool``; numpy arrays cross the API boundary only, as unsigned
integer arrays of the type's width (``bool`` for ``.pred``). Signed and float interpretations are
derived from the bits here, so no module re-implements two's complement.

PTX ISA 5.2.2 (Fundamental Types) and 5.2.5 (Packed Data Types).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from ptx2gcn.reference.errors import ReferenceInputError

Kind = Literal["b", "u", "s", "f", "pred"]


@dataclass(frozen=True, slots=True)
class PtxType:
    """One PTX type: ``name`` without the dot, storage ``width`` in bits, ``kind``, packed ``lanes``."""

    name: str
    width: int
    kind: Kind
    lanes: int = 1
    """Elements packed into one register (2 for ``f16x2``/``s16x2``, 4 for ``e4m3x4``...)."""

    @property
    def element_width(self) -> int:
        return self.width // self.lanes

    @property
    def element(self) -> str:
        """The element type's name for packed types (``f16x2`` -> ``f16``), else the name itself."""
        return self.name.split("x")[0] if self.lanes > 1 else self.name

    @property
    def signed(self) -> bool:
        return self.kind == "s"

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_int(self) -> bool:
        return self.kind in ("b", "u", "s")

    @property
    def dtype(self) -> np.dtype[np.generic]:
        if self.kind == "pred":
            return np.dtype(np.bool_)
        return np.dtype(f"uint{max(self.width, 8)}")


def _table() -> dict[str, PtxType]:
    types: list[PtxType] = [PtxType("pred", 1, "pred")]
    for width in (8, 16, 32, 64):
        types += [PtxType(f"b{width}", width, "b"), PtxType(f"u{width}", width, "u"),
                  PtxType(f"s{width}", width, "s")]
    types += [PtxType("b128", 128, "b")]
    types += [PtxType("f16", 16, "f"), PtxType("bf16", 16, "f"), PtxType("f32", 32, "f"),
              PtxType("f64", 64, "f"), PtxType("tf32", 32, "f"), PtxType("e4m3", 8, "f"),
              PtxType("e5m2", 8, "f")]
    types += [PtxType("f16x2", 32, "f", 2), PtxType("bf16x2", 32, "f", 2), PtxType("f32x2", 64, "f", 2),
              PtxType("u16x2", 32, "u", 2), PtxType("s16x2", 32, "s", 2),
              PtxType("u8x4", 32, "u", 4), PtxType("s8x4", 32, "s", 4),
              PtxType("e4m3x2", 16, "f", 2), PtxType("e5m2x2", 16, "f", 2)]
    return {t.name: t for t in types}


TYPES: dict[str, PtxType] = _table()


def ptx_type(name: str) -> PtxType:
    """The type named ``name`` (with or without a leading dot)."""
    found = TYPES.get(name.removeprefix("."))
    if found is None:
        raise ReferenceInputError(f"unknown PTX type '{name}'")
    return found


def mask(width: int) -> int:
    return (1 << width) - 1


def to_signed(value: int, width: int) -> int:
    """Two's-complement reading of a ``width``-bit pattern."""
    return value - (1 << width) if value >> (width - 1) & 1 else value


def wrap(value: int, width: int) -> int:
    """The low ``width`` bits of any Python int (two's complement for negatives)."""
    return value & mask(width)


def value_of(bits: int, t: PtxType) -> int:
    """The integer a ``u``/``s``/``b`` pattern stands for (``b`` reads as unsigned)."""
    return to_signed(bits, t.width) if t.signed else bits


def saturate(value: int, width: int, signed: bool) -> int:
    """Clamp an exact integer into the range of a ``width``-bit type and return its bit pattern."""
    lo, hi = ((-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, mask(width)))
    return wrap(min(max(value, lo), hi), width)


def split(bits: int, element_width: int, lanes: int) -> list[int]:
    """Packed elements, element 0 in the least significant bits (PTX 5.2.5)."""
    return [bits >> (i * element_width) & mask(element_width) for i in range(lanes)]


def join(parts: Sequence[int], element_width: int) -> int:
    out = 0
    for i, part in enumerate(parts):
        out |= wrap(part, element_width) << (i * element_width)
    return out


def to_bits_array(value: object, t: PtxType) -> npt.NDArray[np.object_]:
    """An operand given as a numpy array or scalar, as an object array of bit-pattern ints.

    Float arrays whose item size equals the type's width are reinterpreted (``np.float32`` for
    ``.f32``); integer arrays and Python ints are wrapped to the width (so ``-1`` is all ones);
    ``.pred`` operands become Python bools.
    """
    arr = np.asarray(value)
    if arr.dtype.kind == "f":
        if arr.dtype.itemsize * 8 != t.width:
            raise ReferenceInputError(
                f"a {arr.dtype} array cannot be the bits of .{t.name} ({t.width} bits); pass raw bits")
        arr = arr.view(f"uint{t.width}")
    if arr.dtype.kind not in "iubO":
        raise ReferenceInputError(f"operand of .{t.name} has unsupported dtype {arr.dtype}")
    items = arr.reshape(-1).tolist()
    if any(not isinstance(x, int) for x in items):
        raise ReferenceInputError(f"operand of .{t.name} holds non-integers")
    if t.kind == "pred":
        converted: list[object] = [bool(x) for x in items]
    else:
        m = mask(t.width)
        converted = [int(x) & m for x in items]
    out = np.empty(len(converted), dtype=object)
    out[:] = converted
    return out.reshape(arr.shape)
