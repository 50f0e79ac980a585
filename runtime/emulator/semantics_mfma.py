"""Semantics of the dense gfx942 MFMA instructions (``v_mfma_*``): operands, modifiers, EXEC, stats.

Invariant: a bound MFMA reads A, B and C completely before it writes D, so any overlap of D with
its sources gives the architectural result; it writes all 64 lanes of every D register.  Operand
rules (CDNA3 ISA, LLVM's VOP3P-MAI operand classes): A and B are VGPR or AGPR tuples (``acc`` bits
0 and 1 select AGPRs), C is a VGPR/AGPR tuple (``acc_cd``) or an inline constant (all elements),
D goes to the VGPRs or AGPRs ``acc_cd`` selects.  ``cbsz``/``abid`` broadcast A blocks, ``blgp``
swizzles B lanes (f64: negates A, B, C), each only on the forms the ISA's MFMA table gives them;
other uses, a D that partially overlaps C (LLVM's ``NoDstOverlap`` constraint for tuples over 4
registers) and execution with EXEC not all ones (undocumented on hardware, so no kernel may depend
on it) are faults.  MODE's f32 (f64) denormal control is honoured by the hardware (LLVM: "FP32
denorm mode is respected") but not modelled: an MFMA run with flushing enabled faults as
unsupported.  Every executed MFMA adds 1 to its wave's ``mfma_instructions`` and
``4 * passes`` to ``mfma_busy_cycles``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from ptx2gcn.runtime.emulator import mfma_arith
from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.errors import WaveFault
from ptx2gcn.runtime.emulator.mai_state import state_of
from ptx2gcn.runtime.emulator.mfma_shapes import (
    PASSES,
    MfmaShape,
    blgp_lanes,
    broadcast_blocks,
    input_layout,
    output_layout,
    shape,
)
from ptx2gcn.runtime.emulator.operands import inline_constant_bits, is_inline_constant
from ptx2gcn.runtime.emulator.semantics_common import Builder, Handler, check_vgprs, unsupported
from ptx2gcn.runtime.emulator.semantics_fp8 import BF8, FP8, decode_table
from ptx2gcn.runtime.emulator.wave import Wave

U8, U16, U32, U64 = np.uint8, np.uint16, np.uint32, np.uint64
F64 = np.float64
Values = npt.NDArray[Any]
_PER_LANE_VIEW = {8: U8, 16: U16, 32: U32, 64: U64}


def _elements(kind: str, raw: Values) -> Values:
    """Input element bits (any unsigned width) -> float64 values (int64 for i8)."""
    if kind == "i8":
        return raw.astype(U8).view(np.int8).astype(np.int64)
    if kind in ("fp8", "bf8"):
        return decode_table(FP8 if kind == "fp8" else BF8)[raw].view(np.float32).astype(F64)
    if kind == "f16":
        return raw.astype(U16).view(np.float16).astype(F64)
    if kind == "bf16":
        return (raw.astype(U32) << 16).view(np.float32).astype(F64)
    if kind == "xf32":
        return (raw.astype(U32) & 0xFFFFE000).view(np.float32).astype(F64)  # truncated to tf32
    if kind == "f32":
        return raw.astype(U32).view(np.float32).astype(F64)
    return raw.astype(U64).view(F64)


def _lane_elements(rows: Values, bits: int) -> Values:
    """[dwords, 64] register rows -> [64, elements] per-lane elements, low bits first."""
    return np.ascontiguousarray(rows.T).view(_PER_LANE_VIEW[bits])


def _source_row(inst: Instruction, index: int, dwords: int) -> int:
    code = inst.fields[f"src{index}"]
    if code < 256:
        raise unsupported(inst, f"src{index} must be a VGPR or AGPR tuple (A and B of an MFMA)")
    row = code - 256 + (256 if inst.fields.get("acc", 0) >> index & 1 else 0)
    check_vgprs(inst, row, dwords)
    return row


def _c_reader(inst: Instruction, s: MfmaShape) -> Callable[[Wave], Values]:
    """[blocks, M, N] C values (float64, or int64 for i32) from registers or an inline constant."""
    code = inst.fields["src2"]
    regs, lanes = output_layout(s.name)
    if code >= 256:
        row = code - 256 + (256 if inst.fields.get("acc_cd") else 0)
        check_vgprs(inst, row, s.out_dwords)
        end = row + s.out_dwords
        bits = 64 if s.out == "f64" else 32

        def read(w: Wave) -> Values:
            return _c_values(s, _lane_elements(w.v[row:end], bits)[lanes, regs])

        return read
    if not is_inline_constant(code):
        raise unsupported(inst, "C must be a VGPR/AGPR tuple or an inline constant")
    bits = 64 if s.out == "f64" else 32
    value = inline_constant_bits(code, bits, s.out != "i32")
    constant = _c_values(s, np.full(regs.shape, value, dtype=U64 if bits == 64 else U32))
    return lambda w: constant


def _c_values(s: MfmaShape, raw: Values) -> Values:
    if s.out == "i32":
        return raw.view(np.int32).astype(np.int64)
    if s.out == "f64":
        return raw.view(F64)
    return raw.view(np.float32).astype(F64)


def _compute(s: MfmaShape, a: Values, b: Values, c: Values) -> Values:
    """D bits per [blocks, M, N] element (u32, or u64 for f64)."""
    if s.out == "i32":
        return mfma_arith.int_dot(a, b, c)
    if s.out == "f64":
        return mfma_arith.f64_chain(a, b, c).view(U64)
    if s.kind_a == "f32":
        return mfma_arith.f32_chain(a, b, c).view(U32)
    group = {"xf32": 4, "fp8": 16, "bf8": 16}.get(s.kind_a, min(8, s.k))
    return mfma_arith.fused_dot(a, b, c, s.kind_a, s.kind_b, group).view(U32)


def _check_modifiers(inst: Instruction, s: MfmaShape) -> None:
    f = inst.fields
    cbsz, abid, blgp = f.get("cbsz", 0), f.get("abid", 0), f.get("blgp", 0)
    if (cbsz or abid) and not s.has_cbsz_abid:
        raise unsupported(inst, "cbsz/abid are not defined for this MFMA (CDNA3 ISA MFMA table)")
    if cbsz > s.max_cbsz or abid >= 1 << cbsz:
        raise unsupported(inst, f"cbsz:{cbsz} abid:{abid} out of range (cbsz <= {s.max_cbsz}, "
                                "abid < 2^cbsz)")
    if blgp and not s.has_blgp:
        raise unsupported(inst, "blgp is not defined for this MFMA (CDNA3 ISA MFMA table)")


def _partial_overlap(a: int, a_count: int, b: int, b_count: int) -> bool:
    return a < b + b_count and b < a + a_count and (a, a_count) != (b, b_count)


def _fault(message: str) -> Handler:
    def run(w: Wave) -> None:
        raise WaveFault(message)

    return run


def _mode_fault(s: MfmaShape, w: Wave) -> str | None:
    if s.out == "i32":
        return None
    flushing = w.mode.denorm_16_64 != 3 if s.out == "f64" else w.mode.denorm_32 != 3
    if not flushing:
        return None
    return (f"unsupported: {s.name} with {'f64' if s.out == 'f64' else 'f32'} denormal flushing in "
            "MODE (the matrix core honours it; the emulator does not model it)")


def bind_mfma(inst: Instruction) -> Handler:
    s = shape(inst.opcode)
    _check_modifiers(inst, s)
    f = inst.fields
    row_a, row_b = _source_row(inst, 0, s.in_dwords), _source_row(inst, 1, s.in_dwords)
    read_c = _c_reader(inst, s)
    row_d = f["vdst"] + (256 if f.get("acc_cd") else 0)
    check_vgprs(inst, row_d, s.out_dwords)
    if f["src2"] >= 256 and s.out_dwords > 4:
        row_c = f["src2"] - 256 + (256 if f.get("acc_cd") else 0)
        if _partial_overlap(row_c, s.out_dwords, row_d, s.out_dwords):
            return _fault(f"{inst.opcode}: D partially overlaps C (undefined on hardware: D and C of "
                          "more than 4 registers must be identical or disjoint)")
    lanes, elems = input_layout(s.name)
    out_regs, out_lanes = output_layout(s.name)
    negate = f.get("blgp", 0) if s.out == "f64" else 0
    b_lanes = blgp_lanes(0 if s.out == "f64" else f.get("blgp", 0))
    a_blocks = broadcast_blocks(s.blocks, f.get("cbsz", 0), f.get("abid", 0))
    end_a, end_b, end_d = row_a + s.in_dwords, row_b + s.in_dwords, row_d + s.out_dwords
    out_bits = 64 if s.out == "f64" else 32

    def run(w: Wave) -> None:
        if not w.exec_full:
            raise WaveFault(f"{s.name} executed with EXEC = 0x{w.exec:016x}: an MFMA with inactive "
                            "lanes is undefined on CDNA3; run it with EXEC all ones (whole-wave mode)")
        problem = _mode_fault(s, w)
        if problem:
            raise WaveFault(problem)
        a_lane = _elements(s.kind_a, _lane_elements(w.v[row_a:end_a], s.in_bits))
        b_lane = _elements(s.kind_b, _lane_elements(w.v[row_b:end_b], s.in_bits))[b_lanes]
        a = a_lane[lanes, elems][a_blocks]
        b = np.swapaxes(b_lane[lanes, elems], 1, 2)
        c = read_c(w)
        if negate:
            a, b, c = (-x if negate >> bit & 1 else x for bit, x in enumerate((a, b, c)))
        d = _compute(s, a, b, c)
        out = np.empty((64, s.out_dwords * 32 // out_bits), dtype=U64 if out_bits == 64 else U32)
        out[out_lanes, out_regs] = d
        w.v[row_d:end_d] = out.view(U32).T
        state = state_of(w)
        state.mfma_instructions += 1
        state.mfma_busy_cycles += s.busy_cycles

    return run


def builders() -> dict[str, Builder]:
    return dict.fromkeys(PASSES, bind_mfma)
