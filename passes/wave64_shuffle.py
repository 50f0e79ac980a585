"""wave64-shuffle: ``shfl.sync`` / legacy ``shfl`` on a half-wave (Mode P).

The source lane ``j`` is computed with the PTX ISA formula ("shfl.sync" pseudocode: ``b[4:0]``,
clamp ``c[4:0]``, segment mask ``c[12:8]``, a *signed* bound check for ``.up``), falls back to the
own lane when out of range, and is then always in 0..31; the ``amdgcn.ds.bpermute`` address is
``(base | j) * 4`` so the read never leaves the executing warp's half of the wave. ``membermask``
only states which lanes take part (the sm_6x contract: every member executes the shuffle
convergently); it does not change the data movement. Design: warp-on-wave64.md §5.2.
With compile-time ``b`` and ``c`` the lanes each lane reads are known (``ir/wave64_patterns.py``),
and the shuffle takes the cheapest instruction that reads them (docs/mode-p.md, "Costs";
``benchmarks/mode_p.py`` compares each with its ideal count):

- no lane moves (``E[l] = l``): the value itself;
- a row-local pattern (``bfly`` 1/2/3, ``row_mirror``-shaped ``bfly`` 15 or 7, ``down``/``up`` inside
  16-lane segments): one ``amdgcn.update.dpp`` (``v_mov_b32_dpp``), lanes without a source keeping
  their own value;
- a pattern that maps each lane bit on its own (``bfly`` inside its segment, ``idx`` broadcasts at
  any width): ``amdgcn.ds.swizzle`` in bit mode;
- either of those on the in-range lanes only (``down 16``): the permute, then a select on the
  constant lane mask of the in-range lanes (``amdgcn.inverse.ballot``, an ``s_mov_b64``);
- any other constant pattern (``down``/``up`` by 1..15 at full width): ``ds_bpermute`` at
  ``(lane64 + d[l]) * 4``, ``d[l]`` one of at most two constant offsets chosen by a lane mask.

The predicate result is then the constant lane mask of the in-range lanes (or a constant).
General-path cost: 2 v_mbcnt + ~10 VALU for ``j``/``p`` + 1 ds_bpermute_b32 (+ lgkmcnt wait).

Requires: a verified module (phase ``ssa``); constants folded (the fast paths look for ``const``
operands).
Ensures: no ``shfl`` op is left; the module verifies.
Not handled: nothing; shuffles from lanes outside membermask read whatever that lane holds (PTX:
undefined).
"""

from __future__ import annotations

from dataclasses import dataclass

from ptx2gcn.ir.core import Op, Value
from ptx2gcn.ir.rewriter import Cursor
from ptx2gcn.ir.types import I32, I64, PRED
from ptx2gcn.ir.wave64 import LANE_BITS, Wave64Rewrite, constant_operand, gather, lane64, lane_id
from ptx2gcn.ir.wave64_patterns import DPP_BOUND_KEEP, dpp_control, lane_mask, shfl_lanes, swizzle_offset


def source_lane(at: Cursor, mode: str, lane: Value, b: Value, c: Value) -> tuple[Value, Value]:
    """(j, p): the in-half source lane (0..31; the own lane when out of range) and the in-range bit."""
    bval = at.and_(b, at.const(LANE_BITS))
    cval = at.and_(c, at.const(LANE_BITS))
    seg = at.and_(at.shr(c, 8), at.const(LANE_BITS))
    nseg = at.xor(seg, at.const(LANE_BITS))
    min_lane = at.and_(lane, seg)
    max_lane = at.or_(min_lane, at.and_(cval, nseg))
    if mode == "up":
        j = at.sub(lane, bval)
        p = at.cmp("ge", j, max_lane, signed=True)
    elif mode == "down":
        j = at.add(lane, bval)
        p = at.cmp("le", j, max_lane, signed=True)
    elif mode == "bfly":
        j = at.xor(lane, bval)
        p = at.cmp("le", j, max_lane)
    else:
        assert mode == "idx", mode
        j = at.or_(min_lane, at.and_(bval, nseg))
        p = at.cmp("le", j, max_lane)
    return at.select(p, j, lane), p


def _in_lanes(at: Cursor, bits: tuple[bool, ...]) -> Value:
    """The predicate that is true in the lanes ``bits`` names (in both halves): a constant, or a lane
    mask in an SGPR pair (``amdgcn.inverse.ballot`` of a constant)."""
    if all(bits) or not any(bits):
        return at.const(int(all(bits)), PRED)
    return at.value("amdgcn.inverse.ballot", (at.const(lane_mask(bits), I64),), PRED)


def _permute(at: Cursor, a: Value, sources: tuple[int, ...], care: tuple[bool, ...]) -> Value | None:
    """``a`` of lane ``sources[l]`` in every lane with ``care``, by one DPP move or swizzle, or None."""
    ctrl = dpp_control(sources, care)
    if ctrl is not None:
        return at.value("amdgcn.update.dpp", (a, a), I32, dpp_ctrl=ctrl, row_mask=0xF, bank_mask=0xF,
                        bound_ctrl=int(DPP_BOUND_KEEP))
    offset = swizzle_offset(sources, care)
    if offset is not None:
        return at.value("amdgcn.ds.swizzle", (a,), I32, offset=offset)
    return None


def _offset_gather(at: Cursor, a: Value, sources: tuple[int, ...]) -> Value | None:
    """``ds_bpermute`` at ``(lane64 + d[l]) * 4`` when the offsets ``d[l] = sources[l] - l`` take at
    most two values (``down``/``up`` by a constant), or None."""
    deltas = [src - lane for lane, src in enumerate(sources)]
    values = sorted(set(deltas), key=lambda d: d != 0)  # 0 first: the mask then names the moving lanes
    if len(values) > 2:
        return None
    delta = at.const(values[0])
    if len(values) == 2:
        delta = at.select(_in_lanes(at, tuple(d == values[1] for d in deltas)), at.const(values[1]), delta)
    address = at.shl(at.add(lane64(at), delta), 2)
    return at.value("amdgcn.ds.bpermute", (address, a), I32)


def _constant_pattern(at: Cursor, op: Op, mode: str) -> tuple[Value, Value] | None:
    """The shuffle of a compile-time lane pattern (module docstring), or None when ``b``/``c`` vary."""
    b, c = constant_operand(op, 1), constant_operand(op, 2)
    if b is None or c is None:
        return None
    a = op.operand(0)
    sources, valid = shfl_lanes(mode, b, c)
    everywhere = (True,) * len(sources)
    if all(src == lane for lane, src in enumerate(sources)):
        value: Value | None = a
    else:
        value = _permute(at, a, sources, everywhere)
    if value is None and not all(valid):
        moved = _permute(at, a, sources, valid)
        if moved is not None:
            value = at.select(_in_lanes(at, valid), moved, a)
    if value is None:
        value = _offset_gather(at, a, sources)
    return None if value is None else (value, _in_lanes(at, valid))


@dataclass(frozen=True)
class Wave64Shuffle(Wave64Rewrite):
    name = "wave64-shuffle"
    handles = frozenset({"shfl"})

    def rewrite(self, at: Cursor, op: Op) -> tuple[Value, ...]:
        mode = op.attrs["mode"]
        assert isinstance(mode, str)
        fast = _constant_pattern(at, op, mode)
        if fast is not None:
            return fast
        j, p = source_lane(at, mode, lane_id(at), op.operand(1), op.operand(2))
        return gather(at, op.operand(0), j), p
