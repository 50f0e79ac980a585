"""SOPK semantics: 16-bit-immediate scalar ops, s_call_b64, and the hardware registers
(``s_getreg_b32`` / ``s_setreg_b32`` / ``s_setreg_imm32_b32``; only MODE is writable).

Invariant: the 16-bit immediate is sign-extended where the ISA says ``signext(SIMM16)`` (movk, addk,
mulk, signed cmpk) and zero-extended for the unsigned compares; a ``hwreg(id, offset, size)`` operand
reads/writes bits ``offset .. offset+size-1`` of register ``id``; MODE writes go through
``Mode.set_raw`` so the cached fast-path flags stay right.
"""

from __future__ import annotations

from collections.abc import Callable

from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.memory import PRIVATE_APERTURE_BASE, SHARED_APERTURE_BASE
from ptx2gcn.runtime.emulator.semantics_common import (
    Builder,
    Handler,
    scalar_reader,
    scalar_writer,
    unsupported,
)
from ptx2gcn.runtime.emulator.semantics_salu import SOPC, add_i32, sext
from ptx2gcn.runtime.emulator.wave import MASK32, Wave

_SOPK_CMP = {"eq": "eq", "lg": "lg", "gt": "gt", "ge": "ge", "lt": "lt", "le": "le"}


def _bind_sopk(inst: Instruction) -> Handler:
    f = inst.fields
    name = inst.opcode
    imm = f["simm16"]
    simm = sext(imm, 16)
    sdst = f["sdst"]
    if name.startswith("s_cmpk_"):
        kind, sign = name.split("_")[2], name[-3:]
        cmp = SOPC[f"s_cmp_{kind}_{sign}"]
        k = simm & MASK32 if sign == "i32" else imm
        read = scalar_reader(inst, sdst)

        def cmpk(w: Wave) -> None:
            w.scc = int(cmp(read(w), k))

        return cmpk
    write = scalar_writer(inst, sdst)
    if name == "s_movk_i32":
        return lambda w: write(w, simm)
    read = scalar_reader(inst, sdst)
    if name == "s_cmovk_i32":
        return lambda w: write(w, simm) if w.scc else None
    if name == "s_addk_i32":

        def addk(w: Wave) -> None:
            d, overflow = add_i32(read(w), simm & MASK32)
            write(w, d)
            w.scc = int(overflow or 0)

        return addk
    if name == "s_mulk_i32":
        return lambda w: write(w, read(w) * simm)
    if name == "s_call_b64":
        write64 = scalar_writer(inst, sdst, 64)

        def call(w: Wave) -> None:
            write64(w, w.pc)
            w.pc = w.pc + simm * 4

        return call
    raise unsupported(inst, "no semantics")


# Hardware registers (SIDefines.h ID_* for gfx9): readable ids -> value function; MODE is writable.
HW_REG_MODE = 1
_HW_READ: dict[int, Callable[[Wave], int]] = {
    1: lambda w: w.mode.raw,
    # STATUS: SCC (0), EXECZ (9), VCCZ (10), IN_TG (11), VALID (16)
    2: lambda w: w.scc | int(w.exec == 0) << 9 | int(w.vcc == 0) << 10 | 1 << 11 | 1 << 16,
    3: lambda w: w.trap_status,  # TRAPSTS
    # HW_ID: wave id in bits 3:0, the work-group's SE/SH/CU in bits 15:8 (SIMD etc. read as 0)
    4: lambda w: w.index & 0xF | w.group.placement.hw_id_cu << 8,
    5: lambda w: 0,  # GPR_ALLOC
    6: lambda w: 0,  # LDS_ALLOC
    7: lambda w: 0,  # IB_STS
    # SH_MEM_BASES: private aperture base[63:48] in 15:0, shared aperture base[63:48] in 31:16
    15: lambda w: (PRIVATE_APERTURE_BASE >> 48) | (SHARED_APERTURE_BASE >> 48) << 16,
    20: lambda w: w.group.placement.xcc,  # XCC_ID (gfx940+): the work-group's die
}


def _hwreg(simm16: int) -> tuple[int, int, int]:
    """(id, offset, size) of a hwreg(...) operand."""
    return simm16 & 0x3F, simm16 >> 6 & 0x1F, (simm16 >> 11 & 0x1F) + 1


def _bind_getreg(inst: Instruction) -> Handler:
    reg, offset, size = _hwreg(inst.fields["simm16"])
    read = _HW_READ.get(reg)
    if read is None:
        raise unsupported(inst, f"hardware register {reg} is not modelled")
    write = scalar_writer(inst, inst.fields["sdst"])
    mask = (1 << size) - 1
    return lambda w: write(w, read(w) >> offset & mask)


def _bind_setreg(inst: Instruction) -> Handler:
    reg, offset, size = _hwreg(inst.fields["simm16"])
    if reg != HW_REG_MODE:
        raise unsupported(inst, f"writing hardware register {reg} is not modelled (only MODE)")
    if inst.opcode == "s_setreg_imm32_b32":
        literal = inst.literal or 0

        def value(w: Wave) -> int:
            return literal
    else:  # s_setreg_b32: the SDST field names the *source* SGPR
        value = scalar_reader(inst, inst.fields["sdst"])
    field = ((1 << size) - 1) << offset

    def setreg(w: Wave) -> None:
        raw = w.mode.raw
        w.mode.set_raw((raw & ~field) | (value(w) << offset & field))

    return setreg


def builders() -> dict[str, Builder]:
    table: dict[str, Builder] = {}
    for name in (
        "s_movk_i32",
        "s_cmovk_i32",
        "s_addk_i32",
        "s_mulk_i32",
        "s_call_b64",
        *(f"s_cmpk_{k}_{t}" for k in _SOPK_CMP for t in ("i32", "u32")),
    ):
        table[name] = _bind_sopk
    table["s_getreg_b32"] = _bind_getreg
    table["s_setreg_b32"] = _bind_setreg
    table["s_setreg_imm32_b32"] = _bind_setreg
    return table
