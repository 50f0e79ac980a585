"""``wmma.load`` / ``wmma.store`` / ``wmma.mma``: ptx2gcn's own fragment layout (PTX leaves it open).

Invariant: an m16n16k16 ``.f16`` A or B fragment and an m16n16k16 ``.f32`` C or D fragment are in the
operand layout of ``v_mfma_f32_4x4x4_16b_f16`` (``wmma_mfma``: all of a warp's data in its own 32
lanes, A and B elements held twice). Every other wmma fragment of an M x N (or M x K, K x N)
matrix is the concatenation, tile by tile in row-major tile order, of the *mma* fragments of its
tiles, in the layouts of ``matrix_layouts.MMA`` for the base shape below; registers of a tile that
would hold only rows beyond M (M = 8 shapes on 16-row tiles) are left out, and the fragment is
padded with unused registers to the count PTX declares (nvcc's: 8 for every .f16 A or B fragment,
whose data fill 2 to 8 of them). So ``wmma.load``/``wmma.store`` are per-lane loads/stores (the MFMA B
layout fetches its duplicate half with ``ds_swizzle`` inside the warp); ``wmma.mma`` with an
MFMA-layout fragment is one 16 x 16 x 16 product (``_whole``: the MFMA code for .f16 -> .f32 behind
``lower_mma_mfma.gated``, else the exact path on the whole-fragment layouts), otherwise one base
mma per output tile (``lower_mma_mfma.mma_dispatch``: same accumulation order and bounds), with
zeros for the left-out registers. Base shapes: .f16/.bf16/.s8/.u8 k16 -> m16n8k16; .tf32 m16n16k8
-> m16n8k8; .f64 m8n8k4 -> m8n8k4. A program may apply elementwise operations to fragments (PTX
allows nothing else), which holds in any layout.
``stride`` counts elements between consecutive rows (``.row``) or columns (``.col``); without it,
the matrix is dense (stride = its column or row count). Sub-byte (.s4/.u4, m8n8k32) and .b1
(m8n8k128) fragments are the m8n8k32 / m8n8k128 mma fragments themselves (same register counts);
PTX allows them only with A row-major and B column-major, so each register's 8 (32) elements are
consecutive in memory and 32-bit aligned (ldm is a multiple of 16 bytes): one 32-bit load per
register, checked when the layout is built. .satfinite on float results and f64 rounding modes
other than .rn are reported as unsupported.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from llvmlite import ir

from ptx2gcn.emit import wmma_mfma
from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.llvm_types import I8, I32, I64, POINTER_BITS
from ptx2gcn.emit.lower_mfma_forms import operands_normal
from ptx2gcn.emit.lower_mma import MmaForm, Operands, mma_registers
from ptx2gcn.emit.lower_mma_mfma import Registers, canonical, f16_gated, gated, mma_dispatch, raw_nan, use_mfma
from ptx2gcn.emit.matrix_gather import lane_constant
from ptx2gcn.emit.matrix_layouts import ACC_F16, KIND, MMA, Layout
from ptx2gcn.ir.core import Op

_BASE = {("f16", 16): "m16n8k16", ("i8", 16): "m16n8k16", ("tf32", 8): "m16n8k8", ("f64", 4): "m8n8k4",
         ("i4", 32): "m8n8k32", ("b1", 128): "m8n8k128"}
"""(element kind, K) -> the mma shape whose fragments tile a wmma fragment."""
_OWN = {("a", "f16"): wmma_mfma.A, ("b", "f16"): wmma_mfma.B, ("a", "bf16"): wmma_mfma.A_BF16,
        ("b", "bf16"): wmma_mfma.B_BF16, ("c", "f32"): wmma_mfma.ACC, ("d", "f32"): wmma_mfma.ACC}
"""m16n16k16 fragments in ptx2gcn's MFMA layouts (``wmma_mfma``) instead of tiles of mma fragments."""
_ACC_KIND = {("s32", 16): "i8", ("s32", 32): "i4", ("s32", 128): "b1", ("f64", 4): "f64", ("f32", 8): "tf32"}
"""(C/D type, K) -> the element kind of the base mma whose accumulator layout C/D use (else .f16's)."""
_BITS = {"f16": 16, "bf16": 16, "s8": 8, "u8": 8, "tf32": 32, "f32": 32, "s32": 32, "f64": 64, "s4": 4, "u4": 4,
         "b1": 1}


@dataclass(frozen=True)
class Slot:
    """One used register of a wmma fragment: register ``reg`` of tile (``ti``, ``tj``)."""

    ti: int
    tj: int
    reg: int


@dataclass(frozen=True)
class WmmaFragment:
    rows: int
    cols: int
    tile: Layout
    slots: tuple[Slot, ...]

    def positions(self, slot: Slot, sub: int) -> list[tuple[int, int]]:
        """(row, col) in the whole matrix of element ``sub`` of ``slot``, for each lane."""
        i = slot.reg * self.tile.per_reg + sub
        return [(row + slot.ti * self.tile.rows, col + slot.tj * self.tile.cols)
                for row, col in (self.tile.owned[lane][i] for lane in range(32))]

    @property
    def own(self) -> bool:
        """Whether this is one of the MFMA layouts of ``wmma_mfma``."""
        return self.tile.forward is not None

    def as_layout(self) -> Layout:
        """The whole fragment as one layout (registers in slot order), for the exact path."""
        tile = self.tile
        if [(slot.ti, slot.tj, slot.reg) for slot in self.slots] == [(0, 0, r) for r in range(tile.regs)]:
            return tile
        index = {slot: k for k, slot in enumerate(self.slots)}

        tile_home = tile.home

        def whole_home(row: int, col: int) -> tuple[int, int]:
            lane, i = tile_home(row % tile.rows, col % tile.cols)
            k = index[Slot(row // tile.rows, col // tile.cols, i // tile.per_reg)]
            return lane, k * tile.per_reg + i % tile.per_reg
        return Layout(self.rows, self.cols, tile.elem_bits, len(self.slots), tile.reg_bits, whole_home)


def _dims(shape: str) -> tuple[int, int, int]:
    m, rest = shape[1:].split("n")
    n, k = rest.split("k")
    return int(m), int(n), int(k)


@cache
def fragment(shape: str, which: str, ptx_type: str) -> WmmaFragment | None:
    """The layout of fragment ``which`` (a, b, c or d) of ``shape`` holding ``ptx_type`` elements."""
    own = _OWN.get((which, ptx_type)) if shape == "m16n16k16" else None
    if own is not None:
        return WmmaFragment(16, 16, own, tuple(Slot(0, 0, reg) for reg in range(own.regs)))
    m, n, k = _dims(shape)
    kind = KIND.get(ptx_type) if which in "ab" else None
    base = _BASE.get((kind or "", k)) if which in "ab" else None
    if which in "cd":
        kind = _ACC_KIND.get((ptx_type, k), "f16")
        base = _BASE.get((kind, k))
    if base is None or kind is None:
        return None
    layouts = MMA[(base, kind)]
    if which == "a":
        tile, rows, cols = layouts.a, m, k
    elif which == "b":
        tile, rows, cols = layouts.b, k, n
    else:
        tile, rows, cols = (ACC_F16 if ptx_type == "f16" else layouts.acc), m, n
    slots = []
    for ti in range(-(-rows // tile.rows)):
        for tj in range(cols // tile.cols):
            for reg in range(tile.regs):
                first = ti * tile.rows + min(tile.owned[lane][reg * tile.per_reg][0] for lane in range(32))
                if first < rows:
                    slots.append(Slot(ti, tj, reg))
    return WmmaFragment(rows, cols, tile, tuple(slots))


def _unsupported(cx: FnContext, what: str, shape: str, ptx_type: str) -> Exception:
    return cx.unsupported(what, f".{shape}.{ptx_type} has no gfx942 lowering yet (supported: .f16/.bf16/.s8/.u8 "
                                "m16n16k16/m32n8k16/m8n32k16, .tf32 m16n16k8, .f64 m8n8k4, .s4/.u4 m8n8k32, "
                                ".b1 m8n8k128)")


class _Addresses:
    """Per-lane element addresses of a wmma matrix in memory."""

    def __init__(self, cx: FnContext, ptr: ir.Value, frag: WmmaFragment, layout: str, bits: int,
                 stride: ir.Value | None) -> None:
        self.cx, self.ptr, self.layout = cx, ptr, layout
        assert isinstance(ptr.type, ir.PointerType)
        self.index_type = ir.IntType(POINTER_BITS[ptr.type.addrspace])
        dense = frag.cols if layout == "row" else frag.rows
        self.stride = cx.coerce(stride, I32) if stride is not None else cx.i32(dense)
        self.bits = bits

    def of(self, positions: list[tuple[int, int]]) -> ir.Value:
        """``ptr + (major * stride + minor) * bytes`` as two offsets, the lane-dependent one first:
        the elements of a fragment then lie at lane-independent distances from one per-lane base,
        which LLVM keeps in few registers (and merges into wider loads where they are adjacent)."""
        cx, bld = self.cx, self.cx.builder
        major, minor = zip(*positions) if self.layout == "row" else zip(*((c, r) for r, c in positions))
        # per lane: (major - min major) * stride + (minor - min minor), the same for every element
        # of a fragment in most layouts; then the lane-independent rest
        low_major, low_minor = min(major), min(minor)
        varying = bld.add(bld.mul(lane_constant(cx, tuple(m - low_major for m in major)), self.stride),
                          lane_constant(cx, tuple(m - low_minor for m in minor)))
        uniform = bld.add(bld.mul(cx.i32(low_major), self.stride), cx.i32(low_minor))
        return bld.gep(bld.gep(self.ptr, [self._bytes(varying)], source_etype=I8), [self._bytes(uniform)],
                       source_etype=I8)

    def _bytes(self, index: ir.Value) -> ir.Value:
        bld = self.cx.builder
        wide = bld.zext(index, self.index_type) if self.index_type == I64 else index
        if self.bits >= 8:
            return bld.mul(wide, ir.Constant(self.index_type, self.bits // 8))
        # sub-byte: callers address byte-aligned elements only (each part a whole number of bytes)
        return bld.lshr(bld.mul(wide, ir.Constant(self.index_type, self.bits)), ir.Constant(self.index_type, 3))


def _stride(cx: FnContext, op: Op, count: int) -> ir.Value | None:
    return cx.operand(op, count) if len(op.operands) > count else None


def lower_wmma_load(cx: FnContext, op: Op) -> None:
    shape, ptx_type, which = cx.attr(op, "shape"), cx.attr(op, "type"), cx.attr(op, "frag")
    frag = fragment(shape, which, ptx_type)
    if frag is None or len(op.results) < len(frag.slots):
        raise _unsupported(cx, "wmma_load", shape, ptx_type)
    bits = _BITS[ptx_type]
    reg_type = ir.IntType(frag.tile.reg_bits)
    addresses = _Addresses(cx, cx.operand(op, 0), frag, cx.attr(op, "layout"), bits, _stride(cx, op, 1))
    bld = cx.builder
    if bits < 8:
        cx.define(op, *_sub_byte_registers(cx, frag, addresses, cx.attr(op, "layout")),
                  *[ir.Constant(reg_type, 0)] * (len(op.results) - len(frag.slots)))
        return
    regs: list[ir.Value] = []
    per_reg = frag.tile.per_reg
    loaded = frag.slots[:len(frag.slots) // 2] if wmma_mfma.mirrored(frag.tile) else frag.slots
    for slot in loaded:
        # the elements as a vector bitcast to the register: LLVM packs two 16-bit loads with one
        # v_perm_b32 instead of a shift and an or
        vec: ir.Value = ir.Constant(ir.VectorType(ir.IntType(bits), per_reg), None)
        for sub in range(per_reg):
            element = bld.load(addresses.of(frag.positions(slot, sub)), typ=ir.IntType(bits), align=bits // 8)
            vec = bld.insert_element(vec, element, cx.i32(sub))
        regs.append(bld.bitcast(vec, reg_type) if per_reg > 1 else bld.extract_element(vec, cx.i32(0)))
    regs.extend(wmma_mfma.mirror(cx, word) for word in regs[:len(frag.slots) - len(regs)])
    if frag.tile is wmma_mfma.A:
        cx.loaded_a.update(id(reg) for reg in regs)
    padding = [ir.Constant(reg_type, 0)] * (len(op.results) - len(regs))
    cx.define(op, *regs, *padding)


def _sub_byte_registers(cx: FnContext, frag: WmmaFragment, addresses: _Addresses, layout: str) -> list[ir.Value]:
    """.s4/.u4/.b1 A or B: each register's elements are consecutive along the memory's minor axis
    (A .row, B .col, as PTX requires): one aligned 32-bit load at its first element."""
    regs = []
    for slot in frag.slots:
        lanes = [frag.positions(slot, sub) for sub in range(frag.tile.per_reg)]
        for lane in range(32):
            run = [p[lane] if layout == "row" else p[lane][::-1] for p in lanes]
            if any(run[i] != (run[0][0], run[0][1] + i) for i in range(len(run))) or run[0][1] % frag.tile.per_reg:
                raise cx.unsupported("wmma_load", f"a .{layout} sub-byte fragment register is not one aligned "
                                                  "32-bit word in memory")
        regs.append(cx.builder.load(addresses.of(lanes[0]), typ=I32, align=4))
    return regs


def lower_wmma_store(cx: FnContext, op: Op) -> None:
    shape, ptx_type = cx.attr(op, "shape"), cx.attr(op, "type")
    count = int(op.attrs.get("n", 0) or 0)
    frag = fragment(shape, "d", ptx_type)
    if frag is None or count < len(frag.slots):
        raise _unsupported(cx, "wmma_store", shape, ptx_type)
    bits = _BITS[ptx_type]
    reg_type = ir.IntType(frag.tile.reg_bits)
    addresses = _Addresses(cx, cx.operand(op, 0), frag, cx.attr(op, "layout"), bits, _stride(cx, op, 1 + count))
    bld = cx.builder
    for k, slot in enumerate(frag.slots):
        word = cx.coerce(cx.operand(op, 1 + k), reg_type)
        for sub in range(frag.tile.per_reg):
            part = bld.lshr(word, ir.Constant(reg_type, sub * bits)) if sub else word
            element = part if bits == frag.tile.reg_bits else bld.trunc(part, ir.IntType(bits))
            bld.store(element, addresses.of(frag.positions(slot, sub)), align=bits // 8)


def _tile_registers(cx: FnContext, frag: WmmaFragment, values: list[ir.Value], ti: int, tj: int
                    ) -> list[ir.Value]:
    """The mma fragment registers of tile (ti, tj): the fragment's own, zero where left out."""
    reg_type = ir.IntType(frag.tile.reg_bits)
    found = {slot.reg: cx.coerce(values[k], reg_type) for k, slot in enumerate(frag.slots)
             if (slot.ti, slot.tj) == (ti, tj)}
    return [found.get(reg, ir.Constant(reg_type, 0)) for reg in range(frag.tile.regs)]


def lower_wmma_mma(cx: FnContext, op: Op) -> None:
    m, n, k = _dims(cx.attr(op, "shape"))
    form = MmaForm(_BASE.get((KIND.get(cx.attr(op, "atype") or "f16", ""), k), ""), cx.attr(op, "dtype"),
                   cx.attr(op, "atype") or "f16", cx.attr(op, "btype") or "f16", cx.attr(op, "ctype"),
                   cx.flag(op, "satfinite"), cx.attr(op, "bitop"))
    why = form.why_not() if form.shape else "no lowering yet for this shape and type"
    if why is None and form.satfinite and form.dtype != "s32":
        why = ".satfinite on floating-point wmma results is not lowered yet"
    if why is None and cx.attr(op, "rnd") not in ("", "rn"):
        why = f".{cx.attr(op, 'rnd')}: only round-to-nearest f64 wmma is lowered"
    shape = cx.attr(op, "shape")
    frags = [fragment(shape, w, t) for w, t in (("a", form.atype), ("b", form.btype), ("c", form.ctype),
                                                   ("d", form.dtype))]
    if why is not None or any(f is None for f in frags):
        raise cx.unsupported("wmma.mma", f".{shape} .{form.dtype}.{form.atype}.{form.btype}.{form.ctype}: "
                                         f"{why or 'no fragment layout'}")
    fa, fb, fc, fd = (f for f in frags if f is not None)
    counts = [int(op.attrs.get(x, 0) or 0) for x in ("a", "b", "c")]
    values = cx.operands(op)
    a, b, c = values[:counts[0]], values[counts[0]:counts[0] + counts[1]], values[counts[0] + counts[1]:]
    if any(f.own for f in (fa, fb, fc, fd)):
        d = _whole(cx, form, (fa, fb, fc, fd), a[:len(fa.slots)], b[:len(fb.slots)], c[:len(fc.slots)])
        padding = [ir.Constant(ir.IntType(fd.tile.reg_bits), 0)] * (len(op.results) - len(d))
        cx.define(op, *d, *padding)
        return
    tiles = [(ti, tj) for ti in range(-(-m // fd.tile.rows)) for tj in range(n // fd.tile.cols)]
    problems = [(_tile_registers(cx, fa, a, ti, 0), _tile_registers(cx, fb, b, 0, tj),
                 _tile_registers(cx, fc, c, ti, tj)) for ti, tj in tiles]
    results = dict(zip(tiles, mma_dispatch(cx, form, problems), strict=True))
    regs = [results[(slot.ti, slot.tj)][slot.reg] for slot in fd.slots]
    padding = [ir.Constant(ir.IntType(fd.tile.reg_bits), 0)] * (len(op.results) - len(regs))
    cx.define(op, *regs, *padding)


def _whole(cx: FnContext, form: MmaForm, frags: tuple[WmmaFragment, ...], a: list[ir.Value], b: list[ir.Value],
           c: list[ir.Value]) -> list[ir.Value]:
    """D's registers of an m16n16k16 wmma with some fragment in ptx2gcn's MFMA layouts: the 4x4x4 MFMA
    path (``wmma_mfma``) for .f16 x .f16 -> .f32 behind the gate, else one exact 16 x 16 x 16 product
    on the whole-fragment layouts."""
    shape = Operands(*(f.as_layout() for f in frags), k=16)

    def slow() -> Registers:
        return [mma_registers(cx, form, a, b, c, shape)]
    if not (use_mfma(cx, form) and all(f.own for f in frags)):
        return slow()[0]

    raw = raw_nan(cx)

    def finished(d: list[ir.Value]) -> Registers:
        return [[cx.builder.bitcast(v, I32) for v in d] if raw else [canonical(cx, v) for v in d]]
    if form.atype == "bf16":  # the bf16 guards of the other forms (subnormal, |x| >= 2^60): else exact
        return gated(cx, lambda: finished(wmma_mfma.bf16_registers(cx, a, b, c)), slow,
                     operands_normal(cx, form, [(a, b, [])]))[0]
    return f16_gated(cx, form, [(wmma_mfma.checked_a(cx, a), wmma_mfma.checked_b(b), [])],
                     lambda widen: finished(wmma_mfma.mfma_registers(cx, a, b, c, widen)), slow)[0]
