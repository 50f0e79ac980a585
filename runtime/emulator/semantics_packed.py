"""Packed math (VOP3P): ``v_pk_*`` on two 16-bit halves (or two f32 lanes of a 64-bit pair), plus
``v_fma_mix*`` and the dot products LLVM emits.

Invariant: for each result half, source *i* supplies its high half when ``op_sel[i]`` (low result) /
``op_sel_hi[i]`` (high result) is set, else its low half; ``neg_lo``/``neg_hi`` negate float
halves. An inline constant is first a 32-bit value (``operands.packed16_constant_bits``: f16 ops
take the f16 pattern in the low half and 0 above, integer ops the f32 pattern, integer codes
sign-extended), from which op_sel/op_sel_hi pick halves as from a register; a ``v_fma_mix`` source
gets the f16 form when used as f16 (op_sel_hi) and the f32 constant otherwise (docs/emulator-operands.md).
Both halves are computed from values read before the write. Integer packed ops wrap.
Float results follow a directed MODE rounding (f16: FP_ROUND[3:2], f32: FP_ROUND[1:0]) through
``semantics_rounding``; an op it cannot round (the dot product) faults instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.errors import WaveFault
from ptx2gcn.runtime.emulator.operands import inline_constant_bits, is_inline_constant
from ptx2gcn.runtime.emulator.semantics_common import (
    F16,
    F32,
    I16,
    U16,
    U32,
    U64,
    Builder,
    Handler,
    packed16_reader,
    unsupported,
    vector_reader,
    vgpr_writer,
)
from ptx2gcn.runtime.emulator.semantics_fp import _round_to_odd_sum, fma, ieee_min_max
from ptx2gcn.runtime.emulator.semantics_rounding import (
    ROUND_NAMES,
    Directed,
    directed_evaluator,
    round_directed,
    rounding_free,
)
from ptx2gcn.runtime.emulator.wave import Wave

A = Any
_M4 = U16(15)


def _half(raw: A, high: bool) -> A:
    raw = np.asarray(raw, dtype=U32)
    return ((raw >> U32(16)) if high else raw).astype(U16)


PK16: dict[str, tuple[Any, str, int]] = {
    "v_pk_add_f16": (np.add, "f16", 2),
    "v_pk_mul_f16": (np.multiply, "f16", 2),
    "v_pk_fma_f16": (fma, "f16", 3),
    "v_pk_min_f16": (lambda a, b: ieee_min_max(a, b, True, True), "f16", 2),
    "v_pk_max_f16": (lambda a, b: ieee_min_max(a, b, True, False), "f16", 2),
    "v_pk_add_u16": (np.add, "u16", 2),
    "v_pk_sub_u16": (np.subtract, "u16", 2),
    "v_pk_add_i16": (np.add, "i16", 2),
    "v_pk_sub_i16": (np.subtract, "i16", 2),
    "v_pk_mul_lo_u16": (np.multiply, "u16", 2),
    "v_pk_mad_u16": (lambda a, b, c: a * b + c, "u16", 3),
    "v_pk_mad_i16": (lambda a, b, c: a * b + c, "i16", 3),
    "v_pk_max_i16": (np.maximum, "i16", 2),
    "v_pk_min_i16": (np.minimum, "i16", 2),
    "v_pk_max_u16": (np.maximum, "u16", 2),
    "v_pk_min_u16": (np.minimum, "u16", 2),
    "v_pk_lshlrev_b16": (lambda a, b: b << (a & _M4), "u16", 2),
    "v_pk_lshrrev_b16": (lambda a, b: b >> (a & _M4), "u16", 2),
    "v_pk_ashrrev_i16": (lambda a, b: b >> (a.view(U16) & _M4).astype(I16), "i16", 2),
    "v_pk_fmac_f16": (fma, "f16", 3),
}
_DTYPES = {"f16": F16, "u16": U16, "i16": I16}


def _bind_pk16(inst: Instruction) -> Handler:
    fn, type_name, count = PK16[inst.opcode]
    dtype = _DTYPES[type_name]
    f = dict(inst.fields)
    if inst.opcode == "v_pk_fmac_f16":  # VOP2: D = S0 * S1 + D on both halves
        f["src2"] = 256 + f["vdst"]
    readers = [packed16_reader(inst, f[f"src{i}"], type_name == "f16") for i in range(count)]
    op_sel, op_sel_hi = f.get("op_sel", 0), f.get("op_sel_hi", 7)
    neg_lo, neg_hi = f.get("neg", 0), f.get("neg_hi", 0)
    is_float = type_name == "f16"
    if not is_float and (neg_lo or neg_hi):
        raise unsupported(inst, "neg on integer packed sources")
    write = vgpr_writer(f["vdst"])
    clamp = f.get("clamp", 0)
    if clamp:
        raise unsupported(inst, "clamp on packed math")

    def halves(raws: list[A], select: int, negate: int) -> list[A]:
        out = []
        for i, raw in enumerate(raws):
            half = _half(raw, bool(select >> i & 1))
            if is_float and negate >> i & 1:
                half = half ^ U16(0x8000)
            out.append(half.view(dtype))
        return out

    directed = _directed_or_none(inst) if is_float else None

    def compute(w: Wave, args: list[A]) -> A:
        mode = w.mode.round_16_64 if is_float else 0
        if mode:
            return _require(inst, directed, mode)(args, dtype, mode)
        return np.asarray(fn(*args)).astype(dtype)

    def run(w: Wave) -> None:
        raws = [r(w) for r in readers]
        low = compute(w, halves(raws, op_sel, neg_lo)).view(U16)
        high = compute(w, halves(raws, op_sel_hi, neg_hi)).view(U16)
        write(w, low.astype(U32) | (high.astype(U32) << U32(16)))

    return run


_ZERO_CODE = 128
"""Inline constant 0."""


def _pk32_reader(inst: Instruction, index: int, op_sel: int, op_sel_hi: int) -> Any:
    """Source ``index`` of a packed-f32 op as 64-bit lanes. An inline constant is a 32-bit value
    (f32 bits for float codes) in the low dword: LLVM folds one only with op_sel/op_sel_hi picking
    the low dword for that source (``v_pk_add_f32 v[2:3], v[2:3], 1.0 op_sel_hi:[1,0]``); what the
    high dword of a constant holds is not documented, so selecting it is refused, not guessed; but
    for the constant 0 (code 128) every reading (zero-extended, repeated, a 64-bit 0) gives 0, so
    ``v_pk_add_f32 v[6:7], v[6:7], 0 neg_lo:[1,1] neg_hi:[1,1]`` (clang's negation of a pair) runs."""
    code = inst.fields[f"src{index}"]
    if not is_inline_constant(code):
        return vector_reader(inst, code, 64, True)
    if (op_sel | op_sel_hi) >> index & 1 and code != _ZERO_CODE:
        raise unsupported(inst, f"src{index}: an inline constant's high dword is selected (undocumented)")
    value = inline_constant_bits(code, 32, True)
    return lambda w: value


def _bind_pk32(inst: Instruction) -> Handler:
    """v_pk_fma/mul/add_f32, v_pk_mov_b32 on 64-bit register pairs (lane halves are f32)."""
    name = inst.opcode
    f = inst.fields
    count = 3 if name == "v_pk_fma_f32" else 2
    op_sel, op_sel_hi = f.get("op_sel", 0), f.get("op_sel_hi", 7)
    selects_hi = 0 if name == "v_pk_mov_b32" else op_sel_hi  # v_pk_mov_b32 has no op_sel_hi
    readers = [_pk32_reader(inst, i, op_sel, selects_hi) for i in range(count)]
    neg_lo, neg_hi = f.get("neg", 0), f.get("neg_hi", 0)
    fns = {
        "v_pk_fma_f32": fma,
        "v_pk_mul_f32": np.multiply,
        "v_pk_add_f32": np.add,
        "v_pk_mov_b32": lambda a, b: (a, b),
    }
    fn = fns[name]
    write = vgpr_writer(f["vdst"], 64)
    directed = _directed_or_none(inst)

    def part(raw: A, high: bool, negate: bool) -> A:
        raw = np.asarray(raw, dtype=U64)
        word = ((raw >> U64(32)) if high else raw & U64(0xFFFFFFFF)).astype(U32)
        return (word ^ U32(0x80000000) if negate else word).view(F32)

    def run(w: Wave) -> None:
        raws = [r(w) for r in readers]
        lo_args = [part(r, bool(op_sel >> i & 1), bool(neg_lo >> i & 1)) for i, r in enumerate(raws)]
        hi_args = [part(r, bool(op_sel_hi >> i & 1), bool(neg_hi >> i & 1)) for i, r in enumerate(raws)]
        mode = w.mode.round_32
        if name == "v_pk_mov_b32":  # D.lo = S0 dword op_sel[0], D.hi = S1 dword op_sel[1] (no op_sel_hi)
            lo = part(raws[0], bool(op_sel & 1), False)
            hi = part(raws[1], bool(op_sel >> 1 & 1), False)
        elif mode:
            lo, hi = (_require(inst, directed, mode)(args, F32, mode) for args in (lo_args, hi_args))
        else:
            lo, hi = fn(*lo_args), fn(*hi_args)
        lo_bits = np.asarray(lo, dtype=F32).view(U32).astype(U64)
        hi_bits = np.asarray(hi, dtype=F32).view(U32).astype(U64)
        write(w, lo_bits | (hi_bits << U64(32)))

    return run


def _bind_dot2_f32_f16(inst: Instruction) -> Handler:
    f = inst.fields
    a, b = (packed16_reader(inst, f[f"src{i}"], True) for i in range(2))
    c = vector_reader(inst, f["src2"], 32, True)
    write = vgpr_writer(f["vdst"])
    if f.get("neg", 0) or f.get("neg_hi", 0) or f.get("op_sel", 0) or f.get("clamp", 0):
        raise unsupported(inst, "modifiers on v_dot2_f32_f16")

    def run(w: Wave) -> None:
        if w.mode.round_32:
            _require(inst, None, w.mode.round_32)
        x, y = np.asarray(a(w), U32), np.asarray(b(w), U32)
        lo = _half(x, False).view(F16).astype(F32) * _half(y, False).view(F16).astype(F32)
        hi = _half(x, True).view(F16).astype(F32) * _half(y, True).view(F16).astype(F32)
        total = (
            np.asarray(c(w), U32).view(F32).astype(np.float64) + lo.astype(np.float64) + hi.astype(np.float64)
        )
        write(w, total.astype(F32).view(U32))

    return run


def _bind_fma_mix(inst: Instruction) -> Handler:
    """v_fma_mix_f32 / v_fma_mixlo_f16 / v_fma_mixhi_f16: each source is f32, or (op_sel_hi[i]) the f16
    half op_sel[i] picks; neg_lo negates and neg_hi takes the absolute value of source i."""
    f = inst.fields
    op_sel, op_sel_hi = f.get("op_sel", 0), f.get("op_sel_hi", 0)
    # a constant is generated for the use of its source: f16 (op_sel_hi) or f32
    readers = [
        packed16_reader(inst, f[f"src{i}"], True) if op_sel_hi >> i & 1 else vector_reader(inst, f[f"src{i}"], 32, True)
        for i in range(3)
    ]
    neg, absolute = f.get("neg", 0), f.get("neg_hi", 0)
    name = inst.opcode
    write = vgpr_writer(f["vdst"])
    if f.get("clamp", 0):
        raise unsupported(inst, "clamp on v_fma_mix")

    def source(i: int, raw: A) -> A:
        raw = np.asarray(raw, dtype=U32)
        if op_sel_hi >> i & 1:
            value = _half(raw, bool(op_sel >> i & 1)).view(F16).astype(np.float64)
        else:
            value = raw.view(F32).astype(np.float64)
        if absolute >> i & 1:
            value = np.abs(value)
        return -value if neg >> i & 1 else value

    def run(w: Wave) -> None:
        a, b, c = (source(i, r(w)) for i, r in enumerate(readers))
        odd = _round_to_odd_sum(a * b, c)  # products of f32/f16 values are exact in float64
        if name == "v_fma_mix_f32":
            write(w, round_directed(odd, F32, w.mode.round_32).view(U32))
            return
        half = round_directed(odd, F16, w.mode.round_16_64).view(U16).astype(U32)
        old = np.broadcast_to(w.v[f["vdst"]], (64,))
        merged = (
            (old & U32(0xFFFF0000)) | half
            if name == "v_fma_mixlo_f16"
            else (old & U32(0xFFFF)) | half << U32(16)
        )
        write(w, merged)

    return run


def _directed_or_none(inst: Instruction) -> Directed | None:
    """The directed-rounding evaluator of a packed float op (None: refused); the rounding-free ones
    (v_pk_min/max_f16) keep their ordinary function."""
    if inst.opcode in PK16 and rounding_free(inst.opcode):
        fn = PK16[inst.opcode][0]

        def exact(args: Sequence[A], dtype: Any, mode: int) -> A:
            return np.asarray(fn(*args)).astype(dtype)

        return exact
    return directed_evaluator(inst.opcode)


def _require(inst: Instruction, directed: Directed | None, mode: int) -> Directed:
    """``directed`` for MODE rounding ``mode`` (not 0), or a ``WaveFault`` when the op cannot round so."""
    if directed is None:
        raise WaveFault(
            f"{inst.opcode}: MODE rounding {ROUND_NAMES[mode]} is not implemented for this instruction "
            "(only round to nearest even)"
        )
    return directed


BUILDERS: dict[str, Builder] = {
    "v_fma_mix_f32": _bind_fma_mix,
    "v_fma_mixlo_f16": _bind_fma_mix,
    "v_fma_mixhi_f16": _bind_fma_mix,
    **{name: _bind_pk16 for name in PK16},
    **{name: _bind_pk32 for name in ("v_pk_fma_f32", "v_pk_mul_f32", "v_pk_add_f32", "v_pk_mov_b32")},
    "v_dot2_f32_f16": _bind_dot2_f32_f16,
}
