"""Lowering of ld/st/atom/red/fence/prefetch/cp.async, address ops (addr_of, alloca, ptradd, cvta,
isspacep) and the PTX stack (alloca, stacksave, stackrestore).

Invariant: every access keeps PTX's width, vector shape and natural alignment (PTX requires
addresses aligned to the access size); ``.volatile`` becomes an LLVM volatile access;
``.relaxed``/``.acquire``/``.release`` accesses become atomic loads/stores with the ordering and
sync scope of ``ptx2gcn.emit.llvm_atomics``; atomics without ``.sem`` are ``.relaxed`` and without
a scope ``.gpu`` (PTX ISA "atom"). Cache hints (``.ca .cg .cs .lu .cv``, ``L2::`` hints) are
ignored deliberately: they change caching, not results, and the gfx942 memory model keeps
these programs correct without them; ``.nc`` (and ``ldu``) promise data read-only for the kernel,
so those loads, like kernel-parameter loads, are ``!invariant.load`` (``_read_only``). Generic ↔
segment conversions use ``addrspacecast``, which the back end implements with the shared/private
apertures. Vector atomics are one atomic per
element (as PTX defines them); f16x2/bf16x2 adds are one 32-bit atomic.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit import lower_float_atomics
from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_atomics import atomic_load, atomic_rmw, atomic_store, cmpxchg
from ptx2gcn.emit.llvm_types import I1, I8, I32, POINTER_BITS, llvm_type, pointer, scalar_bits
from ptx2gcn.emit.lower_control import EXTERN_WHY
from ptx2gcn.emit.lower_values import from_int, to_int
from ptx2gcn.emit.param_copy import ParamCopy, copied_stores, find_param_copies
from ptx2gcn.ir.core import Op, OpResult, Value
from ptx2gcn.ir.types import AddrSpace, PtrType, VectorType, is_signed
from ptx2gcn.memory_model import ORDERING, SYNCSCOPE

_SCOPE_DEFAULT = "gpu"


def _access(cx: FnContext, op: Op) -> tuple[str, str, bool]:
    """(LLVM ordering or '', sync scope, volatile) of a load or store."""
    sem = cx.attr(op, "sem")
    volatile = cx.flag(op, "volatile") or sem == "volatile"
    if sem in ("", "weak", "volatile"):
        return "", "", volatile
    return ORDERING[sem], SYNCSCOPE[cx.attr(op, "scope", "sys")], volatile


def _align(t: ir.Type) -> int:
    return max(scalar_bits(t) // 8, 1)


def _element_address(cx: FnContext, ptr: ir.Value, offset: int) -> ir.Value:
    assert isinstance(ptr.type, ir.PointerType)
    index_t = ir.IntType(POINTER_BITS[ptr.type.addrspace])
    return cx.builder.gep(ptr, [ir.Constant(index_t, offset)], source_etype=I8) if offset else ptr


def _elements(cx: FnContext, ptr: ir.Value, vector: ir.Value) -> list[tuple[ir.Value, ir.Value]]:
    """(address, value) of each element of a vector access."""
    assert isinstance(vector.type, ir.VectorType)
    size = scalar_bits(vector.type.element) // 8
    pick = cx.builder.extract_element
    return [(_element_address(cx, ptr, i * size), pick(vector, ir.Constant(ir.IntType(32), i)))
            for i in range(vector.type.count)]


def _element_loads(cx: FnContext, ptr: ir.Value, typ: ir.VectorType, ordering: str, scope: str,
                   volatile: bool) -> ir.Value:
    """A vector ``ld.relaxed/.acquire``: the PTX memory model treats each element as its own
    memory operation, so each is one atomic load with the same ordering and scope."""
    size = scalar_bits(typ.element) // 8
    result: ir.Value = ir.Constant(typ, ir.Undefined)
    for i in range(typ.count):
        element = atomic_load(cx.builder, _element_address(cx, ptr, i * size), typ.element, ordering, scope,
                              size, volatile)
        result = cx.builder.insert_element(result, element, ir.Constant(ir.IntType(32), i))
    return result


class _VolatileLoad(ir.LoadInstr):  # pyright: ignore[reportUntypedBaseClass]
    """``load volatile``: llvmlite's ``LoadInstr`` has no volatile flag and would drop it."""

    def descr(self, buf: list[str]) -> None:
        text: list[str] = []
        super().descr(text)  # pyright: ignore[reportUnknownMemberType]
        buf.append("".join(text).replace("load ", "load volatile ", 1))


class _VolatileStore(ir.StoreInstr):  # pyright: ignore[reportUntypedBaseClass]
    """``store volatile`` (see ``_VolatileLoad``)."""

    def descr(self, buf: list[str]) -> None:
        text: list[str] = []
        super().descr(text)  # pyright: ignore[reportUnknownMemberType]
        buf.append("".join(text).replace("store ", "store volatile ", 1))


def _plain_load(cx: FnContext, ptr: ir.Value, typ: ir.Type, volatile: bool) -> ir.LoadInstr:
    if not volatile:
        return cx.builder.load(ptr, typ=typ, align=_align(typ))
    load = _VolatileLoad(cx.builder.block, ptr, typ=typ)
    load.align = _align(typ)
    cx.builder._insert(load)  # pyright: ignore[reportPrivateUsage]  # llvmlite's only insertion hook
    return load


def _plain_store(cx: FnContext, value: ir.Value, ptr: ir.Value, volatile: bool) -> None:
    if not volatile:
        cx.builder.store(value, ptr, align=_align(value.type))
        return
    store = _VolatileStore(cx.builder.block, value, ptr)
    store.align = _align(value.type)
    cx.builder._insert(store)  # pyright: ignore[reportPrivateUsage]


def lower_ld(cx: FnContext, op: Op) -> None:
    typ = llvm_type(op.result.type)
    ptr = cx.operand(op, 0)
    if isinstance(ptr.type, ir.IntType):  # a kernel parameter passed by value (kernel_abi.value_params)
        cx.define(op, cx.coerce(ptr, typ))
        return
    ordering, scope, volatile = _access(cx, op)
    if ordering:
        if isinstance(typ, ir.VectorType):
            cx.define(op, _element_loads(cx, ptr, typ, ordering, scope, volatile))
        else:
            cx.define(op, atomic_load(cx.builder, ptr, typ, ordering, scope, _align(typ), volatile))
        return
    load = _plain_load(cx, ptr, typ, volatile)
    if not volatile and _read_only(cx, op):
        load.set_metadata("invariant.load", cx.mod.module.add_metadata([]))
    cx.define(op, load)


def _read_only(cx: FnContext, op: Op) -> bool:
    """The loaded bytes cannot change while the kernel runs, so the load is ``!invariant.load`` (which
    lets the AMDGPU back end select ``s_load`` where the address is uniform, and LLVM hoist and merge
    the load): kernel parameters, and ``ld.global.nc``/``ldu`` — the read-only data path, which CUDA
    uses only for "data that is read-only for the entire lifetime of the kernel" (CUDA C++
    Programming Guide, global memory: ``__ldg``; nvcc emits ``.nc`` for ``const __restrict__``
    pointers it proves read-only)."""
    ptr_type = op.operand(0).type
    if isinstance(ptr_type, PtrType) and ptr_type.space is AddrSpace.KPARAM:
        return True
    return cx.attr(op, "cache") == "nc"


def lower_st(cx: FnContext, op: Op) -> None:
    if op in cx.param_copy_stores:
        return  # the memcpy that initialises its alloca wrote these bytes (lower_alloca)
    ptr, value = cx.operands(op)
    ordering, scope, volatile = _access(cx, op)
    if ordering:
        if isinstance(value.type, ir.VectorType):
            for address, element in _elements(cx, ptr, value):
                atomic_store(cx.builder, element, address, ordering, scope, _align(element.type), volatile)
        else:
            atomic_store(cx.builder, value, ptr, ordering, scope, _align(value.type), volatile)
        return
    _plain_store(cx, value, ptr, volatile)


def _rmw_op(cx: FnContext, op: Op) -> str:
    kind, ptx_type = cx.attr(op, "op"), cx.attr(op, "type")
    is_float = ptx_type.startswith(("f", "bf"))
    if kind == "add":
        return "fadd" if is_float else "add"
    if kind in ("min", "max"):
        if is_float:
            return f"f{kind}"
        return kind if is_signed(ptx_type) else f"u{kind}"
    return {"inc": "uinc_wrap", "dec": "udec_wrap", "and": "and", "or": "or", "xor": "xor",
            "exch": "xchg"}.get(kind, "")


def _element_atomics(cx: FnContext, op: Op, kind: str, ordering: str, scope: str) -> ir.Value:
    """``atom``/``red`` on a PTX vector (``.v2.f32``, ``.v8.f16x2``...): PTX makes each element a
    separate atomic operation, so each element gets its own ``atomicrmw`` at its own address."""
    ptr, value = cx.operand(op, 0), cx.operand(op, 1)
    vector_t = op.operand(1).type
    assert isinstance(vector_t, VectorType)
    elem_t = llvm_type(vector_t.elem)
    elem_bits = vector_t.elem.bits
    b = cx.builder
    lanes = b.bitcast(value, ir.VectorType(ir.IntType(elem_bits), vector_t.count))
    results = ir.Constant(lanes.type, ir.Undefined)
    assert isinstance(ptr.type, ir.PointerType)
    index_t = ir.IntType(POINTER_BITS[ptr.type.addrspace])
    for index in range(vector_t.count):
        position = ir.Constant(ir.IntType(32), index)
        element = b.bitcast(b.extract_element(lanes, position), elem_t)
        address = b.gep(ptr, [ir.Constant(index_t, index * elem_bits // 8)], source_etype=I8)
        old = atomic_rmw(b, kind, address, element, ordering, scope)
        results = b.insert_element(results, b.bitcast(old, ir.IntType(elem_bits)), position)
    return b.bitcast(results, value.type)


def _atomic(cx: FnContext, op: Op) -> ir.Value:
    ptr = cx.operand(op, 0)
    sem = cx.attr(op, "sem")
    ordering = ORDERING[sem] if sem not in ("", "weak") else "monotonic"
    scope = SYNCSCOPE[cx.attr(op, "scope", _SCOPE_DEFAULT)]
    if cx.attr(op, "op") == "cas":
        pair = cmpxchg(cx.builder, ptr, to_int(cx, cx.operand(op, 1)), to_int(cx, cx.operand(op, 2)),
                       ordering, scope)
        return cx.builder.extract_value(pair, 0)
    if lower_float_atomics.flushes(cx, op):
        return lower_float_atomics.flushing_add(cx, op, ordering, scope)
    kind = _rmw_op(cx, op)
    value = cx.operand(op, 1)
    if lower_float_atomics.combinable(cx, op):
        ptr = lower_float_atomics.divergent_address(cx, ptr)
    if isinstance(op.operand(1).type, VectorType):
        if kind not in ("fadd", "fmin", "fmax"):
            raise cx.unsupported(f"{op.name}.{cx.attr(op, 'op')}.v{op.operand(1).type.count}",
                                 "vector atomics other than float add/min/max are not lowered yet")
        return _element_atomics(cx, op, kind, ordering, scope)
    if isinstance(value.type, ir.VectorType) and kind != "fadd":  # f16x2/bf16x2: one 32-bit atomic
        raise cx.unsupported(f"{op.name}.{cx.attr(op, 'op')}.{cx.attr(op, 'type')}",
                             "packed atomics other than add are not lowered yet")
    if kind in ("and", "or", "xor", "xchg", "uinc_wrap", "udec_wrap"):
        value = to_int(cx, value)
    return atomic_rmw(cx.builder, kind, ptr, value, ordering, scope)


def lower_atom(cx: FnContext, op: Op) -> None:
    result = _atomic(cx, op)
    cx.define(op, from_int(cx, result, llvm_type(op.result.type)) if isinstance(result.type, ir.IntType)
              else result)


def lower_red(cx: FnContext, op: Op) -> None:
    _atomic(cx, op)


def lower_cp_async(cx: FnContext, op: Op) -> None:
    """cp.async as a synchronous copy (the IR's meaning): ``size`` bytes to ``dst``, of which only
    the first ``src_size`` are read from ``src`` and the rest are zero (masked load, no access
    beyond ``src_size``)."""
    dst, src, src_size = cx.operands(op)
    size = op.attrs["size"]
    assert isinstance(size, int)
    b = cx.builder
    vec = ir.VectorType(I8, size)
    lanes = ir.Constant(ir.VectorType(ir.IntType(32), size), list(range(size)))
    limit = b.insert_element(ir.Constant(ir.VectorType(ir.IntType(32), size), ir.Undefined), src_size,
                             ir.Constant(ir.IntType(32), 0))
    splat = b.shuffle_vector(limit, limit, ir.Constant(ir.VectorType(ir.IntType(32), size), [0] * size))
    mask = b.icmp_unsigned("<", lanes, splat)
    assert isinstance(src.type, ir.PointerType)
    data = cx.call(f"llvm.masked.load.v{size}i8.p{src.type.addrspace}", vec,
                   [src, ir.Constant(ir.IntType(32), 1), mask, ir.Constant(vec, [0] * size)])
    b.store(data, dst, align=1)


def lower_prefetch(cx: FnContext, op: Op) -> None:
    """Prefetches are hints; gfx942 has no data prefetch instruction, so nothing is emitted."""


def lower_addr_of(cx: FnContext, op: Op) -> None:
    sym = op.attrs["sym"]
    assert isinstance(sym, str)
    var: ir.Value | None = cx.mod.globals.get(sym)
    if var is None:
        if sym not in cx.mod.defined:
            raise cx.unsupported(f"address of {sym}", f"{sym} has no definition in this module: {EXTERN_WHY}")
        var = cx.mod.functions[sym]  # a function's address, for indirect calls
        var = cx.builder.bitcast(var, pointer(0)) if var.type != pointer(0) else var
    cx.define(op, cx.coerce(var, llvm_type(op.result.type)))


def entry_alloca(cx: FnContext, typ: ir.Type, align: int) -> ir.Instruction:
    """A static private ``alloca`` in the function's dedicated first block, where SROA/mem2reg see it."""
    assert cx.entry_allocas is not None
    builder = ir.IRBuilder()
    builder.position_at_start(cx.entry_allocas)
    return _alloca5(builder, typ, align)


def lower_alloca(cx: FnContext, op: Op) -> None:
    size, align = op.attrs["size"], op.attrs["align"]
    assert isinstance(size, int) and isinstance(align, int)
    alloca = entry_alloca(cx, ir.ArrayType(I8, max(size, 1)), align)
    cx.define(op, alloca)
    copy = _param_copies(cx).get(op.result)
    if copy is not None:  # a by-value parameter's copy: one memcpy from the kernarg segment
        target = cx.builder.gep(alloca, [cx.i32(copy.delta)], inbounds=True, source_etype=I8)
        cx.call("llvm.memcpy.p5.p4.i64", ir.VoidType(),
                [target, cx.get(copy.param), cx.i64(copy.size), ir.Constant(I1, 0)])


def _param_copies(cx: FnContext) -> dict[OpResult, ParamCopy]:
    if cx.param_copies is None:
        cx.param_copies = find_param_copies(cx.fn)
        cx.param_copy_stores = copied_stores(cx.param_copies)
    return cx.param_copies


class _Alloca5(ir.Instruction):  # pyright: ignore[reportUntypedBaseClass]
    """``alloca`` in the private address space (llvmlite only spells addrspace 0); with a count
    operand it is a dynamic allocation."""

    def __init__(self, parent: ir.Block, typ: ir.Type, align: int, count: ir.Value | None = None) -> None:
        super().__init__(parent, pointer(5), "alloca", [count] if count is not None else [])
        self.allocated = typ
        self.align = align

    def descr(self, buf: list[str]) -> None:
        count = f", {self.operands[0].type} {self.operands[0].get_reference()}" if self.operands else ""
        buf.append(f"alloca {self.allocated}{count}, align {self.align}, addrspace(5)")
        buf.append(self._stringify_metadata(leading_comma=True) + "\n")


def _alloca5(builder: ir.IRBuilder, typ: ir.Type, align: int,
             count: ir.Value | None = None) -> ir.Instruction:
    inst = _Alloca5(builder.block, typ, align, count)
    builder._insert(inst)  # pyright: ignore[reportPrivateUsage]
    return inst


def lower_stack_alloc(cx: FnContext, op: Op) -> None:
    """PTX alloca: ``size`` fresh bytes on the (dynamic) private stack."""
    align = op.attrs["align"]
    assert isinstance(align, int)
    size = cx.coerce(cx.operand(op, 0), ir.IntType(32))
    cx.define(op, _alloca5(cx.builder, I8, max(align, 1), size))


def lower_stacksave(cx: FnContext, op: Op) -> None:
    position = cx.call("llvm.stacksave.p5", pointer(5), [])
    to = llvm_type(op.result.type)
    assert isinstance(to, ir.IntType)
    cx.define(op, cx.builder.ptrtoint(position, to))


def lower_stackrestore(cx: FnContext, op: Op) -> None:
    position = cx.builder.inttoptr(cx.operand(op, 0), pointer(5))
    cx.call("llvm.stackrestore.p5", ir.VoidType(), [position])


def lower_ptradd(cx: FnContext, op: Op) -> None:
    ptr, offset = cx.operands(op)
    assert isinstance(ptr.type, ir.PointerType)
    index_type = ir.IntType(POINTER_BITS[ptr.type.addrspace])
    offset = cx.builder.sext(offset, index_type) if offset.type.width < index_type.width else (
        cx.builder.trunc(offset, index_type) if offset.type.width > index_type.width else offset)
    address = cx.builder.gep(ptr, [offset], source_etype=I8)
    if ptr.type != llvm_type(op.operand(0).type):  # a depot address that reads the kernarg segment
        cx.values[op.result] = address  # (lower_inttoptr): it keeps its space
        return
    cx.define(op, address)


def lower_ptrtoint(cx: FnContext, op: Op) -> None:
    to = llvm_type(op.result.type)
    assert isinstance(to, ir.IntType)
    cx.define(op, cx.builder.ptrtoint(cx.operand(op, 0), to))


_OFFSET_STEPS = ("add", "sub", "zext", "sext", "trunc")
"""Integer ops through which a local address keeps the object it was computed from (``sub``: its
first operand only)."""


def local_base(value: Value, limit: int = 64) -> Value | None:
    """The ``alloca`` whose address ``value`` is computed from by adding offsets to its ``ptrtoint``
    (``%SPL = ptrtoint %__local_depot; %rd = add %SPL, ...``), or None if no single one is found
    within ``limit`` ops. Walks the operand chain iteratively (no recursion on input size)."""
    found: Value | None = None
    pending, seen = [value], 0
    while pending and seen < limit:
        current = pending.pop()
        seen += 1
        if not isinstance(current, OpResult):
            continue
        op = current.op
        if op.name == "ptrtoint":
            source = op.operands[0].value
            if isinstance(source, OpResult) and source.op.name == "alloca":
                if found is not None and found is not source:
                    return None
                found = source
        elif op.name in _OFFSET_STEPS:
            operands = op.operands[:1] if op.name == "sub" else op.operands
            pending.extend(use.value for use in operands)
    return found if not pending else None


def lower_inttoptr(cx: FnContext, op: Op) -> None:
    """A local address computed from one ``alloca``'s integer address becomes a ``getelementptr`` on
    that alloca (offset = address − alloca address, which LLVM folds back to the added offsets), so
    the access keeps the alloca's provenance and SROA / AMDGPU's alloca promotion can keep the object
    in registers even under dynamic indexing; any other address is a plain ``inttoptr``."""
    to = llvm_type(op.result.type)
    base = local_base(op.operands[0].value) if isinstance(to, ir.PointerType) and to.addrspace == 5 else None
    if base is None:
        cx.define(op, cx.builder.inttoptr(cx.operand(op, 0), to))
        return
    b, alloca = cx.builder, cx.get(base)
    address = cx.coerce(cx.operand(op, 0), I32)
    offset = b.sub(address, b.ptrtoint(alloca, I32))
    size = base.op.attrs.get("size")
    if isinstance(size, int) and size > 0:
        # umin(offset, size - 1) changes no in-bounds offset (the only defined ones); it keeps LLVM
        # from splitting the GEP at the offset's adds, which drops ``inbounds``, and AMDGPUPromoteAlloca
        # moves an alloca to LDS or registers only through in-bounds GEPs.
        offset = cx.call("llvm.umin.i32", I32, [offset, cx.i32(size - 1)])
    copy = _param_copies(cx).get(base)
    if copy is not None and _only_read(cx, op.result):  # parameter bytes: read the kernarg segment
        cx.values[op.result] = _kernarg_address(cx, copy, offset)
        return
    cx.define(op, b.gep(alloca, [offset], inbounds=True, source_etype=I8))


def _only_read(cx: FnContext, address: Value) -> bool:
    """``address`` (a local pointer) is only the address of ``ld``s, directly or through ``ptradd``s, or
    of the copy's own stores (which the ``memcpy`` replaces), so it may point into another space."""
    pending = [address]
    while pending:
        for use in pending.pop().uses:
            owner, first = use.owner, use is use.owner.operands[0]
            if owner.name == "ptradd" and first:
                pending.append(owner.result)
            elif not first or not (owner.name == "ld" or owner in cx.param_copy_stores):
                return False
    return True


def _kernarg_address(cx: FnContext, copy: ParamCopy, offset: ir.Value) -> ir.Value:
    """The kernarg address of depot byte ``offset`` of a parameter copy: parameter byte ``offset -
    delta`` (param_copy's invariant), clamped with ``umin`` to the parameter's last byte, so that a read
    of depot bytes the copy never wrote (undefined values) stays inside the kernarg segment."""
    inside = cx.builder.sub(offset, cx.i32(copy.delta))
    inside = cx.call("llvm.umin.i32", I32, [inside, cx.i32(max(copy.size - 1, 0))])
    return cx.builder.gep(cx.get(copy.param), [inside], inbounds=True, source_etype=I8)


_SEGMENT = {"shared": 3, "local": 5, "global": 1, "const": 4, "param": 4, "kparam": 4, "generic": 0}


def lower_cvta(cx: FnContext, op: Op) -> None:
    """cvta[.to].space: generic ↔ segment address conversion on integer registers."""
    b = cx.builder
    to = llvm_type(op.result.type)
    assert isinstance(to, ir.IntType)
    segment = _SEGMENT[cx.attr(op, "space")]
    source, target = (0, segment) if cx.flag(op, "to") else (segment, 0)
    value = cx.operand(op, 0)
    if POINTER_BITS[source] == POINTER_BITS[target] and source in (0, 1, 4) and target in (0, 1, 4):
        cx.define(op, cx.coerce(value, to))  # global/const/generic share one 64-bit address space
        return
    ptr = b.inttoptr(cx.coerce(value, ir.IntType(POINTER_BITS[source])), pointer(source))
    cast = b.addrspacecast(ptr, pointer(target))
    cx.define(op, cx.coerce(b.ptrtoint(cast, ir.IntType(POINTER_BITS[target])), to))


def lower_isspacep(cx: FnContext, op: Op) -> None:
    b = cx.builder
    ptr = b.inttoptr(cx.coerce(cx.operand(op, 0), ir.IntType(64)), pointer(0))
    space = cx.attr(op, "space")
    shared = cx.call("llvm.amdgcn.is.shared", I1, [ptr])
    private = cx.call("llvm.amdgcn.is.private", I1, [ptr])
    if space == "shared":
        cx.define(op, shared)
    elif space == "local":
        cx.define(op, private)
    else:  # global, const and param memory all live in the global aperture on gfx942
        cx.define(op, b.not_(b.or_(shared, private)))


LOWERINGS: dict[str, Lowering] = {
    "ld": lower_ld, "st": lower_st, "atom": lower_atom, "red": lower_red,
    "prefetch": lower_prefetch, "cp_async": lower_cp_async, "stack_alloc": lower_stack_alloc,
    "stacksave": lower_stacksave, "stackrestore": lower_stackrestore, "addr_of": lower_addr_of,
    "alloca": lower_alloca,
    "ptradd": lower_ptradd, "ptrtoint": lower_ptrtoint, "inttoptr": lower_inttoptr,
    "cvta": lower_cvta, "isspacep": lower_isspacep,
}
