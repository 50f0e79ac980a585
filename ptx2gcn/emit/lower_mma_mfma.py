"""``mma`` m16n8k16 ``.f32.f16.f16.f32`` on the matrix cores: the MFMA fast path (``--mma``).

Invariant: the MFMA path only runs where the whole wave (both CUDA warps, all 64 lanes) executes
the mma together: ``mma_dispatch`` branches on ``ballot(true) == ~0`` (EXEC full, a uniform scalar
branch) to the MFMA code, else to the exact VALU path (``lower_mma.mma_registers``), so a warp
alone, a diverged wave or a partial block always gets the exact path. The MFMA code reads and
writes the PTX fragment layouts (``matrix_layouts``), so both branches define the same registers.

Data movement (all ``ds_bpermute_b32`` over the full wave, legal because EXEC is full): warp w's
problem is D_w (16x8) = A_w (16x16) B_w (16x8) + C_w. Two ``v_mfma_f32_16x16x16f16`` per wave, MFMA
w with A = A_w and, shared by both, B = [B_0 | B_1] (16x16) and C = [C_0 | C_1]; MFMA w's columns
8w..8w+7 are D_w (the other eight are discarded). The MFMA K index 4q+i stands for PTX k
``(2q, 2q+1, 2q+8, 2q+9)[i]`` (the k's PTX lane t = q holds), so every A/B operand dword is one
PTX register of one lane; MFMA row 4q+i stands for PTX row ``8*(i>=2) + 2q + (i&1)`` (rho), so
C/D move with two candidate registers per dword. Per mma pair: 2 MFMA, 26 ds_bpermute.

Every other form with an MFMA plan (``mfma_forms``: bf16, m16n8k8, f16 accumulators, tf32, s8/u8,
f64) goes through the same branch to ``lower_mfma_forms.forms_registers`` (``use_mfma``/``mma_dispatch``
are the only places that look it up).

Numerics: CDNA3 MFMA products and sums in f32 (not the exact path's FMA chain): bit exact on
small integers, inside the reference model's ``(K+2) * 2^-23`` bound otherwise; a NaN D element
becomes NVIDIA's canonical NaN, as on the exact path. A wave with a subnormal f16 A/B element
(``operands_normal``) runs the same code on f32-input MFMAs instead (``mfma_widen``): CDNA3's f16
MFMAs count a subnormal with f16's smallest normal exponent, beyond that bound.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.half_wave import ballot64, bpermute, lane64
from ptx2gcn.emit.llvm_types import FLOAT, HALF, I1, I32, I64
from ptx2gcn.emit.lower_mfma_forms import forms_registers, operands_normal, plan_of
from ptx2gcn.emit.lower_mma import MmaForm, mma_operands, mma_registers
from ptx2gcn.emit.mfma_operands import a_to_ptx, b_to_ptx
from ptx2gcn.emit.mfma_widen import f16_mfma
from ptx2gcn.ir.core import Op

MFMA_ARCHS = frozenset({"gfx90a", "gfx942", "gfx950"})
F16_MFMA_ARCHS = frozenset({"gfx942"})
"""Where the f16 m16n8k16 form (and the f16 wmma on it) takes MFMAs: CDNA2 (gfx90a) flushes f16/bf16
subnormal inputs (MMA-Sim's measurements), CDNA4's arithmetic is not measured; the same rule as
``mfma_forms`` applies to the other 16-bit forms."""

_V2I32 = ir.VectorType(I32, 2)
_V4HALF = ir.VectorType(HALF, 4)
V4FLOAT = ir.VectorType(FLOAT, 4)
_MFMA = "llvm.amdgcn.mfma.f32.16x16x16f16"

Lowering = Callable[[FnContext, MmaForm, list[ir.Value], list[ir.Value], list[ir.Value]], list[ir.Value]]


def mfma_form(form: MmaForm) -> bool:
    """Whether ``form`` has an MFMA lowering."""
    return (form.shape, form.atype, form.btype, form.ctype, form.dtype, form.alayout, form.blayout) == \
        ("m16n8k16", "f16", "f16", "f32", "f32", "row", "col")


def _pick(cx: FnContext, regs: list[ir.Value], src_lane: ir.Value, first: int, second: int,
          take_second: ir.Value) -> ir.Value:
    """``regs[second if take_second else first]`` of lane ``src_lane``."""
    one = bpermute(cx, cx.coerce(regs[first], I32), src_lane)
    two = bpermute(cx, cx.coerce(regs[second], I32), src_lane)
    return cx.builder.select(take_second, two, one)


class _Lanes:
    """Per-lane indices of the wave lane, as i32 (c = lane & 15, q = lane >> 4)."""

    def __init__(self, cx: FnContext) -> None:
        bld = cx.builder
        self.cx = cx
        lane = lane64(cx)
        self.c = bld.and_(lane, cx.i32(15))
        self.q = bld.lshr(lane, cx.i32(4))
        self.upper_col = bld.icmp_unsigned(">=", self.c, cx.i32(8))
        self.warp = bld.lshr(lane, cx.i32(5))
        self.g = bld.lshr(bld.and_(lane, cx.i32(31)), cx.i32(2))
        self.t = bld.and_(lane, cx.i32(3))

    def const(self, *terms: tuple[ir.Value, int]) -> ir.Value:
        total: ir.Value = self.cx.i32(0)
        for value, scale in terms:
            total = self.cx.builder.add(total, self.cx.builder.mul(value, self.cx.i32(scale)))
        return total

    def bit(self, value: ir.Value, mask: int) -> ir.Value:
        bld = self.cx.builder
        return bld.icmp_unsigned("!=", bld.and_(value, self.cx.i32(mask)), self.cx.i32(0))


def vector(cx: FnContext, parts: list[ir.Value], vtype: ir.VectorType) -> ir.Value:
    """The vector of ``vtype`` holding ``parts``."""
    bld = cx.builder
    vec: ir.Value = ir.Constant(vtype, None)
    for i, part in enumerate(parts):
        vec = bld.insert_element(vec, part, cx.i32(i))
    return vec


def halves(cx: FnContext, words: list[ir.Value]) -> ir.Value:
    """Two 32-bit registers as the ``<4 x half>`` of an f16 MFMA operand."""
    return cx.builder.bitcast(vector(cx, [cx.coerce(w, I32) for w in words], _V2I32), _V4HALF)


def _a_operand(cx: FnContext, lanes: _Lanes, a: list[ir.Value], warp: int) -> ir.Value:
    """MFMA A of warp ``warp``: lane (r = c, q) holds A[rho(r)][k of PTX lane t = q]."""
    bld = cx.builder
    r = lanes.c
    # rho(r) = 8 * (r & 2 != 0) + 2 * (r >> 2) + (r & 1): its g = rho & 7, its half = r & 2
    g = bld.add(bld.mul(bld.lshr(r, cx.i32(2)), cx.i32(2)), bld.and_(r, cx.i32(1)))
    src = bld.add(lanes.const((g, 4), (lanes.q, 1)), cx.i32(32 * warp))
    lower = lanes.bit(r, 2)
    words = [_pick(cx, a, src, 0, 1, lower), _pick(cx, a, src, 2, 3, lower)]
    return halves(cx, words)


def _b_operand(cx: FnContext, lanes: _Lanes, b: list[ir.Value]) -> ir.Value:
    """MFMA B = [B_0 | B_1]: lane (c, q) holds B_{c>=8}[k of t = q][c & 7]."""
    bld = cx.builder
    src = lanes.const((bld.zext(lanes.upper_col, I32), 32), (bld.and_(lanes.c, cx.i32(7)), 4), (lanes.q, 1))
    words = [bpermute(cx, cx.coerce(b[0], I32), src), bpermute(cx, cx.coerce(b[1], I32), src)]
    return halves(cx, words)


def _c_operand(cx: FnContext, lanes: _Lanes, c: list[ir.Value]) -> ir.Value:
    """MFMA C = [C_0 | C_1]: lane (c, q) element i holds C_{c>=8}[rho(4q+i)][c & 7]."""
    bld = cx.builder
    odd = lanes.bit(lanes.c, 1)
    base = lanes.const((bld.zext(lanes.upper_col, I32), 32), (bld.lshr(bld.and_(lanes.c, cx.i32(7)), cx.i32(1)), 1))
    elements = []
    for i in range(4):
        src = bld.add(base, lanes.const((lanes.q, 8)))
        if i & 1:
            src = bld.add(src, cx.i32(4))
        first = 2 * (i >= 2)
        elements.append(bld.bitcast(_pick(cx, c, src, first, first + 1, odd), FLOAT))
    return vector(cx, elements, V4FLOAT)


def _d_registers(cx: FnContext, lanes: _Lanes, d: ir.Value, raw: bool) -> list[ir.Value]:
    """PTX D of each warp from the merged MFMA result (lane (c, q) element i = D_{c>=8}[rho(4q+i)][c & 7]).

    PTX lane (w, g, t) register j holds D_w[g + 8 (j >= 2)][2t + (j & 1)]: MFMA lane
    16 (g >> 1) + 8w + 2t + (j & 1), element 2 (j >= 2) + (g & 1)."""
    bld = cx.builder
    words = [bld.bitcast(bld.extract_element(d, cx.i32(i)), I32) for i in range(4)]
    odd_row = lanes.bit(lanes.g, 1)
    base = lanes.const((bld.lshr(lanes.g, cx.i32(1)), 16), (lanes.warp, 8), (lanes.t, 2))
    out = []
    for j in range(4):
        src = bld.add(base, cx.i32(j & 1))
        first = 2 * (j >= 2)
        word = _pick(cx, words, src, first, first + 1, odd_row)
        out.append(word if raw else canonical(cx, bld.bitcast(word, FLOAT)))
    return out


def mfma_registers(cx: FnContext, form: MmaForm, a: list[ir.Value], b: list[ir.Value], c: list[ir.Value],
                   stacked: bool = False, operands: tuple[bool, bool] = (False, False),
                   normal: ir.Value | None = None) -> list[ir.Value]:
    """D's registers of ``form`` (``mfma_form``) through two MFMAs; EXEC must be full (module docstring).
    ``stacked``: C and D are in the stacked MFMA layout (``acc = mfma``, pass ``mma-mfma-layout``);
    ``operands``: A, B already hold the MFMA operands (``aop``/``bop``, pass ``ldmatrix-mfma-layout``).
    With ``normal`` (``operands_normal``), only the two MFMAs are behind a branch on it: the f16 MFMAs
    where it holds in every lane, else their f32 twins (``_products``); the moves are shared."""
    bld = cx.builder
    lanes = _Lanes(cx)
    b_op = halves(cx, b) if operands[1] else _b_operand(cx, lanes, b)
    c_op = vector(cx, [cx.coerce(r, FLOAT) for r in c], V4FLOAT) if stacked else _c_operand(cx, lanes, c)
    a_ops = [halves(cx, a[2 * w:2 * w + 2]) if operands[0] else _a_operand(cx, lanes, a, w) for w in (0, 1)]
    if normal is None:
        d = [f16_mfma(cx, _MFMA, a_op, b_op, c_op) for a_op in a_ops]
    else:
        d = _products(cx, a_ops, b_op, c_op, normal)
    merged = bld.select(_splat(cx, lanes.upper_col), d[1], d[0])
    if stacked:  # merged is the stacked layout: the useful columns of MFMA w are the lanes c >= 8 iff w = 1
        elements = [bld.extract_element(merged, cx.i32(i)) for i in range(4)]
        return [bld.bitcast(e, I32) if raw_nan(cx) else canonical(cx, e) for e in elements]
    return _d_registers(cx, lanes, merged, raw_nan(cx))


def stacked_layout(cx: FnContext) -> bool:
    """Whether ``acc = mfma`` and ``mma_acc`` mean the stacked MFMA layout: exactly where the m16n8k16
    ``.f32.f16.f16.f32`` form takes the MFMA path (``use_mfma``); elsewhere they mean the PTX layout."""
    return cx.mod.mma != "exact" and cx.mod.arch in F16_MFMA_ARCHS  # = where every stackable form has a plan


def to_stacked(cx: FnContext, regs: list[ir.Value]) -> list[ir.Value]:
    """PTX C/D registers (both warps) -> the stacked MFMA layout (``_c_operand``); EXEC must be full."""
    vec = _c_operand(cx, _Lanes(cx), regs)
    return [cx.builder.bitcast(cx.builder.extract_element(vec, cx.i32(i)), I32) for i in range(4)]


def from_stacked(cx: FnContext, regs: list[ir.Value]) -> list[ir.Value]:
    """The stacked MFMA layout -> PTX D registers, NaN bits kept (``_d_registers``); EXEC must be full."""
    return _d_registers(cx, _Lanes(cx), vector(cx, [cx.coerce(r, FLOAT) for r in regs], V4FLOAT), True)


def lower_mma_acc(cx: FnContext, op: Op) -> None:
    """``mma_acc``: four accumulator registers into (``to = mfma``) or out of (``to = ptx``) the stacked
    layout; a copy where ``stacked_layout`` is false."""
    regs = [cx.operand(op, i) for i in range(4)]
    if stacked_layout(cx):
        regs = (to_stacked if op.attrs.get("to") == "mfma" else from_stacked)(cx, regs)
    cx.define(op, *regs)


def _exact_registers(cx: FnContext, form: MmaForm, a: list[ir.Value], b: list[ir.Value], c: list[ir.Value],
                     stacked: bool, operands: tuple[bool, bool] = (False, False)) -> list[ir.Value]:
    """The exact path's D; with ``stacked`` C and D converted from and to the stacked layout, A and B
    from the MFMA operand layout per ``operands`` (only under a full EXEC: the mma is ``wave = whole``,
    so this branch is reached only on a data condition)."""
    a = a_to_ptx(cx, a) if operands[0] else a
    b = b_to_ptx(cx, b) if operands[1] else b
    if not stacked:
        return mma_registers(cx, form, a, b, c)
    return to_stacked(cx, mma_registers(cx, form, a, b, from_stacked(cx, c)))


def _products(cx: FnContext, a_ops: list[ir.Value], b_op: ir.Value, c_op: ir.Value, normal: ir.Value
              ) -> list[ir.Value]:
    """The MFMA results for each A operand: f16 MFMAs when ``normal`` holds in every lane, else the
    xf32 MFMAs of ``mfma_widen`` (CDNA3's f16 MFMAs misalign a subnormal's products)."""
    bld = cx.builder

    def run(widen: bool) -> Registers:
        return [[bld.bitcast(bld.extract_element(f16_mfma(cx, _MFMA, a_op, b_op, c_op, widen=widen), cx.i32(i)), I32)
                 for i in range(4)] for a_op in a_ops]
    regs = wave_branch(cx, normal, lambda: run(False), lambda: run(True), names=("mma.f16", "mma.f32"))
    return [vector(cx, [bld.bitcast(r, FLOAT) for r in words], V4FLOAT) for words in regs]


def _splat(cx: FnContext, flag: ir.Value) -> ir.Value:
    return vector(cx, [flag] * 4, ir.VectorType(I1, 4))


def use_mfma(cx: FnContext, form: MmaForm) -> bool:
    """Whether this mma gets the MFMA path (with its exact fallback) under the module's ``--mma``."""
    mode = cx.mod.mma
    if mode == "exact" or not (mfma_form(form) or plan_of(form, cx.mod.arch, mode)):  # others: lower_mfma_forms
        return False
    if cx.mod.arch not in MFMA_ARCHS:
        if mode == "mfma":
            raise cx.unsupported("mma", f"--mma mfma: {cx.mod.arch} has no matrix cores (MFMA: "
                                        f"{', '.join(sorted(MFMA_ARCHS))})")
        return False
    return not mfma_form(form) or cx.mod.arch in F16_MFMA_ARCHS


Problem = tuple[list[ir.Value], list[ir.Value], list[ir.Value]]
"""A, B and C registers of one mma."""


def canonical(cx: FnContext, value: ir.Value) -> ir.Value:
    """The i32 bits of f32 ``value``, a NaN replaced by NVIDIA's canonical NaN (as the exact path)."""
    bld = cx.builder
    return bld.select(bld.fcmp_unordered("uno", value, value), cx.i32(0x7FFFFFFF), bld.bitcast(value, I32))


def raw_nan(cx: FnContext) -> bool:
    """Whether the mma being lowered may leave a NaN in D non-canonical (``rawnan``, pass
    ``mma-accumulators``: an ``mma_nan`` canonicalises it where it leaves the mma chain)."""
    return cx.op is not None and cx.flag(cx.op, "rawnan")


def lower_mma_nan(cx: FnContext, op: Op) -> None:
    """``mma_nan``: the canonical NaN for a NaN, other bits unchanged."""
    cx.define(op, canonical(cx, cx.coerce(cx.operand(op, 0), FLOAT)))


Registers = list[list[ir.Value]]


def gated(cx: FnContext, fast: Callable[[], Registers], slow: Callable[[], Registers],
          ready: ir.Value | None = None, reg_type: ir.IntType = I32) -> Registers:
    """``fast()`` (MFMA code, needs EXEC full) when the whole wave executes this mma, else ``slow()``
    (the exact path). The mma's ``wave`` attribute (pass ``wave64-mma-uniformity``) decides
    statically where it can (``whole``: fast alone, ``split``: slow alone); otherwise both are
    emitted behind one scalar branch on ``ballot(ready) == ~0`` (``wave_branch``). ``ready`` (None:
    true) is a per-lane condition the fast path also needs (``lower_mfma_forms.operands_normal``); a
    ``whole`` mma with one keeps the branch."""
    wave = cx.op.attrs.get("wave") if cx.op is not None else None
    if wave == "split" or (wave == "whole" and ready is None):
        return [[cx.coerce(v, reg_type) for v in problem] for problem in (fast() if wave == "whole" else slow())]
    return wave_branch(cx, ready if ready is not None else ir.Constant(I1, 1), fast, slow, reg_type)


def wave_branch(cx: FnContext, condition: ir.Value, then: Callable[[], Registers], other: Callable[[], Registers],
                reg_type: ir.IntType = I32, names: tuple[str, str] = ("mma.mfma", "mma.exact")) -> Registers:
    """``then()`` if ``condition`` holds in every lane of the wave (one scalar branch on
    ``ballot(condition) == ~0``), else ``other()``; the results (``reg_type`` registers: i64 for f64
    D) join in phis."""
    bld = cx.builder
    whole = bld.icmp_signed("==", ballot64(cx, condition), ir.Constant(I64, -1))
    blocks = [cx.llfn.append_basic_block(name) for name in names]
    join = cx.llfn.append_basic_block("mma.join")
    bld.cbranch(whole, *blocks)
    ends: list[tuple[ir.Block, Registers]] = []
    for block, lowering in zip(blocks, (then, other), strict=True):
        bld.position_at_end(block)
        regs = [[cx.coerce(v, reg_type) for v in problem] for problem in lowering()]
        ends.append((bld.block, regs))
        bld.branch(join)
    bld.position_at_end(join)
    results: Registers = []
    for p, first in enumerate(ends[0][1]):
        results.append([])
        for index in range(len(first)):
            phi = bld.phi(reg_type)
            for block, regs in ends:
                phi.add_incoming(regs[p][index], block)
            results[p].append(phi)
    return results


def _marked(cx: FnContext, attr: str) -> bool:
    """Whether the mma being lowered has ``attr = mfma`` (``acc``: pass ``mma-mfma-layout``; ``aop``,
    ``bop``: pass ``ldmatrix-mfma-layout``): only whole-wave mmas, so both branches of ``gated`` have
    EXEC full."""
    marked = cx.op is not None and cx.op.attrs.get(attr) == "mfma"
    assert not marked or (cx.op is not None and cx.op.attrs.get("wave") == "whole" and stacked_layout(cx))
    return marked


def _stacked(cx: FnContext) -> bool:
    return _marked(cx, "acc")


def f16_gated(cx: FnContext, form: MmaForm, checked: list[Problem], mfma: Callable[[bool], Registers],
              exact: Callable[[], Registers]) -> Registers:
    """The f16 wmma MFMA path (``wmma_mfma``: no data movement to share) behind its gate: ``mfma(False)`` (f16
    MFMAs) when the whole wave is here and no lane holds a subnormal A/B element of ``checked``
    (``operands_normal``), ``mfma(True)`` (the same code on f32 MFMAs, ``mfma_widen``: CDNA3's f16
    MFMAs misalign a subnormal's products) when the whole wave is here with one, else ``exact()``.
    The static ``wave`` verdict drops what cannot run (``whole``: no exact path, so no exact code to
    compile; ``split``: exact only); otherwise one ballot of the normality test decides the common
    case and a second one, taken only with a subnormal or a partial wave, the rest."""
    wave = cx.op.attrs.get("wave") if cx.op is not None else None
    if wave == "split":
        return exact()
    normal = operands_normal(cx, form, checked)
    names = ("mma.f16", "mma.other")
    if wave == "whole":
        return wave_branch(cx, normal, lambda: mfma(False), lambda: mfma(True), names=names)
    return wave_branch(cx, normal, lambda: mfma(False),
                       lambda: wave_branch(cx, ir.Constant(I1, 1), lambda: mfma(True), exact), names=names)


def mma_dispatch(cx: FnContext, form: MmaForm, problems: list[Problem]) -> Registers:
    """D's registers of each problem: the MFMA path when the whole wave is here, else the exact path
    (module docstring). The problems share one branch (wmma's tiles: LLVM then shares their common
    operand moves)."""
    if not use_mfma(cx, form):
        assert not (cx.op is not None and stacked_layout(cx) and
                    any(cx.op.attrs.get(attr) == "mfma" for attr in ("acc", "aop", "bop"))), form
        return [mma_registers(cx, form, a, b, c) for a, b, c in problems]
    if mfma_form(form):  # f16 m16n8k16 -> f32: subnormal A/B elements take f32 MFMAs (mfma_registers)
        stacked = _stacked(cx)
        ops = (_marked(cx, "aop"), _marked(cx, "bop"))

        def fast() -> Registers:
            normal = operands_normal(cx, form, problems)
            return [mfma_registers(cx, form, a, b, c, stacked, ops, normal) for a, b, c in problems]
        return gated(cx, fast, lambda: [_exact_registers(cx, form, a, b, c, stacked, ops) for a, b, c in problems])
    # the other forms also need normal A/B elements in every lane (lower_mfma_forms.operands_normal)
    stacked = _stacked(cx)
    ops = (_marked(cx, "aop"), _marked(cx, "bop"))
    return gated(cx, lambda: [forms_registers(cx, form, a, b, c, stacked, ops) for a, b, c in problems],
                 lambda: [_exact_registers(cx, form, a, b, c, stacked, ops) for a, b, c in problems],
                 operands_normal(cx, form, problems), ir.IntType(form.acc_out.reg_bits))


def lower_mma(cx: FnContext, op: Op) -> None:
    """``mma`` (not wmma): checked operands (``lower_mma.mma_operands``), then ``mma_dispatch``."""
    form, a, b, c = mma_operands(cx, op)
    cx.define(op, *mma_dispatch(cx, form, [(a, b, c)])[0])
