"""``match.{any,all}.sync`` and ``redux.sync`` (integer forms) on a half-wave (Mode P).

Invariant: ``match.any`` is a wave-uniform waterfall over (warp, value) classes: each round takes
the lowest remaining active lane ``L`` of the *wave*, and the lanes equal to its value **and in the
same half** get the class mask, shifted down to their own 32 bits; it ends when every active lane
of the wave is classified (≤ 64 rounds). ``match.all`` compares with the lowest active lane of the
first active lane of its own membermask (fetched with ``ds_bpermute`` inside the half, so lanes
of different cooperative-groups tiles, which pass different masks, compare with their own tile).
``redux.sync`` folds with ``ds_swizzle`` xor 1/2/4/8/16 in bit mode, which permutes inside each
32-lane group only, under whole-wave mode (``set.inactive`` + ``strict.wwm``) with the operation's
identity in inactive lanes and non-members, so the partner warp never contributes. A membermask
that is not a constant may differ per lane: a lane whose mask is an aligned run of 2^t lanes
containing itself (a ``tiled_partition`` tile) stops folding after step 2^(t-1), and inactive lanes
keep folding; since the steps ascend, every lane only ever folds data of its own tile. Other
per-lane masks are folded as one group (exact when all members pass the same mask).
Design: docs/mode-p.md, "The collectives". Costs: match.any per round 1–2 v_readlane + v_cmp + ballot +
~6 SALU; match.all ballot + s_ff1-style cttz + 1–2 ds_bpermute + v_cmp; redux 5 ds_swizzle + 5 VALU
+ WWM exec saves (about 40 more VALU/SALU for the tile size when the membermask is a register).
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.llvm_types import I1, I32, I64
from ptx2gcn.emit.wave64_geometry import ballot64, half_base, half_bits, half_exec, lane_id
from ptx2gcn.emit.wave64_shuffle import gather
from ptx2gcn.emit.wave64_vote import membermask
from ptx2gcn.ir.core import Op


def _readlane(cx: FnContext, value: ir.Value, lane: ir.Value) -> ir.Value:
    """``value`` of wave lane ``lane`` (wave-uniform, 0..63); 64-bit values as two 32-bit reads."""
    if value.type == I32:
        return cx.call("llvm.amdgcn.readlane.i32", I32, [value, lane], ["convergent"])
    b = cx.builder
    lo = _readlane(cx, b.trunc(value, I32), lane)
    hi = _readlane(cx, b.trunc(b.lshr(value, ir.Constant(I64, 32)), I32), lane)
    return b.or_(b.zext(lo, I64), b.shl(b.zext(hi, I64), ir.Constant(I64, 32)))


def _cttz64(cx: FnContext, value: ir.Value) -> ir.Value:
    count = cx.call("llvm.cttz.i64", I64, [value, ir.Constant(I1, 0)])
    return cx.builder.trunc(count, I32)


def _match_any(cx: FnContext, value: ir.Value, members: ir.Value) -> ir.Value:
    b = cx.builder
    base = half_base(cx)
    start = ballot64(cx, ir.Constant(I1, 1))
    before = b.block
    loop = b.append_basic_block("match.any")
    done = b.append_basic_block("match.any.done")
    b.branch(loop)
    b.position_at_end(loop)
    remaining = b.phi(I64)
    result = b.phi(I32)
    leader = _cttz64(cx, remaining)
    same_half = b.icmp_unsigned("==", b.and_(leader, cx.i32(32)), base)
    equal = b.and_(same_half, b.icmp_unsigned("==", value, _readlane(cx, value, leader)))
    wave_class = ballot64(cx, equal)
    own = b.trunc(b.lshr(wave_class, b.zext(base, I64)), I32)
    next_result = b.select(equal, own, result)
    next_remaining = b.and_(remaining, b.not_(wave_class))
    remaining.add_incoming(start, before)
    remaining.add_incoming(next_remaining, loop)
    result.add_incoming(cx.i32(0), before)
    result.add_incoming(next_result, loop)
    b.cbranch(b.icmp_unsigned("==", next_remaining, ir.Constant(I64, 0)), done, loop)
    b.position_at_end(done)
    return b.and_(next_result, members)


def _gather_wide(cx: FnContext, value: ir.Value, lane: ir.Value) -> ir.Value:
    """``value`` (i32 or i64) of lane ``lane`` of the executing warp."""
    if value.type == I32:
        return gather(cx, value, lane)
    b = cx.builder
    lo = gather(cx, b.trunc(value, I32), lane)
    hi = gather(cx, b.trunc(b.lshr(value, ir.Constant(I64, 32)), I32), lane)
    return b.or_(b.zext(lo, I64), b.shl(b.zext(hi, I64), ir.Constant(I64, 32)))


def _match_all(cx: FnContext, value: ir.Value, members: ir.Value) -> tuple[ir.Value, ir.Value]:
    b = cx.builder
    active = b.and_(half_exec(cx), members)
    first = b.and_(cx.call("llvm.cttz.i32", I32, [active, ir.Constant(I1, 0)]), cx.i32(31))
    reference = _gather_wide(cx, value, first)
    equal = b.and_(half_bits(cx, b.icmp_unsigned("==", value, reference)), members)
    all_equal = b.icmp_unsigned("==", equal, active)
    return b.select(all_equal, active, cx.i32(0)), all_equal


def lower_match(cx: FnContext, op: Op) -> None:
    width = 64 if cx.attr(op, "type").endswith("64") else 32
    value = cx.coerce(cx.operand(op, 0), ir.IntType(width))
    members = membermask(cx, op, 1)
    if cx.attr(op, "mode") == "any":
        cx.define(op, _match_any(cx, value, members))
        return
    d, p = _match_all(cx, value, members)
    cx.define(op, *(d, p)[:len(op.results)])


Fold = Callable[[ir.IRBuilder, ir.Value, ir.Value], ir.Value]

_REDUX: dict[tuple[str, bool], tuple[int, Fold]] = {
    ("add", False): (0, lambda b, x, y: b.add(x, y)),
    ("min", False): (0xFFFF_FFFF, lambda b, x, y: b.select(b.icmp_unsigned("<", x, y), x, y)),
    ("max", False): (0, lambda b, x, y: b.select(b.icmp_unsigned(">", x, y), x, y)),
    ("min", True): (0x7FFF_FFFF, lambda b, x, y: b.select(b.icmp_signed("<", x, y), x, y)),
    ("max", True): (-0x8000_0000, lambda b, x, y: b.select(b.icmp_signed(">", x, y), x, y)),
    ("and", False): (-1, lambda b, x, y: b.and_(x, y)),
    ("or", False): (0, lambda b, x, y: b.or_(x, y)),
    ("xor", False): (0, lambda b, x, y: b.xor(x, y)),
}
"""(op, signed) → (identity, combine) for ``redux.sync``; add/and/or/xor ignore signedness."""

SWIZZLE_XOR = tuple((xor, (xor << 10) | 0x1F) for xor in (1, 2, 4, 8, 16))
"""(k, ``ds_swizzle`` bit-mode offset: and 0x1f, or 0, xor k): lane i reads lane i^k of its 32-group."""


def _tile_size(cx: FnContext, members: ir.Value) -> ir.Value:
    """2^t when ``members`` is the aligned run of 2^t lanes holding this lane, else 32."""
    b = cx.builder
    count = cx.call("llvm.ctpop.i32", I32, [members])
    run = b.trunc(b.sub(b.shl(ir.Constant(I64, 1), b.zext(count, I64)), ir.Constant(I64, 1)), I32)
    start = b.and_(lane_id(cx), b.sub(cx.i32(0), count))
    power = b.icmp_unsigned("==", b.and_(count, b.sub(count, cx.i32(1))), cx.i32(0))
    aligned = b.icmp_unsigned("==", members, b.shl(run, b.and_(start, cx.i32(31))))
    tile = b.and_(power, b.and_(aligned, b.icmp_unsigned("!=", count, cx.i32(0))))
    return b.select(tile, count, cx.i32(32))


def lower_redux(cx: FnContext, op: Op) -> None:
    kind, typ = cx.attr(op, "op"), cx.attr(op, "type")
    signed = typ.startswith("s") and kind in ("min", "max")
    if typ not in ("u32", "s32", "b32"):
        raise cx.unsupported(f"redux.sync.{kind}.{typ}",
                             "only the 32-bit integer forms have a gfx942 lowering")
    identity, fold = _REDUX[(kind, signed)]
    b = cx.builder
    ident = cx.i32(identity)
    members = membermask(cx, op, 1)
    member = b.trunc(b.lshr(members, lane_id(cx)), I1)
    x = b.select(member, cx.coerce(cx.operand(op, 0), I32), ident)
    tile = None
    if getattr(op.operand(1), "op", None) is None or op.operand(1).op.name != "const":  # type: ignore[attr-defined]
        tile = cx.call("llvm.amdgcn.set.inactive.i32", I32, [_tile_size(cx, members), cx.i32(32)], ["convergent"])
    x = cx.call("llvm.amdgcn.set.inactive.i32", I32, [x, ident], ["convergent"])
    for xor, offset in SWIZZLE_XOR:
        folded = fold(b, x, cx.call("llvm.amdgcn.ds.swizzle", I32, [x, cx.i32(offset)], ["convergent"]))
        x = folded if tile is None else b.select(b.icmp_unsigned("<", cx.i32(xor), tile), folded, x)
    cx.define(op, cx.call("llvm.amdgcn.strict.wwm.i32", I32, [x], ["convergent"]))
