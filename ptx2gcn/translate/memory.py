"""Lowering of PTX memory instructions: ld/ldu/st, atom/red, fences, prefetch.

Invariant: every memory access takes a pointer whose IR type carries the state space of the PTX
instruction (``ld.global`` → ``ptr<global>``, no space → ``ptr<generic>``; kernel parameters are
``ptr<kparam>``); the access type is the instruction's type (vectors for ``.v2/.v4``), and
narrower loads are extended into wider destination registers explicitly (sign-extended for signed
types, zero-extended otherwise, as PTX specifies for ``ld``).
"""

from __future__ import annotations

from ptx2gcn.diagnostics import UnsupportedError
from ptx2gcn.frontend import ast
from ptx2gcn.ir.core import Value
from ptx2gcn.ir.opcodes import ATOM_OPS, CACHE, SCOPES
from ptx2gcn.ir.types import I32, I64, PRED, AddrSpace, PtrType, Type, VectorType, is_signed, ptx_type
from ptx2gcn.translate.alu import Lowering, operands
from ptx2gcn.translate.async_proxy import lower_cp_async_bulk, lower_fence_proxy
from ptx2gcn.translate.emitter import FnCtx
from ptx2gcn.translate.mbarrier_rules import MbarrierForm, check_mbarrier_form
from ptx2gcn.translate.modifiers import Mods
from ptx2gcn.translate.target_gates import check_vector_width, require_target

_SEMS = frozenset({"weak", "relaxed", "acquire", "release", "acq_rel", "sc"})


def _memory_attrs(mods: Mods) -> dict[str, str | bool | int | None]:
    sem = mods.one_of(_SEMS)
    return {"sem": None if sem == "weak" else sem, "scope": mods.one_of(SCOPES),
            "volatile": mods.take("volatile"), "cache": mods.one_of(CACHE), "hint": mods.hints() or None}


def _space(ctx: FnCtx, mods: Mods) -> str:
    """The access's state space; ``.shared::cluster`` ('shared_cluster') is reached generically."""
    return mods.space(cluster=True)


def lower_ld(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """ld / ldu [.sem.scope][.space][.cache][.vN].type d, [a]."""
    attrs = _memory_attrs(mods)
    if ins.opcode == "ldu":
        attrs["cache"] = attrs["cache"] or "nc"
    space = _space(ctx, mods)
    vec = mods.vec()
    t_name = mods.type()
    mods.done()
    ops = operands(ctx, ins, 2, 3)  # a third operand is a cache policy: a hint only
    elem = ptx_type(t_name)
    check_vector_width(ctx, ins, space, vec, elem.bits)
    ptr = ctx.address(ops[1], space, reading=True)
    loaded_type: Type = VectorType(elem, vec) if vec else elem
    loaded = ctx.value("ld", (ptr,), loaded_type, type=t_name, vec=vec or None, **attrs)
    _write_loaded(ctx, ops[0], loaded, elem, vec, is_signed(t_name))


def _write_loaded(ctx: FnCtx, dest: ast.Operand, loaded: Value, elem: Type, vec: int, signed: bool) -> None:
    parts = ctx.components(dest)
    if parts is not None:
        dest = ast.Vector(dest.span, parts)
    if not vec:
        if isinstance(dest, ast.Vector) and len(dest.elements) == 1:
            dest = dest.elements[0]  # Triton writes scalar destinations as { %r1 }
        if isinstance(dest, ast.Vector):
            raise ctx.error(dest.span, "a braced destination needs a .v2/.v4 load")
        ctx.dst(dest, loaded, signed)
        return
    if not isinstance(dest, ast.Vector) or len(dest.elements) != vec:
        raise ctx.error(dest.span, f"a .v{vec} load needs {vec} destinations in braces")
    unpack = ctx.emit("unpack", (loaded,), [elem] * vec)
    for element, value in zip(dest.elements, unpack.results):
        ctx.dst(element, value, signed)


def _stored_value(ctx: FnCtx, source: ast.Operand, elem: Type, vec: int) -> Value:
    parts = ctx.components(source)
    if parts is not None:
        source = ast.Vector(source.span, parts)
    if not vec:
        if isinstance(source, ast.Vector) and len(source.elements) == 1:
            source = source.elements[0]
        if isinstance(source, ast.Vector):
            raise ctx.error(source.span, "a braced source needs a .v2/.v4 store")
        return ctx.src(source, elem)
    if not isinstance(source, ast.Vector) or len(source.elements) != vec:
        raise ctx.error(source.span, f"a .v{vec} store needs {vec} sources in braces")
    values = [ctx.src(e, elem) for e in source.elements]
    return ctx.value("pack", values, VectorType(elem, vec))


def lower_st(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """st [.sem.scope][.space][.cache][.vN].type [a], b."""
    attrs = _memory_attrs(mods)
    space = _space(ctx, mods)
    vec = mods.vec()
    t_name = mods.type()
    mods.done()
    ops = operands(ctx, ins, 2, 3)
    elem = ptx_type(t_name)
    check_vector_width(ctx, ins, space, vec, elem.bits)
    ptr = ctx.address(ops[0], space)
    if ptr.type == PtrType(AddrSpace.KPARAM):
        raise ctx.error(ops[0].span, "kernel parameters are read-only")
    value = _stored_value(ctx, ops[1], elem, vec)
    ctx.emit("st", (ptr, value), (), type=t_name, vec=vec or None, **attrs)


def lower_atom(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """atom[.sem][.scope][.space].op.type d, [a], b[, c] and red (no destination)."""
    attrs = _memory_attrs(mods)
    if attrs.pop("volatile") or attrs.pop("cache"):
        raise ctx.error(ins.span, f"'{ins.opcode}' takes no .volatile or cache operator")
    attrs.pop("hint")
    attrs["noftz"] = mods.take("noftz") or None
    space = _space(ctx, mods)
    op_name = mods.one_of(ATOM_OPS)
    if op_name is None:
        raise ctx.error(ins.span, f"'{ins.opcode}' needs an operation (.add, .cas, .exch, ...)")
    vec = mods.vec()
    t_name = mods.type()
    mods.done()
    elem = ptx_type(t_name)
    signed = is_signed(t_name)
    t: Type = elem
    if vec:
        # Element-wise vector atomics (sm_90): braced sources and destinations.
        attrs["vec"] = vec
        t = VectorType(elem, vec)
    if ins.opcode == "red":
        a, b = operands(ctx, ins, 2)[:2]
        value = _stored_value(ctx, b, elem, vec) if vec else ctx.src(b, t, signed)
        ctx.emit("red", (ctx.address(a, space), value), (), op=op_name, type=t_name, **attrs)
        return
    ops = operands(ctx, ins, 4 if op_name == "cas" else 3)
    values = [_stored_value(ctx, o, elem, vec) if vec else ctx.src(o, t, signed) for o in ops[2:]]
    result = ctx.value("atom", (ctx.address(ops[1], space), *values), t, op=op_name, type=t_name, **attrs)
    if vec:
        _write_loaded(ctx, ops[0], result, elem, vec, signed)
    else:
        ctx.dst(ops[0], result, signed)


def lower_fence(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """fence.sem.scope; membar.level is fence.sc at the matching scope (PTX ISA: membar/fence)."""
    if ins.opcode == "membar":
        level = mods.one_of(frozenset({"cta", "gl", "sys"}))
        mods.done()
        if level is None:
            raise ctx.error(ins.span, "membar needs a level (.cta, .gl, .sys)")
        ctx.emit("fence", (), (), sem="sc", scope={"gl": "gpu"}.get(level, level))
        return
    if mods.take("proxy"):
        lower_fence_proxy(ctx, ins, mods)
        return
    sem = mods.one_of(frozenset({"sc", "acq_rel", "acquire", "release"}))
    scope = mods.one_of(SCOPES)
    mods.done()
    operands(ctx, ins, 0)
    ctx.emit("fence", (), (), sem=sem or "acq_rel", scope=scope or "sys")


def lower_prefetch(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    space = mods.space()
    level = mods.one_of(frozenset({"L1", "L2", "L2::evict_last", "L2::evict_normal"}))
    mods.done()
    (a,) = operands(ctx, ins, 1)
    ctx.emit("prefetch", (ctx.address(a, space),), (), level=level or "L1")


def _cp_async_mbarrier_arrive(ctx: FnCtx, ins: ast.Instruction, mods: Mods) -> None:
    """cp.async.mbarrier.arrive[.noinc].shared[::cta].b64 [addr]: an arrive-on once every earlier
    cp.async of the thread has completed -- here at once, as those copies are synchronous. Without
    .noinc PTX first raises the pending count by one, so the pair changes nothing (PTX ISA
    9.7.9.25.3.4: "a zero-net change for the pending count"); with .noinc it is an arrive."""
    if not mods.take("arrive"):
        raise ctx.error(ins.span, "expected cp.async.mbarrier.arrive")
    noinc = mods.take("noinc")
    space = mods.space()
    t_name = mods.type()
    mods.done()
    if space not in ("shared", "generic"):
        raise ctx.error(ins.span, "mbarrier objects live in shared memory")
    (addr,) = operands(ctx, ins, 1)
    ptr = ctx.address(addr, space)
    if noinc:
        ctx.emit("mbarrier", (ptr,), (), op="arrive", type=t_name)


def lower_cp(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """cp.async.ca|cg.shared.global [dst], [src], size[, src_size | ignore_src][, policy];
    cp.async.commit_group / wait_group N / wait_all: nothing (each copy completes at once)."""
    if not mods.take("async"):
        raise UnsupportedError.feature(ins.span, mods.full_name, "only cp.async is translated")
    if mods.take("bulk"):
        lower_cp_async_bulk(ctx, ins, mods)
        return
    if mods.take("commit_group") or mods.take("wait_group") or mods.take("wait_all"):
        mods.done()
        return
    if mods.take("mbarrier"):
        _cp_async_mbarrier_arrive(ctx, ins, mods)
        return
    cache = mods.one_of(frozenset({"ca", "cg"}))
    spaces = [m for m in mods.left if m in ("shared", "shared::cta", "global")]
    for m in spaces:
        mods.left.remove(m)
    hint = mods.hints() or None
    mods.done()
    if spaces[:1] not in (["shared"], ["shared::cta"]) or spaces[1:] != ["global"]:
        raise ctx.error(ins.span, "cp.async copies from .global to .shared")
    ops = operands(ctx, ins, 3, 4, 5)
    size = ops[2]
    if not isinstance(size, ast.IntImmediate) or size.value not in (4, 8, 16):
        raise ctx.error(size.span, "cp.async copies 4, 8 or 16 bytes")
    dst, src = ctx.address(ops[0], "shared"), ctx.address(ops[1], "global")
    src_size = ctx.const(I32, size.value)
    if len(ops) >= 4:
        extra = ops[3]
        if isinstance(extra, ast.Not) or (isinstance(extra, ast.Register) and _is_pred(ctx, extra)):
            # ignore-src: when true, nothing is read and the destination is zero-filled.
            ignore = ctx.src(extra, PRED)
            src_size = ctx.value("selp", (ctx.const(I32, 0), src_size, ignore), I32)
        else:
            src_size = ctx.src(extra, I32)
    ctx.emit("cp_async", (dst, src, src_size), (), size=size.value, cache=cache, hint=hint)


def _is_pred(ctx: FnCtx, operand: ast.Register) -> bool:
    var = ctx.lookup(operand.name)
    return var is not None and var.type == PRED


def lower_createpolicy(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """createpolicy ... d, ...: a cache policy only ever feeds cache hints, which ptx2gcn drops."""
    mods.left.clear()
    ctx.dst(ins.operands[0], ctx.const(I64, 0))


def lower_stack(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """alloca.type d, size[, align]; stacksave.type d; stackrestore.type a (type: address width)."""
    t_name = mods.type()
    mods.done()
    width = ptx_type(t_name)
    if ins.opcode == "alloca":
        ops = operands(ctx, ins, 2, 3)
        align = ops[2] if len(ops) == 3 else None
        if align is not None and not isinstance(align, ast.IntImmediate):
            raise ctx.error(align.span, "alloca alignment must be an immediate")
        ptr = ctx.value("stack_alloc", (ctx.src(ops[1], width),), PtrType(AddrSpace.LOCAL),
                        align=align.value if align is not None else 8)
        ctx.dst(ops[0], ctx.value("ptrtoint", (ptr,), width))
    elif ins.opcode == "stacksave":
        (d,) = operands(ctx, ins, 1)
        ctx.dst(d, ctx.value("stacksave", (), width))
    else:
        (a,) = operands(ctx, ins, 1)
        ctx.emit("stackrestore", (ctx.src(a, width),))


_MBARRIER_OPS = frozenset({"init", "inval", "arrive", "arrive_drop", "expect_tx", "complete_tx", "test_wait",
                           "try_wait", "pending_count"})


def lower_mbarrier(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """mbarrier.op[.modifiers].shared[::cta|::cluster].b64 [d,] [addr][, operand]: one mbarrier op."""
    # ``.expect_tx`` is an operation of its own and a modifier of arrive / arrive_drop.
    expect_tx = bool({"arrive", "arrive_drop"} & set(mods.left)) and mods.take("expect_tx")
    op_name = mods.one_of(_MBARRIER_OPS)
    flags = {"parity": mods.take("parity"), "noComplete": mods.take("noComplete")}
    sem = mods.one_of(frozenset({"release", "acquire", "relaxed"}))
    scope = mods.one_of(SCOPES)
    cta_spelled = "shared::cta" in mods.left
    space = mods.space(cluster=True)
    t_name = mods.type()
    mods.done()
    if op_name is None:
        raise ctx.error(ins.span, "mbarrier needs an operation (.init, .arrive, .try_wait, ...)")
    if op_name == "pending_count":
        _mbarrier_pending_count(ctx, ins, space, t_name, bool(sem or scope or expect_tx or any(flags.values())))
        return
    if space not in ("shared", "generic", "shared_cluster"):
        raise ctx.error(ins.span, "mbarrier objects live in shared memory")
    ops = list(ins.operands)
    dest = ops.pop(0) if ops and not isinstance(ops[0], ast.Address) else None
    if not ops:
        raise ctx.error(ins.span, "mbarrier needs an address")
    check_mbarrier_form(ctx, ins, MbarrierForm(op_name, expect_tx, flags["parity"], flags["noComplete"], sem, space,
                                               cta_spelled, dest, len(ops) - 1))
    ptr = ctx.address(ops[0], space)
    extra = [ctx.src(o, I64 if op_name in ("test_wait", "try_wait") and not flags["parity"] else I32)
             for o in ops[1:2]]
    if len(ops) > 2:  # try_wait's suspendTimeHint: a hint only (try_wait never blocks here)
        ctx.src(ops[2], I32)
    results = [] if dest is None else [PRED if op_name in ("test_wait", "try_wait") else I64]
    op = ctx.emit("mbarrier", (ptr, *extra), results, op=op_name, type=t_name, expect_tx=expect_tx,
                  sem=sem, scope=scope, **flags)
    if dest is not None:
        ctx.dst(dest, op.results[0])


def _mbarrier_pending_count(ctx: FnCtx, ins: ast.Instruction, space: str, t_name: str | None,
                            qualified: bool) -> None:
    """mbarrier.pending_count.b64 count, state (PTX ISA 9.7.13.15.17; sm_80, PTX 7.0): the pending
    arrival count the barrier had just before the arrive-on that returned ``state`` (PTX defines it
    for a state from ``arrive.noComplete`` / ``arrive_drop.noComplete``). It reads only the token, no
    barrier: no state space, no ordering; the spellings ptxas 13 refuses are located errors here."""
    require_target(ctx, ins, "mbarrier.pending_count", 80, (7, 0))
    if space != "generic":
        raise ctx.error(ins.span, "mbarrier.pending_count takes no state space (it reads a state token)")
    if qualified:
        raise ctx.error(ins.span, "mbarrier.pending_count takes no .sem, .scope, .parity, .noComplete or "
                                  ".expect_tx")
    if t_name != "b64":
        raise ctx.error(ins.span, "mbarrier.pending_count is .b64")
    count, state = operands(ctx, ins, 2)
    if not isinstance(state, ast.Register) or not isinstance(count, ast.Register):
        raise ctx.error(ins.span, "mbarrier.pending_count takes a .b32 destination and a .b64 state register")
    ctx.dst(count, ctx.value("mbarrier_pending_count", (ctx.src(state, I64),), I32))


MEMORY: dict[str, Lowering] = {
    "ld": lower_ld, "ldu": lower_ld, "st": lower_st, "atom": lower_atom, "red": lower_atom,
    "mbarrier": lower_mbarrier, "alloca": lower_stack, "stacksave": lower_stack, "stackrestore": lower_stack,
    "fence": lower_fence, "membar": lower_fence, "cp": lower_cp, "createpolicy": lower_createpolicy,
    "prefetch": lower_prefetch, "prefetchu": lower_prefetch,
}
