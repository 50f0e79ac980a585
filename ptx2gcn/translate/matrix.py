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
from ptx2gcn.translate.matrix_rules import (
    check_fragments,
    check_ldst_target,
    check_mma,
    check_mma_sp,
    check_wmma_ldst,
    check_wmma_mma,
    mma_registers,
    require_sync_aligned,
)
from ptx2gcn.translate.modifiers import Mods
from ptx2gcn.translate.target_gates import require_target, target_of

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


def _common(ctx: FnCtx, ins: ast.Instruction, mods: Mods, name: str) -> str:
    """``.sync.aligned`` (required) and the shape."""
    sync, aligned = mods.take("sync"), mods.take("aligned")
    # wmma before PTX ISA 6.3 was spelled without .aligned (9.7.14.4, PTX ISA notes)
    legacy = name.startswith("wmma") and target_of(ctx).version < (6, 3)
    require_sync_aligned(ctx, ins, name, sync, aligned or legacy)
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
        _sparse_mma(ctx, ins, mods, sparse[0])
    kinds = [m for m in mods.left if m.startswith("kind::") or m == "block_scale"]
    if kinds:
        require_target(ctx, ins, f"mma.{kinds[0]}", 120, (8, 7))
        raise UnsupportedError.feature(ins.span, f"mma.{kinds[0]}", "sm_120 .kind:: and block-scaled mma "
                                       "(fp6/fp4 elements, scale factors) have no gfx942 lowering yet")
    shape = _common(ctx, ins, mods, "mma")
    layouts = [m for m in mods.left if m in ("row", "col")]
    for m in layouts:
        mods.left.remove(m)
    satfinite = mods.take("satfinite")
    bitop = _bitop(ctx, ins, mods)
    types = _types(mods)
    mods.done()
    kind = check_mma(ctx, ins, shape, layouts, types, satfinite, bitop)
    d, a, b, c = operands(ctx, ins, 4)
    frags = [_fragment(ctx, x) for x in (a, b, c)]
    dests = _fragment(ctx, d)
    dtype, atype, btype, ctype = types
    check_fragments(ctx, ins, "mma", (len(dests), *(len(f) for f in frags)), mma_registers(shape, kind, dtype, ctype))
    values = [_read(ctx, e) for frag in frags for e in frag]
    result_types = [_dest_type(ctx, e) for e in dests]
    op = ctx.emit("mma", values, result_types, shape=shape, alayout=layouts[0], blayout=layouts[1],
                  dtype=dtype, atype=atype, btype=btype, ctype=ctype, satfinite=satfinite,
                  a=len(frags[0]), b=len(frags[1]), c=len(frags[2]), bitop=bitop)
    _write(ctx, dests, op.results)


def _sparse_mma(ctx: FnCtx, ins: ast.Instruction, mods: Mods, word: str) -> None:
    """mma.sp[::ordered_metadata] d, a, b, c, e, f: checked like ptxas, then a located unsupported."""
    mods.left.remove(word)
    if word not in ("sp", "sp::ordered_metadata"):
        raise ctx.error(ins.span, f"unknown sparse mma modifier .{word}")
    shape = _common(ctx, ins, mods, "mma")
    layouts = [m for m in mods.left if m in ("row", "col")]
    for m in layouts:
        mods.left.remove(m)
    satfinite = mods.take("satfinite")
    types = _types(mods)
    mods.done()
    require_target(ctx, ins, f".{word}", 80, (7, 1) if word == "sp" else (8, 5))
    wanted = check_mma_sp(ctx, ins, shape, layouts, types, satfinite)
    d, a, b, c, _, selector = operands(ctx, ins, 6)
    got = tuple(len(_fragment(ctx, x)) for x in (d, a, b, c))
    check_fragments(ctx, ins, "mma.sp", got, wanted)
    if not isinstance(selector, ast.IntImmediate):
        raise ctx.error(selector.span, "the sparsity selector of mma.sp is an integer constant")
    raise UnsupportedError.feature(ins.span, f"mma.{word}", "sparse mma (2:4 structured sparsity with metadata "
                                   "operands) has no gfx942 lowering yet: the PTX ISA gives the metadata layouts "
                                   "only as figures, and no model of them exists here to test one against")


def _bitop(ctx: FnCtx, ins: ast.Instruction, mods: Mods) -> str | None:
    """``.and.popc`` / ``.xor.popc`` of single-bit forms (None: neither)."""
    bitop = mods.one_of(frozenset({"and", "xor"}))
    if bitop is not None and not mods.take("popc"):
        raise ctx.error(ins.span, f"single-bit {ins.opcode} needs .{bitop}.popc")
    return bitop


def lower_wmma(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """wmma.load.{a,b,c} / wmma.store.d / wmma.mma (sync, aligned)."""
    if mods.take("mma"):
        _wmma_mma(ctx, ins, mods)
        return
    load = mods.take("load")
    if not load and not mods.take("store"):
        raise ctx.error(ins.span, "wmma is .load, .store or .mma")
    frag = mods.one_of(frozenset({"a", "b", "c", "d"}))
    shape = _common(ctx, ins, mods, f"wmma.{'load' if load else 'store'}.{frag}")
    layout = mods.one_of(frozenset({"row", "col"}))
    space = mods.space()
    types = _types(mods)
    mods.done()
    check_wmma_ldst(ctx, ins, load, frag, shape, layout, types)
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
    bitop = _bitop(ctx, ins, mods)
    shape = _common(ctx, ins, mods, "wmma.mma")
    layouts = [m for m in mods.left if m in ("row", "col")]
    for m in layouts:
        mods.left.remove(m)
    satfinite = mods.take("satfinite")
    rnd = mods.rounding()
    types = _types(mods)
    mods.done()
    dtype, atype, btype, ctype = check_wmma_mma(ctx, ins, shape, layouts, types, satfinite, bitop)
    d, a, b, c = operands(ctx, ins, 4)
    frags = [_fragment(ctx, x) for x in (a, b, c)]
    values = [_read(ctx, e) for frag in frags for e in frag]
    dests = _fragment(ctx, d)
    op = ctx.emit("mma", values, [_dest_type(ctx, e) for e in dests], shape=shape, alayout=layouts[0],
                  blayout=layouts[1], dtype=dtype, atype=atype, btype=btype, ctype=ctype,
                  satfinite=satfinite, a=len(frags[0]), b=len(frags[1]), c=len(frags[2]), wmma=True,
                  rnd=rnd, bitop=bitop)
    _write(ctx, dests, op.results)


def lower_ldmatrix(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """ldmatrix.sync.aligned.shape.num[.trans][.shared].type d, [p] and stmatrix [p], s."""
    sync, aligned = mods.take("sync"), mods.take("aligned")
    require_sync_aligned(ctx, ins, ins.opcode, sync, aligned)
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
    if (shape == "m8n8") != (t_name == "b16"):
        raise ctx.error(ins.span, f"Unexpected instruction types specified for '{ins.opcode}': .{shape} .{t_name}")
    check_ldst_target(ctx, ins)
    if shape != "m8n8":
        require_target(ctx, ins, f"{ins.opcode}.{shape}", 100, (8, 6))
    a, b = operands(ctx, ins, 2)
    regs = len(_fragment(ctx, a if ins.opcode == "ldmatrix" else b))
    if shape == "m8n8" and regs != int(num[1]):
        raise ctx.error(ins.span, f"Vector of size {num[1]} is expected for the fragment of '{ins.opcode}' "
                        f".{num}, got {regs} registers")
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
    sync, aligned = mods.take("sync"), mods.take("aligned")
    require_sync_aligned(ctx, ins, "movmatrix", sync, aligned)
    shape = mods.one_of(frozenset({"m8n8"}))
    trans = mods.take("trans")
    t_name = mods.type()
    mods.done()
    if shape is None or not trans or t_name != "b16":
        raise ctx.error(ins.span, "movmatrix is .m8n8.trans.b16")
    check_ldst_target(ctx, ins)
    d, a = operands(ctx, ins, 2)
    ctx.dst(d, ctx.value("movmatrix", (ctx.src(a, I32),), I32, shape=shape, trans=True, type=t_name))


def _dest_type(ctx: FnCtx, operand: ast.Operand) -> Type:
    return ctx.native_type(operand)


MATRIX: dict[str, Lowering] = {
    "mma": lower_mma, "wmma": lower_wmma, "ldmatrix": lower_ldmatrix, "stmatrix": lower_ldmatrix,
    "movmatrix": lower_movmatrix,
}
