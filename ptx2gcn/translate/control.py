"""Lowering of PTX control flow, calls, barriers and warp-collective instructions.

Invariant: branches end the current block (``br``/``cbr``) and report each built edge to the
function builder, which seals target blocks for SSA construction; calls pass ``.param``
arguments as addresses of parameter memory (allocating and storing when the caller passes a
plain value) and ``.reg`` arguments as values; warp collectives keep an explicit member mask
operand (all lanes, ``0xffffffff``-style all ones, for the legacy non-``.sync`` forms, which are
marked by the absence of the ``sync`` attribute) and assume nothing about the warp size.
"""

from __future__ import annotations

from typing import Protocol

from ptx2gcn.diagnostics import Span
from ptx2gcn.frontend import ast
from ptx2gcn.ir.core import Block, Function, Param, Value
from ptx2gcn.ir.types import I32, I64, PRED, AddrSpace, PtrType, Type, VectorType, ptx_type
from ptx2gcn.translate.alu import Lowering, operands
from ptx2gcn.translate.cluster import lower_barrier_cluster
from ptx2gcn.translate.emitter import FnCtx
from ptx2gcn.translate.modifiers import Mods
from ptx2gcn.translate.params import param_of
from ptx2gcn.translate.target_gates import require_sync


class Branches(Protocol):
    """What branch lowering needs from the function builder."""

    fn: Function

    def label_block(self, span: Span, name: str) -> Block: ...

    def branch_done(self, target: Block) -> None: ...


def _target(ctx: FnCtx, ins: ast.Instruction, fb: Branches) -> Block:
    (label,) = operands(ctx, ins, 1)
    name = getattr(label, "name", None)
    if not isinstance(name, str):
        raise ctx.error(label.span, "bra needs a label")
    return fb.label_block(label.span, name)


def lower_bra(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: Branches,
              pred: Value | None = None, negated: bool = False) -> None:
    """bra[.uni] L, or with a guard ``cbr`` to L and a fresh fall-through block."""
    mods.take("uni")
    mods.done()
    target = _target(ctx, ins, fb)
    source = ctx.current()
    if pred is None:
        ctx.emit("br").add_successor(target)
        ctx.ssa.add_edge(source, target)
        ctx.block = None
        fb.branch_done(target)
        return
    fallthrough = Block()
    cbr = ctx.emit("cbr", (pred,))
    for block in ((fallthrough, target) if negated else (target, fallthrough)):
        cbr.add_successor(block)
    ctx.ssa.add_edge(source, target)
    ctx.ssa.new_block(fallthrough)
    ctx.ssa.add_edge(source, fallthrough)
    ctx.ssa.seal(fallthrough)
    fb.fn.add_block(fallthrough)
    ctx.block = fallthrough
    fb.branch_done(target)


class Switches(Branches, Protocol):
    def switch_targets(self, ins: ast.Instruction) -> list[Block]: ...


def lower_brx(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: Switches) -> None:
    """brx.idx[.uni] index, tlist: a switch over the .branchtargets list (a guard adds a cbr first)."""
    if not mods.take("idx"):
        raise ctx.error(ins.span, "brx needs .idx")
    mods.take("uni")
    mods.done()
    index, _ = operands(ctx, ins, 2)
    targets = fb.switch_targets(ins)
    source = ctx.current()
    op = ctx.emit("switch", (ctx.src(index, I32),))
    for target in targets:
        op.add_successor(target)
    unique = list(dict.fromkeys(targets))
    for target in unique:
        ctx.ssa.add_edge(source, target)
    ctx.block = None
    for target in unique:
        fb.branch_done(target)


def emit_return(ctx: FnCtx, span: Span | None) -> None:
    values: list[Value] = []
    for ret in ctx.fn.reg_returns:
        if ret.count:
            parts = [ctx.read_var(v) for v in ctx.vectors[ret.name]]
            values.append(ctx.value("pack", parts, VectorType(ret.type, ret.count)))
            continue
        var = ctx.lookup(ret.name)
        assert var is not None
        values.append(ctx.read_var(var))
    ctx.emit("ret", values)
    ctx.block = None


def lower_ret(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    mods.take("uni")
    mods.done()
    operands(ctx, ins, 0)
    emit_return(ctx, ins.span)


def lower_exit(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    mods.done()
    operands(ctx, ins, 0)
    ctx.emit("exit")
    ctx.block = None


def lower_simple(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """trap, brkpt, nanosleep.u32 t, pmevent[.mask] a."""
    if ins.opcode == "nanosleep":
        mods.type()
        mods.done()
        (t,) = operands(ctx, ins, 1)
        ctx.emit("nanosleep", (ctx.src(t, I32),))
        return
    if ins.opcode == "pmevent":
        mask = mods.take("mask")
        mods.done()
        (a,) = operands(ctx, ins, 1)
        if not isinstance(a, ast.IntImmediate):
            raise ctx.error(a.span, "pmevent needs an immediate")
        ctx.emit("pmevent", mask=a.value if mask else 1 << a.value)
        return
    mods.done()
    operands(ctx, ins, 0)
    ctx.emit(ins.opcode)


def lower_call(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """call[.uni] [(rets),] f[, (args)]: direct calls; indirect calls are not translated yet."""
    uni = mods.take("uni")
    mods.done()
    ops = list(ins.operands)
    rets: tuple[ast.Operand, ...] = ()
    if ops and isinstance(ops[0], ast.ParenList):
        rets = ops.pop(0).items  # type: ignore[union-attr]
    if not ops:
        raise ctx.error(ins.span, "call needs a function")
    callee_op = ops.pop(0)
    args: tuple[ast.Operand, ...] = ()
    if ops and isinstance(ops[0], ast.ParenList):
        args = ops.pop(0).items  # type: ignore[union-attr]
    name = getattr(callee_op, "name", None)
    if isinstance(name, str) and ctx.lookup(name) is not None:
        _call_indirect(ctx, ins, uni, rets, callee_op, args, ops)
        return
    callee = ctx.symbols.functions.get(name) if isinstance(name, str) else None
    if callee is None or ops:
        raise ctx.error(callee_op.span, f"undefined function {name}" if callee is None else
                        "a direct call takes no prototype")
    param_rets = [p for p in callee.returns if p.space == "param"]
    if len(rets) != len(callee.returns):
        raise ctx.error(ins.span, f"{callee.name} returns {len(callee.returns)} values, the call "
                        f"takes {len(rets)}")
    if len(args) != len(callee.params):
        raise ctx.error(ins.span, f"{callee.name} takes {len(callee.params)} arguments, the call "
                        f"passes {len(args)}")
    del param_rets
    ret_ops = list(zip(callee.returns, rets))
    values, received = _param_returns(ctx, ret_ops)
    values.extend(_argument(ctx, param, operand) for param, operand in zip(callee.params, args))
    reg_rets = [(p, o) for p, o in ret_ops if p.space != "param"]
    op = ctx.emit("call", values, [p.value_type for p, _ in reg_rets], callee=callee.name, uni=uni)
    for (_, operand), result in zip(reg_rets, op.results):
        ctx.dst(operand, result)
    _receive(ctx, received)


def _call_indirect(ctx: FnCtx, ins: ast.Instruction, uni: bool, rets: tuple[ast.Operand, ...],
                   target: ast.Operand, args: tuple[ast.Operand, ...], rest: list[ast.Operand]) -> None:
    """call (rets), %fptr, (args), prototype: the prototype says how each value is passed."""
    proto_name = getattr(rest[0], "name", None) if len(rest) == 1 else None
    proto = ctx.prototypes.get(proto_name) if isinstance(proto_name, str) else None
    if proto is not None:
        params = [param_of(p, "param") for p in proto.params or ()]
        returns = [param_of(p, "param") for p in proto.return_params or ()]
    elif isinstance(proto_name, str) and proto_name in ctx.calltargets:
        params, returns = _calltargets_signature(ctx, ctx.calltargets[proto_name])
    else:
        raise ctx.error(ins.span, "an indirect call needs a .callprototype or .calltargets label")
    if len(params) != len(args) or len(returns) != len(rets):
        raise ctx.error(ins.span, f"the call does not match the signature of {proto_name}")
    values = [ctx.src(target, I64)]
    slots, received = _param_returns(ctx, list(zip(returns, rets)))
    values.extend(slots)
    values.extend(_argument(ctx, p, o) for p, o in zip(params, args))
    reg_rets = [(p, o) for p, o in zip(returns, rets) if p.space != "param"]
    op = ctx.emit("call_indirect", values, [p.value_type for p, _ in reg_rets], proto=proto_name, uni=uni)
    for (_, operand), result in zip(reg_rets, op.results):
        ctx.dst(operand, result)
    _receive(ctx, received)


def _calltargets_signature(ctx: FnCtx, targets: ast.CallTargets) -> tuple[list[Param], list[Param]]:
    """The common signature of the functions a ``.calltargets`` list names (PTX: the call must match
    each of them, so they must agree on how every parameter and return value is passed)."""
    functions = [ctx.symbols.functions.get(name) for name in targets.targets]
    if not functions or any(f is None for f in functions):
        raise ctx.error(targets.span, f".calltargets {targets.name} names an undefined function")
    known = [f for f in functions if f is not None]
    first = known[0]

    def shape(f: Function) -> list[tuple[str, object, int]]:
        return [(p.space, p.value_type, p.size) for p in (*f.params, *f.returns)]

    for other in known[1:]:
        if shape(other) != shape(first) or len(other.returns) != len(first.returns):
            raise ctx.error(targets.span, f"{first.name} and {other.name} in .calltargets {targets.name} "
                            "have different signatures")
    return list(first.params), list(first.returns)


def _argument(ctx: FnCtx, param: Param, operand: ast.Operand) -> Value:
    """The IR argument for ``param``: a value for a ``.reg`` parameter; for a ``.param`` one, the
    address of parameter memory — the caller's ``.param`` variable, or (a register or immediate
    operand, which ptxas accepts too) new parameter memory holding the operand's value."""
    if param.space == "reg":
        return ctx.src(operand, param.value_type)
    name = getattr(operand, "name", None)
    if isinstance(name, str) and ctx.lookup(name) is None:
        return _param_variable(ctx, operand, name)
    ptr = ctx.entry_alloca(AddrSpace.PARAM, param.size, param.align)
    ctx.emit("st", (ptr, ctx.src(operand, _scalar(ctx, param, operand))), (), type=_ptx_name(param.type))
    return ptr


def _param_variable(ctx: FnCtx, operand: ast.Operand, name: str) -> Value:
    ptr = ctx.symbol_ptr(operand.span, name)
    if ptr.type != PtrType(AddrSpace.PARAM):
        raise ctx.error(operand.span, f"{name} is not a .param variable")
    return ptr


def _scalar(ctx: FnCtx, param: Param, operand: ast.Operand) -> Type:
    """The type a register stands for when it is passed as (or receives) a ``.param`` parameter:
    only a scalar parameter can be a register."""
    if param.count != 0:
        raise ctx.error(operand.span, f"parameter {param.name} is an array or vector: pass a .param "
                        "variable, not a register")
    return param.type


def _param_returns(ctx: FnCtx, rets: list[tuple[Param, ast.Operand]]
                   ) -> tuple[list[Value], list[tuple[Value, Param, ast.Operand]]]:
    """The call's arguments for its ``.param`` results (their parameter memory, in order), and the
    results that a register receives: (memory, parameter, register) to read after the call."""
    slots: list[Value] = []
    received: list[tuple[Value, Param, ast.Operand]] = []
    for param, operand in rets:
        if param.space != "param":
            continue
        name = getattr(operand, "name", None)
        if isinstance(name, str) and ctx.lookup(name) is None:
            slots.append(_param_variable(ctx, operand, name))
            continue
        _scalar(ctx, param, operand)
        ptr = ctx.entry_alloca(AddrSpace.PARAM, param.size, param.align)
        slots.append(ptr)
        received.append((ptr, param, operand))
    return slots, received


def _receive(ctx: FnCtx, received: list[tuple[Value, Param, ast.Operand]]) -> None:
    """Copy each register-received ``.param`` result out of its parameter memory."""
    for ptr, param, operand in received:
        ctx.dst(operand, ctx.value("ld", (ptr,), param.type, type=_ptx_name(param.type)))


def _ptx_name(t: object) -> str:
    from ptx2gcn.ir.types import FloatType, PackedType

    if isinstance(t, (FloatType, PackedType)):
        return str(t)
    return "pred" if t == PRED else f"b{t.bits}"  # type: ignore[attr-defined]


def lower_bar(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """bar/barrier[.cta].sync|arrive|red a[, b]; bar.warp.sync mask."""
    if mods.take("cluster"):
        lower_barrier_cluster(ctx, ins, mods)
        return
    mods.take("cta")
    aligned = ins.opcode == "bar" or mods.take("aligned")
    if mods.take("warp"):
        mods.take("sync")
        mods.done()
        (mask,) = operands(ctx, ins, 1)
        ctx.emit("bar", (ctx.src(mask, I32, typed=False),), (), mode="warp")
        return
    if mods.take("red"):
        _bar_red(ctx, ins, mods, aligned)
        return
    mode = mods.one_of(frozenset({"sync", "arrive"}))
    mods.done()
    if mode is None:
        raise ctx.error(ins.span, f"'{ins.opcode}' needs .sync, .arrive or .red")
    ops = operands(ctx, ins, 1, 2)
    ctx.emit("bar", [ctx.src(o, I32) for o in ops], (), mode=mode, aligned=aligned)


def _bar_red(ctx: FnCtx, ins: ast.Instruction, mods: Mods, aligned: bool) -> None:
    op = mods.one_of(frozenset({"popc", "and", "or"}))
    t_name = mods.type()
    mods.done()
    ops = operands(ctx, ins, 3, 4)
    if op is None:
        raise ctx.error(ins.span, "bar.red needs .popc, .and or .or")
    counts = [ctx.src(o, I32) for o in ops[1:-1]]
    result_type = ptx_type(t_name)
    pred = ctx.src(ops[-1], PRED)
    result = ctx.value("bar_red", (counts[0], pred, *counts[1:]), result_type, op=op, aligned=aligned)
    ctx.dst(ops[0], result)


def _mask(ctx: FnCtx, sync: bool, ops: tuple[ast.Operand, ...]) -> Value:
    return ctx.src(ops[-1], I32, typed=False) if sync else ctx.const(I32, 0xFFFFFFFF)


def lower_shfl(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """shfl[.sync].mode.b32 d[|p], a, b, c[, membermask]."""
    sync = mods.take("sync")
    mode = mods.one_of(frozenset({"up", "down", "bfly", "idx"}))
    mods.type()
    mods.done()
    if mode is None:
        raise ctx.error(ins.span, "shfl needs a mode (.up, .down, .bfly, .idx)")
    require_sync(ctx, ins, sync)
    ops = operands(ctx, ins, 5 if sync else 4)
    values = [ctx.src(o, I32) for o in ops[1:4]]
    op = ctx.emit("shfl", (*values, _mask(ctx, sync, ops)), (I32, PRED), mode=mode, sync=sync)
    dest = ops[0]
    if isinstance(dest, ast.Pair):
        ctx.dst(dest.first, op.results[0])
        ctx.dst(dest.second, op.results[1])
    else:
        ctx.dst(dest, op.results[0])


def lower_vote(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """vote[.sync].all|any|uni.pred d, {!}a[, mask]; vote[.sync].ballot.b32 d, {!}a[, mask]."""
    sync = mods.take("sync")
    mode = mods.one_of(frozenset({"all", "any", "uni", "ballot"}))
    mods.type()
    mods.done()
    if mode is None:
        raise ctx.error(ins.span, "vote needs a mode (.all, .any, .uni, .ballot)")
    require_sync(ctx, ins, sync)
    ops = operands(ctx, ins, 3 if sync else 2)
    result_type = I32 if mode == "ballot" else PRED
    value = ctx.value("vote", (ctx.src(ops[1], PRED), _mask(ctx, sync, ops)), result_type, mode=mode,
                      sync=sync)
    ctx.dst(ops[0], value)


def lower_activemask(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    mods.type()
    mods.done()
    (d,) = operands(ctx, ins, 1)
    ctx.dst(d, ctx.value("activemask", (), I32))


def lower_match(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """match.any|all.sync.type d[|p], a, membermask."""
    mode = mods.one_of(frozenset({"any", "all"}))
    if not mods.take("sync"):
        raise ctx.error(ins.span, "match needs .sync")
    t_name = mods.type()
    mods.done()
    if mode is None:
        raise ctx.error(ins.span, "match needs .any or .all")
    d, a, mask = operands(ctx, ins, 3)
    types = [I32, PRED] if mode == "all" else [I32]
    values = (ctx.src(a, ptx_type(t_name)), ctx.src(mask, I32, typed=False))
    op = ctx.emit("match", values, types, mode=mode, type=t_name)
    if isinstance(d, ast.Pair):
        if mode != "all":
            raise ctx.error(d.span, "only match.all has a predicate destination")
        ctx.dst(d.first, op.results[0])
        ctx.dst(d.second, op.results[1])
    else:
        ctx.dst(d, op.results[0])


# https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-redux-sync
_REDUX_TYPES: dict[str, frozenset[str]] = {
    **dict.fromkeys(("add",), frozenset({"u32", "s32"})),
    **dict.fromkeys(("min", "max"), frozenset({"u32", "s32", "f32"})),
    **dict.fromkeys(("and", "or", "xor"), frozenset({"b32"})),
}


def lower_redux(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    if not mods.take("sync"):
        raise ctx.error(ins.span, "redux needs .sync")
    op = mods.one_of(frozenset({"add", "min", "max", "and", "or", "xor"}))
    flags = {flag.lower(): True for flag in ("abs", "NaN") if mods.take(flag)}
    t_name = mods.type()
    mods.done()
    if op is None:
        raise ctx.error(ins.span, "redux needs an operation")
    if t_name not in _REDUX_TYPES[op]:
        raise ctx.error(ins.span, f"incorrect type '.{t_name}' for operation '.{op}' in instruction 'redux' "
                        f"(expected {', '.join('.' + t for t in sorted(_REDUX_TYPES[op]))})")
    if flags and t_name != "f32":
        raise ctx.error(ins.span, f"redux.{'.'.join(flags)} needs the .f32 type")
    d, a, mask = operands(ctx, ins, 3)
    t = ptx_type(t_name)
    values = (ctx.src(a, t), ctx.src(mask, I32, typed=False))
    ctx.dst(d, ctx.value("redux", values, t, op=op, type=t_name, **flags))


def lower_elect(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """elect.sync d|p, membermask: d = the leader's lane id, p = (this thread is the leader)."""
    if not mods.take("sync"):
        raise ctx.error(ins.span, "elect needs .sync")
    mods.done()
    d, mask = operands(ctx, ins, 2)
    if not isinstance(d, ast.Pair):
        raise ctx.error(d.span, "elect.sync needs a destination pair d|p (d may be the sink _)")
    op = ctx.emit("elect", (ctx.src(mask, I32, typed=False),), [I32, PRED])
    ctx.dst(d.first, op.results[0])
    ctx.dst(d.second, op.results[1])


CONTROL: dict[str, Lowering] = {
    "bra": lower_bra, "brx": lower_brx, "ret": lower_ret, "exit": lower_exit, "trap": lower_simple,  # type: ignore[dict-item]
    "brkpt": lower_simple, "nanosleep": lower_simple, "pmevent": lower_simple, "call": lower_call,
    "bar": lower_bar, "barrier": lower_bar, "shfl": lower_shfl, "vote": lower_vote,
    "activemask": lower_activemask, "match": lower_match, "redux": lower_redux, "elect": lower_elect,
}
