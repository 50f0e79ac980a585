"""Disassembly text of decoded gfx942 instructions, spelled as LLVM 22 (llvm-mc, llvm-objdump) spells it.

Invariant: ``disassemble(inst)`` is a pure function of the decoded ``Instruction`` (never of the raw
bytes again) and returns exactly LLVM's canonical instruction text: mnemonic with its form suffix
(``_e32``, ``_e64``, ``_dpp``, ``_sdwa``), a single space, operands separated by ``", "``, then the
modifiers separated by single spaces.  LLVM pads the mnemonic and modifiers with extra spaces in
some places; ``normalise_whitespace`` folds runs of blanks so texts compare equal (documented
difference: whitespace only).  ``objdump_line`` adds the ``// ADDR: WORDS`` comment of llvm-objdump.

Operand spelling rules live in ``operand_text`` (registers, inline constants, literals); per-encoding
layouts live in the ``_PRINTERS`` table; modifiers (DPP, SDWA, VOP3/VOP3P, memory) in small
helpers.  Where a field has no printable meaning LLVM prints a raw number, and so do we.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.opcodes import NO_VOP3_FORM, DType, native_form
from ptx2gcn.runtime.emulator.operands import (FLOAT_INLINE_TEXT, LITERAL_CODE, SPECIAL_CODE, VGPR_BASE,
                                               inline_constant_bits)

_PAIR_NAMES = {102: "flat_scratch", 104: "xnack_mask", 106: "vcc", 126: "exec"}
_SPECIAL_NAMES = {code: reg.value for reg, code in SPECIAL_CODE.items()}
_F64_INV_2PI = "0.15915494309189532"


def normalise_whitespace(text: str) -> str:
    """Collapse runs of blanks to one space and strip the ends (LLVM pads some modifiers)."""
    return " ".join(text.split())


def register_range(prefix: str, first: int, dwords: int) -> str:
    """``v7``, ``v[6:7]``, ``s[0:3]``, ``a[0:15]``, ``ttmp[4:5]``."""
    if dwords == 1:
        return f"{prefix}{first}"
    return f"{prefix}[{first}:{first + dwords - 1}]"


def scalar_text(code: int, dwords: int = 1) -> str:
    """A scalar register operand (SSRC/SDST codes 0-127 and the named sources)."""
    if code <= 101:
        return register_range("s", code, dwords)
    if 108 <= code <= 123:
        return register_range("ttmp", code - 108, dwords)
    if dwords == 2 and code in _PAIR_NAMES:
        return _PAIR_NAMES[code]
    if code == 125:
        return "null"  # reserved on gfx9; LLVM prints the gfx10 name
    if dwords == 1 and code in _SPECIAL_NAMES:
        return _SPECIAL_NAMES[code]
    if code in _SPECIAL_NAMES and code >= 230:
        return _SPECIAL_NAMES[code]
    return f"<invalid scalar register {code}>"


def sdst_text(code: int, dwords: int) -> str:
    """An SGPR destination held in an 8-bit field (VOP3 ``vdst`` of compares, readlane): codes past
    the scalar range are printed the way LLVM decodes them, as source operands."""
    return scalar_text(code, dwords) if code < 128 else operand_text(code, None, 0)


def inline_text(code: int, dtype: DType | None) -> str:
    if 128 <= code <= 192:
        return str(code - 128)
    if 193 <= code <= 208:
        return str(192 - code)
    if code == 248 and dtype is not None and dtype.bits == 64:
        return _F64_INV_2PI
    return FLOAT_INLINE_TEXT[code]


def _inlinable(value: int, bits: int) -> bool:
    """Whether an inline constant could encode ``value`` as a ``bits``-wide operand."""
    signed = value - (1 << bits) if value >> (bits - 1) else value
    return -16 <= signed <= 64 or any(inline_constant_bits(code, bits) == value for code in FLOAT_INLINE_TEXT)


def inline_value_text(value: int, bits: int) -> str:
    """The inline-constant spelling of ``value`` (which must be inlinable at ``bits``)."""
    signed = value - (1 << bits) if value >> (bits - 1) else value
    if -16 <= signed <= 64:
        return str(signed)
    code = next(code for code in FLOAT_INLINE_TEXT if inline_constant_bits(code, bits) == value)
    return inline_text(code, DType.F64 if bits == 64 else None)


def literal_text(value: int, dtype: DType | None) -> str:
    """A literal dword as LLVM 22 prints it.  A value an inline constant could also encode is written
    ``lit(0x...)`` so that re-assembly keeps the literal; 64-bit float operands (the literal is the
    high dword) print the double's inline spelling instead; 16-bit operands use the low half
    (LLVM quirks reproduced: the test for an f16 operand is its low half, for an i16 operand the
    whole dword as a 32-bit constant; packed operands never use ``lit()``)."""
    value &= 0xFFFFFFFF
    bits = dtype.bits if dtype is not None else 32
    if bits == 64 and dtype is not None and dtype.is_float:
        return inline_value_text(value << 32, 64) if _inlinable(value << 32, 64) else f"0x{value:x}"
    if dtype is not None and dtype.is_packed:
        signed = value - (1 << 32) if value >> 31 else value
        f16_constant = any(inline_constant_bits(code, 16) == value for code in FLOAT_INLINE_TEXT)
        packed = (-16 <= signed <= 64 or f16_constant) if dtype in _FLOAT_PACKED else _inlinable(value, 32)
        return f"lit(0x{value:x})" if packed else f"0x{value:x}"
    if bits == 16 and dtype is not None:
        inlinable = _inlinable(value & 0xFFFF, 16) if dtype.is_float else _inlinable(value, 32)
        return f"lit(0x{value:x})" if inlinable else f"0x{value & 0xFFFF:x}"
    return f"lit(0x{value:x})" if _inlinable(value, 64 if bits == 64 else 32) else f"0x{value:x}"


def operand_text(code: int, dtype: DType | None, literal: int | None, short_inv2pi: bool = False) -> str:
    """Text of a 9-bit source code used as an operand of type ``dtype`` (None: 32-bit).
    ``short_inv2pi``: print 1/(2*pi) with f32 precision even for a 64-bit operand (VOP3P does)."""
    dwords = dtype.dwords if dtype is not None else 1
    if code >= VGPR_BASE:
        return register_range("v", code - VGPR_BASE, dwords)
    if code == LITERAL_CODE:
        return literal_text(literal or 0, dtype)
    if code in FLOAT_INLINE_TEXT and dtype is not None and dtype.bits == 16 and not dtype.is_float:
        return f"0x{inline_constant_bits(code, 16):x}"  # LLVM shows an i16 operand's f16 bits
    if 128 <= code <= 248 and (code <= 208 or code >= 240):
        return inline_text(code, None if short_inv2pi else dtype)
    return scalar_text(code, dwords)


def _with_modifiers(text: str, neg: bool, absolute: bool, sext: bool = False) -> str:
    """LLVM's source-modifier spelling: ``-x``, ``|x|``, ``-|x|``, ``sext(x)``; a negated constant
    without abs is ``neg(c)`` (so that ``-16`` negated does not read ``--16``)."""
    if absolute:
        text = f"|{text}|"
    if sext:
        text = f"sext({text})"
    if not neg:
        return text
    constant = not absolute and not sext and not text[:1].isalpha() and not text.startswith(("[", "|"))
    return f"neg({text})" if constant else f"-{text}"


# ---------------------------------------------------------------- scalar ALU

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


def _dst_dwords(inst: Instruction) -> int:
    return inst.info.dst.dwords if inst.info is not None and inst.info.dst is not None else 1


def _src_types(inst: Instruction) -> tuple[DType, ...]:
    return inst.info.srcs if inst.info is not None else ()


# LLVM types these 64-bit sources as 32-bit immediates when printing 1/(2*pi).
_SHORT_INV2PI = frozenset({"s_rfe_b64", "s_movrels_b64", "s_setpc_b64"})
# Their source is printed as a plain value even when it is a literal (no lit()).
_LITERAL_AS_VALUE = frozenset({"s_movrels_b32", "s_movrels_b64", "v_accvgpr_mov_b32", "s_setpc_b64",
                               "s_rfe_b64", "s_cbranch_join", "v_swap_b32", "v_readfirstlane_b32"})


def _value_literal_text(value: int) -> str:
    return inline_value_text(value, 32) if _inlinable(value, 32) else f"0x{value:x}"


def _scalar_sources(inst: Instruction, names: tuple[str, ...]) -> list[str]:
    types = _src_types(inst)
    if inst.opcode in _LITERAL_AS_VALUE and inst.fields[names[0]] == LITERAL_CODE:
        return [_value_literal_text(inst.literal or 0)]
    if inst.opcode in _SHORT_INV2PI and inst.fields[names[0]] == 248:
        return [FLOAT_INLINE_TEXT[248]]
    return [operand_text(inst.fields[name], types[i] if i < len(types) else None, inst.literal)
            for i, name in enumerate(names)]


_SOP_NO_DST = frozenset({"s_setpc_b64", "s_rfe_b64", "s_cbranch_join", "s_set_gpr_idx_idx",
                         "s_cbranch_g_fork", "s_rfe_restore_b64"})


def _sop(inst: Instruction, names: tuple[str, ...]) -> str:
    parts = [] if inst.opcode in _SOP_NO_DST else [scalar_text(inst.fields["sdst"], _dst_dwords(inst))]
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
    sdst = scalar_text(inst.fields["sdst"], _dst_dwords(inst))
    if name == "s_getreg_b32":
        return f"{name} {sdst}, {hwreg_text(simm)}"
    if name == "s_setreg_b32":
        return f"{name} {hwreg_text(simm)}, {sdst}"
    if name == "s_setreg_imm32_b32":
        return f"{name} {hwreg_text(simm)}, {_value_literal_text(inst.literal or 0)}"
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
        data = _src_types(inst)[0] if _src_types(inst) else inst.info.dst if inst.info else None
        operands.insert(0, scalar_text(f["sdata"], data.dwords if data is not None else 1))
    glc = " glc" if f["glc"] and not name.startswith(("s_dcache", "s_atc")) else ""
    return f"{name} {', '.join(operands)}{glc}"


# ---------------------------------------------------------------- vector ALU

_E32_NO_SUFFIX = NO_VOP3_FORM | {"v_nop", "v_clrexcp"}
_NO_OPERANDS = frozenset({"v_nop", "v_clrexcp"})
_CARRY_IN = frozenset({"v_addc_co_u32", "v_subb_co_u32", "v_subbrev_co_u32"})
_CARRY_OUT = frozenset({"v_add_co_u32", "v_sub_co_u32", "v_subrev_co_u32"}) | _CARRY_IN
_SDST_IN_VDST = frozenset({"v_readfirstlane_b32", "v_readlane_b32"})
_AGPR_VDST = frozenset({"v_accvgpr_write_b32", "v_accvgpr_mov_b32"})
_AGPR_SRC0 = frozenset({"v_accvgpr_read_b32", "v_accvgpr_mov_b32"})


def _src_type(inst: Instruction, index: int) -> DType | None:
    types = _src_types(inst)
    return types[index] if index < len(types) else (types[-1] if types else None)


def _vdst_text(inst: Instruction) -> str:
    vdst, dwords = inst.fields["vdst"], _dst_dwords(inst)
    if inst.opcode in _SDST_IN_VDST:
        return sdst_text(vdst, 1)
    mfma_acc = inst.info is not None and inst.info.mai and not inst.opcode.startswith("v_accvgpr")
    if inst.opcode in _AGPR_VDST or (mfma_acc and inst.fields.get("acc_cd")):
        return register_range("a", vdst, dwords)
    return register_range("v", vdst, dwords)


def _src_text(inst: Instruction, index: int) -> str:
    code = inst.fields[f"src{index}"]
    if index == 0 and inst.opcode in _AGPR_SRC0 and code >= VGPR_BASE:
        return register_range("a", code - VGPR_BASE, 1)
    if inst.opcode in _LITERAL_AS_VALUE and code == LITERAL_CODE:
        return _value_literal_text(inst.literal or 0)
    dtype = _src_type(inst, index)
    if inst.info is not None and inst.info.mai and not inst.opcode.startswith("v_accvgpr"):
        if code >= VGPR_BASE:
            return register_range("a" if _mai_acc(inst, index) else "v", code - VGPR_BASE,
                                  _mai_dwords(inst, index))
        if code < 128 and dtype is not None and dtype.dwords > 16:
            return scalar_text(code, 16)  # LLVM has no 32-SGPR tuple class to print
    if index == 2 and inst.opcode.startswith("v_mfma_f64") and code < VGPR_BASE and code > 127:
        return operand_text(code, DType.F64, inst.literal)  # an f64 accumulator constant
    # VOP3P prints 1/(2*pi) with f32 precision.
    return operand_text(code, dtype, inst.literal, short_inv2pi=inst.encoding == "VOP3P")


def _mai_acc(inst: Instruction, index: int) -> bool:
    if index == 2:
        return bool(inst.fields.get("acc_cd")) and not inst.opcode.startswith("v_smfmac")
    return bool(inst.fields.get("acc", 0) >> index & 1)


def _mai_dwords(inst: Instruction, index: int) -> int:
    if index == 2:
        return _dst_dwords(inst) if not inst.opcode.startswith("v_smfmac") else 1
    src = _src_type(inst, index)
    return src.dwords if src is not None else 1


_FLOAT_PACKED = frozenset({DType.V2F16, DType.V2BF16, DType.V2F32})


def _float_source(inst: Instruction, index: int) -> bool:
    """Whether LLVM gives this source float modifiers (neg/abs) rather than none or sext."""
    if inst.opcode == "v_cndmask_b32":
        return index < 2
    dtype = _src_type(inst, index)
    return dtype is not None and (dtype.is_float or dtype in _FLOAT_PACKED)


def _mnemonic(inst: Instruction) -> str:
    if inst.opcode in _NO_OPERANDS:
        return inst.opcode
    if inst.form == "e32":
        return inst.opcode if inst.opcode in _E32_NO_SUFFIX else f"{inst.opcode}_e32"
    if inst.form in ("e64", "dpp", "sdwa"):
        return f"{inst.opcode}_{inst.form}"
    return inst.opcode


def _vop_operands(inst: Instruction, sources: list[str]) -> list[str]:
    """Destination(s) and sources of a VOP1/VOP2/VOPC form (e32, DPP, SDWA), in LLVM's order."""
    name = inst.opcode
    if inst.encoding == "VOPC":
        sdst = "vcc"
        if inst.form == "sdwa" and inst.fields.get("sd"):
            sdst = scalar_text(inst.fields["sdst"], 2)
        return [sdst, *sources]
    operands = [_vdst_text(inst)]
    if name in _CARRY_OUT:
        operands.append("vcc")
    operands += sources
    if name in _CARRY_IN or name == "v_cndmask_b32":
        operands.append("vcc")
    return operands


def _e32(inst: Instruction) -> str:
    name = inst.opcode
    if name in _NO_OPERANDS:
        return _mnemonic(inst)
    count = 1 if inst.encoding == "VOP1" else 2
    sources = [_src_text(inst, i) for i in range(count)]
    constant = f"0x{inst.literal or 0:x}"  # the K operand is always printed in hex
    if name in ("v_fmamk_f32", "v_madmk_f16"):
        sources.insert(1, constant)
    elif name in ("v_fmaak_f32", "v_madak_f16"):
        sources.append(constant)
    return f"{_mnemonic(inst)} {', '.join(_vop_operands(inst, sources))}"


def dpp_ctrl_text(ctrl: int) -> str:
    """LLVM's spelling of a DPP control value (gfx9 / gfx90a+ table)."""
    if ctrl <= 0xFF:
        return "quad_perm:[" + ",".join(str(ctrl >> (2 * i) & 3) for i in range(4)) + "]"
    kind, amount = ctrl >> 4, ctrl & 0xF
    rows = {0x10: "row_shl", 0x11: "row_shr", 0x12: "row_ror", 0x15: "row_newbcast"}
    if kind in rows and (amount or kind == 0x15):
        return f"{rows[kind]}:{amount}"
    named = {0x130: "wave_shl:1", 0x134: "wave_rol:1", 0x138: "wave_shr:1", 0x13C: "wave_ror:1",
             0x140: "row_mirror", 0x141: "row_half_mirror", 0x142: "row_bcast:15", 0x143: "row_bcast:31"}
    return named.get(ctrl, "/* Invalid dpp_ctrl value */")


def _is_dp_alu(inst: Instruction) -> bool:
    """64-bit DPP (gfx90a+ "DP ALU"): only row_newbcast is a legal control."""
    types = [*_src_types(inst), *([inst.info.dst] if inst.info is not None and inst.info.dst else [])]
    return any(t.bits == 64 for t in types) and inst.encoding != "VOPC"


def _dpp(inst: Instruction) -> str:
    f = inst.fields
    count = 1 if inst.encoding == "VOP1" else 2
    sources = []
    for i in range(count):
        text = _src_text(inst, i)
        if _float_source(inst, i):
            text = _with_modifiers(text, bool(f[f"src{i}_neg"]), bool(f[f"src{i}_abs"]))
        sources.append(text)
    ctrl = dpp_ctrl_text(f["dpp_ctrl"])
    if _is_dp_alu(inst) and not 0x150 <= f["dpp_ctrl"] <= 0x15F:
        ctrl = "/* DP ALU dpp only supports row_newbcast */"
    operands = "" if inst.opcode in _NO_OPERANDS else " " + ", ".join(_vop_operands(inst, sources))
    text = f"{_mnemonic(inst)}{operands} {ctrl}"
    text += f" row_mask:0x{f['row_mask']:x} bank_mask:0x{f['bank_mask']:x}"
    return text + (" bound_ctrl:1" if f["bound_ctrl"] else "")


_SDWA_SEL = ("BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD")
_SDWA_UNUSED = ("UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE")


def _sel(value: int) -> str:
    return _SDWA_SEL[value] if value < len(_SDWA_SEL) else str(value)


def _sdwa(inst: Instruction) -> str:
    f = inst.fields
    count = 1 if inst.encoding == "VOP1" else 2
    sources = []
    for i in range(count):
        text = _src_text(inst, i)
        if _float_source(inst, i) and _src_type(inst, i) not in _FLOAT_PACKED:
            text = _with_modifiers(text, bool(f[f"src{i}_neg"]), bool(f[f"src{i}_abs"]))
        else:
            text = _with_modifiers(text, False, False, sext=bool(f[f"src{i}_sext"]))
        sources.append(text)
    parts = [f"{_mnemonic(inst)} {', '.join(_vop_operands(inst, sources))}"]
    if inst.encoding != "VOPC":
        parts += _clamp_omod(f)
        # the reserved value 3 comes out of LLVM 22 as UNUSED_PAD
        parts += [f"dst_sel:{_sel(f['dst_sel'])}", f"dst_unused:{_SDWA_UNUSED[f['dst_unused'] % 3]}"]
    parts += [f"src{i}_sel:{_sel(f[f'src{i}_sel'])}" for i in range(count)]
    return " ".join(parts)


_OMOD = ("", "mul:2", "mul:4", "div:2")


def _clamp_omod(fields: Mapping[str, int]) -> list[str]:
    parts = ["clamp"] if fields.get("clamp") else []
    omod = fields.get("omod", 0)
    return parts + ([_OMOD[omod]] if omod else [])


def _vop3_count(inst: Instruction) -> int:
    native = native_form(inst.info) if inst.info is not None else None
    if native == "VOP1":
        return 1
    if native in ("VOP2", "VOPC"):
        return 3 if inst.opcode in _CARRY_IN or inst.opcode == "v_cndmask_b32" else 2
    return len(_src_types(inst))


def _vop3_sources(inst: Instruction, count: int) -> list[str]:
    f, sources = inst.fields, []
    for i in range(count):
        text = _src_text(inst, i)
        if _float_source(inst, i):
            text = _with_modifiers(text, bool(f["neg"] >> i & 1), bool(f.get("abs", 0) >> i & 1))
        sources.append(text)
    if inst.opcode in _CARRY_IN or inst.opcode == "v_cndmask_b32":
        # the lane-mask source; LLVM prints its 1/(2*pi) with f32 precision
        sources[2] = operand_text(f["src2"], DType.B64, inst.literal, short_inv2pi=True)
    return sources


def _vop3(inst: Instruction) -> str:
    f, name = inst.fields, inst.opcode
    if name in _NO_OPERANDS:
        return _mnemonic(inst)
    sources = _vop3_sources(inst, _vop3_count(inst))
    if inst.info is not None and inst.info.promoted_from == "VOPC":
        operands = [sdst_text(f["vdst"], 2), *sources]
    else:
        operands = [_vdst_text(inst)]
        if inst.info is not None and inst.info.vop3b:
            operands.append(scalar_text(f["sdst"], 2))
        operands += sources
    parts = [f"{_mnemonic(inst)} {', '.join(operands)}"]
    if f.get("op_sel") and _has_op_sel(inst):  # sources' bits, then the destination's (bit 3)
        shown = 3 if inst.opcode.startswith("v_cvt_sr_") else len(sources)
        bits = [f["op_sel"] >> i & 1 for i in range(shown)] + [f["op_sel"] >> 3 & 1]
        parts.append("op_sel:[" + ",".join(map(str, bits)) + "]")
    return " ".join(parts + _clamp_omod(f))


_NO_OP_SEL = frozenset({"v_sad_u16", "v_mad_legacy_f16", "v_mad_legacy_u16", "v_mad_legacy_i16",
                        "v_fma_legacy_f16", "v_div_fixup_legacy_f16"})
_FP8_OP_SEL = frozenset({"v_cvt_sr_fp8_f32", "v_cvt_sr_bf8_f32", "v_cvt_pk_fp8_f32", "v_cvt_pk_bf8_f32",
                         "v_alignbit_b32", "v_alignbyte_b32"})


def _has_op_sel(inst: Instruction) -> bool:
    """gfx9 VOP3 op_sel exists on VOP3-only opcodes with 16-bit operands (not the legacy ones) and
    on the fp8/bf8 conversions."""
    if inst.info is None or native_form(inst.info) is not None or inst.opcode in _NO_OP_SEL:
        return False
    types = (*inst.info.srcs, *([inst.info.dst] if inst.info.dst else []))
    return inst.opcode in _FP8_OP_SEL or any(t.bits == 16 for t in types)


def _bits_list(label: str, mask: int, count: int) -> str:
    return f"{label}:[" + ",".join(str(mask >> i & 1) for i in range(count)) + "]"


def _vop3p(inst: Instruction) -> str:
    f = inst.fields
    if inst.info is not None and inst.info.mai:
        return _mai(inst)
    count = len(_src_types(inst))
    mix = "_mix" in inst.opcode
    sources = [_src_text(inst, i) for i in range(count)]
    if mix:  # mix sources are scalars: neg_lo is the neg modifier, neg_hi the abs modifier
        sources = [_with_modifiers(text, bool(f["neg"] >> i & 1), bool(f["neg_hi"] >> i & 1))
                   for i, text in enumerate(sources)]
    parts = [f"{_mnemonic(inst)} {', '.join([_vdst_text(inst), *sources])}"]
    full = (1 << count) - 1
    if mix or any(t.is_packed for t in _src_types(inst)):
        if f["op_sel"] & full:
            parts.append(_bits_list("op_sel", f["op_sel"], count))
        if (f["op_sel_hi"] & full) != (0 if mix else full):
            parts.append(_bits_list("op_sel_hi", f["op_sel_hi"], count))
    if not mix:
        parts += [_bits_list(label, f[key], count) for label, key in (("neg_lo", "neg"), ("neg_hi", "neg_hi"))
                  if f[key] & full]
    return " ".join(parts + (["clamp"] if f["clamp"] else []))


def _mai(inst: Instruction) -> str:
    f = inst.fields
    count = 1 if inst.opcode.startswith("v_accvgpr") else 3
    operands = [_vdst_text(inst)] + [_src_text(inst, i) for i in range(count)]
    parts = [f"{inst.opcode} {', '.join(operands)}"]
    for label in () if count == 1 else ("cbsz", "abid", "blgp"):
        if not f.get(label):
            continue
        if label == "blgp" and inst.opcode.startswith("v_mfma_f64"):
            parts.append(_bits_list("neg", f[label], 3))  # f64 MFMA: the blgp bits negate A, B, C
        else:
            parts.append(f"{label}:{f[label]}")
    return " ".join(parts)


def _vop_native(inst: Instruction) -> str:
    return {"dpp": _dpp, "sdwa": _sdwa}.get(inst.form, _e32)(inst)


# ---------------------------------------------------------------- memory

def _vreg(index: int, dtype: DType | None, acc: bool = False) -> str:
    return register_range("a" if acc else "v", index, dtype.dwords if dtype is not None else 1)


def _offset_text(label: str, value: int) -> list[str]:
    return [f"{label}:{value}"] if value else []


def _flags(fields: Mapping[str, int], names: tuple[str, ...]) -> list[str]:
    return [name for name in names if fields.get(name)]


def swizzle_text(offset: int) -> str:
    """``offset:swizzle(...)`` of ds_swizzle_b32, in LLVM's macro spelling (QUAD_PERM, SWAP,
    REVERSE, BROADCAST, BITMASK_PERM, FFT, ROTATE); other values print as a decimal offset."""
    if offset & 0xFF00 == 0x8000:
        return "offset:swizzle(QUAD_PERM," + ",".join(str(offset >> (2 * i) & 3) for i in range(4)) + ")"
    if offset & 0x8000 == 0:
        masks = offset & 0x1F, (offset >> 5) & 0x1F, (offset >> 10) & 0x1F  # and, or, xor
        return f"offset:swizzle({_bitmask_swizzle(*masks)})"
    if offset & 0xE000 == 0xE000:
        return f"offset:swizzle(FFT,{offset & 0x1F})"
    if offset & 0xF000 == 0xC000:
        return f"offset:swizzle(ROTATE,{offset >> 10 & 1},{offset >> 5 & 0x1F})"
    return f"offset:{offset}"


def _bitmask_swizzle(and_mask: int, or_mask: int, xor_mask: int) -> str:
    if and_mask == 0x1F and or_mask == 0 and xor_mask.bit_count() == 1:
        return f"SWAP,{xor_mask}"
    if and_mask == 0x1F and or_mask == 0 and xor_mask > 0 and (xor_mask + 1) & xor_mask == 0:
        return f"REVERSE,{xor_mask + 1}"
    group = 0x20 - and_mask
    if group > 1 and group & (group - 1) == 0 and or_mask < group and xor_mask == 0:
        return f"BROADCAST,{group},{or_mask}"
    # Per lane-index bit (high to low): constant 0/1, passed through (p) or inverted (i).
    probe0, probe1 = or_mask ^ xor_mask, ((0x1F & and_mask) | or_mask) ^ xor_mask
    chars = []
    for bit in range(4, -1, -1):
        p0, p1 = probe0 >> bit & 1, probe1 >> bit & 1
        chars.append(("1" if p0 else "0") if p0 == p1 else ("p" if p0 == 0 else "i"))
    return 'BITMASK_PERM,"' + "".join(chars) + '"'


_DS_NO_ADDRESS = ("ds_append", "ds_consume", "ds_read_addtid", "ds_write_addtid", "ds_gws", "ds_nop")


def _ds(inst: Instruction) -> str:
    f, name = inst.fields, inst.opcode
    acc = bool(f.get("acc"))
    srcs = _src_types(inst)
    operands = []
    if inst.info is not None and inst.info.dst is not None:
        operands.append(_vreg(f["vdst"], inst.info.dst, acc))
    if not name.startswith(_DS_NO_ADDRESS):
        operands.append(_vreg(f["addr"], None))
    operands += [_vreg(f[field], dtype, acc) for field, dtype in zip(("data0", "data1"), srcs)]
    parts = [f"{name} {', '.join(operands)}" if operands else name]
    if name == "ds_swizzle_b32":
        parts += [swizzle_text(f["offset0"] | f["offset1"] << 8)] if f["offset0"] | f["offset1"] else []
    elif name.startswith(("ds_write2", "ds_read2", "ds_wrxchg2")):
        parts += _offset_text("offset0", f["offset0"]) + _offset_text("offset1", f["offset1"])
    else:
        parts += _offset_text("offset", f["offset0"] | f["offset1"] << 8)
    # gfx942 has no GDS: LLVM ignores the bit except on the GWS instructions, which always show it.
    return " ".join(parts + (["gds"] if name.startswith("ds_gws") and f["gds"] else []))


def _flat_address(inst: Instruction) -> list[str]:
    f = inst.fields
    if inst.encoding == "FLAT":
        return [_vreg(f["vaddr"], DType.B64)]
    if inst.encoding == "GLOBAL":
        if f["saddr"] == 0x7F:
            return [_vreg(f["vaddr"], DType.B64), "off"]
        return [_vreg(f["vaddr"], None), scalar_text(f["saddr"], 2)]
    vaddr = _vreg(f["vaddr"], None) if f["sve"] else "off"
    return [vaddr, "off" if f["saddr"] == 0x7F else scalar_text(f["saddr"])]


def _flat(inst: Instruction) -> str:
    f, name = inst.fields, inst.opcode
    acc = bool(f["acc"])
    address = _flat_address(inst)
    srcs = _src_types(inst)
    returns = inst.info is not None and inst.info.dst is not None and ("atomic" not in name or f["sc0"])
    operands = [_vreg(f["vdst"], inst.info.dst, acc)] if returns and inst.info is not None else []
    operands.append(address[0])
    if srcs:
        operands.append(_vreg(f["vdata"], srcs[0], acc))
    operands += address[1:]
    parts = [f"{name} {', '.join(operands)}"] + _offset_text("offset", f["offset"])
    return " ".join(parts + _flags(f, ("sc0", "nt", "sc1")))


def _mubuf(inst: Instruction) -> str:
    f, name = inst.fields, inst.opcode
    if name in ("buffer_wbl2", "buffer_inv"):
        return " ".join([name] + _flags(f, ("sc0", "sc1")))
    both = f["offen"] and f["idxen"]
    vaddr = _vreg(f["vaddr"], DType.B64 if both else None) if f["offen"] or f["idxen"] else "off"
    data = inst.info.dst if inst.info is not None and inst.info.dst is not None else DType.B32
    if inst.info is not None and "atomic" in name and inst.info.srcs:
        data = inst.info.srcs[0]
    elif inst.info is not None and inst.info.srcs:
        data = inst.info.srcs[0]
    operands = [vaddr, scalar_text(f["srsrc"] * 4, 4), operand_text(f["soffset"], None, None)]
    if not f["lds"]:  # a load to LDS has no VGPR data operand
        operands.insert(0, _vreg(f["vdata"], data, bool(f["acc"])))
    parts = [f"{name} {', '.join(operands)}"] + _flags(f, ("idxen", "offen"))
    parts += _offset_text("offset", f["offset"])
    return " ".join(parts + _flags(f, ("sc0", "nt", "sc1", "lds")))


Printer = Callable[[Instruction], str]

_PRINTERS: dict[str, Printer] = {
    "SOP1": _sop1, "SOP2": _sop2, "SOPC": _sopc, "SOPK": _sopk, "SOPP": _sopp, "SMEM": _smem,
    "VOP1": _vop_native, "VOP2": _vop_native, "VOPC": _vop_native, "VOP3": _vop3, "VOP3P": _vop3p,
    "DS": _ds, "FLAT": _flat, "GLOBAL": _flat, "SCRATCH": _flat, "MUBUF": _mubuf,
}


def disassemble(inst: Instruction) -> str:
    """LLVM's canonical text of ``inst`` (no address, no encoding comment)."""
    return _PRINTERS[inst.encoding](inst)


def objdump_line(inst: Instruction, code: bytes, base: int = 0) -> str:
    """llvm-objdump's line for ``inst`` decoded from ``code``: text, then ``// ADDR: WORDS`` with
    ADDR = ``base + inst.pc`` (whitespace-normalised; objdump's ``<sym+off>`` branch note omitted)."""
    words = " ".join(f"{int.from_bytes(code[inst.pc + i:inst.pc + i + 4], 'little'):08X}"
                     for i in range(0, inst.size, 4))
    return f"{normalise_whitespace(disassemble(inst))} // {base + inst.pc:012X}: {words}"


format_instruction = disassemble
"""Alias used by the executor's code table (same text)."""
