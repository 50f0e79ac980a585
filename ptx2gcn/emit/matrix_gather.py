"""Reading matrix-fragment elements held by other lanes of the executing warp (Mode P, VALU only).

Invariant: a value that differs per destination lane but is known at compile time for each of the
32 lanes (a source lane, a bit offset, an address offset) is emitted by ``lane_constant`` as
``a*g + b*t + c`` of ``g = %laneid >> 2``, ``t = %laneid & 3`` when that fits all 32 lanes (every
PTX fragment layout does for source lanes), else from 32-bit tables indexed by ``%laneid``;
cross-lane reads go through ``half_wave.gather`` (``ds_bpermute_b32`` at ``(base | j) * 4``,
0 <= j <= 31), so they never leave the executing warp's half of the wave. Every warp-level matrix
instruction is ``.aligned`` (all 32 lanes of the warp execute it), so every source lane is active;
the other warp of the wave may be inactive or elsewhere, it is never read. A gather moves one
register of the source lanes; where destination lanes need different registers (only Volta's
column-major m8n8k4 A/B), each candidate register is gathered and a per-lane select picks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.half_wave import WARP_SIZE, gather, lane_id
from ptx2gcn.emit.llvm_types import I32, I64
from ptx2gcn.emit.matrix_layouts import Layout

LaneTable = tuple[int, ...]
"""A compile-time value for each of the 32 lanes of a warp."""


def _affine(values: LaneTable) -> tuple[int, int, int] | None:
    c = values[0]
    b = values[1] - c
    a = values[4] - c
    if all(values[lane] == a * (lane >> 2) + b * (lane & 3) + c for lane in range(WARP_SIZE)):
        return a, b, c
    return None


def lane_constant(cx: FnContext, values: LaneTable) -> ir.Value:
    """The i32 ``values[%laneid]`` (module docstring: affine in (g, t), else bit tables)."""
    bld = cx.builder
    if len(set(values)) == 1:
        return cx.i32(values[0])
    lane = lane_id(cx)
    fit = _affine(values)
    if fit is not None:
        a, b, c = fit
        terms = [bld.mul(bld.lshr(lane, cx.i32(2)), cx.i32(a)) if a else None,
                 bld.mul(bld.and_(lane, cx.i32(3)), cx.i32(b)) if b else None]
        total: ir.Value = cx.i32(c)
        for term in terms:
            if term is not None:
                total = bld.add(term, total)
        return total
    total = cx.i32(0)
    for bit in range(max(values).bit_length()):
        table = sum(1 << lane for lane in range(WARP_SIZE) if values[lane] >> bit & 1)
        if table:
            picked = bld.and_(bld.lshr(cx.i32(table), lane), cx.i32(1))
            total = bld.or_(total, bld.shl(picked, cx.i32(bit)))
    assert min(values) >= 0, values
    return total


def gather_lane(cx: FnContext, value: ir.Value, lanes: LaneTable) -> ir.Value:
    """``value`` as lane ``lanes[%laneid]`` of the executing warp holds it (i32 or i64)."""
    if lanes == tuple(range(WARP_SIZE)):
        return value
    source = lane_constant(cx, lanes)
    if value.type == I32:
        return gather(cx, value, source)
    assert value.type == I64, value.type
    bld = cx.builder
    low = gather(cx, bld.trunc(value, I32), source)
    high = gather(cx, bld.trunc(bld.lshr(value, cx.i64(32)), I32), source)
    return bld.or_(bld.zext(low, I64), bld.shl(bld.zext(high, I64), cx.i64(32)))


@dataclass
class FragmentReader:
    """Reads elements of one fragment (its registers, as i32/i64) by matrix position, per lane."""

    cx: FnContext
    layout: Layout
    regs: Sequence[ir.Value]
    _gathered: dict[tuple[int, LaneTable], ir.Value] = field(default_factory=lambda: {})

    def _gather(self, reg: int, lanes: LaneTable) -> ir.Value:
        key = (reg, lanes)
        word = self._gathered.get(key)
        if word is None:
            word = self._gathered[key] = gather_lane(self.cx, self.regs[reg], lanes)
        return word

    def _register(self, homes: Sequence[tuple[int, int]]) -> ir.Value:
        """The register holding the elements at ``homes`` (lane, index), read from those lanes. When
        destination lanes need different registers of their sources (Volta's column-major A), every
        candidate register is gathered and each lane selects its own."""
        per_reg = self.layout.per_reg
        lanes = tuple(lane for lane, _ in homes)
        regs = tuple(i // per_reg for _, i in homes)
        candidates = sorted(set(regs))
        word = self._gather(candidates[0], lanes)
        if len(candidates) > 1:
            wanted = lane_constant(self.cx, regs)
            bld = self.cx.builder
            for reg in candidates[1:]:
                word = bld.select(bld.icmp_unsigned("==", wanted, self.cx.i32(reg)), self._gather(reg, lanes), word)
        return word

    def word(self, positions: Sequence[tuple[int, int]]) -> ir.Value:
        """The whole register whose lowest element is at ``positions[lane]`` for each lane."""
        homes = [self.layout.home(row, col) for row, col in positions]
        assert all(i % self.layout.per_reg == 0 for _, i in homes), homes
        return self._register(homes)

    def element(self, positions: Sequence[tuple[int, int]]) -> ir.Value:
        """The element at ``positions[lane]`` (row, col) for each destination lane, as ``iN``."""
        homes = [self.layout.home(row, col) for row, col in positions]
        per_reg, bits = self.layout.per_reg, self.layout.elem_bits
        word = self._register(homes)
        shift = lane_constant(self.cx, tuple(i % per_reg * bits for _, i in homes))
        bld = self.cx.builder
        if isinstance(shift, ir.Constant) and shift.constant == 0:
            shifted = word
        else:
            shifted = bld.lshr(word, shift if word.type == I32 else bld.zext(shift, I64))
        return shifted if bits == self.layout.reg_bits else bld.trunc(shifted, ir.IntType(bits))
