"""``mma.sync.aligned`` on the VALU: the exact portable path (Mode P, one CUDA warp per half-wave).

Invariant: each lane computes the D elements it holds in the PTX fragment layout
(``matrix_layouts``): for element (row, col) it reads A[row][k] and B[k][col] from the lanes that
hold them (``matrix_gather``: ``ds_bpermute`` inside the executing warp's half, all 32 lanes active
because mma is ``.aligned``), and accumulates in a fixed, documented order:

- floating point (``.f16``/``.bf16``/``.tf32`` A/B): ``acc = c; acc = fma(a_k, b_k, acc)`` for
  k = 0..K-1 in f32. Every product of two f16/bf16/tf32 values is exact in f32, so each step is one
  rounding to nearest even: ``|d - exact| <= K * 2^-24 * (|c| + sum |a_k b_k|)`` (plus subnormal
  spacing), inside the reference model's ``(K+2) * 2^-23`` bound, and bit exact on small integers.
  ``.tf32`` operands keep their top 19 bits (low 13 mantissa bits cleared, as NVIDIA ignores
  them). ``.bf16``/``.tf32`` have f32's exponent range, so a product of two finite values can
  exceed it: those two accumulate the same chain in f64 (every product and every partial sum of
  at most 16 terms is finite there) and round once to f32 at the end, so an overflow becomes an
  infinity only in the result and never meets an infinite term as ``inf - inf``; the error is
  ``K * 2^-53`` of the terms plus one f32 rounding, inside the same bound. An ``.f16`` D is the
  f32 result rounded once to f16. A NaN result becomes NVIDIA's
  canonical NaN (0x7fffffff / 0x7fff). Subnormals are kept (no flush; PTX mma has no ``.ftz``).
- ``.f64``: the same FMA chain in f64: bit exact, as on NVIDIA.
- ``.s8``/``.u8``: the products' sum ``s`` in i32 (exact: |s| < 2^21), then ``c + s`` wrapped, or
  saturated with ``.satfinite`` (``llvm.sadd.sat``): bit exact.

Cost of m16n8k16 f16: 32 ds_bpermute_b32 + 64 v_fma_f32 + conversions per lane. MFMA fast paths are
separate work (docs/tensor-cores.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.llvm_types import DOUBLE, FLOAT, HALF, I16, I32, I64
from ptx2gcn.emit.lower_float_fp8 import FORMATS, from_fp8
from ptx2gcn.emit.matrix_gather import FragmentReader
from ptx2gcn.emit.matrix_layouts import KIND, MMA, VOLTA, Layout, MmaLayouts
from ptx2gcn.ir.core import Op

Convert = Callable[[FnContext, ir.Value], ir.Value]


def _f16(cx: FnContext, bits: ir.Value) -> ir.Value:
    return cx.builder.fpext(cx.builder.bitcast(bits, HALF), FLOAT)


def _bf16(cx: FnContext, bits: ir.Value) -> ir.Value:
    bld = cx.builder
    return bld.bitcast(bld.shl(bld.zext(bits, I32), cx.i32(16)), FLOAT)


def _tf32(cx: FnContext, bits: ir.Value) -> ir.Value:
    return cx.builder.bitcast(cx.builder.and_(bits, cx.i32(-0x2000)), FLOAT)


def _f32(cx: FnContext, bits: ir.Value) -> ir.Value:
    return cx.builder.bitcast(bits, FLOAT)


def _f64(cx: FnContext, bits: ir.Value) -> ir.Value:
    return cx.builder.bitcast(bits, DOUBLE)


def _s8(cx: FnContext, bits: ir.Value) -> ir.Value:
    return cx.builder.sext(bits, I32)


def _u8(cx: FnContext, bits: ir.Value) -> ir.Value:
    return cx.builder.zext(bits, I32)


def _s32(cx: FnContext, bits: ir.Value) -> ir.Value:
    return bits


def _fp8(name: str) -> Convert:
    def convert(cx: FnContext, bits: ir.Value) -> ir.Value:
        return cx.builder.fpext(from_fp8(cx, FORMATS[name], bits, relu=False), FLOAT)
    return convert


_CONVERT: dict[str, Convert] = {"f16": _f16, "bf16": _bf16, "tf32": _tf32, "f32": _f32, "f64": _f64, "s8": _s8,
                                "u8": _u8, "s4": _s8, "u4": _u8, "s32": _s32, "e4m3": _fp8("e4m3"),
                                "e5m2": _fp8("e5m2")}
"""PTX element type -> the element's bits as the accumulation type (f32, f64 or i32)."""


_WIDE_ACCUMULATION = frozenset({"bf16", "tf32"})
"""A/B types whose products can exceed f32's range (f32's exponent range): accumulated in f64 (module
docstring), so a finite product beyond f32 never becomes an infinity that meets an infinite term."""

_FLOAT_ACC = {(d, c) for d in ("f16", "f32") for c in ("f16", "f32")}
_ACCUMULATORS: dict[str, set[tuple[str, str]]] = {
    "f16": _FLOAT_ACC, "f8": _FLOAT_ACC, "tf32": {("f32", "f32")}, "f64": {("f64", "f64")},
    **dict.fromkeys(("i8", "i4", "b1"), {("s32", "s32")}),
}
"""Element kind of A/B -> the (dtype, ctype) pairs PTX allows (9.7.14.5.14 "mma", syntax)."""


@dataclass(frozen=True)
class Operands:
    """The fragment layouts of one product D (M x N) = A (M x K) B (K x N) + C, as the exact path reads
    and writes them: an mma's PTX layouts (``MmaForm.operands``) or ptx2gcn's own wmma layouts."""

    a: Layout
    b: Layout
    c: Layout
    d: Layout
    k: int
    quads: bool = False
    """Volta m8n8k4 .f16: four independent products; D row r uses B columns 8 * (r // 8) + n."""


@dataclass(frozen=True)
class MmaForm:
    """The attributes of one mma: shape, element types, ``.satfinite`` and the ``.b1`` operation."""

    shape: str
    dtype: str
    atype: str
    btype: str
    ctype: str
    satfinite: bool = False
    bitop: str = ""
    alayout: str = "row"
    blayout: str = "col"

    @staticmethod
    def of(cx: FnContext, op: Op) -> MmaForm:
        return MmaForm(cx.attr(op, "shape"), cx.attr(op, "dtype"), cx.attr(op, "atype") or "f16",
                       cx.attr(op, "btype") or "f16", cx.attr(op, "ctype"), cx.flag(op, "satfinite"),
                       cx.attr(op, "bitop"), cx.attr(op, "alayout"), cx.attr(op, "blayout"))

    @property
    def volta(self) -> bool:
        return self.shape == "m8n8k4" and self.atype == "f16"

    @property
    def layouts(self) -> MmaLayouts:
        if self.volta:
            return VOLTA[(self.alayout, self.blayout)]
        return MMA[(self.shape, KIND[self.atype])]

    @property
    def operands(self) -> Operands:
        layouts = self.layouts
        return Operands(layouts.a, layouts.b, self.acc_in, self.acc_out, layouts.k, layouts.quads)

    @property
    def acc_in(self) -> Layout:
        return self.layouts.acc_f16 if self.ctype == "f16" else self.layouts.acc

    @property
    def acc_out(self) -> Layout:
        return self.layouts.acc_f16 if self.dtype == "f16" else self.layouts.acc

    def why_not(self) -> str | None:
        """Why this form has no lowering (None: it has one)."""
        spelled = f".{self.shape} .{self.dtype}.{self.atype}.{self.btype}.{self.ctype}"
        kind = KIND.get(self.atype)
        if not {self.alayout, self.blayout} <= {"row", "col"} or \
                ((self.alayout, self.blayout) != ("row", "col") and not self.volta):
            return f"{spelled}: .{self.alayout}.{self.blayout}: mma needs .row.col (any layouts only for m8n8k4 .f16)"
        if self.volta:
            return None if (self.btype, self.dtype in ("f16", "f32"), self.ctype in ("f16", "f32")) == \
                ("f16", True, True) else f"{spelled}: m8n8k4 .f16 takes .f16/.f32 accumulators"
        if kind is None or (self.shape, kind) not in MMA or kind != KIND.get(self.btype):
            return f"{spelled} has no gfx942 lowering yet (supported: m16n8k16/k8 f16/bf16, m16n8k8/k4 tf32, " \
                   f"m16n8k32/k16 and m8n8k16 s8/u8, m16n8k64/k32 and m8n8k32 s4/u4, m16n8k256/k128 and m8n8k128 " \
                   f"b1, m16n8k32/k16 e4m3/e5m2, m16n8k16/k8/k4 and m8n8k4 f64)"
        if kind not in ("i8", "i4", "f8") and self.atype != self.btype:
            return f"{spelled}: A and B must have the same type"
        if (kind == "b1") != bool(self.bitop):
            return f"{spelled}: .b1 goes with .and.popc or .xor.popc"
        if (self.dtype, self.ctype) not in _ACCUMULATORS[kind]:
            return f"{spelled}: the accumulators of .{self.atype} mma are " + \
                ", ".join(f".{d}.{c}" for d, c in sorted(_ACCUMULATORS[kind]))
        return None


def _registers(cx: FnContext, values: list[ir.Value], layout: Layout) -> list[ir.Value]:
    return [cx.coerce(v, ir.IntType(layout.reg_bits)) for v in values]


def _canonical_nan(cx: FnContext, value: ir.Value, nan_bits: int, int_type: ir.IntType) -> ir.Value:
    bld = cx.builder
    is_nan = bld.fcmp_unordered("uno", value, value)
    return bld.select(is_nan, ir.Constant(int_type, nan_bits), bld.bitcast(value, int_type))


def _finish(cx: FnContext, form: MmaForm, acc: ir.Value, c: ir.Value) -> ir.Value:
    """D element bits (iN of the D layout) from the accumulated value (and c, for integers)."""
    bld = cx.builder
    if form.dtype == "s32":
        if form.satfinite:
            return cx.call("llvm.sadd.sat.i32", I32, [c, acc])
        return bld.add(c, acc)
    if form.dtype == "f64":
        return bld.bitcast(acc, I64)
    if form.dtype == "f16":
        return _canonical_nan(cx, bld.fptrunc(acc, HALF), 0x7FFF, I16)
    return _canonical_nan(cx, acc, 0x7FFFFFFF, I32)


def _element(cx: FnContext, form: MmaForm, shape: Operands, readers: tuple[FragmentReader, FragmentReader],
             c: ir.Value, index: int) -> ir.Value:
    """D element ``index`` of every lane (module docstring: the accumulation order)."""
    bld = cx.builder
    positions = [shape.d.owned[lane][index] for lane in range(32)]
    integer = form.dtype == "s32"
    acc = cx.i32(0) if integer else c
    if form.bitop:
        return _finish(cx, form, _popc_sum(cx, form, shape.k, readers, positions), c)
    to_a, to_b = _CONVERT[form.atype], _CONVERT[form.btype]
    wide = form.atype in _WIDE_ACCUMULATION
    fma_name = "llvm.fma.f64" if form.dtype == "f64" or wide else "llvm.fma.f32"
    if wide:
        acc = bld.fpext(acc, DOUBLE)
    b_cols = [col + 8 * (row // 8) if shape.quads else col for row, col in positions]
    for k in range(shape.k):
        x = to_a(cx, readers[0].element([(row, k) for row, _ in positions]))
        y = to_b(cx, readers[1].element([(k, col) for col in b_cols]))
        if wide:
            x, y = bld.fpext(x, DOUBLE), bld.fpext(y, DOUBLE)
        acc = bld.add(acc, bld.mul(x, y)) if integer else cx.call(fma_name, acc.type, [x, y, acc])
    if wide:
        acc = bld.fptrunc(acc, FLOAT)
    return _finish(cx, form, acc, c)


def _popc_sum(cx: FnContext, form: MmaForm, k: int, readers: tuple[FragmentReader, FragmentReader],
              positions: list[tuple[int, int]]) -> ir.Value:
    """``.b1``: sum over 32-bit words of popc(A word AND/XOR B word). In every .b1 layout 32
    consecutive K elements of one row of A (column of B) fill one register, bit j = k % 32 = j."""
    bld = cx.builder
    total: ir.Value = cx.i32(0)
    for first in range(0, k, 32):
        a = readers[0].word([(row, first) for row, _ in positions])
        b = readers[1].word([(first, col) for _, col in positions])
        bits = bld.and_(a, b) if form.bitop == "and" else bld.xor(a, b)
        total = bld.add(total, cx.call("llvm.ctpop.i32", I32, [bits]))
    return total


def _pack(cx: FnContext, elements: list[ir.Value], layout: Layout) -> list[ir.Value]:
    bld = cx.builder
    reg_type = ir.IntType(layout.reg_bits)
    regs: list[ir.Value] = []
    for r in range(layout.regs):
        word: ir.Value = ir.Constant(reg_type, 0)
        for sub in range(layout.per_reg):
            part = elements[r * layout.per_reg + sub]
            if part.type != reg_type:
                part = bld.zext(part, reg_type)
            if sub:
                part = bld.shl(part, ir.Constant(reg_type, sub * layout.elem_bits))
            word = part if sub == 0 else bld.or_(word, part)
        regs.append(word)
    return regs


def mma_registers(cx: FnContext, form: MmaForm, a: list[ir.Value], b: list[ir.Value], c: list[ir.Value],
                  shape: Operands | None = None) -> list[ir.Value]:
    """D's registers (i32/i64) of ``form`` from A, B and C registers, in the PTX fragment layouts of
    ``form`` or in those of ``shape`` (wmma's own layouts)."""
    shape = shape or form.operands
    readers = (FragmentReader(cx, shape.a, _registers(cx, a, shape.a)),
               FragmentReader(cx, shape.b, _registers(cx, b, shape.b)))
    # C's element (row, col) is in this lane for every PTX shape but Volta's f16 C with an f32 D
    c_reader = FragmentReader(cx, shape.c, _registers(cx, c, shape.c))
    elements: list[ir.Value] = []
    for index in range(shape.d.regs * shape.d.per_reg):
        positions = [shape.d.owned[lane][index] for lane in range(32)]
        c_element = _CONVERT[form.ctype](cx, c_reader.element(positions))
        elements.append(_element(cx, form, shape, readers, c_element, index))
    return _pack(cx, elements, shape.d)


def mma_operands(cx: FnContext, op: Op) -> tuple[MmaForm, list[ir.Value], list[ir.Value], list[ir.Value]]:
    """The form and the A, B, C registers of ``mma`` ``op``, or an ``unsupported`` error."""
    form = MmaForm.of(cx, op)
    why = form.why_not()
    if why is not None:
        raise cx.unsupported("mma", why)
    values = cx.operands(op)
    na, nb, nc = (int(op.attrs.get(x, 0) or 0) for x in ("a", "b", "c"))
    wanted = (form.layouts.a.regs, form.layouts.b.regs, form.acc_in.regs, form.acc_out.regs)
    if (na, nb, nc, len(op.results)) != wanted:
        raise cx.unsupported("mma", f"fragments of {na}, {nb}, {nc} -> {len(op.results)} registers; "
                                    f".{form.shape} needs {wanted[0]}, {wanted[1]}, {wanted[2]} -> {wanted[3]}")
    return form, values[:na], values[na:na + nb], values[na + nb:]
