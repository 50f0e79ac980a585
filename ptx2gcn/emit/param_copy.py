"""Local copies of by-value kernel parameters, found so that they can be read from the kernarg segment.

nvcc copies a by-value ``struct`` kernel parameter that is indexed dynamically (``p.bias[threadIdx.z
% 3]``) into the function's ``.local`` depot, member by member (``ld.param`` then ``st.local``), and
reads the depot. Lowered as written, the depot lives in scratch. ``find_param_copies`` recognises a
depot that is nothing but such a copy; the emitter then initialises it with one ``llvm.memcpy`` from
the parameter's ``byref`` kernarg pointer (constant memory) and drops the member stores, and every
depot address it rebuilds from ``%SPL`` arithmetic (``lower_memory.lower_inttoptr``) addresses the
kernarg bytes directly (offset − ``delta``, clamped into the parameter), so nothing reads the alloca
and LLVM deletes it with its ``memcpy``. Any other access still reads the initialised alloca (for
larger copies LLVM's InstCombine, "alloca only copied from constant memory", forwards those too; a
copy of at most 8 bytes it first turns into one load and store, so the direct addressing matters).

Invariant: an alloca is reported only if every write to it anywhere in the function is a ``st`` of a
value just loaded (same type, same vector width, not volatile/atomic) from one kernel parameter at a
constant offset, all at the same constant distance ``delta`` (depot offset − parameter offset), with
``0 ≤ delta`` and the copied parameter inside the alloca; and if its address flows only through
``ptrtoint``/``add``/``sub`` (first operand)/``zext``/``sext``/``trunc``/``inttoptr``/``ptradd`` into
the address operand of ``ld``/``st``. Then the alloca holds the parameter's bytes at ``delta``
wherever it was written, so reading those bytes from the parameter is the same program (bytes never
written were undefined). The analysis visits each use once (no recursion on input size).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ptx2gcn.emit.kernel_abi import value_params
from ptx2gcn.ir.core import Block, BlockArg, Function, Op, OpResult, Value
from ptx2gcn.ir.types import AddrSpace, PtrType

_INT_STEPS = frozenset({"add", "sub", "zext", "sext", "trunc"})
_ORDERED = ("sem", "scope", "volatile")


@dataclass(slots=True)
class ParamCopy:
    """Alloca ``alloca`` holds kernel parameter ``param`` (an entry-block argument) at byte ``delta``."""

    alloca: OpResult
    param: BlockArg
    delta: int
    size: int
    stores: set[Op] = field(default_factory=lambda: set())
    """The member-by-member ``st`` ops the ``memcpy`` replaces."""


def _const(value: Value) -> int | None:
    if isinstance(value, OpResult) and value.op.name == "const":
        number = value.op.attrs.get("value")
        return number if isinstance(number, int) and not isinstance(number, bool) else None
    return None


def _param_offset(pointer: Value, params: dict[Value, int]) -> tuple[BlockArg, int] | None:
    """(kernel parameter, constant byte offset) that ``pointer`` addresses, if it is one."""
    offset = 0
    while isinstance(pointer, OpResult) and pointer.op.name == "ptradd":
        step = _const(pointer.op.operand(1))
        if step is None:
            return None
        offset += step
        pointer = pointer.op.operand(0)
    if isinstance(pointer, BlockArg) and pointer in params:
        return pointer, offset
    return None


def _plain(op: Op) -> bool:
    return not any(key in op.attrs for key in _ORDERED)


def _offset_of(op: Op, offsets: dict[Value, int | None]) -> int | None:
    """Constant offset of ``op``'s result from the alloca, given its operands' (None: dynamic)."""
    if op.name in ("add", "ptradd"):
        a, b = (offsets.get(u.value) if u.value in offsets else _const(u.value) for u in op.operands)
        return a + b if a is not None and b is not None else None
    if op.name == "sub":
        a, b = offsets.get(op.operand(0)), _const(op.operand(1))
        return a - b if a is not None and b is not None and op.operand(1) not in offsets else None
    return offsets.get(op.operand(0))


def _analyse(alloca: OpResult, size: int, params: dict[Value, int]) -> ParamCopy | None:  # noqa: C901
    offsets: dict[Value, int | None] = {alloca: 0}
    pending: list[Value] = [alloca]
    copy: ParamCopy | None = None
    while pending:
        value = pending.pop()
        for use in list(value.uses):
            op = use.owner
            index = next(i for i, u in enumerate(op.operands) if u is use) if use in op.operands else -1
            if op.name == "ld" and index == 0:
                continue
            if op.name == "st" and index == 0:
                where, source = offsets.get(value), op.operand(1)
                if where is None or not _plain(op) or not isinstance(source, OpResult) or source.op.name != "ld":
                    return None
                loaded = _param_offset(source.op.operand(0), params)
                same = {k: source.op.attrs.get(k) for k in ("type", "vec")} == {
                    k: op.attrs.get(k) for k in ("type", "vec")}
                if loaded is None or not same or not _plain(source.op):
                    return None
                param, offset = loaded
                if copy is None:
                    copy = ParamCopy(alloca, param, where - offset, params[param])
                if copy.param is not param or copy.delta != where - offset:
                    return None
                copy.stores.add(op)
                continue
            pointer_step = op.name == "ptradd" and index == 0
            int_step = op.name in _INT_STEPS and (op.name != "sub" or index == 0)
            to_local = (op.name == "inttoptr" and isinstance(op.result.type, PtrType)
                        and op.result.type.space is AddrSpace.LOCAL)
            if not (op.name == "ptrtoint" or pointer_step or int_step or to_local) or not op.results:
                return None  # the address escapes (call, generic cvta, atomic, a stored value, a branch)
            result = op.result
            if result not in offsets:
                offsets[result] = _offset_of(op, offsets)
                pending.append(result)
    if copy is None or copy.delta < 0 or copy.delta + copy.size > size:
        return None
    return copy


def copied_stores(copies: dict[OpResult, ParamCopy]) -> set[Op]:
    return {store for copy in copies.values() for store in copy.stores}


def find_param_copies(fn: Function) -> dict[OpResult, ParamCopy]:
    """The local allocas of kernel ``fn`` that are copies of one by-value parameter (see module doc)."""
    if fn.kind != "kernel" or not fn.blocks:
        return {}
    entry: Block = fn.blocks[0]
    values = value_params(fn)  # passed as iN values: no kernarg pointer to copy from
    params = {arg: p.size for index, (arg, p) in enumerate(zip(entry.args, fn.params, strict=False))
              if isinstance(arg.type, PtrType) and arg.type.space is AddrSpace.KPARAM and index not in values}
    found: dict[OpResult, ParamCopy] = {}
    for op in entry.ops:
        size = op.attrs.get("size")
        if (op.name == "alloca" and isinstance(size, int) and isinstance(op.result.type, PtrType)
                and op.result.type.space is AddrSpace.LOCAL):
            copy = _analyse(op.result, size, params)
            if copy is not None:
                found[op.result] = copy
    return found
