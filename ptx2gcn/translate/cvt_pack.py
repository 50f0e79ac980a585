"""Lowering of ``cvt.pack.sat`` (PTX ISA 9.7.9.22) to the IR op ``cvt_pack``.

Invariant: only the forms PTX defines (and ptxas 13.0 accepts) build: ``cvt.pack.sat.{u16,s16}.s32
d, a, b`` and ``cvt.pack.sat.{u2,s2,u4,s4,u8,s8}.s32.b32 d, a, b, c``; ``.sat`` is required; every
other spelling is a located error. All operands are 32-bit values.
"""

from __future__ import annotations

from ptx2gcn.frontend import ast
from ptx2gcn.ir.types import I32
from ptx2gcn.translate.emitter import FnCtx
from ptx2gcn.translate.modifiers import Mods

_NARROW = ("u2", "s2", "u4", "s4", "u8", "s8")
_WIDE = ("u16", "s16")


def lower_cvt_pack(ctx: FnCtx, ins: ast.Instruction, mods: Mods) -> None:
    """cvt.pack.sat.convertType.s32[.b32] d, a, b[, c] (``.pack`` already taken by the caller)."""
    if not mods.take("sat"):
        raise ctx.error(ins.span, ".sat modifier required for instruction 'cvt.pack'")
    convert = mods.one_of(frozenset(_NARROW + _WIDE))
    types = [m for m in mods.left if m in ("s32", "b32")]
    for m in types:
        mods.left.remove(m)
    mods.done()
    want = ["s32"] if convert in _WIDE else ["s32", "b32"]
    if convert is None or types != want:
        raise ctx.error(ins.span, "cvt.pack takes .u16/.s16 with .s32, or .u2/.s2/.u4/.s4/.u8/.s8 "
                        "with .s32.b32 (unexpected instruction types)")
    count = 3 if convert in _WIDE else 4
    if len(ins.operands) != count:
        raise ctx.error(ins.span, f"cvt.pack.sat.{convert} takes {count} operands, got {len(ins.operands)}")
    d, *sources = ins.operands
    values = [ctx.src(s, I32, signed=True) for s in sources]
    ctx.dst(d, ctx.value("cvt_pack", values, I32, dtype=convert))
