"""Disassembly of gfx942 scalar instructions (SOP1, SOP2, SOPC, SOPK, SOPP, SMEM) as LLVM 22 spells them.

Invariant: each printer is a pure function of the decoded ``Instruction``; symbolic operands
(``hwreg``, ``sendmsg``, ``s_waitcnt`` counters, ``gpr_idx``) follow LLVM's names, raw numbers where
LLVM prints them raw.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.disasm_operands import (
    LITERAL_AS_VALUE,
    dst_dwords,
    operand_text,
    scalar_text,
    src_types,
    value_literal_text,
)
from ptx2gcn.runtime.emulator.operands import FLOAT_INLINE_TEXT, LITERAL_CODE

_HWREG_NAMES = {1: "HW_REG_MODE", 2: "HW_REG_STATUS", 3: "HW_REG_TRAPSTS", 4: "HW_REG_HW_ID",
                5: "HW_REG_GPR_ALLOC", 6: "HW_REG_LDS_ALLOC", 7: "HW_REG_IB_STS", 15: "HW_REG_SH_MEM_BASES",
                16: "HW_REG_TBA_LO", 17: "HW_REG_TBA_HI", 18: "HW_REG_TMA_LO", 19: "HW_REG_TMA_HI",
                20: "HW_REG_XCC_ID", 21: "HW_REG_SQ_PERF_SNAPSHOT_DATA",
                22: "HW_REG_SQ_PERF_SNAPSHOT_DATA1", 23: "HW_REG_SQ_PERF_SNAPSHOT_PC_LO",
                24: "HW_REG_SQ_PERF_SNAPSHOT_PC_HI"}


def hwreg_text(simm16: int) -> str:
    """``hwreg(HW_REG_MODE)``, ``hwreg(HW_REG_MODE, 4, 4)`` (id [5:0], offset [10:6], size-1 [15:11])."""
    ident, offset, size = simm16 & 0x3F, (simm16 >> 6) & 0x1F, ((simm16 >> 11) & 0x1F) + 1
    name = _HWREG_NAMES.get(ident, str(ident))
    return f"hwreg({name})" if offset == 0 and size == 32 else f"hwreg({name}, {offset}, {size})"


# LLVM types these 64-bit sources as 32-bit immediates when printing 1/(2*pi).
_SHORT_INV2PI = frozenset({"s_rfe_b64", "s_movrels_b64", "s_setpc_b64"})
def _scalar_sources(inst: Instruction, names: tuple[str, ...]) -> list[str]:
    types = src_types(inst)
    if inst.opcode in LITERAL_AS_VALUE and inst.fields[names[0]] == LITERAL_CODE:
        return [value_literal_text(inst.literal or 0)]
    if inst.opcode in _SHORT_INV2PI and inst.fields[names[0]] == 248:
        return [FLOAT_INLINE_TEXT[248]]
    return [operand_text(inst.fields[name], types[i] if i < len(types) else None, inst.literal)
            for i, name in enumerate(names)]


_SOP_NO_DST = frozenset({"s_setpc_b64", "s_rfe_b64", "s_cbranch_join", "s_set_gpr_idx_idx",
                         "s_cbranch_g_fork", "s_rfe_restore_b64"})


def _sop(inst: Instruction, names: tuple[str, ...]) -> str:
    parts = [] if inst.opcode in _SOP_NO_DST else [scalar_text(inst.fields["sdst"], dst_dwords(inst))]
    if inst.opcode != "s_getpc_b64":
        parts += _scalar_sources(inst, names)
    return f"{inst.opcode} {', '.join(parts)}"


def _sop1(inst: Instruction) -> str:
    return _sop(inst, ("ssrc0",))


def _sop2(inst: Instruction) -> str:
    return _sop(inst, ("ssrc0", "ssrc1"))


_GPR_IDX_BITS = ("SRC0", "SRC1", "SRC2", "DST")


def gpr_idx_text(mask: int) -> str:
    return "gpr_idx(" + ",".join(name for bit, name in enumerate(_GPR_IDX_BITS) if mask >> bit & 1) + ")"


def _sopc(inst: Instruction) -> str:
    if inst.opcode == "s_set_gpr_idx_on":
        source, mask = _scalar_sources(inst, ("ssrc0",))[0], inst.fields["ssrc1"]
        return f"{inst.opcode} {source}, {gpr_idx_text(mask) if mask <= 0xF else f'0x{mask:x}'}"
    return f"{inst.opcode} {', '.join(_scalar_sources(inst, ('ssrc0', 'ssrc1')))}"


def _sopk(inst: Instruction) -> str:
    simm, name = inst.fields["simm16"], inst.opcode
    sdst = scalar_text(inst.fields["sdst"], dst_dwords(inst))
    if name == "s_getreg_b32":
        return f"{name} {sdst}, {hwreg_text(simm)}"
    if name == "s_setreg_b32":
        return f"{name} {hwreg_text(simm)}, {sdst}"
    if name == "s_setreg_imm32_b32":
        return f"{name} {hwreg_text(simm)}, {value_literal_text(inst.literal or 0)}"
    if name in ("s_call_b64", "s_cbranch_i_fork"):
        return f"{name} {scalar_text(inst.fields['sdst'], 2)}, {simm}"
    return f"{name} {sdst}, 0x{simm:x}"


_SOPP_NO_OPERAND = frozenset({"s_wakeup", "s_barrier", "s_icache_inv", "s_ttracedata", "s_endpgm_saved",
                              "s_set_gpr_idx_off", "s_endpgm_ordered_ps_done"})
_SENDMSG_NAMES = {1: "MSG_INTERRUPT", 2: "MSG_GS", 3: "MSG_GS_DONE", 4: "MSG_SAVEWAVE",
                  5: "MSG_STALL_WAVE_GEN", 6: "MSG_HALT_WAVES", 7: "MSG_ORDERED_PS_DONE",
                  8: "MSG_EARLY_PRIM_DEALLOC", 9: "MSG_GS_ALLOC_REQ", 10: "MSG_GET_DOORBELL",
                  15: "MSG_SYSMSG"}


def imm_text(value: int) -> str:
    """LLVM's spelling of a plain immediate field: decimal in the inline-constant range, else hex."""
    return str(value) if -16 <= value <= 64 else f"0x{value:x}"


def waitcnt_text(simm16: int) -> str:
    """``vmcnt(N) expcnt(N) lgkmcnt(N)``; counters at their maximum are omitted (all: print all)."""
    vm = (simm16 & 0xF) | ((simm16 >> 10) & 0x30)
    exp, lgkm = (simm16 >> 4) & 0x7, (simm16 >> 8) & 0xF
    parts = [(f"vmcnt({vm})", vm != 63), (f"expcnt({exp})", exp != 7), (f"lgkmcnt({lgkm})", lgkm != 15)]
    shown = [text for text, keep in parts if keep]
    return " ".join(shown) if shown else " ".join(text for text, _ in parts)


_GS_OPS = ("GS_OP_NOP", "GS_OP_CUT", "GS_OP_EMIT", "GS_OP_EMIT_CUT")
_SYSMSG_OPS = {1: "SYSMSG_OP_ECC_ERR_INTERRUPT", 2: "SYSMSG_OP_REG_RD", 3: "SYSMSG_OP_HOST_TRAP_ACK",
               4: "SYSMSG_OP_TTRACE_PC"}


def sendmsg_text(simm16: int) -> str:
    """``sendmsg(MSG_NAME[, OP[, stream]])`` when the message is valid on gfx9, else
    ``sendmsg(id, op, stream)`` when the fields say everything, else the decimal value
    (id [3:0], op [6:4], stream [9:8])."""
    ident, op, stream = simm16 & 0xF, (simm16 >> 4) & 0x7, (simm16 >> 8) & 0x3
    name = _SENDMSG_NAMES.get(ident)
    if name in ("MSG_GS", "MSG_GS_DONE") and op < 4 and (op > 0 or name == "MSG_GS_DONE"):
        if op == 0:
            return f"sendmsg({name}, {_GS_OPS[op]})" if stream == 0 else _raw_sendmsg(simm16)
        return f"sendmsg({name}, {_GS_OPS[op]}, {stream})"
    if name == "MSG_SYSMSG" and op in _SYSMSG_OPS and stream == 0:
        return f"sendmsg({name}, {_SYSMSG_OPS[op]})"
    if name is not None and name not in ("MSG_GS", "MSG_GS_DONE", "MSG_SYSMSG") and op == 0 and stream == 0:
        return f"sendmsg({name})"
    return _raw_sendmsg(simm16)


def _raw_sendmsg(simm16: int) -> str:
    ident, op, stream = simm16 & 0xF, (simm16 >> 4) & 0x7, (simm16 >> 8) & 0x3
    return f"sendmsg({ident}, {op}, {stream})" if simm16 >> 10 == 0 and not simm16 >> 7 & 1 else str(simm16)


def _sopp(inst: Instruction) -> str:
    simm, name = inst.fields["simm16"], inst.opcode
    if name in _SOPP_NO_OPERAND or (name == "s_endpgm" and simm == 0):
        return name
    if name == "s_waitcnt":
        return f"{name} {waitcnt_text(simm)}"
    if name in ("s_sendmsg", "s_sendmsghalt"):
        return f"{name} {sendmsg_text(simm)}"
    if name == "s_set_gpr_idx_mode":
        return f"{name} {gpr_idx_text(simm) if simm <= 0xF else f'0x{simm:x}'}"
    if "branch" in name or name == "s_endpgm":
        return f"{name} {simm}"  # LLVM prints the raw (unsigned) branch offset field
    return f"{name} {imm_text(simm)}"


_SMEM_NO_OPERANDS = frozenset({"s_dcache_inv", "s_dcache_wb", "s_dcache_inv_vol", "s_dcache_wb_vol"})


def _smem_offset(f: Mapping[str, int]) -> str:
    """imm=1: the signed 21-bit offset (plus ``soffset`` when soe=1); imm=0: an SGPR offset."""
    if f["imm"]:
        immediate = f"0x{f['offset']:x}" if f["offset"] >= 0 else f"-0x{-f['offset']:x}"
        return f"{scalar_text(f['soffset'])} offset:{immediate}" if f["soe"] else immediate
    return scalar_text(f["soffset"] if f["soe"] else f["offset"] & 0x7F)


def _smem(inst: Instruction) -> str:
    f, name = inst.fields, inst.opcode
    if name in _SMEM_NO_OPERANDS:
        return name
    if name in ("s_memtime", "s_memrealtime"):
        return f"{name} {scalar_text(f['sdata'], 2)}"
    operands = [scalar_text(f["sbase"] * 2, 4 if "buffer" in name else 2), _smem_offset(f)]
    if name.startswith("s_atc_probe"):
        operands.insert(0, imm_text(f["sdata"]))
    elif not name.startswith("s_dcache"):
        data = src_types(inst)[0] if src_types(inst) else inst.info.dst if inst.info else None
        operands.insert(0, scalar_text(f["sdata"], data.dwords if data is not None else 1))
    glc = " glc" if f["glc"] and not name.startswith(("s_dcache", "s_atc")) else ""
    return f"{name} {', '.join(operands)}{glc}"


PRINTERS: dict[str, Callable[[Instruction], str]] = {
    "SOP1": _sop1,
    "SOP2": _sop2,
    "SOPC": _sopc,
    "SOPK": _sopk,
    "SOPP": _sopp,
    "SMEM": _smem,
}
