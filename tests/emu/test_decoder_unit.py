"""Decoder, operand and opcode-metadata unit tests with hand-computed expectations.

Every expected value below comes from reading the bit layout in the CDNA3 ISA guide (or the example
encodings in the launch-ABI note, which llvm-mc produced), never from the decoder's output.
"""

from __future__ import annotations

import struct

import pytest

from ptx2gcn.runtime.emulator import opcodes
from ptx2gcn.runtime.emulator.decoder import DecodeError, decode, decode_all
from ptx2gcn.runtime.emulator.disasm import disassemble
from ptx2gcn.runtime.emulator.opcodes import DType
from ptx2gcn.runtime.emulator.operands import (
    Agpr,
    InlineFloat,
    InlineInt,
    Literal,
    Reserved,
    Sgpr,
    Special,
    SpecialReg,
    Ttmp,
    Vgpr,
    inline_constant_bits,
    literal_bits,
    source,
    vgpr_or_agpr,
)


def words(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}I", *values)


# ---------------------------------------------------------------- operands

@pytest.mark.parametrize(("code", "operand"), [
    (0, Sgpr(0)), (101, Sgpr(101)), (102, Special(SpecialReg.FLAT_SCRATCH_LO)),
    (106, Special(SpecialReg.VCC_LO)), (107, Special(SpecialReg.VCC_HI)), (108, Ttmp(0)), (123, Ttmp(15)),
    (124, Special(SpecialReg.M0)), (125, Reserved(125)), (126, Special(SpecialReg.EXEC_LO)),
    (127, Special(SpecialReg.EXEC_HI)), (128, InlineInt(0)), (129, InlineInt(1)), (192, InlineInt(64)),
    (193, InlineInt(-1)), (208, InlineInt(-16)), (209, Reserved(209)),
    (235, Special(SpecialReg.SHARED_BASE)), (236, Special(SpecialReg.SHARED_LIMIT)),
    (237, Special(SpecialReg.PRIVATE_BASE)), (238, Special(SpecialReg.PRIVATE_LIMIT)),
    (240, InlineFloat(240)), (248, InlineFloat(248)), (251, Special(SpecialReg.VCCZ)),
    (252, Special(SpecialReg.EXECZ)), (253, Special(SpecialReg.SCC)), (255, Literal()),
    (256, Vgpr(0)), (511, Vgpr(255)),
])
def test_source_operand_codes(code: int, operand: object) -> None:
    assert source(code) == operand


def test_inverse_two_pi_is_a_constant_not_a_register() -> None:
    # ABI note §10.4: 1/(2*pi) as f32 0x3E22F983, f16 0x3118, f64 0x3FC45F306DC9C882.
    assert source(248) == InlineFloat(248)
    assert inline_constant_bits(248, 32) == 0x3E22F983
    assert inline_constant_bits(248, 16) == 0x3118
    assert inline_constant_bits(248, 64) == 0x3FC45F306DC9C882


@pytest.mark.parametrize(("code", "bits", "expected"), [
    (128, 32, 0), (192, 32, 64), (193, 32, 0xFFFFFFFF), (208, 16, 0xFFF0), (208, 64, 0xFFFFFFFFFFFFFFF0),
    (240, 32, 0x3F000000), (241, 16, 0xB800), (242, 64, 0x3FF0000000000000), (247, 32, 0xC0800000),
])
def test_inline_constant_bits(code: int, bits: int, expected: int) -> None:
    assert inline_constant_bits(code, bits) == expected


def test_literal_expansion() -> None:
    assert literal_bits(0x40091EB8, 64, is_float=True) == 0x40091EB8_00000000
    assert literal_bits(0x80000000, 64, is_float=False, signed=True) == 0xFFFFFFFF_80000000
    assert literal_bits(0x80000000, 64, is_float=False, signed=False) == 0x80000000
    assert literal_bits(0x12345678, 16, is_float=False) == 0x5678
    assert literal_bits(0x12345678, 32, is_float=True) == 0x12345678


def test_vgpr_or_agpr() -> None:
    assert vgpr_or_agpr(3, acc=False) == Vgpr(3)
    assert vgpr_or_agpr(3, acc=True) == Agpr(3)


# ---------------------------------------------------------------- decoding known words

def test_dpp_add_from_the_abi_note() -> None:
    # v_add_u32_dpp v6, v6, v7 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
    inst = decode(bytes([0xFA, 0x0E, 0x0C, 0x68, 0x06, 0x11, 0x09, 0xFF]), 0)
    assert (inst.encoding, inst.opcode, inst.form, inst.size) == ("VOP2", "v_add_u32", "dpp", 8)
    f = inst.fields
    assert (f["vdst"], f["src0"], f["src1"]) == (6, 256 + 6, 256 + 7)
    assert (f["dpp_ctrl"], f["row_mask"], f["bank_mask"], f["bound_ctrl"]) == (0x111, 0xF, 0xF, 1)


def test_scalar_move_of_an_aperture() -> None:
    inst = decode(bytes([0xEB, 0x01, 0x82, 0xBE]), 0)  # s_mov_b64 s[2:3], src_shared_base
    assert (inst.encoding, inst.opcode, inst.fields["sdst"], inst.fields["ssrc0"]) == ("SOP1", "s_mov_b64", 2, 235)
    assert source(inst.fields["ssrc0"]) == Special(SpecialReg.SHARED_BASE)
    assert inst.info is not None and inst.info.dst == DType.B64


def test_flat_load_without_sgpr_base() -> None:
    inst = decode(bytes([0x00, 0x00, 0x51, 0xDE, 0x00, 0x00, 0x00, 0x00]), 0)
    assert (inst.encoding, inst.opcode) == ("FLAT", "flat_load_dword")
    assert (inst.fields["saddr"], inst.fields["sc0"], inst.fields["sc1"]) == (0, 1, 1)


def test_global_load_with_off() -> None:
    inst = decode(words(0xDC508000, 0x067F0004), 0)  # global_load_dword v6, v[4:5], off
    assert (inst.encoding, inst.opcode) == ("GLOBAL", "global_load_dword")
    assert (inst.fields["vdst"], inst.fields["vaddr"], inst.fields["saddr"]) == (6, 4, 0x7F)


def test_smem_immediate_offset() -> None:
    inst = decode(words(0xC00200C0, 0x0000002C), 0)  # s_load_dword s3, s[0:1], 0x2c
    assert (inst.opcode, inst.fields["sdata"], inst.fields["sbase"], inst.fields["imm"], inst.fields["offset"]) == (
        "s_load_dword", 3, 0, 1, 0x2C)


def test_literal_follows_the_instruction() -> None:
    inst = decode(words(0x7E0202FF, 0x3F8E9A53), 0)  # v_mov_b32_e32 v1, 0x3f8e9a53
    assert (inst.opcode, inst.form, inst.size, inst.literal, inst.fields["vdst"]) == (
        "v_mov_b32", "e32", 8, 0x3F8E9A53, 1)


def test_inline_float_source() -> None:
    inst = decode(words(0x0A0808F8), 0)  # v_mul_f32_e32 v4, 0.15915494, v4
    assert (inst.opcode, inst.fields["src0"], inst.fields["src1"], inst.literal) == ("v_mul_f32", 248, 260, None)
    assert disassemble(inst) == "v_mul_f32_e32 v4, 0.15915494, v4"


def test_vop3b_carry_out_destination() -> None:
    inst = decode(words(0xD1E00204, 0x040E0502), 0)  # v_div_scale_f32 v4, s[2:3], v2, v2, v3
    f = inst.fields
    assert (inst.encoding, inst.opcode, f["vdst"], f["sdst"], f["src0"], f["src1"], f["src2"]) == (
        "VOP3", "v_div_scale_f32", 4, 2, 258, 258, 259)
    assert "abs" not in f and "op_sel" not in f


def test_vop3_source_modifiers() -> None:
    inst = decode(words(0xD1CB0007, 0x23CA0B04), 0)  # v_fma_f32 v7, -v4, v5, 1.0
    assert (inst.fields["neg"], inst.fields["src2"], inst.form) == (1, 242, "")
    assert disassemble(inst) == "v_fma_f32 v7, -v4, v5, 1.0"


def test_vop3p_op_sel_hi_spans_both_dwords() -> None:
    # v_pk_add_f16 v0, v1, v2 op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[1,0] neg_hi:[0,1] clamp
    inst = decode(bytes([0x00, 0xCA, 0x8F, 0xD3, 0x01, 0x05, 0x02, 0x30]), 0)
    # Dword 0 = 0xD38FCA00: op_sel bits 13:11 = 0b001, op_sel_hi bit 2 = bit 14 = 1 (LLVM sets the
    # unused src2 bit to its default 1), clamp = bit 15; dword 1 = 0x30020501: op_sel_hi bits 1:0 =
    # bits 28:27 = 0b10, neg bits 31:29 = 0b001; neg_hi = dword 0 bits 10:8 = 0b010.
    f = inst.fields
    assert (inst.opcode, f["op_sel"], f["op_sel_hi"], f["neg"], f["neg_hi"], f["clamp"]) == (
        "v_pk_add_f16", 1, 0b110, 1, 2, 1)


def test_vopc_destinations_are_normalised() -> None:
    # v_cmp_eq_u32_sdwa s[4:5], v1, s2 src0_sel:WORD_1 src1_sel:DWORD (sd = 1)
    sdwa = decode(bytes([0xF9, 0x04, 0x94, 0x7D, 0x01, 0x84, 0x05, 0x86]), 0)
    assert (sdwa.form, sdwa.fields["sdst"], sdwa.fields["src0"], sdwa.fields["src1"]) == ("sdwa", 4, 257, 2)
    # v_cmpx_eq_u32_e64 s[0:1], v1, v2
    e64 = decode(bytes([0x00, 0x00, 0xDA, 0xD0, 0x01, 0x05, 0x02, 0x00]), 0)
    assert (e64.form, e64.opcode, e64.fields["sdst"]) == ("e64", "v_cmpx_eq_u32", 0)
    # the same SDWA compare with sd = 0 writes vcc (code 106)
    vcc = decode(bytes([0xF9, 0x04, 0x94, 0x7D, 0x01, 0x00, 0x05, 0x06]), 0)
    assert vcc.fields["sdst"] == 106


def test_cache_maintenance_is_mubuf_without_operands() -> None:
    wbl2 = decode(bytes([0x00, 0xC0, 0xA0, 0xE0, 0x00, 0x00, 0x00, 0x00]), 0)
    inv = decode(bytes([0x00, 0x80, 0xA4, 0xE0, 0x00, 0x00, 0x00, 0x00]), 0)
    assert (wbl2.opcode, wbl2.fields["sc0"], wbl2.fields["sc1"]) == ("buffer_wbl2", 1, 1)
    assert (inv.opcode, inv.fields["sc0"], inv.fields["sc1"]) == ("buffer_inv", 0, 1)
    assert disassemble(wbl2) == "buffer_wbl2 sc0 sc1" and disassemble(inv) == "buffer_inv sc1"


def test_decode_at_an_offset_and_decode_all() -> None:
    code = words(0xBF800000, 0x7E0202FF, 0x3F8E9A53, 0xBF810000)  # s_nop 0; v_mov_b32 v1, lit; s_endpgm
    insts = decode_all(code, 0, len(code))
    assert [(i.pc, i.size, i.opcode) for i in insts] == [(0, 4, "s_nop"), (4, 8, "v_mov_b32"), (12, 4, "s_endpgm")]
    assert decode(code, 4).literal == 0x3F8E9A53


# ---------------------------------------------------------------- errors

def test_unknown_opcode_names_pc_and_words() -> None:
    code = words(0xBF800000, (0x3F << 25) | (0x7F << 9))  # VOP1 opcode 127 does not exist
    with pytest.raises(DecodeError) as info:
        decode(code, 4)
    assert info.value.pc == 4 and info.value.words == (0x7E00FE00,)
    assert "pc 0x4" in str(info.value) and "7E00FE00" in str(info.value) and "VOP1 opcode 127" in str(info.value)


def test_encoding_gfx942_does_not_have() -> None:
    with pytest.raises(DecodeError, match=r"F0000000.*not a gfx942 encoding"):
        decode(words(0xF0000000, 0), 0)  # MIMG


def test_truncated_instruction() -> None:
    with pytest.raises(DecodeError, match="runs past the end of the code"):
        decode(words(0xDC508000), 0)  # GLOBAL needs two dwords
    with pytest.raises(DecodeError, match="runs past the end of the code"):
        decode(words(0x7E0202FF), 0)  # literal missing
    with pytest.raises(DecodeError, match="runs past the end of the code"):
        decode(b"\x00\x00", 0)


def test_decode_all_stops_at_the_end_it_was_given() -> None:
    code = words(0xBF800000, 0x7E0202FF, 0x3F8E9A53)
    with pytest.raises(DecodeError, match="runs past the end 0x8") as info:
        decode_all(code, 0, 8)
    assert info.value.pc == 4


def test_readfirstlane_into_code_255_is_rejected() -> None:
    with pytest.raises(DecodeError, match="not an SGPR"):
        decode(words((0x3F << 25) | (255 << 17) | (2 << 9) | 257, 0), 0)  # v_readfirstlane_b32 <255>, v1


def test_vop3_literal_is_rejected() -> None:
    with pytest.raises(DecodeError, match="VOP3 literal"):
        decode(words(0xD1C40003, 0x142DFEFF, 0x12345678), 0)  # v_cubeid_f32 with src0 = literal


# ---------------------------------------------------------------- opcode metadata

@pytest.mark.parametrize(("encoding", "op", "name", "dst", "srcs"), [
    ("VOP3", 0x28F, "v_lshlrev_b64", DType.B64, (DType.U32, DType.B64)),
    ("VOP3", 0x1E8, "v_mad_u64_u32", DType.U64, (DType.U32, DType.U32, DType.U64)),
    ("VOPC", 0x12, "v_cmp_class_f64", DType.B64, (DType.F64, DType.U32)),
    ("VOP3", 0x280, "v_add_f64", DType.F64, (DType.F64, DType.F64)),
    ("VOP1", 0x04, "v_cvt_f64_i32", DType.F64, (DType.I32,)),
    ("VOP2", 0x1F, "v_add_f16", DType.F16, (DType.F16, DType.F16)),
    ("VOP3P", 0x0F, "v_pk_add_f16", DType.V2F16, (DType.V2F16, DType.V2F16)),
    ("SOP2", 0x1D, "s_lshl_b64", DType.B64, (DType.B64, DType.U32)),
    ("SOPC", 0x13, "s_cmp_lg_u64", None, (DType.U64, DType.U64)),
    ("SMEM", 0x02, "s_load_dwordx4", DType.B128, ()),
    ("DS", 0x77, "ds_read2_b64", DType.B128, ()),
    ("DS", 0x0E, "ds_write2_b32", None, (DType.B32, DType.B32)),
    ("GLOBAL", 0x61, "global_atomic_cmpswap_x2", DType.B64, (DType.B128,)),
    ("FLAT", 0x14, "flat_load_dword", DType.B32, ()),
    ("VOP3P", 0x4C, "v_mfma_f32_32x32x8_f16", DType.B512, (DType.B64, DType.B64, DType.B512)),
    ("VOP3P", 0x6E, "v_mfma_f64_16x16x4_f64", DType.B256, (DType.B64, DType.B64, DType.B256)),
])
def test_operand_types(encoding: str, op: int, name: str, dst: DType | None, srcs: tuple[DType, ...]) -> None:
    info = opcodes.lookup(encoding, op)
    assert info is not None
    assert (info.name, info.dst, info.srcs) == (name, dst, srcs)


def test_promoted_vop3_forms_share_the_native_row() -> None:
    native, promoted = opcodes.lookup("VOP2", 0x01), opcodes.lookup("VOP3", 0x101)
    assert native is not None and promoted is not None
    assert (promoted.name, promoted.srcs) == (native.name, native.srcs) == ("v_add_f32", (DType.F32, DType.F32))
    assert opcodes.native_form(promoted) == "VOP2" and opcodes.native_form(native) is None
    assert opcodes.lookup("VOP3", 0x100 + 0x17) is None  # v_fmamk_f32 has no VOP3 form


# The opcodes LLVM 22 emitted for the 25 kernels of the launch-ABI note (§9), by base name.
ABI_NOTE_OPCODES = """
s_load_dword s_load_dwordx2 s_load_dwordx4 s_load_dwordx8 s_abs_i32 s_add_i32 s_add_u32 s_addc_u32 s_and_b32
s_and_b64 s_and_saveexec_b64 s_andn2_b64 s_andn2_saveexec_b64 s_ashr_i32 s_barrier s_bcnt1_i32_b64
s_bitset0_b64 s_branch s_brev_b32 s_cbranch_execnz s_cbranch_execz s_cbranch_scc1 s_cmp_eq_u32 s_cmp_lg_u64
s_cmp_lt_i32 s_cselect_b32 s_cselect_b64 s_endpgm s_ff1_i32_b64 s_getpc_b64 s_lshl_b64 s_max_i32 s_min_u32
s_mov_b32 s_mov_b64 s_movk_i32 s_mul_hi_u32 s_mul_i32 s_nop s_or_b64 s_setpc_b64 s_sub_i32 s_sub_u32
s_subb_u32 s_swappc_b64 s_waitcnt s_xor_b64 v_add3_u32 v_add_co_u32 v_add_f16 v_add_f32 v_add_f64 v_add_u32
v_addc_co_u32 v_alignbit_b32 v_and_b32 v_ashrrev_i32 v_ashrrev_i64 v_bcnt_u32_b32 v_bfe_i32 v_bfe_u32
v_bfi_b32 v_bfrev_b32 v_ceil_f32 v_cndmask_b32 v_cos_f32 v_cvt_f16_f32 v_cvt_f32_i32 v_cvt_f32_u32
v_cvt_f64_f32 v_cvt_f64_i32 v_cvt_i32_f32 v_cvt_i32_f64 v_cvt_u32_f32 v_div_fixup_f32 v_div_fixup_f64
v_div_fmas_f32 v_div_fmas_f64 v_div_scale_f32 v_div_scale_f64 v_exp_f32 v_ffbh_u32 v_ffbl_b32 v_floor_f32
v_floor_f64 v_fma_f32 v_fma_f64 v_fmac_f32 v_fmac_f64 v_fmamk_f32 v_ldexp_f32 v_ldexp_f64 v_log_f32
v_lshl_add_u32 v_lshl_add_u64 v_lshlrev_b32 v_lshlrev_b64 v_lshrrev_b64 v_mad_u64_u32 v_max_f32 v_max_i32
v_mbcnt_hi_u32_b32 v_mbcnt_lo_u32_b32 v_min_f32 v_min_i32 v_min_u32 v_mov_b32 v_mov_b64 v_mul_f16 v_mul_f32
v_mul_f64 v_mul_hi_u32 v_mul_lo_u32 v_not_b32 v_or_b32 v_pack_b32_f16 v_perm_b32 v_pk_add_f16 v_pk_mul_f16
v_rcp_f32 v_rcp_f64 v_rcp_iflag_f32 v_readfirstlane_b32 v_readlane_b32 v_rndne_f32 v_rsq_f32 v_rsq_f64
v_sin_f32 v_sqrt_f32 v_sub_co_u32 v_sub_f32 v_sub_u32 v_subb_co_u32 v_subbrev_co_u32 v_subrev_co_u32
v_subrev_u32 v_trunc_f32 v_xad_u32 v_xor_b32 v_cmp_eq_u32 v_cmp_ne_u32 v_cmp_gt_i32 v_cmp_ge_u64
v_cmp_lt_f32 v_cmp_le_f64 v_cmp_o_f32 v_cmp_class_f32 v_cmp_class_f64 ds_read_b32 ds_read2_b32
ds_read2st64_b32 ds_write_b32 ds_bpermute_b32 ds_swizzle_b32 ds_add_rtn_u32 ds_add_f32 ds_cmpst_b32
global_load_dword global_load_dwordx2 global_load_dwordx4 global_load_sbyte global_load_ushort
global_store_dword global_store_dwordx2 global_store_byte global_store_short global_atomic_add
global_atomic_add_x2 global_atomic_add_f32 global_atomic_smax global_atomic_cmpswap global_atomic_swap
scratch_load_dword scratch_store_dword flat_load_dword buffer_wbl2 buffer_inv
""".split()


def test_table_covers_the_opcodes_llvm_emits() -> None:
    names = {info.name for info in opcodes.all_opcodes()}
    assert not [name for name in ABI_NOTE_OPCODES if name not in names]
    assert len(names) >= 250


# ---------------------------------------------------------------- robustness

def test_arbitrary_words_decode_or_raise_decode_error() -> None:
    """Any byte sequence either decodes (and then disassembles without error) or raises DecodeError:
    never another exception.  Words are random with each encoding's prefix forced in turn."""
    import random

    rng = random.Random(7)
    # (fixed top bits, how many): VOP2, VOP1, VOPC, SOP2, SOPK, SOP1, SOPC, SOPP, SMEM, VOP3, VOP3P, DS,
    # FLAT, MUBUF, and the MTBUF/MIMG encodings gfx942 code never contains.
    prefixes = [(0, 1), (0x3F << 25, 7), (0x3E << 25, 7), (0b10 << 30, 2), (0b1011 << 28, 4), (0x17D << 23, 9),
                (0x17E << 23, 9), (0x17F << 23, 9), (0b110000 << 26, 6), (0b110100 << 26, 6), (0x1A7 << 23, 9),
                (0b110110 << 26, 6), (0b110111 << 26, 6), (0b111000 << 26, 6), (0b111010 << 26, 6),
                (0b111100 << 26, 6)]
    decoded = 0
    for _ in range(20000):
        prefix, fixed = rng.choice(prefixes)
        word0 = prefix | (rng.getrandbits(32) & ((1 << (32 - fixed)) - 1))
        code = words(word0, rng.getrandbits(32), rng.getrandbits(32))[: rng.choice((4, 8, 12))]
        try:
            inst = decode(code, 0)
        except DecodeError as error:
            assert error.pc == 0 and error.why
            continue
        decoded += 1
        assert inst.size <= len(code)
        assert disassemble(inst).startswith(inst.opcode)
    assert decoded > 5000


def test_decode_error_pickles() -> None:
    import pickle

    error = DecodeError(8, (0xDEADBEEF,), "why")
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.pc, copy.words, copy.why, str(copy)) == (8, (0xDEADBEEF,), "why", str(error))
