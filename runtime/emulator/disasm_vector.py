"""Disassembly of gfx942 vector ALU instructions (VOP1, VOP2, VOPC, VOP3, VOP3P, MAI; e32, e64, DPP,
SDWA forms) as LLVM 22 spells them.

Invariant: each printer is a pure function of the decoded ``Instruction``; the mnemonic carries the
form suffix LLVM prints, then operands, then modifiers (DPP controls, SDWA selects, op_sel, clamp,
omod) in LLVM's order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.disasm_operands import (
    FLOAT_PACKED,
    LITERAL_AS_VALUE,
    dst_dwords,
    operand_text,
    register_range,
    scalar_text,
    sdst_text,
    src_types,
    value_literal_text,
    with_modifiers,
)
from ptx2gcn.runtime.emulator.opcodes import NO_VOP3_FORM, DType, native_form
from ptx2gcn.runtime.emulator.operands import LITERAL_CODE, VGPR_BASE

_E32_NO_SUFFIX = NO_VOP3_FORM | {"v_nop", "v_clrexcp"}
_NO_OPERANDS = frozenset({"v_nop", "v_clrexcp"})
_CARRY_IN = frozenset({"v_addc_co_u32", "v_subb_co_u32", "v_subbrev_co_u32"})
_CARRY_OUT = frozenset({"v_add_co_u32", "v_sub_co_u32", "v_subrev_co_u32"}) | _CARRY_IN
_SDST_IN_VDST = frozenset({"v_readfirstlane_b32", "v_readlane_b32"})
_AGPR_VDST = frozenset({"v_accvgpr_write_b32", "v_accvgpr_mov_b32"})
_AGPR_SRC0 = frozenset({"v_accvgpr_read_b32", "v_accvgpr_mov_b32"})


def _src_type(inst: Instruction, index: int) -> DType | None:
    types = src_types(inst)
    return types[index] if index < len(types) else (types[-1] if types else None)


def _vdst_text(inst: Instruction) -> str:
    vdst, dwords = inst.fields["vdst"], dst_dwords(inst)
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
    if inst.opcode in LITERAL_AS_VALUE and code == LITERAL_CODE:
        return value_literal_text(inst.literal or 0)
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
        return dst_dwords(inst) if not inst.opcode.startswith("v_smfmac") else 1
    src = _src_type(inst, index)
    return src.dwords if src is not None else 1


def _float_source(inst: Instruction, index: int) -> bool:
    """Whether LLVM gives this source float modifiers (neg/abs) rather than none or sext."""
    if inst.opcode == "v_cndmask_b32":
        return index < 2
    dtype = _src_type(inst, index)
    return dtype is not None and (dtype.is_float or dtype in FLOAT_PACKED)


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
    types = [*src_types(inst), *([inst.info.dst] if inst.info is not None and inst.info.dst else [])]
    return any(t.bits == 64 for t in types) and inst.encoding != "VOPC"


def _dpp(inst: Instruction) -> str:
    f = inst.fields
    count = 1 if inst.encoding == "VOP1" else 2
    sources = []
    for i in range(count):
        text = _src_text(inst, i)
        if _float_source(inst, i):
            text = with_modifiers(text, bool(f[f"src{i}_neg"]), bool(f[f"src{i}_abs"]))
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
        if _float_source(inst, i) and _src_type(inst, i) not in FLOAT_PACKED:
            text = with_modifiers(text, bool(f[f"src{i}_neg"]), bool(f[f"src{i}_abs"]))
        else:
            text = with_modifiers(text, False, False, sext=bool(f[f"src{i}_sext"]))
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
    return len(src_types(inst))


def _vop3_sources(inst: Instruction, count: int) -> list[str]:
    f, sources = inst.fields, []
    for i in range(count):
        text = _src_text(inst, i)
        if _float_source(inst, i):
            text = with_modifiers(text, bool(f["neg"] >> i & 1), bool(f.get("abs", 0) >> i & 1))
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
    count = len(src_types(inst))
    mix = "_mix" in inst.opcode
    sources = [_src_text(inst, i) for i in range(count)]
    if mix:  # mix sources are scalars: neg_lo is the neg modifier, neg_hi the abs modifier
        sources = [with_modifiers(text, bool(f["neg"] >> i & 1), bool(f["neg_hi"] >> i & 1))
                   for i, text in enumerate(sources)]
    parts = [f"{_mnemonic(inst)} {', '.join([_vdst_text(inst), *sources])}"]
    full = (1 << count) - 1
    if mix or any(t.is_packed for t in src_types(inst)):
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


PRINTERS: dict[str, Callable[[Instruction], str]] = {
    "VOP1": _vop_native,
    "VOP2": _vop_native,
    "VOPC": _vop_native,
    "VOP3": _vop3,
    "VOP3P": _vop3p,
}
