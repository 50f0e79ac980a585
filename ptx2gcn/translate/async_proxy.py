"""Lowering of PTX asynchronous-proxy instructions to IR: fence.proxy, cp.async.bulk (non-tensor
copies and their bulk groups), and the warpgroup MMA family wgmma (PTX ISA 9.7.13.4 membar/fence,
9.7.9.25 cp.async.bulk, 9.7.15 asynchronous warpgroup-level matrix instructions).

Invariant: each instruction becomes one IR op that keeps everything PTX says about it: state spaces
(including ``.shared::cluster``, whose addresses are reached as generic pointers), completion
mechanism, operand counts and the immediates of ``wgmma.mma_async`` as attributes; fragment
registers are read and written at their declared types, as for ``mma``. Forms not modelled here
(tensor-map copies, bulk prefetch, ``fence.proxy.tensormap``, single-bit wgmma) get a located
``unsupported``, never a silent approximation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ptx2gcn.diagnostics import UnsupportedError
from ptx2gcn.frontend import ast
from ptx2gcn.ir.types import I16, I32, I64, PRED
from ptx2gcn.translate.alu import Lowering, operands
from ptx2gcn.translate.emitter import FnCtx
from ptx2gcn.translate.modifiers import Mods

_PROXY_SPACES = {"global": "global", "shared::cta": "shared", "shared::cluster": "shared_cluster"}


def lower_fence_proxy(ctx: FnCtx, ins: ast.Instruction, mods: Mods) -> None:
    """fence.proxy.alias; fence.proxy.async{.global|.shared::cta|.shared::cluster}
    (``.proxy`` already taken by the caller)."""
    kind = mods.one_of(frozenset({"alias", "async"}))
    space = mods.one_of(frozenset(_PROXY_SPACES))
    if kind is None:
        if any(m.startswith("tensormap") for m in mods.left):
            raise UnsupportedError.feature(ins.span, "fence.proxy.tensormap::generic",
                                           "tensor maps have no gfx942 equivalent")
        raise ctx.error(ins.span, "fence.proxy needs a proxy kind (.alias or .async)")
    mods.done()
    if kind == "alias" and space is not None:
        raise ctx.error(ins.span, "fence.proxy.alias takes no state space")
    operands(ctx, ins, 0)
    ctx.emit("fence_proxy", (), (), kind=kind, space=_PROXY_SPACES.get(space or ""))


_BULK_SPACES = {"global": "global", "shared::cta": "shared", "shared::cluster": "shared_cluster"}


def lower_cp_async_bulk(ctx: FnCtx, ins: ast.Instruction, mods: Mods) -> None:
    """cp.async.bulk.dst.src.completion[.multicast::cluster][.level::cache_hint] [dst], [src], size
    [, [mbar]][, ctaMask][, policy]; cp.async.bulk.commit_group; cp.async.bulk.wait_group[.read] N
    (``.async.bulk`` already taken by the caller)."""
    if mods.take("commit_group") or mods.take("wait_group"):
        _bulk_group(ctx, ins, mods)
        return
    if mods.take("tensor") or mods.take("prefetch"):
        raise UnsupportedError.feature(ins.span, mods.full_name.replace("cp.", "cp.async.bulk.", 1),
                                       "tensor-map and prefetch bulk copies have no gfx942 equivalent")
    spaces = [m for m in mods.left if m in _BULK_SPACES]
    for m in spaces:
        mods.left.remove(m)
    completion = "mbarrier" if mods.take("mbarrier::complete_tx::bytes") else (
        "bulk_group" if mods.take("bulk_group") else None)
    multicast = mods.take("multicast::cluster")
    hint = mods.hints() or None
    mods.done()
    if len(spaces) != 2 or completion is None:
        raise ctx.error(ins.span, "cp.async.bulk needs a destination and a source state space and "
                        ".mbarrier::complete_tx::bytes or .bulk_group")
    dst, src = (_BULK_SPACES[s] for s in spaces)
    if (dst, src, completion) not in _BULK_FORMS or (multicast and dst != "shared_cluster"):
        raise ctx.error(ins.span, f"cp.async.bulk has no .{'.'.join(spaces)} form with {completion}")
    count = 3 + (completion == "mbarrier") + multicast + (hint is not None)
    ops = operands(ctx, ins, count - (hint is not None), count)
    values = [ctx.address(ops[0], dst), ctx.address(ops[1], src), ctx.src(ops[2], I32)]
    if completion == "mbarrier":
        values.append(ctx.address(ops[3], dst if dst != "global" else "shared"))
    if multicast:
        values.append(ctx.src(ops[4], I16))
    ctx.emit("cp_async_bulk", values, (), dst=dst, src=src, completion=completion, multicast=multicast,
             hint=hint)


# (dst, src, completion) forms of the non-tensor bulk copy.
_BULK_FORMS = frozenset({("shared_cluster", "global", "mbarrier"), ("shared", "global", "mbarrier"),
                         ("shared_cluster", "shared", "mbarrier"), ("global", "shared", "bulk_group")})


def _bulk_group(ctx: FnCtx, ins: ast.Instruction, mods: Mods) -> None:
    read = mods.take("read")
    mods.done()
    if not ins.operands:
        ctx.emit("cp_async_bulk_group", (), (), mode="commit")
        return
    (n,) = operands(ctx, ins, 1)
    if not isinstance(n, ast.IntImmediate):
        raise ctx.error(n.span, "cp.async.bulk.wait_group takes an integer constant")
    ctx.emit("cp_async_bulk_group", (), (), mode="wait", n=n.value, read=read)


_WGMMA_SHAPE = re.compile(r"m64n(8|16|24|32|40|48|56|64|72|80|88|96|104|112|120|128|136|144|152|160|168|176|"
                          r"184|192|200|208|216|224|232|240|248|256)k(8|16|32|256)")
_WGMMA_TYPES = ("f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "f32", "s32")
# atype -> names of the trailing immediates (a descriptor / a registers)
_IMMEDIATES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    **dict.fromkeys(("f16", "bf16"), (("scale_a", "scale_b", "trans_a", "trans_b"),
                                      ("scale_a", "scale_b", "trans_b"))),
    **dict.fromkeys(("tf32", "e4m3", "e5m2"), (("scale_a", "scale_b"), ("scale_a", "scale_b"))),
    **dict.fromkeys(("s8", "u8"), ((), ())),
}


def lower_wgmma(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """wgmma.fence / commit_group / wait_group N / mma_async, all ``.sync.aligned``."""
    if not (mods.take("sync") and mods.take("aligned")):
        raise ctx.error(ins.span, "wgmma instructions are .sync.aligned")
    mode = mods.one_of(frozenset({"fence", "commit_group", "wait_group", "mma_async"}))
    if mode == "mma_async":
        _wgmma_mma(ctx, ins, mods)
        return
    mods.done()
    if mode is None:
        raise ctx.error(ins.span, "wgmma needs .fence, .commit_group, .wait_group or .mma_async")
    if mode != "wait_group":
        operands(ctx, ins, 0)
        ctx.emit("wgmma", (), (), mode=mode)
        return
    (n,) = operands(ctx, ins, 1)
    if not isinstance(n, ast.IntImmediate):
        raise ctx.error(n.span, "wgmma.wait_group takes an integer constant")
    ctx.emit("wgmma", (), (), mode=mode, n=n.value)


def _wgmma_mma(ctx: FnCtx, ins: ast.Instruction, mods: Mods) -> None:
    shape = next((m for m in mods.left if _WGMMA_SHAPE.fullmatch(m)), None)
    if shape is not None:
        mods.left.remove(shape)
    satfinite = mods.take("satfinite")
    types = [m for m in mods.left if m in _WGMMA_TYPES]
    for m in types:
        mods.left.remove(m)
    if "b1" in mods.left:
        raise UnsupportedError.feature(ins.span, "wgmma.mma_async.b1", "single-bit wgmma is not translated")
    mods.done()
    if shape is None or len(types) != 3 or types[1] not in _IMMEDIATES:
        raise ctx.error(ins.span, "wgmma.mma_async needs a shape (.m64nNkK) and .dtype.atype.btype")
    dtype, atype, btype = types
    d, a, *rest = ins.operands
    a_regs = _fragment(ctx, a)
    adesc = not isinstance(a, ast.Vector)
    names = _IMMEDIATES[atype][0 if adesc else 1]
    if len(rest) != 2 + len(names):
        raise ctx.error(ins.span, f"wgmma.mma_async.{dtype}.{atype}.{btype} takes {4 + len(names)} "
                        f"operands here, got {len(ins.operands)}")
    immediates = {name: _immediate(ctx, operand) for name, operand in zip(names, rest[2:])}
    dests = _fragment(ctx, d)
    values = [ctx.read_native(r) for r in dests]
    values += [ctx.src(a, I64)] if adesc else [ctx.read_native(r) for r in a_regs]
    values += [ctx.src(rest[0], I64), ctx.src(rest[1], PRED)]
    op = ctx.emit("wgmma_mma", values, [ctx.native_type(r) for r in dests], shape=shape, dtype=dtype,
                  atype=atype, btype=btype, d=len(dests), a=1 if adesc else len(a_regs), adesc=adesc,
                  satfinite=satfinite, **immediates)
    for dest, value in zip(dests, op.results):
        ctx.dst(dest, value)


def _fragment(ctx: FnCtx, operand: ast.Operand) -> Sequence[ast.Operand]:
    parts = ctx.components(operand)
    if parts is not None:
        return parts
    return operand.elements if isinstance(operand, ast.Vector) else (operand,)


def _immediate(ctx: FnCtx, operand: ast.Operand) -> int:
    if not isinstance(operand, ast.IntImmediate):
        raise ctx.error(operand.span, "expected an integer constant (imm-scale/imm-trans)")
    return operand.value


ASYNC: dict[str, Lowering] = {"wgmma": lower_wgmma}
