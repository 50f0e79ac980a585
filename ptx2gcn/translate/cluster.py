"""Lowering of PTX thread-block-cluster instructions to IR: barrier.cluster, mapa, getctarank, and
addresses in the ``.shared::cluster`` window (PTX ISA 9.7.13.3 barrier.cluster, 9.7.9.23 mapa,
9.7.9.24 getctarank, 5.1.5 shared state space).

Invariant: every cluster instruction becomes one IR op that states its PTX meaning for any cluster
size (the IR assumes nothing about how many CTAs a cluster has); a ``.shared::cluster`` address is an
integer of the window, and memory accessed through it is reached as a generic pointer obtained with
``cvta_cluster`` (exactly PTX's ``cvta.shared::cluster``), so no pointer type needs a cluster space.
"""

from __future__ import annotations

from collections.abc import Callable

from ptx2gcn.frontend import ast
from ptx2gcn.ir.types import I32, ptx_type
from ptx2gcn.translate.emitter import FnCtx
from ptx2gcn.translate.modifiers import Mods


def lower_barrier_cluster(ctx: FnCtx, ins: ast.Instruction, mods: Mods) -> None:
    """barrier.cluster.arrive{.release|.relaxed}{.aligned}; barrier.cluster.wait{.acquire}{.aligned}
    (``.cluster`` already taken by the caller)."""
    mode = mods.one_of(frozenset({"arrive", "wait"}))
    sem = mods.one_of(frozenset({"release", "relaxed", "acquire"}))
    aligned = mods.take("aligned")
    mods.done()
    if ins.opcode != "barrier" or mode is None:
        raise ctx.error(ins.span, "a cluster barrier is barrier.cluster.arrive or barrier.cluster.wait")
    allowed = ("release", "relaxed") if mode == "arrive" else ("acquire",)
    if sem is not None and sem not in allowed:
        raise ctx.error(ins.span, f"barrier.cluster.{mode} takes {' or '.join('.' + a for a in allowed)}, "
                        f"not .{sem}")
    if ins.operands:
        raise ctx.error(ins.operands[0].span, "barrier.cluster takes no operands")
    ctx.emit("barrier_cluster", (), (), mode=mode, sem=sem or allowed[0], aligned=aligned)


def _cluster_space(mods: Mods) -> str:
    """'shared_cluster' for ``.shared::cluster``, 'generic' when no space is written."""
    if mods.take("shared::cluster"):
        return "shared_cluster"
    return "generic"


def lower_mapa(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """mapa{.shared::cluster}.type d, a, b (type u32 or u64)."""
    space = _cluster_space(mods)
    t_name = mods.type()
    mods.done()
    if t_name not in ("u32", "u64"):
        raise ctx.error(ins.span, f"mapa takes .u32 or .u64, not .{t_name}")
    if space == "shared_cluster" and t_name != "u32":
        raise ctx.error(ins.span, "mapa.shared::cluster addresses are .u32")
    d, a, b = _operands(ctx, ins, 3)
    t = ptx_type(t_name)
    ctx.dst(d, ctx.value("mapa", (ctx.src(a, t), ctx.src(b, I32)), t, type=t_name, space=space))


def lower_getctarank(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """getctarank{.shared::cluster}.type d, a (type u32 or u64; d is a u32 rank)."""
    space = _cluster_space(mods)
    t_name = mods.type()
    mods.done()
    if t_name not in ("u32", "u64"):
        raise ctx.error(ins.span, f"getctarank takes .u32 or .u64, not .{t_name}")
    if space == "shared_cluster" and t_name != "u32":
        raise ctx.error(ins.span, "getctarank.shared::cluster addresses are .u32")
    d, a = _operands(ctx, ins, 2)
    ctx.dst(d, ctx.value("getctarank", (ctx.src(a, ptx_type(t_name)),), I32, type=t_name, space=space))


def lower_cvta_cluster(ctx: FnCtx, ins: ast.Instruction, mods: Mods, to: bool) -> None:
    """cvta[.to].shared::cluster.type d, a (``.shared::cluster`` already taken by the caller)."""
    t_name = mods.type()
    mods.done()
    d, a = _operands(ctx, ins, 2)
    t = ptx_type(t_name)
    ctx.dst(d, ctx.value("cvta_cluster", (ctx.src(a, t),), t, to=to))



def _operands(ctx: FnCtx, ins: ast.Instruction, count: int) -> tuple[ast.Operand, ...]:
    if len(ins.operands) != count:
        raise ctx.error(ins.span, f"'{ins.opcode}' takes {count} operands, got {len(ins.operands)}")
    return ins.operands


CLUSTER: dict[str, Callable[[FnCtx, ast.Instruction, Mods, object], None]] = {
    "mapa": lower_mapa, "getctarank": lower_getctarank,
}
"""PTX opcodes lowered here (pure: barrier.cluster and cvta come through ``bar``/``cvta``)."""
