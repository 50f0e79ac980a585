"""DPP lane permutations and SDWA sub-dword selects for VOP1/VOP2 (CDNA3 ISA §6.3 "DPP", §6.4 "SDWA").

Invariant: DPP reads every lane's ``src0`` *before* any lane is written (the permutation indexes a
snapshot), a source lane that does not exist or is disabled in EXEC reads 0 when ``bound_ctrl`` is
set and otherwise disables the write of that lane, and ``row_mask``/``bank_mask`` disable writes per
row of 16 / bank of 4 lanes. SDWA selects a byte/word of each 32-bit source (zero- or sign-extended)
and writes the result into the selected part of the destination, padding, sign-extending or
preserving the rest as ``dst_unused`` says.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

import numpy as np
import numpy.typing as npt

from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.semantics_common import (
    U16,
    U32,
    Handler,
    Vec,
    VecRead,
    packed16_reader,
    unsupported,
    vector_reader,
)
from ptx2gcn.runtime.emulator.wave import Wave

Compute = Callable[[Wave, Sequence[Vec]], Vec]
_LANES = np.arange(64)


def _quad_perm(ctrl: int) -> npt.NDArray[np.int64]:
    select = [(ctrl >> (2 * i)) & 3 for i in range(4)]
    return np.array([(lane & ~3) | select[lane & 3] for lane in range(64)])


def _row_shift(shift: int) -> npt.NDArray[np.int64]:
    """Source lane ``lane - shift`` within the same row of 16, -1 outside (row_shr positive)."""
    source = _LANES - shift
    same_row = (source >> 4) == (_LANES >> 4)
    return np.where(same_row & (source >= 0), source, -1)


@cache
def dpp_source_lanes(ctrl: int) -> npt.NDArray[np.int64]:
    """For each lane the lane its ``src0`` comes from, or -1 for an invalid source."""
    if ctrl <= 0x0FF:
        return _quad_perm(ctrl)
    if 0x101 <= ctrl <= 0x10F:
        return _row_shift(-(ctrl & 0xF))  # row_shl
    if 0x111 <= ctrl <= 0x11F:
        return _row_shift(ctrl & 0xF)  # row_shr
    if 0x121 <= ctrl <= 0x12F:
        n = ctrl & 0xF
        return (_LANES & ~15) | ((_LANES - n) & 15)  # row_ror
    wave = {0x130: _LANES + 1, 0x134: (_LANES + 1) % 64, 0x138: _LANES - 1, 0x13C: (_LANES - 1) % 64}
    if ctrl in wave:  # wave_shl1, wave_rol1, wave_shr1, wave_ror1
        source = wave[ctrl]
        return np.where((source >= 0) & (source < 64), source, -1)
    if ctrl == 0x140:
        return (_LANES & ~15) | (15 - (_LANES & 15))  # row_mirror
    if ctrl == 0x141:
        return (_LANES & ~7) | (7 - (_LANES & 7))  # row_half_mirror
    if ctrl == 0x142:  # row_bcast:15: lane 15 of each row feeds the next row
        return np.where((_LANES >> 4) > 0, ((_LANES >> 4) << 4) - 1, -1)
    if ctrl == 0x143:  # row_bcast:31: lane 31 feeds rows 2 and 3
        return np.where(_LANES >= 32, 31, -1)
    raise ValueError(f"reserved dpp_ctrl 0x{ctrl:x}")


def _write_enable(row_mask: int, bank_mask: int) -> npt.NDArray[np.bool_]:
    rows = (row_mask >> (_LANES >> 4)) & 1
    banks = (bank_mask >> ((_LANES >> 2) & 3)) & 1
    return (rows & banks).astype(bool)


DppSource = Callable[[Wave], tuple[Vec, npt.NDArray[np.bool_]]]


def dpp_source(inst: Instruction, first: VecRead) -> DppSource:
    """``w -> (permuted src0, lanes to write)`` for a DPP instruction (the lanes include EXEC)."""
    f = inst.fields
    try:
        source = dpp_source_lanes(f["dpp_ctrl"])
    except ValueError as exc:
        raise unsupported(inst, str(exc)) from None
    valid = source >= 0
    gather = np.where(valid, source, 0)
    enable = _write_enable(f["row_mask"], f["bank_mask"])
    bound_zero = bool(f["bound_ctrl"])

    def permuted(w: Wave) -> tuple[Vec, npt.NDArray[np.bool_]]:
        src = np.broadcast_to(first(w), (64,))
        ok = valid & w.exec_mask[gather]
        moved = src[gather]
        if bound_zero:
            return np.where(ok, moved, moved.dtype.type(0)), enable & w.exec_mask
        return moved, enable & ok & w.exec_mask

    return permuted


def dpp_wrap(inst: Instruction, readers: list[VecRead], compute: Compute, row: int, bits: int) -> Handler:
    if bits != 32:
        raise unsupported(inst, "DPP with a non-32-bit result")
    permuted = dpp_source(inst, readers[0])
    rest = readers[1:]

    def run(w: Wave) -> None:
        moved, lanes = permuted(w)
        result = compute(w, [moved, *(r(w) for r in rest)])
        np.copyto(w.v[row], result, where=lanes, casting="unsafe")

    return run


def sdwa_operand(inst: Instruction, code: int, f16: bool) -> VecRead:
    """An SDWA source as the 32-bit value its select works on. An inline constant (gfx9 SDWA takes
    SGPRs and constants) is materialised as 32 bits for the source's type: an f16 source gets the
    f16 pattern in the low half and 0 above (``operands.packed16_constant_bits``), any other the
    32-bit constant (integers sign-extended, f32 patterns)."""
    return packed16_reader(inst, code, True) if f16 else vector_reader(inst, code, 32)


def sdwa_source(inst: Instruction, index: int, f16: bool = False) -> VecRead:
    """Source ``index`` (0 or 1) of an SDWA instruction: the selected byte/word, zero/sign-extended
    (``f16``: the source is an f16 operand, see ``sdwa_operand``)."""
    f = inst.fields
    check_sdwa_selects(inst)
    read = sdwa_operand(inst, f[f"src{index}"], f16)
    sel, sext = f.get(f"src{index}_sel", 6), bool(f.get(f"src{index}_sext", 0))
    return lambda w: _select(read(w), sel, sext)


def sdwa_writer(inst: Instruction, row: int) -> Callable[[Wave, Vec], None]:
    """Writes a 32-bit result into the ``dst_sel`` part of VGPR ``row`` on active lanes."""
    check_sdwa_selects(inst)
    dst_sel, unused = inst.fields.get("dst_sel", 6), inst.fields.get("dst_unused", 0)

    def write(w: Wave, value: Vec) -> None:
        placed = _place(np.broadcast_to(np.asarray(value, dtype=U32), (64,)), w.v[row], dst_sel, unused)
        np.copyto(w.v[row], placed, where=w.exec_mask)

    return write


def check_sdwa_selects(inst: Instruction) -> None:
    """SDWA selects are 0..6 (BYTE_0..3, WORD_0/1, DWORD) and dst_unused 0..2; 7/3 are reserved."""
    f = inst.fields
    if any(f.get(name, 6) > 6 for name in ("src0_sel", "src1_sel", "dst_sel")) or f.get("dst_unused", 0) > 2:
        raise unsupported(inst, "reserved SDWA select or dst_unused value")


# -- SDWA ---------------------------------------------------------------------------------------
def _select(value: Vec, sel: int, sext: bool) -> Vec:
    """SDWA source select: BYTE_0..3 (0-3), WORD_0/1 (4/5), DWORD (6)."""
    value = np.asarray(value, dtype=U32)
    if sel == 6:
        return value
    shift, width = (8 * sel, 8) if sel < 4 else (16 * (sel - 4), 16)
    field = (value >> U32(shift)) & U32((1 << width) - 1)
    if sext:
        sign = U32(1 << (width - 1))
        field = (field ^ sign) - sign
    return field.astype(U32)


def _place(result: Vec, old: Vec, sel: int, unused: int) -> Vec:
    result = np.asarray(result, dtype=U32)
    if sel == 6:
        return result
    shift, width = (8 * sel, 8) if sel < 4 else (16 * (sel - 4), 16)
    field_mask = U32(((1 << width) - 1) << shift)
    placed = (result << U32(shift)) & field_mask
    if unused == 2:  # UNUSED_PRESERVE
        return (old & ~field_mask) | placed
    if unused == 1 and shift + width < 32:  # UNUSED_SEXT: sign-extend the field upwards
        sign = (result >> U32(width - 1)) & U32(1)
        high = U32((0xFFFFFFFF << (shift + width)) & 0xFFFFFFFF)
        return placed | np.where(sign != 0, high, U32(0))
    return placed


def sdwa_wrap(
    inst: Instruction,
    src_types: Sequence[tuple[int, bool]],
    compute: Compute,
    row: int,
    bits: int,
    modify: Callable[[int, Vec], Vec],
) -> Handler:
    """``src_types``: (bits, is_float) per source; ``modify(i, value)`` applies source i's abs/neg."""
    check_sdwa_selects(inst)
    f = inst.fields
    # a third source exists only for accumulating ops (v_mac_f16: the destination), read whole
    codes = [f["src0"], f.get("src1", 0), f.get("src2", 0)][: len(src_types)]
    readers = [
        sdwa_operand(inst, code, src_types[i] == (16, True)) for i, code in enumerate(codes)
    ]
    sels = [
        (f.get("src0_sel", 6), bool(f.get("src0_sext", 0))),
        (f.get("src1_sel", 6), bool(f.get("src1_sext", 0))),
        (6, False),
    ]
    dst_sel, unused = f.get("dst_sel", 6), f.get("dst_unused", 0)
    if bits == 64 or any(b == 64 for b, _ in src_types):
        raise unsupported(inst, "SDWA with 64-bit operands")
    narrow = {16: U16, 32: U32}

    def run(w: Wave) -> None:
        raws = []
        for i, (read, (sel, sext)) in enumerate(zip(readers, sels[: len(readers)], strict=True)):
            width = src_types[i][0]
            raws.append(modify(i, _select(read(w), sel, sext).astype(narrow[width])))
        result = np.asarray(compute(w, raws)).astype(U32)
        np.copyto(w.v[row], _place(result, w.v[row], dst_sel, unused), where=w.exec_mask)

    return run
