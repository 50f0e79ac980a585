"""Whole-wave dword moves from compile-time tables (the MFMA fast path's data movement).

Invariant: only used where EXEC is full (``lower_mma_mfma``'s whole-wave branch), so every lane of
the wave is a valid ``ds_bpermute_b32`` source. ``WaveMover.move(sources, table)`` returns, in each
wave lane l, ``sources[p]`` of lane L for ``table.lanes[l] == (L, p)`` (zero for ``None``, anything
for ``ANY``). Per table it emits as few ``ds_bpermute_b32`` as the table allows: when several
destination lanes read different source dwords of one source lane, that lane offers them in turn
(``c`` = the most dwords any source lane must offer), each offer is one per-lane select on the source
side and one bpermute, and each destination picks its offer. Lane-dependent constants (source
lanes, offer numbers, predicates) are affine in the lane's bits where that fits (don't-care lanes
allowed), else read from 64-bit lane masks; they are loop-invariant, so LLVM hoists them.
"""

from __future__ import annotations

from collections.abc import Sequence

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.half_wave import bpermute, lane64
from ptx2gcn.emit.llvm_types import I1, I32, I64
from ptx2gcn.emit.mfma_forms import ANY, WAVE, Table

LaneValues = Sequence[int | None]
"""A compile-time value per wave lane; None where any value will do."""


def _bit_fit(values: LaneValues) -> tuple[int, list[int]] | None:
    """(c, w) with values[L] == c + sum_b w[b] * bit_b(L) for every known lane, or None."""
    known = [(lane, v) for lane, v in enumerate(values) if v is not None]
    weights = []
    for bit in range(6):
        found = [values[lane ^ (1 << bit)] - v for lane, v in known
                 if not lane >> bit & 1 and values[lane ^ (1 << bit)] is not None]
        weights.append(found[0] if found else 0)
    lane0, v0 = known[0]
    base = v0 - sum(w for b, w in enumerate(weights) if lane0 >> b & 1)
    if all(v == base + sum(w for b, w in enumerate(weights) if lane >> b & 1) for lane, v in known):
        return base, weights
    return None


class WaveMover:
    """Emits ``move``s in one basic block of the whole-wave path, reusing equal tables' results."""

    def __init__(self, cx: FnContext) -> None:
        self.cx = cx
        self.lane = lane64(cx)
        self._moved: dict[tuple[int, Table], ir.Value] = {}
        self._constants: dict[tuple[int | None, ...], ir.Value] = {}

    def value(self, values: LaneValues) -> ir.Value:
        """The i32 ``values[lane]`` (module docstring)."""
        key = tuple(values)
        if key not in self._constants:
            self._constants[key] = self._value(values)
        return self._constants[key]

    def _value(self, values: LaneValues) -> ir.Value:
        cx, bld = self.cx, self.cx.builder
        known = {v for v in values if v is not None}
        if len(known) <= 1:
            return cx.i32(known.pop() if known else 0)
        fit = _bit_fit(values)
        if fit is None:
            total: ir.Value = cx.i32(0)
            for bit in range(max(v for v in values if v is not None).bit_length()):
                total = bld.or_(total, bld.shl(bld.zext(self.predicate([v is not None and v >> bit & 1 == 1
                                                                        for v in values]), I32), cx.i32(bit)))
            return total
        base, weights = fit
        total = cx.i32(base)
        bit = 0
        while bit < 6:
            if not weights[bit]:
                bit += 1
                continue
            width = 1  # a run of bits whose weights double: one field
            while bit + width < 6 and weights[bit + width] == weights[bit] << width:
                width += 1
            field = bld.and_(bld.lshr(self.lane, cx.i32(bit)) if bit else self.lane, cx.i32((1 << width) - 1))
            total = bld.add(total, bld.mul(field, cx.i32(weights[bit])) if weights[bit] != 1 else field)
            bit += width
        return total

    def predicate(self, lanes: Sequence[bool | None]) -> ir.Value:
        """i1 ``lanes[lane]`` (None: either)."""
        cx, bld = self.cx, self.cx.builder
        for bit in range(6):
            for invert in (False, True):
                if all(want is None or (bool(lane >> bit & 1) != invert) == want for lane, want in enumerate(lanes)):
                    set_bit = bld.and_(self.lane, cx.i32(1 << bit))
                    return bld.icmp_unsigned("==" if invert else "!=", set_bit, cx.i32(0))
        mask = sum(1 << lane for lane, want in enumerate(lanes) if want)
        shifted = bld.lshr(ir.Constant(I64, mask - (1 << 64) if mask >> 63 else mask), bld.zext(self.lane, I64))
        return bld.trunc(shifted, I1)

    def pick(self, options: Sequence[ir.Value], choice: Sequence[int | None]) -> ir.Value:
        """``options[choice[lane]]`` per lane (None: any)."""
        used = sorted({c for c in choice if c is not None})
        result = options[used[0]] if used else ir.Constant(options[0].type, 0)
        for c in used[1:]:
            result = self.cx.builder.select(self.predicate([None if x is None else x == c for x in choice]),
                                            options[c], result)
        return result

    def move(self, sources: Sequence[ir.Value], table: Table) -> ir.Value:
        """The i32 dword of ``table`` read from ``sources`` (i32 dwords per lane)."""
        key = (id(sources), table)
        if key not in self._moved:
            self._moved[key] = self._move(sources, table)
        return self._moved[key]

    def _move(self, sources: Sequence[ir.Value], table: Table) -> ir.Value:
        cx = self.cx
        lanes = table.lanes
        real = [(lane, src) for lane, src in enumerate(lanes) if src is not None and src != ANY]
        if not real:
            return cx.i32(0)
        offers: list[list[int]] = [[] for _ in range(WAVE)]
        for _, (src_lane, dword) in real:
            if dword not in offers[src_lane]:
                offers[src_lane].append(dword)
        count = max(len(offer) for offer in offers)
        staged = [self.pick(sources, [offer[x] if x < len(offer) else None for offer in offers])
                  for x in range(count)]
        offer_of: list[int | None] = [None] * WAVE
        from_lane: list[int | None] = [None] * WAVE
        for lane, (src_lane, dword) in real:
            offer_of[lane] = offers[src_lane].index(dword)
            from_lane[lane] = src_lane
        if all(src_lane == lane for lane, (src_lane, _) in real):
            moved = staged
        else:
            address = self.value(from_lane)
            moved = [bpermute(cx, value, address) for value in staged]
        result = self.pick(moved, offer_of)
        if any(src is None for src in lanes):
            result = self.cx.builder.select(self.predicate([None if src == ANY else src is None for src in lanes]),
                                            cx.i32(0), result)
        return result
