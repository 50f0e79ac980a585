"""VALU operations that read or write lane masks or cross lanes: carries, v_cndmask, 64-bit
multiply-add, readlane/writelane/readfirstlane, mbcnt, swap (the division helpers, which also write
a lane mask, are ``semantics_division``).

Invariant: carry-in/out, condition and scale-flag masks come from / go to VCC for e32 forms and
from the SGPR pair in ``src2`` / ``sdst`` for VOP3 forms; mask bits of inactive lanes are written
0. Lane-crossing reads (``v_readlane``) read the register regardless of EXEC, as the hardware does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.semantics_common import (
    I64,
    U32,
    U64,
    Builder,
    Handler,
    check_sgprs,
    lane_mask_reader,
    scalar_reader,
    scalar_writer,
    unsupported,
    vector_reader,
    vgpr_writer,
)
from ptx2gcn.runtime.emulator.semantics_dpp import dpp_source, sdwa_source, sdwa_writer
from ptx2gcn.runtime.emulator.semantics_valu import bits_modifier
from ptx2gcn.runtime.emulator.semantics_valu_int import popcount
from ptx2gcn.runtime.emulator.wave import MASK32, VCC_LO, Wave, bits_of

A = Any
_LANE = np.arange(64, dtype=np.uint64)


def _mask_in(inst: Instruction) -> Any:
    """Carry-in / condition mask: VCC for e32, the SGPR pair in src2 for VOP3."""
    code = inst.fields["src2"] if inst.encoding == "VOP3" else VCC_LO
    return lane_mask_reader(inst, code)


def _mask_out(inst: Instruction) -> int:
    code = inst.fields["sdst"] if inst.encoding == "VOP3" else VCC_LO
    check_sgprs(inst, code, 2)
    return code


def write_lane_mask(w: Wave, code: int, lanes: A) -> None:
    bits = bits_of(np.broadcast_to(lanes, (64,)) & w.exec_mask)
    if code == 125:
        return
    w.set_sreg64(code, bits)


def float_reader(inst: Instruction, index: int, bits: int) -> Any:
    f = inst.fields
    read = vector_reader(inst, f[f"src{index}"], bits, True)
    modifier = bits_modifier(bits, bool(f.get("abs", 0) >> index & 1), bool(f.get("neg", 0) >> index & 1))
    return read if modifier is None else (lambda w: modifier(read(w)))


# -- carries ---------------------------------------------------------------------------------------
def _sources(inst: Instruction) -> tuple[Any, Any, Any]:
    """(src0, src1, lanes-to-write or None) readers for e32/e64/DPP/SDWA forms of a 2-source op."""
    f = inst.fields
    if inst.form == "sdwa":
        if f.get("clamp", 0):
            raise unsupported(inst, "SDWA clamp on a carry/select op")
        return sdwa_source(inst, 0), sdwa_source(inst, 1), None
    a, b = vector_reader(inst, f["src0"]), vector_reader(inst, f["src1"])
    if inst.form != "dpp":
        return a, b, None
    permuted = dpp_source(inst, a)
    return (lambda w: permuted(w)[0]), b, (lambda w: permuted(w)[1])


def _masked_writer(inst: Instruction, row: int, lanes: Any) -> Any:
    """The destination writer: EXEC-masked, DPP-lane-masked, or SDWA-placed (dst_sel/dst_unused)."""
    if inst.form == "sdwa":
        return sdwa_writer(inst, row)
    plain = vgpr_writer(row)
    if lanes is None:
        return plain

    def write(w: Wave, value: Any) -> None:
        np.copyto(w.v[row], value, where=lanes(w), casting="unsafe")

    return write


def _bind_carry(inst: Instruction) -> Handler:
    name = inst.opcode
    f = inst.fields
    a, b, lanes = _sources(inst)
    write = _masked_writer(inst, f["vdst"], lanes)
    out = _mask_out(inst)
    uses_carry = name in ("v_addc_co_u32", "v_subb_co_u32", "v_subbrev_co_u32")
    carry_in = _mask_in(inst) if uses_carry else None
    subtract = "sub" in name
    reverse = "rev" in name

    def run(w: Wave) -> None:
        x, y = np.asarray(a(w), U64), np.asarray(b(w), U64)
        if reverse:
            x, y = y, x
        c = carry_in(w).astype(U64) if carry_in is not None else U64(0)
        if subtract:
            wide = x - y - c
            flag = y + c > x
        else:
            wide = x + y + c
            flag = wide > U64(MASK32)
        write(w, (wide & U64(MASK32)).astype(U32))
        write_lane_mask(w, out, flag)

    return run


def _bind_cndmask(inst: Instruction) -> Handler:
    f = inst.fields
    lanes = None
    if inst.form in ("dpp", "sdwa"):
        a, b, lanes = _sources(inst)
    else:
        a = (
            float_reader(inst, 0, 32)
            if f.get("abs", 0) or f.get("neg", 0)
            else vector_reader(inst, f["src0"])
        )
        b = (
            float_reader(inst, 1, 32)
            if f.get("abs", 0) or f.get("neg", 0)
            else vector_reader(inst, f["src1"])
        )
    cond = _mask_in(inst)
    write = _masked_writer(inst, f["vdst"], lanes)

    def run(w: Wave) -> None:
        write(w, np.where(cond(w), b(w), a(w)))

    return run


def _bind_mad64(inst: Instruction) -> Handler:
    f = inst.fields
    signed = inst.opcode == "v_mad_i64_i32"
    a, b = vector_reader(inst, f["src0"], 32), vector_reader(inst, f["src1"], 32)
    c = vector_reader(inst, f["src2"], 64, signed=signed)
    write = vgpr_writer(f["vdst"], 64)
    out = f["sdst"]
    check_sgprs(inst, out, 2)
    if f.get("clamp", 0):
        raise unsupported(inst, "clamp on a 64-bit multiply-add")

    def run(w: Wave) -> None:
        x, y, z = (np.broadcast_to(np.asarray(v), (64,)) for v in (a(w), b(w), c(w)))
        if signed:
            exact = [
                int(p) * int(q) + int(r)
                for p, q, r in zip(
                    x.view(np.int32).tolist(), y.view(np.int32).tolist(), z.astype(U64).view(I64).tolist()
                )
            ]
            overflow = np.array([not -(1 << 63) <= v < 1 << 63 for v in exact])
        else:
            exact = [int(p) * int(q) + int(r) for p, q, r in zip(x.tolist(), y.tolist(), z.tolist())]
            overflow = np.array([v >> 64 != 0 for v in exact])
        write(w, np.array([v & 0xFFFFFFFFFFFFFFFF for v in exact], dtype=U64))
        write_lane_mask(w, out, overflow)

    return run


# -- cross-lane ------------------------------------------------------------------------------------
def _bind_readlane(inst: Instruction) -> Handler:
    f = inst.fields
    row = f["src0"] - 256
    if row < 0:
        raise unsupported(inst, "v_readlane_b32 source must be a VGPR")
    lane = scalar_reader(inst, f["src1"])
    write = scalar_writer(inst, f["vdst"])
    return lambda w: write(w, int(w.v[row, lane(w) & 63]))


def _bind_readfirstlane(inst: Instruction) -> Handler:
    f = inst.fields
    read = vector_reader(inst, f["src0"])
    write = scalar_writer(inst, f["vdst"])

    def run(w: Wave) -> None:
        active = np.flatnonzero(w.exec_mask)
        lane = int(active[0]) if active.size else 0
        write(w, int(np.broadcast_to(read(w), (64,))[lane]))

    return run


def _bind_writelane(inst: Instruction) -> Handler:
    f = inst.fields
    value = scalar_reader(inst, f["src0"])
    lane = scalar_reader(inst, f["src1"])
    row = f["vdst"]

    def run(w: Wave) -> None:
        w.v[row, lane(w) & 63] = value(w)

    return run


def _bind_mbcnt(inst: Instruction) -> Handler:
    f = inst.fields
    mask = vector_reader(inst, f["src0"])
    add = vector_reader(inst, f["src1"])
    write = vgpr_writer(f["vdst"])
    high = inst.opcode == "v_mbcnt_hi_u32_b32"
    lanes = np.arange(64)
    # Bits of the 32-bit mask below this lane: lo half for lanes 0..31, hi half for lanes 32..63.
    below = np.where(high, np.clip(lanes - 32, 0, 32), np.clip(lanes, 0, 32))
    thread_masks = ((np.uint64(1) << below.astype(np.uint64)) - np.uint64(1)).astype(U32)

    def run(w: Wave) -> None:
        write(w, popcount(np.asarray(mask(w), U32) & thread_masks) + add(w))

    return run


def _bind_swap(inst: Instruction) -> Handler:
    f = inst.fields
    a, b = f["vdst"], f["src0"] - 256
    if b < 0:
        raise unsupported(inst, "v_swap_b32 source must be a VGPR")

    def run(w: Wave) -> None:
        old_a, old_b = w.v[a].copy(), w.v[b].copy()
        np.copyto(w.v[a], old_b, where=w.exec_mask)
        np.copyto(w.v[b], old_a, where=w.exec_mask)

    return run


def _bind_accvgpr(inst: Instruction) -> Handler:
    """AGPR n is row 256 + n of the register file, i.e. vector operand code 512 + n."""
    f = inst.fields
    name = inst.opcode
    source = f["src0"]
    if name == "v_accvgpr_write_b32":
        read, dst = vector_reader(inst, source), 256 + f["vdst"]
    elif source >= 256:  # read / mov: the source is an AGPR
        read, dst = vector_reader(inst, source + 256), f["vdst"] + (256 if name == "v_accvgpr_mov_b32" else 0)
    else:
        raise unsupported(inst, "AGPR source expected")
    write = vgpr_writer(dst)
    return lambda w: write(w, read(w))


def _nop(inst: Instruction) -> Handler:
    return lambda w: None


BUILDERS: dict[str, Builder] = {
    **{
        n: _bind_carry
        for n in (
            "v_add_co_u32",
            "v_sub_co_u32",
            "v_subrev_co_u32",
            "v_addc_co_u32",
            "v_subb_co_u32",
            "v_subbrev_co_u32",
        )
    },
    "v_cndmask_b32": _bind_cndmask,
    "v_mad_u64_u32": _bind_mad64,
    "v_mad_i64_i32": _bind_mad64,
    "v_readlane_b32": _bind_readlane,
    "v_readfirstlane_b32": _bind_readfirstlane,
    "v_writelane_b32": _bind_writelane,
    "v_mbcnt_lo_u32_b32": _bind_mbcnt,
    "v_mbcnt_hi_u32_b32": _bind_mbcnt,
    "v_swap_b32": _bind_swap,
    "v_nop": _nop,
    "v_clrexcp": _nop,
    "v_accvgpr_read_b32": _bind_accvgpr,
    "v_accvgpr_write_b32": _bind_accvgpr,
    "v_accvgpr_mov_b32": _bind_accvgpr,
}
