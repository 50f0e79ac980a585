"""MFMA A/B operands of the m16n8k16 ``.f16`` plan (``lower_mma_mfma``) loaded straight by ``ldmatrix``
(pass ``ldmatrix-mfma-layout``), and converted back to PTX fragments for the exact branch.

Invariant: the layouts are those of ``lower_mma_mfma._a_operand``/``_b_operand`` (wave lane L, c = L % 16,
q = L / 16): B register m of lane L = PTX B register m of wave lane ``b_source`` =
``32 (c >= 8) + 4 (c % 8) + q``; A register ``2w + d`` of lane L = PTX A register ``2d + (c & 2 != 0)``
of wave lane ``32w + 4 (2 (c >> 2) + (c & 1)) + q``. An ``mfma_*`` ldmatrix lane loads exactly what
that PTX lane's ldmatrix would (``lower_ldmatrix``: row address from lane ``8m + row`` of the warp,
``.trans`` two 16-bit elements from two rows), reading row addresses of the whole wave: EXEC must be
full (the pass only marks ldmatrices in whole-wave blocks). Costs: the same gathers and LDS reads
as the PTX-layout ldmatrix, and no operand permutes at the mma.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.half_wave import bpermute, lane64
from ptx2gcn.emit.llvm_types import I8, I16, I32
from ptx2gcn.ir.core import Op


class _Lane:
    """This lane's wave lane and its c = lane % 16, q = lane / 16 (i32)."""

    def __init__(self, cx: FnContext) -> None:
        bld = cx.builder
        self.cx = cx
        self.lane = lane64(cx)
        self.c = bld.and_(self.lane, cx.i32(15))
        self.q = bld.lshr(self.lane, cx.i32(4))

    def add(self, *terms: ir.Value | int) -> ir.Value:
        total: ir.Value = self.cx.i32(0)
        for term in terms:
            total = self.cx.builder.add(total, self.cx.i32(term) if isinstance(term, int) else term)
        return total

    def field(self, value: ir.Value, shift: int, mask: int, scale: int = 1) -> ir.Value:
        """``((value >> shift) & mask) * scale``."""
        bld = self.cx.builder
        part = bld.and_(bld.lshr(value, self.cx.i32(shift)) if shift else value, self.cx.i32(mask))
        return bld.mul(part, self.cx.i32(scale)) if scale != 1 else part


def b_source(lane: _Lane) -> ir.Value:
    """The PTX wave lane whose B registers MFMA B lane ``lane`` holds."""
    return lane.add(lane.field(lane.c, 3, 1, 32), lane.field(lane.c, 0, 7, 4), lane.q)


def a_source(lane: _Lane, warp: int) -> tuple[ir.Value, ir.Value]:
    """(PTX wave lane, 1 if the odd register of the pair) for MFMA ``warp``'s A operand."""
    g = lane.add(lane.field(lane.c, 2, 3, 2), lane.field(lane.c, 0, 1))
    return lane.add(32 * warp, lane.field(g, 0, 7, 4), lane.q), lane.field(lane.c, 1, 1)


def _ptx_word(cx: FnContext, base: ir.Value, source: ir.Value, matrix: ir.Value, trans: bool) -> ir.Value:
    """Register ``matrix`` of the PTX ldmatrix of wave lane ``source`` (module docstring)."""
    bld = cx.builder
    address = bld.ptrtoint(base, I32)
    lane = _Lane(cx)
    within = lane.field(source, 0, 31)
    first = lane.add(bld.and_(source, cx.i32(32)), bld.mul(matrix, cx.i32(8)))
    row, col = lane.field(within, 2, 7), lane.field(within, 0, 3, 2)

    def element(holder: ir.Value, column: ir.Value, typ: ir.IntType) -> ir.Value:
        start = bpermute(cx, address, holder)
        pointer = bld.gep(bld.inttoptr(start, base.type), [bld.mul(column, cx.i32(2))], source_etype=I8)
        return bld.load(pointer, typ=typ, align=typ.width // 8)

    if not trans:  # the two elements are adjacent in row `row`
        return element(bld.add(first, row), col, I32)
    low, high = (element(bld.add(first, bld.add(col, cx.i32(i))), row, I16) for i in (0, 1))
    return bld.or_(bld.zext(low, I32), bld.shl(bld.zext(high, I32), cx.i32(16)))


def lower_ldmatrix_mfma(cx: FnContext, op: Op, num: int, trans: bool) -> list[ir.Value]:
    """The registers of an ldmatrix with ``layout = mfma_a`` or ``mfma_b``; EXEC must be full."""
    base = cx.operand(op, 0)
    lane = _Lane(cx)
    if op.attrs.get("layout") == "mfma_b":
        source = b_source(lane)
        return [_ptx_word(cx, base, source, cx.i32(m), trans) for m in range(num)]
    assert num == 4, op
    words = []
    for warp in (0, 1):
        source, odd = a_source(lane, warp)
        words += [_ptx_word(cx, base, source, lane.add(2 * d, odd), trans) for d in (0, 1)]
    return words


def a_to_ptx(cx: FnContext, regs: list[ir.Value]) -> list[ir.Value]:
    """PTX A registers from the MFMA-layout ones (the inverse of ``a_source``); EXEC must be full."""
    bld = cx.builder
    lane = _Lane(cx)
    words = [cx.coerce(r, I32) for r in regs]
    g = lane.field(lane.lane, 2, 7)
    upper = bld.icmp_unsigned("!=", lane.field(lane.lane, 5, 1), cx.i32(0))
    out = []
    for j in range(4):
        d, odd = divmod(j, 2)
        holder = lane.add(lane.field(lane.lane, 0, 3, 16), lane.field(g, 1, 3, 4), 2 * odd, lane.field(g, 0, 1))
        out.append(bld.select(upper, bpermute(cx, words[2 + d], holder), bpermute(cx, words[d], holder)))
    return out


def b_to_ptx(cx: FnContext, regs: list[ir.Value]) -> list[ir.Value]:
    """PTX B registers from the MFMA-layout ones (the inverse of ``b_source``); EXEC must be full."""
    lane = _Lane(cx)
    holder = lane.add(lane.field(lane.lane, 0, 3, 16), lane.field(lane.lane, 5, 1, 8), lane.field(lane.lane, 2, 7))
    return [bpermute(cx, cx.coerce(r, I32), holder) for r in regs]
