"""The VALU instruction builder: sources, input modifiers, DPP/SDWA, output modifiers, EXEC-masked write.

Invariant: a VALU opcode is described once by a ``VOp`` (a numpy function over *typed* lanes and the
operand types), and ``bind_vop`` turns any encoded form of it (e32, e64/VOP3, DPP, SDWA) into one
handler. Every source is read, modified and (for DPP) permuted *before* anything is written, so an
instruction whose destination is also a source reads pre-instruction values. Float inputs get
abs/neg on their bits (exact for NaN/denormals); results get omod then clamp. Denormal flushing
follows MODE (``FLOAT_DENORM_MODE``: 3 keeps denormals, the LLVM default). Only active lanes (and
for DPP only lanes enabled by row/bank masks and a valid source) are written. Directed rounding
modes are honoured for the operations ``semantics_rounding`` can round exactly and refused
(``WaveFault``) for the others.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.errors import WaveFault
from ptx2gcn.runtime.emulator.opcodes_types import DType
from ptx2gcn.runtime.emulator.semantics_common import (
    F16,
    F32,
    F64,
    I16,
    I32,
    I64,
    U16,
    U32,
    U64,
    ConstantReader,
    Handler,
    Vec,
    VecRead,
    check_vgprs,
    constant_bits,
    packed16_reader,
    unsupported,
    vector_reader,
    vgpr_writer,
)
from ptx2gcn.runtime.emulator.semantics_rounding import ROUND_NAMES, directed_evaluator, rounding_free
from ptx2gcn.runtime.emulator.wave import Wave

#: type name -> (bits, float?, signed?, numpy dtype of the value)
TYPES: dict[str, tuple[int, bool, bool, Any]] = {
    "u16": (16, False, False, U16),
    "i16": (16, False, True, I16),
    "f16": (16, True, False, F16),
    "u32": (32, False, False, U32),
    "i32": (32, False, True, I32),
    "f32": (32, True, False, F32),
    "u64": (64, False, False, U64),
    "i64": (64, False, True, I64),
    "f64": (64, True, False, F64),
}
_UNSIGNED = {16: U16, 32: U32, 64: U64}
_SIGN = {16: 0x8000, 32: 0x80000000, 64: 0x8000000000000000}
_EXP_MASK = {16: 0x7C00, 32: 0x7F800000, 64: 0x7FF0000000000000}
#: 16-bit ops that keep the destination's high half on gfx9 (LLVM GCNSubtarget::zeroesHigh16BitsOfDest).
PRESERVES_HIGH16 = frozenset({"v_mac_f16", "v_madak_f16", "v_madmk_f16", "v_fmac_f16"})


@dataclass(frozen=True, slots=True)
class VOp:
    """A VALU operation: ``fn(*typed sources) -> typed result`` (``wave`` passed when ``needs_wave``)."""

    fn: Callable[..., Any]
    dst: str
    srcs: tuple[str, ...]
    needs_wave: bool = False
    float_mods: bool = True


def typed(raw: Vec, type_name: str) -> Vec:
    """Unsigned lane bits viewed as ``type_name``."""
    return raw.view(TYPES[type_name][3])


def to_bits(value: Any, type_name: str) -> Vec:
    bits, _, _, dtype = TYPES[type_name]
    return np.asarray(value).astype(dtype, copy=False).view(_UNSIGNED[bits])


def flush_denormals(raw: Vec, bits: int) -> Vec:
    """Denormal inputs/outputs become signed zero (FLOAT_DENORM_MODE 0..2)."""
    dtype = _UNSIGNED[bits]
    denormal = (raw & dtype(_EXP_MASK[bits])) == 0
    return np.where(denormal, raw & dtype(_SIGN[bits]), raw).astype(dtype)


def bits_modifier(bits: int, abs_: bool, neg: bool) -> Callable[[Vec], Vec] | None:
    """abs/neg of float lanes done on their bits (so NaN payloads and denormals stay exact)."""
    if not abs_ and not neg:
        return None
    dtype = _UNSIGNED[bits]
    sign = dtype(_SIGN[bits])
    if abs_ and neg:
        return lambda x: x | sign
    if abs_:
        keep = dtype(~_SIGN[bits] & ((1 << bits) - 1))
        return lambda x: x & keep
    return lambda x: x ^ sign


def _modify(read: VecRead, bits: int, abs_: bool, neg: bool) -> VecRead:
    modifier = bits_modifier(bits, abs_, neg)
    if modifier is None:
        return read
    return lambda w: modifier(read(w))


def _source_codes(inst: Instruction, count: int) -> list[int]:
    f = inst.fields
    names = ("src0", "src1", "src2")
    return [f[names[i]] for i in range(count)]


def _readers(inst: Instruction, op: VOp) -> list[VecRead]:
    f = inst.fields
    abs_bits, neg_bits = f.get("abs", 0), f.get("neg", 0)
    op_sel = f.get("op_sel", 0)
    if inst.form == "dpp" or inst.form == "sdwa":
        abs_bits = f.get("src0_abs", 0) | f.get("src1_abs", 0) << 1
        neg_bits = f.get("src0_neg", 0) | f.get("src1_neg", 0) << 1
    declared = inst.info.srcs if inst.info is not None else ()
    readers = []
    for i, (code, type_name) in enumerate(zip(_source_codes(inst, len(op.srcs)), op.srcs)):
        bits, is_float, signed, _ = TYPES[type_name]
        high = bool(op_sel >> i & 1) and bits == 16
        if high and constant_bits(inst, code, bits, is_float, signed) is not None:
            # op_sel on a 16-bit VOP3 source picks the register's high half; what it picks from a
            # constant is undocumented (LLVM never sets it there), so it is refused, not guessed
            raise unsupported(inst, f"op_sel selects the high half of constant source {i}")
        if i < len(declared) and declared[i] is DType.V2F16:  # v_dot2c_f32_f16: packed f16 halves
            read = packed16_reader(inst, code, True)
        else:
            read = vector_reader(inst, code, bits, is_float, signed, high=high)
        if is_float and op.float_mods:
            read = _modify(read, bits, bool(abs_bits >> i & 1), bool(neg_bits >> i & 1))
        elif abs_bits >> i & 1 or neg_bits >> i & 1:
            raise unsupported(inst, f"abs/neg modifier on integer source {i}")
        readers.append(read)
    return readers


def _output_modifier(inst: Instruction, op: VOp) -> Callable[[Wave, Vec], Vec] | None:
    f = inst.fields
    omod, clamp = f.get("omod", 0), f.get("clamp", 0)
    bits, is_float, signed, dtype = TYPES[op.dst]
    if not omod and not clamp:
        return None
    scale = {0: None, 1: 2.0, 2: 4.0, 3: 0.5}[omod]

    def apply(w: Wave, value: Vec) -> Vec:
        if scale is not None:
            value = (value * dtype(scale)).astype(dtype)
        if clamp and is_float:
            nan_to = dtype(0) if w.mode.dx10_clamp else value
            value = np.where(np.isnan(value), nan_to, np.clip(value, dtype(0), dtype(1))).astype(dtype)
        return value

    if not is_float and omod:
        raise unsupported(inst, "omod on an integer result")
    if not is_float:
        return None  # integer clamp is folded into the operation (``_saturating``)
    return apply


_SATURATING_PREFIXES = ("v_add_", "v_sub_", "v_subrev_", "v_mad_u", "v_mad_i")


def _saturating(inst: Instruction, op: VOp) -> VOp:
    """Integer ``clamp``: evaluate in int64 (no wrap-around) and saturate to the result type's range."""
    bits, is_float, signed, _ = TYPES[op.dst]
    if not inst.opcode.startswith(_SATURATING_PREFIXES) or bits == 64 or op.needs_wave:
        raise unsupported(inst, "integer clamp on this instruction")
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    fn = op.fn

    def saturated(*args: Vec) -> Vec:
        return np.clip(fn(*(np.asarray(a).astype(np.int64) for a in args)), low, high)

    return VOp(saturated, op.dst, op.srcs, float_mods=op.float_mods)


def _mode_denorm(w: Wave, bits: int) -> int:
    return w.mode.denorm_32 if bits == 32 else w.mode.denorm_16_64


def bind_vop(inst: Instruction, op: VOp, dst_row: int | None = None) -> Handler:  # noqa: C901
    """Bind ``op`` for ``inst``: read sources, compute, write ``vdst`` (or ``dst_row``) on active lanes."""
    from ptx2gcn.runtime.emulator.semantics_dpp import dpp_wrap

    readers = _readers(inst, op)
    out_bits, out_float, _, _ = TYPES[op.dst]
    row = inst.fields["vdst"] if dst_row is None else dst_row
    check_vgprs(inst, row, 2 if out_bits == 64 else 1)
    write = vgpr_writer(
        row,
        out_bits,
        high=bool(inst.fields.get("op_sel", 0) >> 3 & 1) and out_bits == 16,
        preserve=inst.opcode in PRESERVES_HIGH16,
    )
    post = _output_modifier(inst, op)
    if inst.fields.get("clamp", 0) and not out_float:
        op = _saturating(inst, op)
    fn, dst, src_types, needs_wave = op.fn, op.dst, op.srcs, op.needs_wave
    float_bits = [TYPES[t][0] if TYPES[t][1] else 0 for t in src_types]
    check_denorm = any(float_bits) or out_float

    directed = None if rounding_free(inst.opcode) else directed_evaluator(inst.opcode)
    refuses_directed = directed is None and not rounding_free(inst.opcode)

    def compute(w: Wave, raws: Sequence[Vec]) -> Vec:
        if check_denorm and (w.mode.denorm_32 != 3 or w.mode.denorm_16_64 != 3):
            raws = [
                flush_denormals(r, b) if b and _mode_denorm(w, b) in (0, 2) else r
                for r, b in zip(raws, float_bits)
            ]
        args = [r.view(TYPES[t][3]) for r, t in zip(raws, src_types)]
        rounding = (w.mode.round_32 if out_bits == 32 else w.mode.round_16_64) if out_float else 0
        if rounding and directed is not None:
            result = directed(args, TYPES[dst][3], rounding)
        elif rounding and refuses_directed:
            raise WaveFault(
                f"{inst.opcode}: MODE rounding {ROUND_NAMES[rounding]} is not implemented "
                "for this instruction (only round to nearest even)"
            )
        else:
            result = fn(w, *args) if needs_wave else fn(*args)
        if post is not None:
            result = post(w, result)
        bits = to_bits(result, dst)
        if out_float and _mode_denorm(w, out_bits) in (0, 1):
            bits = flush_denormals(bits, out_bits)
        return bits

    if inst.form == "dpp":
        return dpp_wrap(inst, readers, compute, row, out_bits)
    if inst.form == "sdwa":
        return _bind_sdwa(inst, op, compute, row, out_bits)
    if post is None and not needs_wave and len(readers) in (1, 2, 3):
        return _fast_handler(readers, op, write, compute, check_denorm)

    def run(w: Wave) -> None:
        write(w, compute(w, [r(w) for r in readers]))

    return run


def _typed(read: VecRead, src_bits: int, dtype: Any) -> VecRead:
    """``read`` viewed as ``dtype`` (no view when it already is; constants converted once)."""
    if isinstance(read, ConstantReader):
        value = read.constant.view(dtype)
        return lambda w: value
    if dtype is _UNSIGNED[src_bits]:
        return read
    return lambda w: read(w).view(dtype)


def _fast_handler(  # noqa: C901
    readers: list[VecRead],
    op: VOp,
    write: Callable[[Wave, Vec], None],
    compute: Callable[[Wave, Sequence[Vec]], Vec],
    check_denorm: bool,
) -> Handler:
    """The common case without output modifiers: a few numpy calls, the generic ``compute`` only when
    MODE is not the default (denormal flushing or directed rounding)."""
    fn = op.fn
    typed_readers = [_typed(r, TYPES[t][0], TYPES[t][3]) for r, t in zip(readers, op.srcs)]
    out_type = TYPES[op.dst][3]
    out_bits = _UNSIGNED[TYPES[op.dst][0]]
    if out_type is out_bits:

        def finish(result: Vec) -> Vec:
            return result.astype(out_bits, copy=False)
    else:

        def finish(result: Vec) -> Vec:
            return result.astype(out_type, copy=False).view(out_bits)

    if len(readers) == 1:
        (r0,), (t0,) = readers, typed_readers

        def run1(w: Wave) -> None:
            if check_denorm and not w.mode.is_default:
                write(w, compute(w, (r0(w),)))
            else:
                write(w, finish(fn(t0(w))))

        return run1
    if len(readers) == 2:
        (r0, r1), (t0, t1) = readers, typed_readers

        def run2(w: Wave) -> None:
            if check_denorm and not w.mode.is_default:
                write(w, compute(w, (r0(w), r1(w))))
            else:
                write(w, finish(fn(t0(w), t1(w))))

        return run2
    (r0, r1, r2), (t0, t1, t2) = readers, typed_readers

    def run3(w: Wave) -> None:
        if check_denorm and not w.mode.is_default:
            write(w, compute(w, (r0(w), r1(w), r2(w))))
        else:
            write(w, finish(fn(t0(w), t1(w), t2(w))))

    return run3


def _bind_sdwa(
    inst: Instruction, op: VOp, compute: Callable[[Wave, Sequence[Vec]], Vec], row: int, out_bits: int
) -> Handler:
    from ptx2gcn.runtime.emulator.semantics_dpp import sdwa_wrap

    f = inst.fields
    types = [(TYPES[t][0], TYPES[t][1]) for t in op.srcs]
    modifiers = [
        bits_modifier(bits, bool(f.get(f"src{i}_abs", 0)), bool(f.get(f"src{i}_neg", 0)))
        if is_float
        else None
        for i, (bits, is_float) in enumerate(types)
    ]

    def modify(i: int, value: Vec) -> Vec:
        modifier = modifiers[i]
        return value if modifier is None else modifier(value)

    return sdwa_wrap(inst, types, compute, row, out_bits, modify)
