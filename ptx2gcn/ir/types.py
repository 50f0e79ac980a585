"""IR value types: predicates, signless integers, floats, packed halves, vectors and pointers.

Invariant: types are immutable values compared by value; each has exactly one text spelling
(``str(t)``) and ``parse_type(str(t)) == t``. Integers are signless, as PTX registers are: the
signedness lives on the operation (its ``type`` attribute), never on the value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class AddrSpace(Enum):
    """PTX state spaces that an address can point into (``kparam``: kernel parameters)."""

    GENERIC = "generic"
    GLOBAL = "global"
    SHARED = "shared"
    LOCAL = "local"
    CONST = "const"
    PARAM = "param"
    KPARAM = "kparam"


@dataclass(frozen=True, slots=True)
class Type:
    """Base of all IR types."""

    @property
    def bits(self) -> int:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class PredType(Type):
    """A one-bit predicate (PTX ``.pred``)."""

    @property
    def bits(self) -> int:
        return 1

    def __str__(self) -> str:
        return "pred"


@dataclass(frozen=True, slots=True)
class IntType(Type):
    """A signless integer of ``width`` bits (8, 16, 32, 64 or 128)."""

    width: int

    @property
    def bits(self) -> int:
        return self.width

    def __str__(self) -> str:
        return f"i{self.width}"


@dataclass(frozen=True, slots=True)
class FloatType(Type):
    """An IEEE (or bfloat) scalar: ``f16``, ``bf16``, ``f32``, ``f64``."""

    kind: str

    @property
    def bits(self) -> int:
        return _FLOAT_BITS[self.kind]

    def __str__(self) -> str:
        return self.kind


@dataclass(frozen=True, slots=True)
class PackedType(Type):
    """Two 16-bit floats in one 32-bit register (``f16x2``, ``bf16x2``); element 0 in the low half."""

    elem: FloatType

    @property
    def bits(self) -> int:
        return 2 * self.elem.bits

    def __str__(self) -> str:
        return f"{self.elem.kind}x2"


@dataclass(frozen=True, slots=True)
class VectorType(Type):
    """A short vector (PTX ``.v2``/``.v4``/``.v8``) of scalars; element 0 at the lowest address."""

    elem: Type
    count: int

    @property
    def bits(self) -> int:
        return self.elem.bits * self.count

    def __str__(self) -> str:
        return f"<{self.count} x {self.elem}>"


@dataclass(frozen=True, slots=True)
class PtrType(Type):
    """An address in one state space. Width: 32 bits for shared/local/param spaces, else 64."""

    space: AddrSpace

    @property
    def bits(self) -> int:
        return 32 if self.space in _NARROW_SPACES else 64

    def __str__(self) -> str:
        return f"ptr<{self.space.value}>"


_FLOAT_BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
_NARROW_SPACES = frozenset({AddrSpace.SHARED, AddrSpace.LOCAL, AddrSpace.PARAM})

PRED = PredType()
I8, I16, I32, I64, I128 = IntType(8), IntType(16), IntType(32), IntType(64), IntType(128)
INTEGER_TYPES = (PRED, I8, I16, I32, I64, I128)
"""The predicate and integer types (for tests and tables)."""
F16, BF16, F32, F64 = FloatType("f16"), FloatType("bf16"), FloatType("f32"), FloatType("f64")
F16X2, BF16X2 = PackedType(F16), PackedType(BF16)

_SCALARS: dict[str, Type] = {
    "pred": PRED, "i8": I8, "i16": I16, "i32": I32, "i64": I64, "i128": I128,
    "f16": F16, "bf16": BF16, "f32": F32, "f64": F64, "f16x2": F16X2, "bf16x2": BF16X2,
}
_VECTOR_RE = re.compile(r"<(\d+) x (\w+)>\Z")
_PTR_RE = re.compile(r"ptr<(\w+)>\Z")


def parse_type(text: str) -> Type | None:
    """The type spelled ``text`` (as ``str`` prints it), or None when it is not a type."""
    scalar = _SCALARS.get(text)
    if scalar is not None:
        return scalar
    match = _VECTOR_RE.match(text)
    if match:
        elem = _SCALARS.get(match.group(2))
        count = int(match.group(1))
        return VectorType(elem, count) if elem is not None and count in (2, 3, 4, 8) else None
    match = _PTR_RE.match(text)
    if match:
        try:
            return PtrType(AddrSpace(match.group(1)))
        except ValueError:
            return None
    return None


def int_type(bits: int) -> IntType:
    """The integer type of ``bits`` bits."""
    return IntType(bits)


# PTX fundamental type names (``.s32``, ``.f16x2``, ...) and the IR type of a value of that type.
PTX_TYPES: dict[str, Type] = {
    "pred": PRED,
    "b8": I8, "u8": I8, "s8": I8,
    "b16": I16, "u16": I16, "s16": I16,
    "b32": I32, "u32": I32, "s32": I32,
    "b64": I64, "u64": I64, "s64": I64,
    "b128": I128,
    "f16": F16, "bf16": BF16, "f32": F32, "f64": F64,
    "f16x2": F16X2, "bf16x2": BF16X2,
    "e4m3x2": I16, "e5m2x2": I16, "tf32": I32, "e4m3": I8, "e5m2": I8,
}


PACKED_INT_TYPES: dict[str, Type] = {"u16x2": I32, "s16x2": I32}
"""PTX's packed 16-bit integer instruction types (add/sub/min/max, PTX 8.0): the operands are
``.b32`` registers and the op works on their two 16-bit halves (element 0 in the low half). They
are instruction types only, not register types, so they are not in ``PTX_TYPES``."""


OPAQUE_TYPES = frozenset({"texref", "samplerref", "surfref"})
"""PTX's opaque handle types: variables of these types name textures, samplers and surfaces."""


def ptx_type(name: str) -> Type:
    """IR type of PTX type ``name`` (without the dot); KeyError when unknown."""
    return PTX_TYPES[name]


def is_signed(ptx_name: str) -> bool:
    """Whether PTX type ``ptx_name`` is a signed integer type."""
    return ptx_name.startswith("s") and ptx_name[1:].isdigit()


def is_float_name(ptx_name: str) -> bool:
    """Whether PTX type ``ptx_name`` is a floating-point (scalar or packed) type."""
    return ptx_name in ("f16", "bf16", "f32", "f64", "f16x2", "bf16x2", "tf32")


def is_int(t: Type) -> bool:
    return isinstance(t, IntType)


def is_float(t: Type) -> bool:
    return isinstance(t, (FloatType, PackedType))
