"""``ldmatrix`` / ``stmatrix`` / ``movmatrix`` ``.m8n8 .b16`` on the VALU (Mode P).

Invariant: matrix m (of ``.x1/.x2/.x4``) has its 8 row addresses in lanes 8m..8m+7 of the executing
warp; lane l holds fragment element (row, col) of ``matrix_layouts.MATRIX_8X8`` in register m, which
is memory row ``row`` at column ``col`` (``.trans``: memory row ``col``, column ``row``). Each lane
fetches the row address it needs from the lane that holds it (``matrix_gather``: ``ds_bpermute`` in
the warp's own half; every lane is active because these instructions are ``.aligned``) and loads or
stores its own elements with plain LDS accesses: one ``ds_read_b32``/``ds_write_b32`` per matrix
without ``.trans`` (the two elements are adjacent), two 16-bit accesses with it. ``movmatrix`` reads
the transposed element from its holder with one ``ds_bpermute`` per register half.
The 8-bit ``.m16n16``/``.m8n16`` forms (sm_100) and ``.b8`` are reported as unsupported.
An ldmatrix with ``layout = mfma_a``/``mfma_b`` (pass ``ldmatrix-mfma-layout``) loads MFMA operands
instead where the mma takes the MFMA path (``mfma_operands``).
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.llvm_types import I8, I16, I32
from ptx2gcn.emit.lower_mma_mfma import stacked_layout
from ptx2gcn.emit.matrix_gather import FragmentReader, LaneTable, gather_lane, lane_constant
from ptx2gcn.emit.matrix_layouts import MATRIX_8X8
from ptx2gcn.emit.mfma_operands import lower_ldmatrix_mfma
from ptx2gcn.ir.core import Op

_WARP = range(32)


def _check(cx: FnContext, op: Op, what: str) -> int:
    if cx.attr(op, "shape") != "m8n8" or cx.attr(op, "type") != "b16":
        raise cx.unsupported(what, f".{cx.attr(op, 'shape')}.{cx.attr(op, 'type')} (sm_100 8-bit matrix forms) "
                                   "has no gfx942 lowering yet; .m8n8.b16 is supported")
    return {"x1": 1, "x2": 2, "x4": 4}.get(cx.attr(op, "num"), 1)


def _memory_positions(trans: bool, i: int) -> list[tuple[int, int]]:
    """(memory row, column) of fragment element ``i`` for every lane."""
    positions = [MATRIX_8X8.owned[lane][i] for lane in _WARP]
    return [(col, row) if trans else (row, col) for row, col in positions]


class _Rows:
    """Element addresses in LDS from the row addresses held by lanes 8m..8m+7."""

    def __init__(self, cx: FnContext, ptr: ir.Value) -> None:
        self.cx = cx
        self.base = ptr
        self.address = cx.builder.ptrtoint(ptr, I32)
        self._rows: dict[LaneTable, ir.Value] = {}

    def element(self, matrix: int, positions: list[tuple[int, int]]) -> ir.Value:
        """Pointer to memory element ``positions[lane]`` of ``matrix``."""
        lanes = tuple(8 * matrix + row for row, _ in positions)
        row = self._rows.get(lanes)
        if row is None:
            row = self._rows[lanes] = gather_lane(self.cx, self.address, lanes)
        offset = lane_constant(self.cx, tuple(2 * col for _, col in positions))
        bld = self.cx.builder
        return bld.gep(bld.inttoptr(row, self.base.type), [offset], source_etype=I8)


def _adjacent(trans: bool) -> bool:
    first, second = _memory_positions(trans, 0), _memory_positions(trans, 1)
    return all(a[0] == b[0] and a[1] + 1 == b[1] for a, b in zip(first, second))


def lower_ldmatrix(cx: FnContext, op: Op) -> None:
    num = _check(cx, op, "ldmatrix")
    trans = cx.flag(op, "trans")
    if op.attrs.get("layout") and stacked_layout(cx):  # pass ldmatrix-mfma-layout
        cx.define(op, *lower_ldmatrix_mfma(cx, op, num, trans))
        return
    rows, bld = _Rows(cx, cx.operand(op, 0)), cx.builder
    results: list[ir.Value] = []
    for m in range(num):
        if _adjacent(trans):
            results.append(bld.load(rows.element(m, _memory_positions(trans, 0)), typ=I32, align=4))
            continue
        low, high = (bld.load(rows.element(m, _memory_positions(trans, i)), typ=I16, align=2) for i in (0, 1))
        results.append(bld.or_(bld.zext(low, I32), bld.shl(bld.zext(high, I32), cx.i32(16))))
    cx.define(op, *results)


def lower_stmatrix(cx: FnContext, op: Op) -> None:
    num = _check(cx, op, "stmatrix")
    trans = cx.flag(op, "trans")
    rows, bld = _Rows(cx, cx.operand(op, 0)), cx.builder
    for m in range(num):
        value = cx.coerce(cx.operand(op, 1 + m), I32)
        if _adjacent(trans):
            bld.store(value, rows.element(m, _memory_positions(trans, 0)), align=4)
            continue
        for i in (0, 1):
            part = bld.trunc(bld.lshr(value, cx.i32(16 * i)), I16)
            bld.store(part, rows.element(m, _memory_positions(trans, i)), align=2)


def lower_movmatrix(cx: FnContext, op: Op) -> None:
    _check(cx, op, "movmatrix")
    reader = FragmentReader(cx, MATRIX_8X8, [cx.coerce(cx.operand(op, 0), I32)])
    bld = cx.builder
    halves = [reader.element([(col, row) for row, col in (MATRIX_8X8.owned[lane][i] for lane in _WARP)])
              for i in (0, 1)]
    cx.define(op, bld.or_(bld.zext(halves[0], I32), bld.shl(bld.zext(halves[1], I32), cx.i32(16))))

