"""Float atomic adds as PTX defines them, for ``ptx2gcn.emit.lower_memory``'s ``atom``/``red``:
``.add.f32`` with PTX's flush-to-zero rule, and one atomic per thread for every float add.

PTX ISA 9.7.13.5 (atom): "atom.add.f32 rounds to nearest even and flushes subnormal inputs and
results to sign-preserving zero" on global memory, while the shared-memory form keeps subnormals.
gfx942's ``global_atomic_add_f32`` keeps subnormals (LLVM: FeatureMemoryAtomicFAddF32DenormalSupport),
so there is no single instruction for the global rule.

Invariant: a global ``.add.f32`` (and each element of ``.v2/.v4.f32``) is one compare-and-swap
loop whose update is flush(flush(old) + flush(b)) in f32 round-to-nearest; a generic address
decides at run time (``llvm.amdgcn.is.shared``): shared memory adds without flushing, anything
else flushes. The value returned is the memory word replaced, bit for bit.

Every float add stays one atomic per thread, as PTX defines it. LLVM's AMDGPU atomic optimizer
combines the float adds of a wave to one (global or shared) address into a single add of their
sum (a uniform b becomes b × lane count): 64 threads adding 2^-24 to 1.0f leave 1 + 2^-18, which
no serial order gives (each single add rounds back to 1.0). It skips atomics whose address is
divergent, so a scalar shared ``.add.f32`` and every ``.add.f64`` take their address through an
empty inline asm with a VGPR result (a source of divergence, no instruction); the CAS loop above
is not an ``atomicrmw`` and is left alone anyway.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.llvm_atomics import cas_loop
from ptx2gcn.emit.llvm_types import FLOAT, I1, I8, I32, POINTER_BITS, llvm_type
from ptx2gcn.emit.lower_float_values import flush
from ptx2gcn.ir.core import Op
from ptx2gcn.ir.types import VectorType

_GENERIC, _GLOBAL, _SHARED = 0, 1, 3


def flushes(cx: FnContext, op: Op) -> bool:
    """Whether ``op`` is an ``.add.f32`` that may reach global memory (the flushing CAS loop)."""
    ptr_t = cx.operand(op, 0).type
    return (cx.attr(op, "op") == "add" and cx.attr(op, "type") == "f32" and isinstance(ptr_t, ir.PointerType)
            and ptr_t.addrspace in (_GLOBAL, _GENERIC))


def combinable(cx: FnContext, op: Op) -> bool:
    """A scalar float add the atomic optimizer would combine (global/shared f32 and f64)."""
    ptr_t = cx.operand(op, 0).type
    return (cx.attr(op, "op") == "add" and cx.attr(op, "type") in ("f32", "f64")
            and not isinstance(op.operand(1).type, VectorType) and isinstance(ptr_t, ir.PointerType)
            and ptr_t.addrspace in (_GLOBAL, _SHARED))


def divergent_address(cx: FnContext, ptr: ir.Value) -> ir.Value:
    """``ptr`` through an empty inline asm with a VGPR result: LLVM must treat the address as
    divergent, so its atomic optimizer leaves the add alone (see the module docstring)."""
    laundered = ir.InlineAsm(ir.FunctionType(ptr.type, [ptr.type]), "", "=v,0")
    return cx.builder.call(laundered, [ptr])


def _add_one(cx: FnContext, ptr: ir.Value, value: ir.Value, ordering: str, scope: str) -> ir.Value:
    """One flushing f32 atomic add at ``ptr``; returns the replaced word as f32."""
    b = cx.builder
    assert isinstance(ptr.type, ir.PointerType)
    if ptr.type.addrspace == _GENERIC:
        shared = cx.call("llvm.amdgcn.is.shared", I1, [ptr])
        flushes: ir.Value = b.not_(shared)
    else:
        flushes = ir.Constant(I1, 1)
    addend = flush(cx, value)

    def update(bits: ir.Value) -> ir.Value:
        old = b.bitcast(bits, FLOAT)
        flushed = flush(cx, b.fadd(flush(cx, old), addend))
        return b.bitcast(b.select(flushes, flushed, b.fadd(old, value)), I32)

    return b.bitcast(cas_loop(b, ptr, I32, update, ordering, scope), FLOAT)


def flushing_add(cx: FnContext, op: Op, ordering: str, scope: str) -> ir.Value:
    """The flushing ``.add.f32`` (each element of a vector in turn); returns the replaced value."""
    ptr, value = cx.operand(op, 0), cx.operand(op, 1)
    vector_t = op.operand(1).type
    if not isinstance(vector_t, VectorType):
        return _add_one(cx, ptr, value, ordering, scope)
    # PTX vector atomics are one atomic operation per element (PTX ISA 9.7.13.5)
    b = cx.builder
    assert isinstance(ptr.type, ir.PointerType)
    index_t = ir.IntType(POINTER_BITS[ptr.type.addrspace])
    results = ir.Constant(llvm_type(vector_t), ir.Undefined)
    for index in range(vector_t.count):
        position = ir.Constant(I32, index)
        address = b.gep(ptr, [ir.Constant(index_t, 4 * index)], source_etype=I8)
        old = _add_one(cx, address, b.extract_element(value, position), ordering, scope)
        results = b.insert_element(results, old, position)
    return results
