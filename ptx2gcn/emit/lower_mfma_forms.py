"""The MFMA fast path of the ``mma`` forms beyond m16n8k16 ``.f32.f16.f16.f32``: code from the
compile-time plans of ``mfma_forms`` (which MFMA, which warp stacking, which dword goes where).

Invariant: ``plan_of(form, arch, mode)`` is the only way in: a form without a plan keeps the exact
path.
``forms_registers`` runs only on ``lower_mma_mfma.mma_dispatch``'s whole-wave branch (EXEC full:
MFMAs and full-wave ``ds_bpermute`` are defined) and returns D in the PTX fragment layout, so both
branches define the same registers. Per-lane work around the MFMAs:

- ``.f16`` C is widened exactly to the f32 accumulator layout (same element positions), ``.f16`` D
  is the f32 result rounded once to f16 (the reference model's extra f16 rounding);
- ``.tf32`` operands have their low 13 mantissa bits cleared before the MFMA (as on the exact path
  and on NVIDIA), so the result does not depend on how the xf32 MFMA treats them;
- integer forms start the MFMAs from zero, so the product sum ``s`` is exact (|s| < 2^21), and add the
  PTX C afterwards, wrapped or ``.satfinite`` (``lower_mma._finish``, as on the exact path);
- float D: a NaN becomes NVIDIA's canonical NaN (f32 0x7fffffff, f16 0x7fff); f64 D is the MFMA's
  FMA chain in PTX's k order (bit exact; the model accepts any NaN).
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.half_wave import lane64
from ptx2gcn.emit.llvm_types import DOUBLE, FLOAT, HALF, I32, I64
from ptx2gcn.emit.lower_mma import MmaForm, _finish, _pack
from ptx2gcn.emit.mfma_forms import SLOWER_THAN_EXACT, MfmaOp, Plan, Table, plan_for
from ptx2gcn.emit.wave_moves import WaveMover

_OPERAND: dict[str, ir.Type] = {"v4f16": ir.VectorType(HALF, 4), "v4i16": ir.VectorType(ir.IntType(16), 4),
                                "v2f32": ir.VectorType(FLOAT, 2), "i64": I64, "i32": I32, "f64": DOUBLE}
_ACC: dict[str, ir.Type] = {"f32": FLOAT, "i32": I32, "f64": DOUBLE}
_PART_MASK = {"lo": 0x7F7F7F7F, "hi": -0x7F7F7F80}
"""Bytes of an unsigned operand: ``x & 0x7f`` (lo) and ``x & 0x80`` (hi, read as s8: -128 or 0)."""
_TF32_MASK = -0x2000


def plan_of(form: MmaForm, arch: str, mode: str = "mfma") -> Plan | None:
    """The plan of ``form`` on ``arch`` under ``--mma mode``, or None (exact path). ``auto`` leaves out
    the forms whose MFMA path is slower (``mfma_forms.SLOWER_THAN_EXACT``)."""
    if (form.alayout, form.blayout) != ("row", "col") or form.volta or form.bitop or mode == "exact" or \
            (mode == "auto" and (form.shape, form.atype, form.btype) in SLOWER_THAN_EXACT):
        return None
    return plan_for(form.shape, form.atype, form.btype, arch)


_SUBNORMAL_KEY = {"f16": 0x10000 - 2 * 0x3FF, "bf16": 0x10000 - 2 * 0x7F}
"""16-bit types: the key ``-2 * bits mod 2^16`` of an element depends only on its magnitude m = bits &
0x7fff (2^16 - 2m, 0 for m = 0), and m is subnormal (0 < m <= 0x3ff for f16, 0x7f for bf16) iff the key
is at least this: one multiply per register and an unsigned maximum over all halves."""
_BIG_EXPONENT = 127 + 60
"""bf16/tf32 (f32's exponent range): a finite A or B element with |x| >= 2^60 (biased exponent >= this)
takes the exact path. The MFMA's f32 products of such elements can overflow to +-inf and meet one of
the other sign (NaN) where the exact sum -- the model's, and the exact path's f64 sum -- is finite or
one infinity; with every |x| < 2^60 no product reaches 2^120 and no K <= 16 sum 2^124, so nothing
overflows that the exact result would not. Infinite and NaN inputs keep the MFMA path (they give the
exact path's result)."""
_SUBNORMAL = 0x90
"""``llvm.is.fpclass`` mask: negative and positive subnormals."""


def operands_normal(cx: FnContext, form: MmaForm, problems: list[tuple[list[ir.Value], list[ir.Value], list[ir.Value]]]
                    ) -> ir.Value:
    """i1: no A or B element of this lane is subnormal, nor (bf16, tf32) finite and at least 2^60
    (``_BIG_EXPONENT``); always true for integer and f64 forms.

    CDNA3's f16/bf16/xf32 MFMAs align a group's products to the largest *nominal* product exponent,
    and a subnormal input counts with its format's smallest normal exponent (MMA-Sim's measured
    model, the emulator's ``mfma_arith``): a subnormal times a large value can then cost up to the
    subnormal's missing significand bits of every other product, beyond the reference model's
    ``(K+2) 2^-23`` bound. The whole-wave branch also requires this predicate in every lane, so such
    data take the exact path. 16-bit types: one packed and/subtract per register and an unsigned
    minimum over all halves; tf32: one class test per register."""
    bld = cx.builder
    if form.atype not in ("f16", "bf16", "tf32"):
        return ir.Constant(ir.IntType(1), 1)
    words: dict[int, ir.Value] = {}
    for a, b, _ in problems:
        for reg in (*a, *b):
            words.setdefault(id(reg), cx.coerce(reg, I32))
    if form.atype == "tf32":
        found: ir.Value = ir.Constant(ir.IntType(1), 0)
        for word in words.values():
            tf32 = bld.and_(word, cx.i32(_TF32_MASK))  # what the MFMA multiplies (low bits are not data)
            found = bld.or_(found, cx.call("llvm.is.fpclass.f32", ir.IntType(1),
                                           [bld.bitcast(tf32, FLOAT), cx.i32(_SUBNORMAL)]))
            big = bld.sub(bld.and_(tf32, cx.i32(0x7FFFFFFF)), cx.i32(_BIG_EXPONENT << 23))
            found = bld.or_(found, bld.icmp_unsigned("<", big, cx.i32((255 - _BIG_EXPONENT) << 23)))
        return bld.not_(found)
    count = 2 * len(words)
    halves = ir.VectorType(ir.IntType(16), count)
    pair = ir.VectorType(ir.IntType(16), 2)
    # -2 through an empty asm: LLVM would turn a constant multiplier into a shift and a negation
    minus_two = bld.bitcast(bld.call(ir.InlineAsm(ir.FunctionType(I32, [I32]), "", "=v,0"), [cx.i32(-0x10002)],
                                     attrs=("nounwind", "readnone")),
                            pair)
    keys: ir.Value = ir.Constant(ir.VectorType(I32, len(words)), None)
    vector: ir.Value = ir.Constant(ir.VectorType(I32, len(words)), None)
    for i, word in enumerate(words.values()):
        key = bld.mul(bld.bitcast(word, pair), minus_two)
        keys = bld.insert_element(keys, bld.bitcast(key, I32), cx.i32(i))
        vector = bld.insert_element(vector, bld.and_(word, cx.i32(0x7FFF7FFF)), cx.i32(i))
    largest = cx.call(f"llvm.vector.reduce.umax.v{count}i16", ir.IntType(16), [bld.bitcast(keys, halves)])
    normal = bld.icmp_unsigned("<", largest, ir.Constant(ir.IntType(16), _SUBNORMAL_KEY[form.atype]))
    if form.atype != "bf16":
        return normal
    # bf16 has f32's exponent range: no finite element with |x| >= 2^60 either (see _BIG_EXPONENT)
    low = ir.Constant(halves, [ir.Constant(ir.IntType(16), _BIG_EXPONENT << 7)] * count)
    above = cx.call(f"llvm.vector.reduce.umin.v{count}i16", ir.IntType(16),
                    [bld.sub(bld.bitcast(vector, halves), low)])
    return bld.and_(normal, bld.icmp_unsigned(">=", above, ir.Constant(ir.IntType(16), (255 - _BIG_EXPONENT) << 7)))


def _dwords(cx: FnContext, regs: list[ir.Value]) -> list[ir.Value]:
    """A fragment's registers (i32, f32, i64, f64) as a lane's dword stream."""
    bld = cx.builder
    out: list[ir.Value] = []
    for reg in regs:
        if reg.type in (I64, DOUBLE):
            wide = cx.coerce(reg, I64)
            out += [bld.trunc(wide, I32), bld.trunc(bld.lshr(wide, cx.i64(32)), I32)]
        else:
            out.append(cx.coerce(reg, I32))
    return out


def _f32_accumulator(cx: FnContext, form: MmaForm, c: list[ir.Value]) -> list[ir.Value]:
    """The PTX C as dwords of the f32/s32/f64 accumulator layout (an ``.f16`` C widened exactly)."""
    if form.ctype != "f16":
        return _dwords(cx, c)
    bld = cx.builder
    out = []
    for element in range(4):
        word = cx.coerce(c[element // 2], I32)
        half = bld.trunc(bld.lshr(word, cx.i32(16)) if element % 2 else word, ir.IntType(16))
        out.append(bld.bitcast(bld.fpext(bld.bitcast(half, HALF), FLOAT), I32))
    return out


def _operand(cx: FnContext, mover: WaveMover, op: MfmaOp, sources: dict[str, list[ir.Value]],
             tables: tuple[Table, ...], part: str) -> ir.Value:
    bld = cx.builder
    words = []
    for table in tables:
        word = mover.move(sources[table.source], table)
        if part != "all":
            word = bld.and_(word, cx.i32(_PART_MASK[part]))
        if op.operand == "v2f32":
            word = bld.and_(word, cx.i32(_TF32_MASK))
        words.append(word)
    if len(words) == 1:
        return bld.bitcast(words[0], _OPERAND[op.operand])
    vector: ir.Value = ir.Constant(ir.VectorType(I32, len(words)), None)
    for i, word in enumerate(words):
        vector = bld.insert_element(vector, word, cx.i32(i))
    return bld.bitcast(vector, _OPERAND[op.operand])


def _words_operand(cx: FnContext, op: MfmaOp, regs: list[ir.Value]) -> ir.Value:
    """An MFMA operand from registers that already hold its dwords."""
    vector: ir.Value = ir.Constant(ir.VectorType(I32, len(regs)), None)
    for i, reg in enumerate(regs):
        vector = cx.builder.insert_element(vector, cx.coerce(reg, I32), cx.i32(i))
    return cx.builder.bitcast(vector, _OPERAND[op.operand])


def _accumulator(cx: FnContext, op: MfmaOp, dwords: list[ir.Value]) -> ir.Value:
    bld = cx.builder
    element = _ACC[op.acc]
    vector: ir.Value = ir.Constant(ir.VectorType(element, 4), None)
    words = op.acc_words
    for i in range(4):
        if words == 2:
            wide = bld.or_(bld.zext(dwords[2 * i], I64), bld.shl(bld.zext(dwords[2 * i + 1], I64), cx.i64(32)))
            value = bld.bitcast(wide, DOUBLE)
        else:
            value = bld.bitcast(dwords[i], element)
        vector = bld.insert_element(vector, value, cx.i32(i))
    return vector


def _negate(cx: FnContext, op: MfmaOp, acc: ir.Value) -> ir.Value:
    bld = cx.builder
    if op.acc == "i32":
        return bld.sub(ir.Constant(acc.type, None), acc)
    return bld.fneg(acc)


def _result_dwords(cx: FnContext, op: MfmaOp, acc: ir.Value) -> list[ir.Value]:
    bld = cx.builder
    out: list[ir.Value] = []
    for i in range(4):
        element = bld.extract_element(acc, cx.i32(i))
        out += _dwords(cx, [element])
    return out


def stackable(form: MmaForm) -> bool:
    """Whether ``form``'s plan (if any) is the ``pair`` stacking with an f32 C and D, so that its C and D
    can stay in the stacked MFMA layout (pass ``mma-mfma-layout``: lane (c, q) element i holds
    ``C_{c >= 8}[rho(4q + i)][c % 8]``, the C every chain reads)."""
    return (form.ctype, form.dtype, form.alayout, form.blayout) == ("f32", "f32", "row", "col") and \
        (form.shape, form.atype, form.btype) in _STACKABLE


_STACKABLE = frozenset({("m16n8k16", "bf16", "bf16"), ("m16n8k8", "bf16", "bf16"), ("m16n8k8", "f16", "f16"),
                        ("m16n8k8", "tf32", "tf32"), ("m16n8k4", "tf32", "tf32")})
"""The ``pair`` plans with f32 accumulators besides m16n8k16 f16 (``lower_mma_mfma.mfma_form``); the pass's
list of stackable forms is the union of the two."""


def _stacked_result(cx: FnContext, form: MmaForm, finals: list[ir.Value]) -> list[ir.Value]:
    """The stacked D from the two chains' results (chain w's useful columns are the lanes c >= 8 iff
    w = 1), NaN canonical as ``_finish`` makes it."""
    bld = cx.builder
    upper = bld.icmp_unsigned(">=", bld.and_(lane64(cx), cx.i32(15)), cx.i32(8))
    return [_finish(cx, form, bld.bitcast(bld.select(upper, finals[4 + i], finals[i]), FLOAT), cx.i32(0))
            for i in range(4)]


def forms_registers(cx: FnContext, form: MmaForm, a: list[ir.Value], b: list[ir.Value], c: list[ir.Value],
                    stacked: bool = False, operands: tuple[bool, bool] = (False, False)) -> list[ir.Value]:
    """D's registers of ``form`` (it has a plan) through its MFMAs; EXEC must be full. ``stacked``
    (``stackable`` forms): C and D are in the stacked MFMA layout (``acc = mfma``); ``operands``
    (m16n8k16 ``.bf16`` only, whose plan moves A and B exactly as the ``.f16`` one): A and B already
    hold the MFMA operands (``aop``/``bop``, ``mfma_operands``): chain w's A is registers 2w, 2w + 1."""
    plan = plan_of(form, cx.mod.arch)
    assert plan is not None, form
    assert not stacked or (stackable(form) and len(plan.chains) == 2 and plan.c is not None), form
    assert operands == (False, False) or ((form.shape, form.atype, form.btype) == ("m16n8k16", "bf16", "bf16")
                                          and all(len(chain.steps) == 1 for chain in plan.chains)), form
    op = plan.op
    mover = WaveMover(cx)
    c_dwords = _f32_accumulator(cx, form, c)
    sources = {"a": _dwords(cx, a), "b": _dwords(cx, b), "c": c_dwords}
    zero = cx.i32(0)
    finals: list[ir.Value] = []
    for w, chain in enumerate(plan.chains):
        if plan.c is None:
            acc: ir.Value = ir.Constant(ir.VectorType(_ACC[op.acc], 4), None)
        elif stacked:
            acc = _accumulator(cx, op, c_dwords)
        else:
            acc = _accumulator(cx, op, [mover.move(sources["c"], table) for table in plan.c])
        for step in chain.steps:
            if step.negate:
                acc = _negate(cx, op, acc)
            a_op = _words_operand(cx, op, a[2 * w:2 * w + 2]) if operands[0] else \
                _operand(cx, mover, op, sources, step.a, step.a_part)
            b_op = _words_operand(cx, op, b) if operands[1] else _operand(cx, mover, op, sources, step.b, step.b_part)
            acc = cx.call(op.intrinsic, acc.type, [a_op, b_op, acc, zero, zero, zero], ["convergent"])
        if chain.negate:
            acc = _negate(cx, op, acc)
        finals += _result_dwords(cx, op, acc)
    if stacked:
        return _stacked_result(cx, form, finals)
    d_dwords = [mover.move(finals, table) for table in plan.d]
    return _finish_all(cx, form, op, d_dwords, c_dwords)


def _finish_all(cx: FnContext, form: MmaForm, op: MfmaOp, d_dwords: list[ir.Value], c_dwords: list[ir.Value]
                ) -> list[ir.Value]:
    """PTX D registers from the accumulator-layout dwords (module docstring)."""
    bld = cx.builder
    elements: list[ir.Value] = []
    if op.acc == "f64":
        for i in range(len(d_dwords) // 2):
            elements.append(bld.or_(bld.zext(d_dwords[2 * i], I64),
                                    bld.shl(bld.zext(d_dwords[2 * i + 1], I64), cx.i64(32))))
    elif op.acc == "i32":
        elements = [_finish(cx, form, s, c_element) for s, c_element in zip(d_dwords, c_dwords, strict=True)]
    else:
        elements = [_finish(cx, form, bld.bitcast(word, FLOAT), zero_unused) for word, zero_unused
                    in zip(d_dwords, c_dwords, strict=True)]
    return _pack(cx, elements, form.acc_out)
