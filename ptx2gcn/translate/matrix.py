"""Lowering of PTX warp-level matrix instructions: mma, ldmatrix/stmatrix, wmma load/store/mma.

Invariant: a fragment is the list of registers PTX names, read and written at their declared
types without conversion, so the IR op carries exactly the bits PTX distributes across the warp;
shape, layouts and element types are attributes, and operand counts split the variadic operand
list (``a``, ``b``, ``c``). Fragment layouts across lanes are the codegen's business.
"""

from __future__ import annotations

from collections.abc import Sequence

from ptx2gcn.diagnostics import UnsupportedError
from ptx2gcn.frontend import ast
from ptx2gcn.ir.core import Value
from ptx2gcn.ir.opcodes import OPS
from ptx2gcn.ir.types import I32, Type
from ptx2gcn.translate.alu import Lowering, operands
from ptx2gcn.translate.emitter import FnCtx
from ptx2gcn.translate.modifiers import Mods

_SHAPES = OPS["mma"].attrs["shape"]
_ELEMS = OPS["mma"].attrs["dtype"]


def _fragment(ctx: FnCtx, operand: ast.Operand) -> tuple[ast.Operand, ...]:
    parts = ctx.components(operand)
    if parts is not None:
        return parts
    if isinstance(operand, ast.Vector):
        return operand.elements
    return (operand,)


def _read(ctx: FnCtx, operand: ast.Operand) -> Value:
    """A fragment register's value at its declared type."""
    return ctx.read_native(operand)


def _types(mods: Mods) -> list[str]:
    found = [m for m in mods.left if m in _ELEMS]
    for m in found:
        mods.left.remove(m)
    return found


def _common(mods: Mods) -> str:
    for word in ("sync", "aligned"):
        mods.take(word)
    shape = mods.one_of(_SHAPES) if isinstance(_SHAPES, frozenset) else None
    if shape is None:
        raise mods.error(f"'{mods.opcode}' needs a shape such as .m16n8k16")
    return shape


def _write(ctx: FnCtx, dests: tuple[ast.Operand, ...], values: Sequence[Value]) -> None:
    for dest, value in zip(dests, values):
        ctx.dst(dest, value)


def lower_mma(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """mma.sync.aligned.shape.alayout.blayout[.satfinite].dtype.atype.btype.ctype d, a, b, c."""
    sparse = [m for m in mods.left if m == "sp" or m.startswith("sp::")]
    if sparse:
        raise UnsupportedError.feature(ins.span, f"mma.{sparse[0]}", "sparse mma (2:4 structured sparsity with "
                                       "metadata operands) has no gfx942 lowering yet")
    kinds = [m for m in mods.left if m.startswith("kind::") or m == "block_scale"]
    if kinds:
        raise UnsupportedError.feature(ins.span, f"mma.{kinds[0]}", "sm_120 .kind:: and block-scaled mma "
                                       "(fp6/fp4 elements, scale factors) have no gfx942 lowering yet")
    shape = _common(mods)
    layouts = [m for m in mods.left if m in ("row", "col")]
    for m in layouts:
        mods.left.remove(m)
    satfinite = mods.take("satfinite")
    bitop = mods.one_of(frozenset({"and", "xor"}))
    if bitop is not None and not mods.take("popc"):
        raise ctx.error(ins.span, f"single-bit mma needs .{bitop}.popc")
    types = _types(mods)
    mods.done()
    if len(layouts) != 2 or len(types) not in (2, 4):
        raise ctx.error(ins.span, "mma needs two layouts and dtype.atype.btype.ctype")
    d, a, b, c = operands(ctx, ins, 4)
    frags = [_fragment(ctx, x) for x in (a, b, c)]
    values = [_read(ctx, e) for frag in frags for e in frag]
    dests = _fragment(ctx, d)
    result_types = [_dest_type(ctx, e) for e in dests]
    dtype, atype, btype, ctype = (types if len(types) == 4 else [types[0], "", "", types[1]])
    op = ctx.emit("mma", values, result_types, shape=shape, alayout=layouts[0], blayout=layouts[1],
                  dtype=dtype, atype=atype or None, btype=btype or None, ctype=ctype, satfinite=satfinite,
                  a=len(frags[0]), b=len(frags[1]), c=len(frags[2]), bitop=bitop)
    _write(ctx, dests, op.results)


def lower_wmma(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """wmma.load.{a,b,c} / wmma.store.d / wmma.mma (sync, aligned)."""
    if mods.take("mma"):
        _wmma_mma(ctx, ins, mods)
        return
    load = mods.take("load")
    if not load and not mods.take("store"):
        raise ctx.error(ins.span, "wmma is .load, .store or .mma")
    frag = mods.one_of(frozenset({"a", "b", "c", "d"}))
    shape = _common(mods)
    layout = mods.one_of(frozenset({"row", "col"}))
    space = mods.space()
    types = _types(mods)
    mods.done()
    if frag is None or layout is None or len(types) != 1:
        raise ctx.error(ins.span, "wmma load/store needs a fragment, a layout and one type")
    ops = operands(ctx, ins, 2, 3)
    stride = [ctx.src(ops[2], I32)] if len(ops) == 3 else []
    if load:
        dests = _fragment(ctx, ops[0])
        op = ctx.emit("wmma_load", (ctx.address(ops[1], space), *stride),
                      [_dest_type(ctx, e) for e in dests], frag=frag, layout=layout, shape=shape,
                      type=types[0])
        _write(ctx, dests, op.results)
        return
    sources = [_read(ctx, e) for e in _fragment(ctx, ops[1])]
    ctx.emit("wmma_store", (ctx.address(ops[0], space), *sources, *stride), (), layout=layout, shape=shape,
             type=types[0], n=len(sources))


def _wmma_mma(ctx: FnCtx, ins: ast.Instruction, mods: Mods) -> None:
    shape = _common(mods)
    layouts = [m for m in mods.left if m in ("row", "col")]
    for m in layouts:
        mods.left.remove(m)
    satfinite = mods.take("satfinite")
    rnd = mods.rounding()
    types = _types(mods)
    mods.done()
    if len(layouts) != 2 or len(types) not in (2, 4):
        raise ctx.error(ins.span, "wmma.mma needs two layouts and its types")
    d, a, b, c = operands(ctx, ins, 4)
    frags = [_fragment(ctx, x) for x in (a, b, c)]
    values = [_read(ctx, e) for frag in frags for e in frag]
    dests = _fragment(ctx, d)
    dtype, atype, btype, ctype = (types if len(types) == 4 else [types[0], "", "", types[1]])
    op = ctx.emit("mma", values, [_dest_type(ctx, e) for e in dests], shape=shape, alayout=layouts[0],
                  blayout=layouts[1], dtype=dtype, atype=atype or None, btype=btype or None, ctype=ctype,
                  satfinite=satfinite, a=len(frags[0]), b=len(frags[1]), c=len(frags[2]), wmma=True,
                  rnd=rnd)
    _write(ctx, dests, op.results)


def lower_ldmatrix(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """ldmatrix.sync.aligned.shape.num[.trans][.shared].type d, [p] and stmatrix [p], s."""
    for word in ("sync", "aligned"):
        mods.take(word)
    shape = mods.one_of(frozenset({"m8n8", "m16n16", "m8n16", "m16n8"}))
    num = mods.one_of(frozenset({"x1", "x2", "x4"}))
    trans = mods.take("trans")
    space = mods.space()
    t_name = mods.type()
    mods.done()
    if shape is None or num is None:
        raise ctx.error(ins.span, f"{ins.opcode} needs a shape and .x1/.x2/.x4")
    if space not in ("shared", "generic"):
        raise ctx.error(ins.span, f"{ins.opcode} accesses shared memory")
    a, b = operands(ctx, ins, 2)
    if ins.opcode == "ldmatrix":
        dests = _fragment(ctx, a)
        op = ctx.emit("ldmatrix", (ctx.address(b, "shared"),), [I32] * len(dests), shape=shape, num=num,
                      trans=trans, type=t_name)
        _write(ctx, dests, op.results)
        return
    values = [ctx.src(e, I32) for e in _fragment(ctx, b)]
    ctx.emit("stmatrix", (ctx.address(a, "shared"), *values), (), shape=shape, num=num, trans=trans,
             type=t_name)


def lower_movmatrix(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """movmatrix.sync.aligned.m8n8.trans.b16 d, a: transpose an 8x8 b16 matrix across the warp."""
    for word in ("sync", "aligned"):
        mods.take(word)
    shape = mods.one_of(frozenset({"m8n8"}))
    trans = mods.take("trans")
    t_name = mods.type()
    mods.done()
    if shape is None or not trans:
        raise ctx.error(ins.span, "movmatrix needs .m8n8 and .trans")
    d, a = operands(ctx, ins, 2)
    ctx.dst(d, ctx.value("movmatrix", (ctx.src(a, I32),), I32, shape=shape, trans=True, type=t_name))


def _dest_type(ctx: FnCtx, operand: ast.Operand) -> Type:
    return ctx.native_type(operand)


MATRIX: dict[str, Lowering] = {
    "mma": lower_mma, "wmma": lower_wmma, "ldmatrix": lower_ldmatrix, "stmatrix": lower_ldmatrix,
    "movmatrix": lower_movmatrix,
}
