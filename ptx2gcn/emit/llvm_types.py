"""IR types → llvmlite types, and IR address spaces → AMDGPU LLVM address spaces.

Invariant: the mapping is total over the IR's types and fixed: predicates are ``i1``, integers
``iN``, floats ``half``/``bfloat``/``float``/``double``, packed halves ``<2 x half>``/``<2 x bfloat>``,
vectors LLVM vectors, and pointers ``ptr addrspace(N)`` with N from ``ADDRSPACE`` (AMDGPUUsage
"Address Spaces": flat 0, global 1, region 2, local/LDS 3, constant 4, private 5). PTX ``.param``
memory of device functions lives in private allocas (addrspace 5); kernel parameters are read from
the kernarg segment, which is constant memory (addrspace 4).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from llvmlite import ir

from ptx2gcn.ir.types import AddrSpace, FloatType, IntType, PackedType, PredType, PtrType, Type, VectorType

ADDRSPACE: dict[AddrSpace, int] = {
    AddrSpace.GENERIC: 0,
    AddrSpace.GLOBAL: 1,
    AddrSpace.SHARED: 3,
    AddrSpace.CONST: 4,
    AddrSpace.KPARAM: 4,
    AddrSpace.LOCAL: 5,
    AddrSpace.PARAM: 5,
}
"""PTX state space of an IR pointer → LLVM AMDGPU address space."""

POINTER_BITS: dict[int, int] = {0: 64, 1: 64, 3: 32, 4: 64, 5: 32}
"""Width of a pointer in each LLVM address space (gfx9 data layout)."""

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I16 = ir.IntType(16)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
HALF = ir.HalfType()
FLOAT = ir.FloatType()
DOUBLE = ir.DoubleType()
VOID = ir.VoidType()


class BFloatType(ir.Type):
    """LLVM's ``bfloat`` (llvmlite has no class for it; only its spelling matters here)."""

    null = "0xR0000"
    intrinsic_name = "bf16"

    def _to_string(self) -> str:
        return "bfloat"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BFloatType)

    def __hash__(self) -> int:
        return hash("bfloat")

    def format_constant(self, value: object) -> str:
        assert isinstance(value, int)
        return f"0xR{value & 0xFFFF:04X}"


BFLOAT = BFloatType()
_FLOATS: dict[str, ir.Type] = {"f16": HALF, "bf16": BFLOAT, "f32": FLOAT, "f64": DOUBLE}


@cache
def pointer(addrspace: int) -> ir.PointerType:
    return ir.PointerType(addrspace=addrspace)


def _vector(t: VectorType) -> ir.Type:
    if isinstance(t.elem, PackedType):  # LLVM has no vectors of vectors: same bits, flattened
        return ir.VectorType(_FLOATS[t.elem.elem.kind], 2 * t.count)
    return ir.VectorType(llvm_type(t.elem), t.count)


_BY_KIND: dict[type[Type], Callable[[Any], ir.Type]] = {
    PredType: lambda t: I1,
    IntType: lambda t: ir.IntType(t.width),
    FloatType: lambda t: _FLOATS[t.kind],
    PackedType: lambda t: ir.VectorType(_FLOATS[t.elem.kind], 2),
    VectorType: _vector,
    PtrType: lambda t: pointer(ADDRSPACE[t.space]),
}


@cache
def llvm_type(t: Type) -> ir.Type:
    """The LLVM type that holds IR values of type ``t``."""
    convert = _BY_KIND.get(type(t))
    if convert is None:
        raise TypeError(f"no LLVM type for IR type {t}")
    return convert(t)


def float_of_width(bits: int) -> ir.Type:
    return {16: HALF, 32: FLOAT, 64: DOUBLE}[bits]


def int_of(t: ir.Type) -> ir.IntType:
    """The integer type as wide as scalar LLVM type ``t``."""
    if isinstance(t, ir.IntType):
        return t
    return ir.IntType(scalar_bits(t))


def scalar_bits(t: ir.Type) -> int:
    if isinstance(t, ir.IntType):
        return t.width
    if isinstance(t, ir.VectorType):
        return scalar_bits(t.element) * t.count
    if isinstance(t, ir.PointerType):
        return POINTER_BITS[t.addrspace]
    return {"half": 16, "bfloat": 16, "float": 32, "double": 64}[str(t)]
