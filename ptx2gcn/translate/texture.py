"""Lowering of PTX texture and surface instructions: tex, tld4, suld.b, sust.b.

Invariant: the texture/surface is a 64-bit handle operand (the address of a ``.texref``/
``.surfref`` variable, or a bindless handle register); coordinates and results are the registers
PTX names at their declared types, and geometry, types, level/gradient mode and the out-of-range
behaviour are attributes, so no texture semantics is decided here.
"""

from __future__ import annotations

from ptx2gcn.frontend import ast
from ptx2gcn.ir.core import Value
from ptx2gcn.ir.opcodes import OPS
from ptx2gcn.ir.types import I32, I64, PRED, ptx_type
from ptx2gcn.translate.alu import Lowering
from ptx2gcn.translate.emitter import FnCtx
from ptx2gcn.translate.modifiers import Mods

_GEOMETRIES = OPS["tex"].attrs["geom"]


def _elements(ctx: FnCtx, operand: ast.Operand) -> tuple[ast.Operand, ...]:
    parts = ctx.components(operand)
    if parts is not None:
        return parts
    return operand.elements if isinstance(operand, ast.Vector) else (operand,)


def _handle(ctx: FnCtx, operand: ast.Operand) -> Value:
    name = getattr(operand, "name", None)
    if isinstance(name, str) and ctx.lookup(name) is None:
        return ctx.value("ptrtoint", (ctx.symbol_ptr(operand.span, name),), I64)
    return ctx.src(operand, I64)


def _geometry(ctx: FnCtx, ins: ast.Instruction, mods: Mods) -> str:
    geom = mods.one_of(_GEOMETRIES) if isinstance(_GEOMETRIES, frozenset) else None
    if geom is None:
        raise ctx.error(ins.span, f"'{ins.opcode}' needs a geometry (.1d, .2d, .3d, ...)")
    return geom


def _bracket(ctx: FnCtx, ins: ast.Instruction, operand: ast.Operand) -> tuple[ast.Operand, ...]:
    if not isinstance(operand, ast.BracketList):
        raise ctx.error(operand.span, f"'{ins.opcode}' needs [handle, {{coordinates}}]")
    return operand.items


def lower_tex(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """tex[.level|.grad].geom.v4.dtype.ctype d[|p], [a[, sampler], c][, lod | dPdx, dPdy]."""
    comp = mods.one_of(frozenset({"r", "g", "b", "a"})) if ins.opcode == "tld4" else None
    mode = "gather" if ins.opcode == "tld4" else mods.one_of(frozenset({"base", "level", "grad"}))
    if ins.opcode == "tld4" and comp is None:
        raise ctx.error(ins.span, "tld4 needs a component (.r, .g, .b, .a)")
    geom = _geometry(ctx, ins, mods)
    mods.vec()
    types = mods.types()
    mods.done()
    if len(types) != 2 or len(ins.operands) < 2:
        raise ctx.error(ins.span, "tex needs d, [handle, coordinates] and dtype.ctype")
    items = _bracket(ctx, ins, ins.operands[1])
    if len(items) not in (2, 3):
        raise ctx.error(ins.operands[1].span, "tex takes [texture, coordinates] or [texture, sampler, coordinates]")
    handles = [_handle(ctx, item) for item in items[:-1]]
    coords = [ctx.read_native(e) for e in _elements(ctx, items[-1])]
    extras = [ctx.read_native(e) for extra in ins.operands[2:] for e in _elements(ctx, extra)]
    dest = ins.operands[0]
    first, second = (dest.first, dest.second) if isinstance(dest, ast.Pair) else (dest, None)
    dests = _elements(ctx, first)
    result_types = [ctx.native_type(e) for e in dests] + ([PRED] if second is not None else [])
    op = ctx.emit("tex", (*handles, *coords, *extras), result_types, geom=geom, dtype=types[0],
                  ctype=types[1], mode=mode, sampler=len(handles) == 2, coords=len(coords),
                  pred=second is not None, comp=comp)
    for element, value in zip(dests, op.results):
        ctx.dst(element, value)
    if second is not None:
        ctx.dst(second, op.results[-1])


def lower_surface(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """suld.b.geom[.vN].type.clamp d, [a, c] and sust.b.geom[.vN].type.clamp [a, c], v."""
    if not mods.take("b"):
        raise ctx.error(ins.span, f"only the raw-bits form {ins.opcode}.b is part of PTX ISA 2.0+")
    geom = _geometry(ctx, ins, mods)
    vec = mods.vec()
    t_name = mods.type()
    clamp = mods.one_of(frozenset({"trap", "clamp", "zero"})) or "trap"
    mods.done()
    if len(ins.operands) != 2:
        raise ctx.error(ins.span, f"'{ins.opcode}' takes two operands")
    load = ins.opcode == "suld"
    items = _bracket(ctx, ins, ins.operands[1] if load else ins.operands[0])
    if len(items) != 2:
        raise ctx.error(ins.span, f"'{ins.opcode}' takes [surface, coordinates]")
    handle = _handle(ctx, items[0])
    coords = [ctx.read_native(e) for e in _elements(ctx, items[1])]
    if load:
        dests = _elements(ctx, ins.operands[0])
        op = ctx.emit("suld", (handle, *coords), [ctx.native_type(e) for e in dests], geom=geom, type=t_name,
                      vec=vec or None, clamp=clamp)
        for element, value in zip(dests, op.results):
            ctx.dst(element, value)
        return
    values = [ctx.read_native(e) for e in _elements(ctx, ins.operands[1])]
    ctx.emit("sust", (handle, *coords, *values), (), geom=geom, type=t_name, vec=vec or None, clamp=clamp,
             coords=len(coords))


def lower_query(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """txq[.level].query.b32 d, [a[, lod]] and suq.query.b32 d, [a]."""
    level = mods.take("level")
    t_name = mods.type()
    query = mods.left.pop(0) if len(mods.left) == 1 else None
    mods.done()
    if query is None or len(ins.operands) != 2:
        raise ctx.error(ins.span, f"'{ins.opcode}' takes one query (.width, .height, ...) and d, [a]")
    items = _bracket(ctx, ins, ins.operands[1]) if isinstance(ins.operands[1], ast.BracketList) else (
        ins.operands[1].base,) if isinstance(ins.operands[1], ast.Address) else ()
    if not items:
        raise ctx.error(ins.operands[1].span, f"'{ins.opcode}' needs [handle]")
    values = [_handle(ctx, items[0]), *(ctx.src(e, I32) for e in items[1:])]
    result = ctx.value("txq", values, ptx_type(t_name), query=("level." if level else "") + query,
                       surface=ins.opcode == "suq")
    ctx.dst(ins.operands[0], result)


TEXTURE: dict[str, Lowering] = {
    "txq": lower_query, "suq": lower_query, "tex": lower_tex, "tld4": lower_tex, "suld": lower_surface,
    "sust": lower_surface,
}
