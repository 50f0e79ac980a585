"""infer-address-spaces: turn generic addresses into global/shared/local/const ones where provable.

Requires: a verified module (phase ``ssa``).
Ensures: every ``inttoptr`` to ``ptr<generic>`` whose integer is a *base* plus integer offsets
(``add``), and whose pointer is only used as the address of memory ops (``ld``, ``st``, ``atom``,
``red``, ``prefetch``) or through ``ptradd`` chains ending there, is replaced by the equivalent
``ptr<S>`` computed from the base; the memory ops then access S directly. Bases:
- ``cvta`` from space S (not ``.to``) of an address ``a`` (``a`` possibly ``ptrtoint`` of a
  ``ptr<S>``): a generic address obtained by ``cvta`` from S points into S's window;
- a 64-bit value loaded from a kernel parameter (``ld`` of ``ptr<kparam>``), S = global: a kernel's
  arguments come from the launch, which cannot form a shared or local address (CUDA forbids passing
  pointers to shared or local memory to a kernel launch: Programming Guide, dynamic parallelism;
  LLVM's AMDGPUPromoteKernelArguments makes the same assumption for HIP). Because such a parameter
  may also be a plain integer, its offsets must be *offset-like*: constants, 32-bit values widened
  (``zext``/``sext``/``cvt``), products and left shifts (``mul``, ``shl``: whatever their operands,
  the result is a scaled index, never a pointer — numba's ``index * stride`` with the stride a
  kernel parameter), and sums of offset-like values — never a value that could itself be a generic
  pointer (a block argument, a load, a call result).
Like any pointer analysis, this assumes address arithmetic stays inside the object its base points
into (offsets are offsets). An ``add`` of two bases is not traced, except of two values from kernel
parameters (either is the base: global).
Not handled: addresses merged through block arguments, ``isspacep``-guarded code, generic
pointers loaded from memory (``.ptr.global`` parameter attributes are not needed: every kernel
parameter pointer is global).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ptx2gcn.ir.core import Module, Op, Value
from ptx2gcn.ir.passbase import Pass
from ptx2gcn.ir.types import AddrSpace, IntType, PtrType, int_type

_MEMORY = {"ld": 0, "st": 0, "atom": 0, "red": 0, "prefetch": 0}
_SPACES = {"global": AddrSpace.GLOBAL, "shared": AddrSpace.SHARED, "local": AddrSpace.LOCAL,
           "const": AddrSpace.CONST}


@dataclass(frozen=True)
class InferAddressSpaces(Pass):
    name = "infer-address-spaces"

    def run(self, module: Module) -> bool:
        changed = False
        for fn in module.functions:
            traces: dict[Value, Trace] = {}
            for block in fn.blocks:
                # One rebuild per block (in-place inserts would be quadratic in huge blocks).
                new_ops: list[Op] = []
                pointers: dict[Value, Value] = {}
                """Pointer equivalents of generic integers, made earlier in this block."""
                rewrote = False
                for op in block.ops:
                    replacement = None
                    if op.name == "inttoptr" and op.results[0].type == PtrType(AddrSpace.GENERIC):
                        replacement = _rewrite(op, traces, pointers)
                    if replacement is None:
                        new_ops.append(op)
                        continue
                    new_ops.extend(replacement)
                    rewrote = True
                if rewrote:
                    for op in new_ops:
                        op.parent = block
                    block.ops = new_ops
                    changed = True
        return changed


def _def(value: Value) -> Op | None:
    op = getattr(value, "op", None)
    return op if isinstance(op, Op) else None


def _add_operands(op: Op) -> tuple[Value, Value] | None:
    if op.name == "add" and isinstance(op.results[0].type, IntType) and not op.attrs.get("sat"):
        return op.operand(0), op.operand(1)
    return None


Trace = tuple[AddrSpace, bool] | None
"""(space, whether the base is a kernel parameter, whose offsets must be offset-like), or untraced."""


def _kernel_param_load(op: Op) -> bool:
    """``op`` loads a 64-bit value from a kernel parameter (plain: no ordering, not volatile)."""
    if op.name != "ld" or len(op.results) != 1 or op.results[0].type != int_type(64):
        return False
    if any(op.attrs.get(key) for key in ("sem", "scope", "volatile", "vec")):
        return False
    pointer = op.operand(0)
    while (source := _def(pointer)) is not None and source.name == "ptradd":
        pointer = source.operand(0)
    return isinstance(pointer.type, PtrType) and pointer.type.space is AddrSpace.KPARAM


_WIDENING = ("zext", "sext", "cvt")
_SCALING = ("mul", "shl")
_OFFSET_LIMIT = 64
"""Ops looked at to decide that a value is offset-like (more: not)."""


def _offset_like(value: Value) -> bool:
    """``value`` is a sum of constants, widened ≤32-bit values, products and shifts (iterative, at
    most ``_OFFSET_LIMIT`` ops)."""
    pending, seen = [value], 0
    while pending:
        seen += 1
        if seen > _OFFSET_LIMIT:
            return False
        op = _def(pending.pop())
        if op is None:
            return False
        if op.name == "const":
            continue
        narrow = [u.value for u in op.operands if isinstance(u.value.type, IntType) and u.value.type.bits <= 32]
        if op.name in _WIDENING and len(narrow) == len(op.operands):
            continue
        if op.name in _SCALING:
            continue
        if op.name == "add" and not op.attrs.get("sat"):
            pending.extend(u.value for u in op.operands)
            continue
        return False
    return True


def _combine(pair: tuple[Value, Value], traces: dict[Value, Trace]) -> Trace:
    """The trace of ``pair[0] + pair[1]``: one side a base, the other an offset."""
    first, second = traces[pair[0]], traces[pair[1]]
    if first is not None and second is not None:
        # One of two kernel parameters is the base, the other an offset (numba: data + stride); any
        # other pair of bases is not an address plus an offset.
        return first if first == second == (AddrSpace.GLOBAL, True) else None
    base, other = (first, pair[1]) if first is not None else (second, pair[0])
    if base is None or (base[1] and not _offset_like(other)):
        return None
    return base


def _space(value: Value, traces: dict[Value, Trace]) -> AddrSpace | None:
    """The space S when ``value`` is a base in S plus integer offsets (``add``; module doc), else None.

    Memoised in ``traces`` and evaluated with an explicit stack: address chains can be as long
    as a block."""
    stack = [value]
    while stack:
        top = stack[-1]
        if top in traces:
            stack.pop()
            continue
        op = _def(top)
        if op is None:
            traces[top] = None
        elif op.name == "cvta" and not op.attrs.get("to") and op.attrs.get("space") in _SPACES:
            traces[top] = (_SPACES[str(op.attrs["space"])], False)
        elif _kernel_param_load(op):
            traces[top] = (AddrSpace.GLOBAL, True)
        elif (pair := _add_operands(op)) is not None:
            pending = [v for v in pair if v not in traces]
            if pending:
                stack.extend(pending)
                continue
            traces[top] = _combine(pair, traces)
        else:
            traces[top] = None
        stack.pop()
    trace = traces[value]
    return trace[0] if trace is not None else None


def _only_addresses(ptr: Value) -> bool:
    work = [ptr]
    while work:
        for use in work.pop().uses:
            owner = use.owner
            if owner.name == "ptradd" and owner.operands[0] is use:
                work.append(owner.results[0])
            elif _MEMORY.get(owner.name) != owner.operands.index(use):
                return False
    return True


def _rewrite(op: Op, traces: dict[Value, Trace], pointers: dict[Value, Value]) -> list[Op] | None:
    """The ops computing ``op``'s address in its provable space (``op`` is then retired);
    ``pointers``: the pointer equivalents already computed in this block, reused and extended."""
    space = _space(op.operand(0), traces)
    if space is None or not _only_addresses(op.results[0]):
        return None
    ptr_type = PtrType(space)
    new_ops: list[Op] = []

    def insert(name: str, operands: list[Value], result: PtrType | IntType) -> Value:
        new = Op(name, operands, (result,), {}, op.loc)
        new_ops.append(new)
        return new.results[0]

    # Down the chain of adds to a pointer made before in this block or to the cvta.
    offsets: list[tuple[Value, Value]] = []
    value = op.operand(0)
    while value not in pointers:
        source = _def(value)
        assert source is not None
        pair = _add_operands(source)
        if pair is None:  # the base
            break
        base, other = pair if traces.get(pair[0]) is not None else (pair[1], pair[0])
        offsets.append((value, other))
        value = base
    if value in pointers and pointers[value].type == ptr_type:
        ptr = pointers[value]
    else:
        ptr = _from_base(value, ptr_type, insert)
        pointers[value] = ptr
    for integer, offset in reversed(offsets):
        width = int_type(ptr_type.bits)
        if offset.type != width:
            offset = insert("trunc" if offset.type.bits > width.bits else "sext", [offset], width)
        ptr = insert("ptradd", [ptr, offset], ptr_type)
        pointers[integer] = ptr
    _retype(op.results[0], ptr_type)
    op.results[0].replace_all_uses_with(ptr)
    op.detach()
    return new_ops


def _from_base(base: Value, ptr_type: PtrType, insert: Callable[[str, list[Value], PtrType], Value]) -> Value:
    """The ``ptr<S>`` of a base: a kernel parameter's value, or what a ``cvta`` from S converted (its
    operand's pointer, or an ``inttoptr``)."""
    cvta = _def(base)
    assert cvta is not None
    if cvta.name != "cvta":  # a kernel parameter's value: a global address
        return insert("inttoptr", [base], ptr_type)
    address = cvta.operand(0)
    source = _def(address)
    if source is not None and source.name == "zext":
        source = _def(source.operand(0))  # a 32-bit shared/local address widened for cvta.u64
    if source is not None and source.name == "ptrtoint" and source.operand(0).type == ptr_type:
        return source.operand(0)
    return insert("inttoptr", [address], ptr_type)


def _retype(ptr: Value, ptr_type: PtrType) -> None:
    work = [ptr]
    while work:
        for use in list(work.pop().uses):
            owner = use.owner
            if owner.name == "ptradd":
                owner.results[0].type = ptr_type
                work.append(owner.results[0])
