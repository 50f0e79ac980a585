"""wave64-match: ``match.{any,all}.sync`` and ``redux.sync`` (integer forms) on a half-wave (Mode P).

``match.any`` is a wave-uniform waterfall loop over (warp, value) classes: each round takes the
lowest remaining active lane ``L`` of the *wave*, and the lanes equal to its value **and in the
same half** get the class mask, shifted down to their own 32 bits; it ends when every active lane
of the wave is classified (≤ 64 rounds). ``match.all`` compares with the first active lane of its
own membermask (fetched with ``ds_bpermute`` inside the half, so lanes of different
cooperative-groups tiles, which pass different masks, compare with their own tile).
``redux.sync`` folds with ``amdgcn.ds.swizzle`` xor 1/2/4/8/16 in bit mode, which permutes inside
each 32-lane group only, under whole-wave mode (``set.inactive`` + ``strict.wwm``) with the
operation's identity in inactive lanes and non-members, so the partner warp never contributes. A
membermask that is not a constant may differ per lane: a lane whose mask is an aligned run of 2^t
lanes containing itself (a ``tiled_partition`` tile) stops folding after step 2^(t-1), and inactive
lanes keep folding; since the steps ascend, every lane only ever folds data of its own tile. Other
per-lane masks are folded as one group (exact when all members pass the same mask).
Design: warp-on-wave64.md §5.5–5.6. Costs: match.any per round 1–2 v_readlane + v_cmp + ballot +
~6 SALU; match.all ballot + s_ff1-style cttz + 1–2 ds_bpermute + v_cmp; redux 5 ds_swizzle + 5 VALU
+ WWM exec saves (about 40 more VALU/SALU for the tile size when the membermask is a register).

Requires: a verified module (phase ``ssa``); constants folded (a constant membermask skips the
tile-size computation).
Ensures: no ``match`` or integer ``redux`` op is left (``match.any`` adds a loop: the block holding
it is split); the module verifies.
Not handled: ``redux.sync.{min,max}.f32`` (sm_100a): a located ``unsupported`` error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ptx2gcn.diagnostics import UnsupportedError
from ptx2gcn.ir.core import Op, Value
from ptx2gcn.ir.rewriter import Cursor
from ptx2gcn.ir.types import I32, I64, PRED
from ptx2gcn.ir.wave64 import (
    Wave64Rewrite,
    ballot64,
    constant_operand,
    gather,
    half_base,
    half_bits,
    half_exec,
    join64,
    lane_id,
    split64,
)


def _wide(at: Cursor, value: Value, read: Callable[[Value], Value]) -> Value:
    """``read`` applied to an i32, or to both halves of an i64."""
    if value.type == I32:
        return read(value)
    low, high = split64(at, value)
    return join64(at, read(low), read(high))


def _match_any(at: Cursor, op: Op) -> Value:
    value, members = op.operand(0), op.operand(1)
    base = half_base(at)
    start = ballot64(at, at.const(1, PRED))
    done = at.split_block("match.any.done")
    loop = at.new_block("match.any", at.block, (I64, I32))
    at.br(loop, (start, at.const(0)))
    at.at_end(loop)
    remaining, result = loop.args
    leader = at.trunc(at.value("llvm.cttz", (remaining,), I64, type="b64"))
    same_half = at.cmp("eq", at.and_(leader, at.const(32)), base)
    other = _wide(at, value, lambda part: at.value("amdgcn.readlane", (part, leader), I32))
    equal = at.pred_and(same_half, at.cmp("eq", value, other))
    wave_class = ballot64(at, equal)
    own = at.trunc(at.shr(wave_class, base))
    next_result = at.select(equal, own, result)
    next_remaining = at.and_(remaining, at.not_(wave_class))
    at.cbr(at.cmp("eq", next_remaining, at.const(0, I64)), done, loop, (), (next_remaining, next_result))
    at.at_end(done)
    return at.and_(next_result, members)


def _match_all(at: Cursor, op: Op) -> tuple[Value, Value]:
    value, members = op.operand(0), op.operand(1)
    active = at.and_(half_exec(at), members)
    first = at.and_(at.value("llvm.cttz", (active,), I32, type="b32"), at.const(31))
    reference = _wide(at, value, lambda part: gather(at, part, first))
    equal = at.and_(half_bits(at, at.cmp("eq", value, reference)), members)
    all_equal = at.cmp("eq", equal, active)
    return at.select(all_equal, active, at.const(0)), all_equal


Fold = Callable[[Cursor, Value, Value], Value]


def _pick(cmp: str, signed: bool) -> Fold:
    return lambda at, x, y: at.select(at.cmp(cmp, x, y, signed), x, y)


_REDUX: dict[tuple[str, bool], tuple[int, Fold]] = {
    ("add", False): (0, Cursor.add),
    ("min", False): (0xFFFF_FFFF, _pick("lt", False)),
    ("max", False): (0, _pick("gt", False)),
    ("min", True): (0x7FFF_FFFF, _pick("lt", True)),
    ("max", True): (-0x8000_0000, _pick("gt", True)),
    ("and", False): (-1, Cursor.and_),
    ("or", False): (0, Cursor.or_),
    ("xor", False): (0, Cursor.xor),
}
"""(op, signed) → (identity, combine) for ``redux.sync``; add/and/or/xor ignore signedness."""

SWIZZLE_XOR = tuple((xor, (xor << 10) | 0x1F) for xor in (1, 2, 4, 8, 16))
"""(k, ``ds_swizzle`` bit-mode offset: and 0x1f, or 0, xor k): lane i reads lane i^k of its 32-group."""


def _tile_size(at: Cursor, members: Value) -> Value:
    """2^t when ``members`` is the aligned run of 2^t lanes holding this lane, else 32."""
    count = at.value("popc", (members,), I32, type="b32")
    run = at.trunc(at.sub(at.shl(at.const(1, I64), count), at.const(1, I64)))
    start = at.and_(lane_id(at), at.sub(at.const(0), count))
    power = at.cmp("eq", at.and_(count, at.sub(count, at.const(1))), at.const(0))
    aligned = at.cmp("eq", members, at.shl(run, at.and_(start, at.const(31))))
    tile = at.pred_and(power, at.pred_and(aligned, at.cmp("ne", count, at.const(0))))
    return at.select(tile, count, at.const(32))


def _redux(at: Cursor, op: Op) -> Value:
    kind, typ = op.attrs["op"], op.attrs["type"]
    assert isinstance(kind, str) and isinstance(typ, str)
    if typ not in ("u32", "s32", "b32"):
        raise UnsupportedError.feature(op.loc, f"redux.sync.{kind}.{typ}",
                                       "only the 32-bit integer forms have a gfx942 lowering")
    identity, fold = _REDUX[(kind, typ.startswith("s") and kind in ("min", "max"))]
    members = op.operand(1)
    in_mask = at.and_(at.shr(members, lane_id(at)), at.const(1))
    x = at.select(at.cmp("ne", in_mask, at.const(0)), op.operand(0), at.const(identity))
    tile = None
    if constant_operand(op, 1) is None:
        tile = at.value("amdgcn.set.inactive", (_tile_size(at, members), at.const(32)), I32)
    x = at.value("amdgcn.set.inactive", (x, at.const(identity)), I32)
    for xor, offset in SWIZZLE_XOR:
        folded = fold(at, x, at.value("amdgcn.ds.swizzle", (x,), I32, offset=offset))
        x = folded if tile is None else at.select(at.cmp("lt", at.const(xor), tile), folded, x)
    return at.value("amdgcn.strict.wwm", (x,), I32)


@dataclass(frozen=True)
class Wave64Match(Wave64Rewrite):
    name = "wave64-match"
    handles = frozenset({"match", "redux"})

    def rewrite(self, at: Cursor, op: Op) -> tuple[Value, ...]:
        if op.name == "redux":
            return (_redux(at, op),)
        if op.attrs["mode"] == "any":
            return (_match_any(at, op),)
        return _match_all(at, op)
