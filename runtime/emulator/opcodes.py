"""gfx942 opcode tables and per-opcode operand metadata.

Invariant: one row per (encoding, opcode number) names the instruction exactly as LLVM 22 spells it
for gfx942 (without the ``_e32``/``_e64``/``_dpp``/``_sdwa`` form suffix); every other fact about an
opcode (data types and widths of its destination and sources, VOP3b carry-out, MFMA) is derived from
that name by the rules in ``_signature`` plus the explicit ``_OVERRIDES`` table, so one edit changes
one instruction everywhere.  ``lookup(encoding, op)`` returns the ``OpInfo`` or ``None``.

The rows were produced by running every opcode number of every encoding through LLVM 22's gfx942
disassembler once, offline; ``tests/emu/test_decoder_llvm.py`` re-checks every row, its operand
register widths (through the printed register ranges) and its text against llvm-objdump and
llvm-mc.  MFMA/SMFMAC operand widths follow from the shape in the name (``_mfma_signature``).
VOP3 rows hold only VOP3-only opcodes; the promoted VOPC/VOP2/VOP1 forms live at 0x000+op,
0x100+op and 0x140+op of the VOP3 space and reuse the native row (``NO_VOP3_FORM`` lists the
native opcodes that have no promoted form).  A VOP3 row is written ``name/N`` with N its number of
sources.

``DType`` is the data type of one operand: its width in bits (16, 32, 64; 96... for memory and
SMEM data), whether it is a float (so that float inline constants and 64-bit literal expansion follow
``operands.inline_constant_bits``/``literal_bits``) and whether it is signed.  Packed types (``V2F16``,
``V2I16``, ``V2F32``...) are ``packed``.  For VOP instructions ``OpInfo.srcs`` lists src0, src1, src2
in encoding order; for SALU ssrc0, ssrc1; for memory instructions the data operand(s) (DS data0,
data1; FLAT/GLOBAL/SCRATCH/MUBUF/SMEM vdata or sdata) and ``dst`` the returned data (``None`` for
stores and non-returning forms; atomics return only when ``sc0``/``glc`` is set).  Types of 16-bit
and fp8 operands follow LLVM's operand classes where the ISA is ambiguous (noted in ``_OVERRIDES``).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from functools import cache


class DType(enum.Enum):
    """Operand data type: (name, bits, kind) with kind one of "int", "uint", "bits", "float", "packed"."""

    B16 = ("b16", 16, "bits")
    I16 = ("i16", 16, "int")
    U16 = ("u16", 16, "uint")
    F16 = ("f16", 16, "float")
    BF16 = ("bf16", 16, "float")
    B32 = ("b32", 32, "bits")
    I32 = ("i32", 32, "int")
    U32 = ("u32", 32, "uint")
    F32 = ("f32", 32, "float")
    V2F16 = ("v2f16", 32, "packed")
    V2BF16 = ("v2bf16", 32, "packed")
    V2I16 = ("v2i16", 32, "packed")
    V2U16 = ("v2u16", 32, "packed")
    B64 = ("b64", 64, "bits")
    I64 = ("i64", 64, "int")
    U64 = ("u64", 64, "uint")
    F64 = ("f64", 64, "float")
    V2F32 = ("v2f32", 64, "packed")
    B96 = ("b96", 96, "bits")
    B128 = ("b128", 128, "bits")
    B256 = ("b256", 256, "bits")
    B512 = ("b512", 512, "bits")
    B1024 = ("b1024", 1024, "bits")
    V2B32 = ("v2b32", 64, "packed")

    @property
    def bits(self) -> int:
        return self.value[1]

    @property
    def is_float(self) -> bool:
        return self.value[2] == "float"

    @property
    def is_packed(self) -> bool:
        """Two lanes in one operand (``V2F16``, ``V2I16``, ``V2F32``...)."""
        return self.value[2] == "packed"

    @property
    def is_signed(self) -> bool:
        return self.value[2] == "int"

    @property
    def dwords(self) -> int:
        """Registers it occupies (16-bit types use one 32-bit register)."""
        return max(1, self.bits // 32)


@dataclass(frozen=True, slots=True)
class OpInfo:
    """Static facts about one opcode of one encoding."""

    name: str
    encoding: str
    op: int
    dst: DType | None
    srcs: tuple[DType, ...]
    vop3b: bool = False
    """VOP3 form carries an SGPR destination (carry-out / div_scale flag) in ``sdst``."""
    mai: bool = False
    """MFMA / ``v_accvgpr_*``: VOP3P-MAI modifier fields (cbsz, abid, blgp, acc)."""
    promoted_from: str | None = None
    """For a VOP3 row that is the ``_e64`` form of a VOPC/VOP2/VOP1 opcode: that encoding."""


def _table(text: str) -> dict[int, str]:
    tokens = text.split()
    return {int(tokens[i], 16): tokens[i + 1] for i in range(0, len(tokens), 2)}


SOP2_NAMES = _table("""
000 s_add_u32          001 s_sub_u32          002 s_add_i32          003 s_sub_i32
004 s_addc_u32         005 s_subb_u32         006 s_min_i32          007 s_min_u32
008 s_max_i32          009 s_max_u32          00a s_cselect_b32      00b s_cselect_b64
00c s_and_b32          00d s_and_b64          00e s_or_b32           00f s_or_b64
010 s_xor_b32          011 s_xor_b64          012 s_andn2_b32        013 s_andn2_b64
014 s_orn2_b32         015 s_orn2_b64         016 s_nand_b32         017 s_nand_b64
018 s_nor_b32          019 s_nor_b64          01a s_xnor_b32         01b s_xnor_b64
01c s_lshl_b32         01d s_lshl_b64         01e s_lshr_b32         01f s_lshr_b64
020 s_ashr_i32         021 s_ashr_i64         022 s_bfm_b32          023 s_bfm_b64
024 s_mul_i32          025 s_bfe_u32          026 s_bfe_i32          027 s_bfe_u64
028 s_bfe_i64          029 s_cbranch_g_fork   02a s_absdiff_i32      02b s_rfe_restore_b64
02c s_mul_hi_u32       02d s_mul_hi_i32       02e s_lshl1_add_u32    02f s_lshl2_add_u32
030 s_lshl3_add_u32    031 s_lshl4_add_u32    032 s_pack_ll_b32_b16  033 s_pack_lh_b32_b16
034 s_pack_hh_b32_b16
""")
SOPK_NAMES = _table("""
000 s_movk_i32          001 s_cmovk_i32         002 s_cmpk_eq_i32       003 s_cmpk_lg_i32
004 s_cmpk_gt_i32       005 s_cmpk_ge_i32       006 s_cmpk_lt_i32       007 s_cmpk_le_i32
008 s_cmpk_eq_u32       009 s_cmpk_lg_u32       00a s_cmpk_gt_u32       00b s_cmpk_ge_u32
00c s_cmpk_lt_u32       00d s_cmpk_le_u32       00e s_addk_i32          00f s_mulk_i32
010 s_cbranch_i_fork    011 s_getreg_b32        012 s_setreg_b32        014 s_setreg_imm32_b32
015 s_call_b64
""")
SOP1_NAMES = _table("""
000 s_mov_b32               001 s_mov_b64               002 s_cmov_b32
003 s_cmov_b64              004 s_not_b32               005 s_not_b64
006 s_wqm_b32               007 s_wqm_b64               008 s_brev_b32
009 s_brev_b64              00a s_bcnt0_i32_b32         00b s_bcnt0_i32_b64
00c s_bcnt1_i32_b32         00d s_bcnt1_i32_b64         00e s_ff0_i32_b32
00f s_ff0_i32_b64           010 s_ff1_i32_b32           011 s_ff1_i32_b64
012 s_flbit_i32_b32         013 s_flbit_i32_b64         014 s_flbit_i32
015 s_flbit_i32_i64         016 s_sext_i32_i8           017 s_sext_i32_i16
018 s_bitset0_b32           019 s_bitset0_b64           01a s_bitset1_b32
01b s_bitset1_b64           01c s_getpc_b64             01d s_setpc_b64
01e s_swappc_b64            01f s_rfe_b64               020 s_and_saveexec_b64
021 s_or_saveexec_b64       022 s_xor_saveexec_b64      023 s_andn2_saveexec_b64
024 s_orn2_saveexec_b64     025 s_nand_saveexec_b64     026 s_nor_saveexec_b64
027 s_xnor_saveexec_b64     028 s_quadmask_b32          029 s_quadmask_b64
02a s_movrels_b32           02b s_movrels_b64           02c s_movreld_b32
02d s_movreld_b64           02e s_cbranch_join          030 s_abs_i32
032 s_set_gpr_idx_idx       033 s_andn1_saveexec_b64    034 s_orn1_saveexec_b64
035 s_andn1_wrexec_b64      036 s_andn2_wrexec_b64      037 s_bitreplicate_b64_b32
""")
SOPC_NAMES = _table("""
000 s_cmp_eq_i32      001 s_cmp_lg_i32      002 s_cmp_gt_i32      003 s_cmp_ge_i32
004 s_cmp_lt_i32      005 s_cmp_le_i32      006 s_cmp_eq_u32      007 s_cmp_lg_u32
008 s_cmp_gt_u32      009 s_cmp_ge_u32      00a s_cmp_lt_u32      00b s_cmp_le_u32
00c s_bitcmp0_b32     00d s_bitcmp1_b32     00e s_bitcmp0_b64     00f s_bitcmp1_b64
010 s_setvskip        011 s_set_gpr_idx_on  012 s_cmp_eq_u64      013 s_cmp_lg_u64
""")
SOPP_NAMES = _table("""
000 s_nop                       001 s_endpgm                    002 s_branch
003 s_wakeup                    004 s_cbranch_scc0              005 s_cbranch_scc1
006 s_cbranch_vccz              007 s_cbranch_vccnz             008 s_cbranch_execz
009 s_cbranch_execnz            00a s_barrier                   00b s_setkill
00c s_waitcnt                   00d s_sethalt                   00e s_sleep
00f s_setprio                   010 s_sendmsg                   011 s_sendmsghalt
012 s_trap                      013 s_icache_inv                014 s_incperflevel
015 s_decperflevel              016 s_ttracedata                017 s_cbranch_cdbgsys
018 s_cbranch_cdbguser          019 s_cbranch_cdbgsys_or_user   01a s_cbranch_cdbgsys_and_user
01b s_endpgm_saved              01c s_set_gpr_idx_off           01d s_set_gpr_idx_mode
01e s_endpgm_ordered_ps_done
""")
SMEM_NAMES = _table("""
000 s_load_dword                001 s_load_dwordx2              002 s_load_dwordx4
003 s_load_dwordx8              004 s_load_dwordx16             005 s_scratch_load_dword
006 s_scratch_load_dwordx2      007 s_scratch_load_dwordx4      008 s_buffer_load_dword
009 s_buffer_load_dwordx2       00a s_buffer_load_dwordx4       00b s_buffer_load_dwordx8
00c s_buffer_load_dwordx16      010 s_store_dword               011 s_store_dwordx2
012 s_store_dwordx4             015 s_scratch_store_dword       016 s_scratch_store_dwordx2
017 s_scratch_store_dwordx4     018 s_buffer_store_dword        019 s_buffer_store_dwordx2
01a s_buffer_store_dwordx4      020 s_dcache_inv                021 s_dcache_wb
022 s_dcache_inv_vol            023 s_dcache_wb_vol             024 s_memtime
025 s_memrealtime               026 s_atc_probe                 027 s_atc_probe_buffer
028 s_dcache_discard            029 s_dcache_discard_x2         040 s_buffer_atomic_swap
041 s_buffer_atomic_cmpswap     042 s_buffer_atomic_add         043 s_buffer_atomic_sub
044 s_buffer_atomic_smin        045 s_buffer_atomic_umin        046 s_buffer_atomic_smax
047 s_buffer_atomic_umax        048 s_buffer_atomic_and         049 s_buffer_atomic_or
04a s_buffer_atomic_xor         04b s_buffer_atomic_inc         04c s_buffer_atomic_dec
060 s_buffer_atomic_swap_x2     061 s_buffer_atomic_cmpswap_x2  062 s_buffer_atomic_add_x2
063 s_buffer_atomic_sub_x2      064 s_buffer_atomic_smin_x2     065 s_buffer_atomic_umin_x2
066 s_buffer_atomic_smax_x2     067 s_buffer_atomic_umax_x2     068 s_buffer_atomic_and_x2
069 s_buffer_atomic_or_x2       06a s_buffer_atomic_xor_x2      06b s_buffer_atomic_inc_x2
06c s_buffer_atomic_dec_x2      080 s_atomic_swap               081 s_atomic_cmpswap
082 s_atomic_add                083 s_atomic_sub                084 s_atomic_smin
085 s_atomic_umin               086 s_atomic_smax               087 s_atomic_umax
088 s_atomic_and                089 s_atomic_or                 08a s_atomic_xor
08b s_atomic_inc                08c s_atomic_dec                0a0 s_atomic_swap_x2
0a1 s_atomic_cmpswap_x2         0a2 s_atomic_add_x2             0a3 s_atomic_sub_x2
0a4 s_atomic_smin_x2            0a5 s_atomic_umin_x2            0a6 s_atomic_smax_x2
0a7 s_atomic_umax_x2            0a8 s_atomic_and_x2             0a9 s_atomic_or_x2
0aa s_atomic_xor_x2             0ab s_atomic_inc_x2             0ac s_atomic_dec_x2
""")
VOP2_NAMES = _table("""
000 v_cndmask_b32     001 v_add_f32         002 v_sub_f32         003 v_subrev_f32
004 v_fmac_f64        005 v_mul_f32         006 v_mul_i32_i24     007 v_mul_hi_i32_i24
008 v_mul_u32_u24     009 v_mul_hi_u32_u24  00a v_min_f32         00b v_max_f32
00c v_min_i32         00d v_max_i32         00e v_min_u32         00f v_max_u32
010 v_lshrrev_b32     011 v_ashrrev_i32     012 v_lshlrev_b32     013 v_and_b32
014 v_or_b32          015 v_xor_b32         017 v_fmamk_f32       018 v_fmaak_f32
019 v_add_co_u32      01a v_sub_co_u32      01b v_subrev_co_u32   01c v_addc_co_u32
01d v_subb_co_u32     01e v_subbrev_co_u32  01f v_add_f16         020 v_sub_f16
021 v_subrev_f16      022 v_mul_f16         023 v_mac_f16         024 v_madmk_f16
025 v_madak_f16       026 v_add_u16         027 v_sub_u16         028 v_subrev_u16
029 v_mul_lo_u16      02a v_lshlrev_b16     02b v_lshrrev_b16     02c v_ashrrev_i16
02d v_max_f16         02e v_min_f16         02f v_max_u16         030 v_max_i16
031 v_min_u16         032 v_min_i16         033 v_ldexp_f16       034 v_add_u32
035 v_sub_u32         036 v_subrev_u32      037 v_dot2c_f32_f16   038 v_dot2c_i32_i16
039 v_dot4c_i32_i8    03a v_dot8c_i32_i4    03b v_fmac_f32        03c v_pk_fmac_f16
03d v_xnor_b32
""")
VOP1_NAMES = _table("""
000 v_nop                       001 v_mov_b32                   002 v_readfirstlane_b32
003 v_cvt_i32_f64               004 v_cvt_f64_i32               005 v_cvt_f32_i32
006 v_cvt_f32_u32               007 v_cvt_u32_f32               008 v_cvt_i32_f32
00a v_cvt_f16_f32               00b v_cvt_f32_f16               00c v_cvt_rpi_i32_f32
00d v_cvt_flr_i32_f32           00e v_cvt_off_f32_i4            00f v_cvt_f32_f64
010 v_cvt_f64_f32               011 v_cvt_f32_ubyte0            012 v_cvt_f32_ubyte1
013 v_cvt_f32_ubyte2            014 v_cvt_f32_ubyte3            015 v_cvt_u32_f64
016 v_cvt_f64_u32               017 v_trunc_f64                 018 v_ceil_f64
019 v_rndne_f64                 01a v_floor_f64                 01b v_fract_f32
01c v_trunc_f32                 01d v_ceil_f32                  01e v_rndne_f32
01f v_floor_f32                 020 v_exp_f32                   021 v_log_f32
022 v_rcp_f32                   023 v_rcp_iflag_f32             024 v_rsq_f32
025 v_rcp_f64                   026 v_rsq_f64                   027 v_sqrt_f32
028 v_sqrt_f64                  029 v_sin_f32                   02a v_cos_f32
02b v_not_b32                   02c v_bfrev_b32                 02d v_ffbh_u32
02e v_ffbl_b32                  02f v_ffbh_i32                  030 v_frexp_exp_i32_f64
031 v_frexp_mant_f64            032 v_fract_f64                 033 v_frexp_exp_i32_f32
034 v_frexp_mant_f32            035 v_clrexcp                   037 v_screen_partition_4se_b32
038 v_mov_b64                   039 v_cvt_f16_u16               03a v_cvt_f16_i16
03b v_cvt_u16_f16               03c v_cvt_i16_f16               03d v_rcp_f16
03e v_sqrt_f16                  03f v_rsq_f16                   040 v_log_f16
041 v_exp_f16                   042 v_frexp_mant_f16            043 v_frexp_exp_i16_f16
044 v_floor_f16                 045 v_ceil_f16                  046 v_trunc_f16
047 v_rndne_f16                 048 v_fract_f16                 049 v_sin_f16
04a v_cos_f16                   04b v_exp_legacy_f32            04c v_log_legacy_f32
04d v_cvt_norm_i16_f16          04e v_cvt_norm_u16_f16          04f v_sat_pk_u8_i16
051 v_swap_b32                  052 v_accvgpr_mov_b32           054 v_cvt_f32_fp8
055 v_cvt_f32_bf8               056 v_cvt_pk_f32_fp8            057 v_cvt_pk_f32_bf8
""")
VOPC_NAMES = _table("""
010 v_cmp_class_f32   011 v_cmpx_class_f32  012 v_cmp_class_f64   013 v_cmpx_class_f64
014 v_cmp_class_f16   015 v_cmpx_class_f16  020 v_cmp_f_f16       021 v_cmp_lt_f16
022 v_cmp_eq_f16      023 v_cmp_le_f16      024 v_cmp_gt_f16      025 v_cmp_lg_f16
026 v_cmp_ge_f16      027 v_cmp_o_f16       028 v_cmp_u_f16       029 v_cmp_nge_f16
02a v_cmp_nlg_f16     02b v_cmp_ngt_f16     02c v_cmp_nle_f16     02d v_cmp_neq_f16
02e v_cmp_nlt_f16     02f v_cmp_tru_f16     030 v_cmpx_f_f16      031 v_cmpx_lt_f16
032 v_cmpx_eq_f16     033 v_cmpx_le_f16     034 v_cmpx_gt_f16     035 v_cmpx_lg_f16
036 v_cmpx_ge_f16     037 v_cmpx_o_f16      038 v_cmpx_u_f16      039 v_cmpx_nge_f16
03a v_cmpx_nlg_f16    03b v_cmpx_ngt_f16    03c v_cmpx_nle_f16    03d v_cmpx_neq_f16
03e v_cmpx_nlt_f16    03f v_cmpx_tru_f16    040 v_cmp_f_f32       041 v_cmp_lt_f32
042 v_cmp_eq_f32      043 v_cmp_le_f32      044 v_cmp_gt_f32      045 v_cmp_lg_f32
046 v_cmp_ge_f32      047 v_cmp_o_f32       048 v_cmp_u_f32       049 v_cmp_nge_f32
04a v_cmp_nlg_f32     04b v_cmp_ngt_f32     04c v_cmp_nle_f32     04d v_cmp_neq_f32
04e v_cmp_nlt_f32     04f v_cmp_tru_f32     050 v_cmpx_f_f32      051 v_cmpx_lt_f32
052 v_cmpx_eq_f32     053 v_cmpx_le_f32     054 v_cmpx_gt_f32     055 v_cmpx_lg_f32
056 v_cmpx_ge_f32     057 v_cmpx_o_f32      058 v_cmpx_u_f32      059 v_cmpx_nge_f32
05a v_cmpx_nlg_f32    05b v_cmpx_ngt_f32    05c v_cmpx_nle_f32    05d v_cmpx_neq_f32
05e v_cmpx_nlt_f32    05f v_cmpx_tru_f32    060 v_cmp_f_f64       061 v_cmp_lt_f64
062 v_cmp_eq_f64      063 v_cmp_le_f64      064 v_cmp_gt_f64      065 v_cmp_lg_f64
066 v_cmp_ge_f64      067 v_cmp_o_f64       068 v_cmp_u_f64       069 v_cmp_nge_f64
06a v_cmp_nlg_f64     06b v_cmp_ngt_f64     06c v_cmp_nle_f64     06d v_cmp_neq_f64
06e v_cmp_nlt_f64     06f v_cmp_tru_f64     070 v_cmpx_f_f64      071 v_cmpx_lt_f64
072 v_cmpx_eq_f64     073 v_cmpx_le_f64     074 v_cmpx_gt_f64     075 v_cmpx_lg_f64
076 v_cmpx_ge_f64     077 v_cmpx_o_f64      078 v_cmpx_u_f64      079 v_cmpx_nge_f64
07a v_cmpx_nlg_f64    07b v_cmpx_ngt_f64    07c v_cmpx_nle_f64    07d v_cmpx_neq_f64
07e v_cmpx_nlt_f64    07f v_cmpx_tru_f64    0a0 v_cmp_f_i16       0a1 v_cmp_lt_i16
0a2 v_cmp_eq_i16      0a3 v_cmp_le_i16      0a4 v_cmp_gt_i16      0a5 v_cmp_ne_i16
0a6 v_cmp_ge_i16      0a7 v_cmp_t_i16       0a8 v_cmp_f_u16       0a9 v_cmp_lt_u16
0aa v_cmp_eq_u16      0ab v_cmp_le_u16      0ac v_cmp_gt_u16      0ad v_cmp_ne_u16
0ae v_cmp_ge_u16      0af v_cmp_t_u16       0b0 v_cmpx_f_i16      0b1 v_cmpx_lt_i16
0b2 v_cmpx_eq_i16     0b3 v_cmpx_le_i16     0b4 v_cmpx_gt_i16     0b5 v_cmpx_ne_i16
0b6 v_cmpx_ge_i16     0b7 v_cmpx_t_i16      0b8 v_cmpx_f_u16      0b9 v_cmpx_lt_u16
0ba v_cmpx_eq_u16     0bb v_cmpx_le_u16     0bc v_cmpx_gt_u16     0bd v_cmpx_ne_u16
0be v_cmpx_ge_u16     0bf v_cmpx_t_u16      0c0 v_cmp_f_i32       0c1 v_cmp_lt_i32
0c2 v_cmp_eq_i32      0c3 v_cmp_le_i32      0c4 v_cmp_gt_i32      0c5 v_cmp_ne_i32
0c6 v_cmp_ge_i32      0c7 v_cmp_t_i32       0c8 v_cmp_f_u32       0c9 v_cmp_lt_u32
0ca v_cmp_eq_u32      0cb v_cmp_le_u32      0cc v_cmp_gt_u32      0cd v_cmp_ne_u32
0ce v_cmp_ge_u32      0cf v_cmp_t_u32       0d0 v_cmpx_f_i32      0d1 v_cmpx_lt_i32
0d2 v_cmpx_eq_i32     0d3 v_cmpx_le_i32     0d4 v_cmpx_gt_i32     0d5 v_cmpx_ne_i32
0d6 v_cmpx_ge_i32     0d7 v_cmpx_t_i32      0d8 v_cmpx_f_u32      0d9 v_cmpx_lt_u32
0da v_cmpx_eq_u32     0db v_cmpx_le_u32     0dc v_cmpx_gt_u32     0dd v_cmpx_ne_u32
0de v_cmpx_ge_u32     0df v_cmpx_t_u32      0e0 v_cmp_f_i64       0e1 v_cmp_lt_i64
0e2 v_cmp_eq_i64      0e3 v_cmp_le_i64      0e4 v_cmp_gt_i64      0e5 v_cmp_ne_i64
0e6 v_cmp_ge_i64      0e7 v_cmp_t_i64       0e8 v_cmp_f_u64       0e9 v_cmp_lt_u64
0ea v_cmp_eq_u64      0eb v_cmp_le_u64      0ec v_cmp_gt_u64      0ed v_cmp_ne_u64
0ee v_cmp_ge_u64      0ef v_cmp_t_u64       0f0 v_cmpx_f_i64      0f1 v_cmpx_lt_i64
0f2 v_cmpx_eq_i64     0f3 v_cmpx_le_i64     0f4 v_cmpx_gt_i64     0f5 v_cmpx_ne_i64
0f6 v_cmpx_ge_i64     0f7 v_cmpx_t_i64      0f8 v_cmpx_f_u64      0f9 v_cmpx_lt_u64
0fa v_cmpx_eq_u64     0fb v_cmpx_le_u64     0fc v_cmpx_gt_u64     0fd v_cmpx_ne_u64
0fe v_cmpx_ge_u64     0ff v_cmpx_t_u64
""")
VOP3_NAMES = _table("""
1c2 v_mad_i32_i24/3           1c3 v_mad_u32_u24/3           1c4 v_cubeid_f32/3
1c5 v_cubesc_f32/3            1c6 v_cubetc_f32/3            1c7 v_cubema_f32/3
1c8 v_bfe_u32/3               1c9 v_bfe_i32/3               1ca v_bfi_b32/3
1cb v_fma_f32/3               1cc v_fma_f64/3               1cd v_lerp_u8/3
1ce v_alignbit_b32/3          1cf v_alignbyte_b32/3         1d0 v_min3_f32/3
1d1 v_min3_i32/3              1d2 v_min3_u32/3              1d3 v_max3_f32/3
1d4 v_max3_i32/3              1d5 v_max3_u32/3              1d6 v_med3_f32/3
1d7 v_med3_i32/3              1d8 v_med3_u32/3              1d9 v_sad_u8/3
1da v_sad_hi_u8/3             1db v_sad_u16/3               1dc v_sad_u32/3
1dd v_cvt_pk_u8_f32/3         1de v_div_fixup_f32/3         1df v_div_fixup_f64/3
1e0 v_div_scale_f32/3         1e1 v_div_scale_f64/3         1e2 v_div_fmas_f32/3
1e3 v_div_fmas_f64/3          1e4 v_msad_u8/3               1e5 v_qsad_pk_u16_u8/3
1e6 v_mqsad_pk_u16_u8/3       1e7 v_mqsad_u32_u8/3          1e8 v_mad_u64_u32/3
1e9 v_mad_i64_i32/3           1ea v_mad_legacy_f16/3        1eb v_mad_legacy_u16/3
1ec v_mad_legacy_i16/3        1ed v_perm_b32/3              1ee v_fma_legacy_f16/3
1ef v_div_fixup_legacy_f16/3  1f0 v_cvt_pkaccum_u8_f32/2    1f1 v_mad_u32_u16/3
1f2 v_mad_i32_i16/3           1f3 v_xad_u32/3               1f4 v_min3_f16/3
1f5 v_min3_i16/3              1f6 v_min3_u16/3              1f7 v_max3_f16/3
1f8 v_max3_i16/3              1f9 v_max3_u16/3              1fa v_med3_f16/3
1fb v_med3_i16/3              1fc v_med3_u16/3              1fd v_lshl_add_u32/3
1fe v_add_lshl_u32/3          1ff v_add3_u32/3              200 v_lshl_or_b32/3
201 v_and_or_b32/3            202 v_or3_b32/3               203 v_mad_f16/3
204 v_mad_u16/3               205 v_mad_i16/3               206 v_fma_f16/3
207 v_div_fixup_f16/3         208 v_lshl_add_u64/3          280 v_add_f64/2
281 v_mul_f64/2               282 v_min_f64/2               283 v_max_f64/2
284 v_ldexp_f64/2             285 v_mul_lo_u32/2            286 v_mul_hi_u32/2
287 v_mul_hi_i32/2            288 v_ldexp_f32/2             289 v_readlane_b32/3
28a v_writelane_b32/4         28b v_bcnt_u32_b32/2          28c v_mbcnt_lo_u32_b32/2
28d v_mbcnt_hi_u32_b32/2      28f v_lshlrev_b64/2           290 v_lshrrev_b64/2
291 v_ashrrev_i64/2           292 v_trig_preop_f64/2        293 v_bfm_b32/2
294 v_cvt_pknorm_i16_f32/2    295 v_cvt_pknorm_u16_f32/2    296 v_cvt_pkrtz_f16_f32/2
297 v_cvt_pk_u16_u32/2        298 v_cvt_pk_i16_i32/2        299 v_cvt_pknorm_i16_f16/2
29a v_cvt_pknorm_u16_f16/2    29c v_add_i32/2               29d v_sub_i32/2
29e v_add_i16/2               29f v_sub_i16/2               2a0 v_pack_b32_f16/2
2a1 v_mul_legacy_f32/2        2a2 v_cvt_pk_fp8_f32/2        2a3 v_cvt_pk_bf8_f32/2
2a4 v_cvt_sr_fp8_f32/2        2a5 v_cvt_sr_bf8_f32/2
""")
VOP3P_NAMES = _table("""
000 v_pk_mad_i16                   001 v_pk_mul_lo_u16
002 v_pk_add_i16                   003 v_pk_sub_i16
004 v_pk_lshlrev_b16               005 v_pk_lshrrev_b16
006 v_pk_ashrrev_i16               007 v_pk_max_i16
008 v_pk_min_i16                   009 v_pk_mad_u16
00a v_pk_add_u16                   00b v_pk_sub_u16
00c v_pk_max_u16                   00d v_pk_min_u16
00e v_pk_fma_f16                   00f v_pk_add_f16
010 v_pk_mul_f16                   011 v_pk_min_f16
012 v_pk_max_f16                   020 v_fma_mix_f32
021 v_fma_mixlo_f16                022 v_fma_mixhi_f16
023 v_dot2_f32_f16                 026 v_dot2_i32_i16
027 v_dot2_u32_u16                 028 v_dot4_i32_i8
029 v_dot4_u32_u8                  02a v_dot8_i32_i4
02b v_dot8_u32_u4                  030 v_pk_fma_f32
031 v_pk_mul_f32                   032 v_pk_add_f32
033 v_pk_mov_b32                   03e v_mfma_f32_16x16x8_xf32
03f v_mfma_f32_32x32x4_xf32        040 v_mfma_f32_32x32x1_2b_f32
041 v_mfma_f32_16x16x1_4b_f32      042 v_mfma_f32_4x4x1_16b_f32
044 v_mfma_f32_32x32x2_f32         045 v_mfma_f32_16x16x4_f32
048 v_mfma_f32_32x32x4_2b_f16      049 v_mfma_f32_16x16x4_4b_f16
04a v_mfma_f32_4x4x4_16b_f16       04c v_mfma_f32_32x32x8_f16
04d v_mfma_f32_16x16x16_f16        050 v_mfma_i32_32x32x4_2b_i8
051 v_mfma_i32_16x16x4_4b_i8       052 v_mfma_i32_4x4x4_16b_i8
056 v_mfma_i32_32x32x16_i8         057 v_mfma_i32_16x16x32_i8
058 v_accvgpr_read_b32             059 v_accvgpr_write_b32
05d v_mfma_f32_32x32x4_2b_bf16     05e v_mfma_f32_16x16x4_4b_bf16
05f v_mfma_f32_4x4x4_16b_bf16      060 v_mfma_f32_32x32x8_bf16
061 v_mfma_f32_16x16x16_bf16       062 v_smfmac_f32_16x16x32_f16
064 v_smfmac_f32_32x32x16_f16      066 v_smfmac_f32_16x16x32_bf16
068 v_smfmac_f32_32x32x16_bf16     06a v_smfmac_i32_16x16x64_i8
06c v_smfmac_i32_32x32x32_i8       06e v_mfma_f64_16x16x4_f64
06f v_mfma_f64_4x4x4_4b_f64        070 v_mfma_f32_16x16x32_bf8_bf8
071 v_mfma_f32_16x16x32_bf8_fp8    072 v_mfma_f32_16x16x32_fp8_bf8
073 v_mfma_f32_16x16x32_fp8_fp8    074 v_mfma_f32_32x32x16_bf8_bf8
075 v_mfma_f32_32x32x16_bf8_fp8    076 v_mfma_f32_32x32x16_fp8_bf8
077 v_mfma_f32_32x32x16_fp8_fp8    078 v_smfmac_f32_16x16x64_bf8_bf8
079 v_smfmac_f32_16x16x64_bf8_fp8  07a v_smfmac_f32_16x16x64_fp8_bf8
07b v_smfmac_f32_16x16x64_fp8_fp8  07c v_smfmac_f32_32x32x32_bf8_bf8
07d v_smfmac_f32_32x32x32_bf8_fp8  07e v_smfmac_f32_32x32x32_fp8_bf8
07f v_smfmac_f32_32x32x32_fp8_fp8
""")
DS_NAMES = _table("""
000 ds_add_u32              001 ds_sub_u32              002 ds_rsub_u32
003 ds_inc_u32              004 ds_dec_u32              005 ds_min_i32
006 ds_max_i32              007 ds_min_u32              008 ds_max_u32
009 ds_and_b32              00a ds_or_b32               00b ds_xor_b32
00c ds_mskor_b32            00d ds_write_b32            00e ds_write2_b32
00f ds_write2st64_b32       010 ds_cmpst_b32            011 ds_cmpst_f32
012 ds_min_f32              013 ds_max_f32              014 ds_nop
015 ds_add_f32
017 ds_pk_add_f16           018 ds_pk_add_bf16          01d ds_write_addtid_b32
01e ds_write_b8             01f ds_write_b16            020 ds_add_rtn_u32
021 ds_sub_rtn_u32          022 ds_rsub_rtn_u32         023 ds_inc_rtn_u32
024 ds_dec_rtn_u32          025 ds_min_rtn_i32          026 ds_max_rtn_i32
027 ds_min_rtn_u32          028 ds_max_rtn_u32          029 ds_and_rtn_b32
02a ds_or_rtn_b32           02b ds_xor_rtn_b32          02c ds_mskor_rtn_b32
02d ds_wrxchg_rtn_b32       02e ds_wrxchg2_rtn_b32      02f ds_wrxchg2st64_rtn_b32
030 ds_cmpst_rtn_b32        031 ds_cmpst_rtn_f32        032 ds_min_rtn_f32
033 ds_max_rtn_f32          034 ds_wrap_rtn_b32         035 ds_add_rtn_f32
036 ds_read_b32             037 ds_read2_b32            038 ds_read2st64_b32
039 ds_read_i8              03a ds_read_u8              03b ds_read_i16
03c ds_read_u16             03d ds_swizzle_b32          03e ds_permute_b32
03f ds_bpermute_b32         040 ds_add_u64              041 ds_sub_u64
042 ds_rsub_u64             043 ds_inc_u64              044 ds_dec_u64
045 ds_min_i64              046 ds_max_i64              047 ds_min_u64
048 ds_max_u64              049 ds_and_b64              04a ds_or_b64
04b ds_xor_b64              04c ds_mskor_b64            04d ds_write_b64
04e ds_write2_b64           04f ds_write2st64_b64       050 ds_cmpst_b64
051 ds_cmpst_f64            052 ds_min_f64              053 ds_max_f64
054 ds_write_b8_d16_hi      055 ds_write_b16_d16_hi     056 ds_read_u8_d16
057 ds_read_u8_d16_hi       058 ds_read_i8_d16          059 ds_read_i8_d16_hi
05a ds_read_u16_d16         05b ds_read_u16_d16_hi      05c ds_add_f64
060 ds_add_rtn_u64          061 ds_sub_rtn_u64          062 ds_rsub_rtn_u64
063 ds_inc_rtn_u64          064 ds_dec_rtn_u64          065 ds_min_rtn_i64
066 ds_max_rtn_i64          067 ds_min_rtn_u64          068 ds_max_rtn_u64
069 ds_and_rtn_b64          06a ds_or_rtn_b64           06b ds_xor_rtn_b64
06c ds_mskor_rtn_b64        06d ds_wrxchg_rtn_b64       06e ds_wrxchg2_rtn_b64
06f ds_wrxchg2st64_rtn_b64  070 ds_cmpst_rtn_b64        071 ds_cmpst_rtn_f64
072 ds_min_rtn_f64          073 ds_max_rtn_f64          076 ds_read_b64
077 ds_read2_b64            078 ds_read2st64_b64        07c ds_add_rtn_f64
07e ds_condxchg32_rtn_b64   098 ds_gws_sema_release_all 099 ds_gws_init
09a ds_gws_sema_v           09b ds_gws_sema_br          09c ds_gws_sema_p
09d ds_gws_barrier          0b6 ds_read_addtid_b32      0b7 ds_pk_add_rtn_f16
0b8 ds_pk_add_rtn_bf16      0bd ds_consume              0be ds_append
0de ds_write_b96            0df ds_write_b128           0fe ds_read_b96
0ff ds_read_b128
""")
FLAT_NAMES = _table("""
010 flat_load_ubyte          011 flat_load_sbyte          012 flat_load_ushort
013 flat_load_sshort         014 flat_load_dword          015 flat_load_dwordx2
016 flat_load_dwordx3        017 flat_load_dwordx4        018 flat_store_byte
019 flat_store_byte_d16_hi   01a flat_store_short         01b flat_store_short_d16_hi
01c flat_store_dword         01d flat_store_dwordx2       01e flat_store_dwordx3
01f flat_store_dwordx4       020 flat_load_ubyte_d16      021 flat_load_ubyte_d16_hi
022 flat_load_sbyte_d16      023 flat_load_sbyte_d16_hi   024 flat_load_short_d16
025 flat_load_short_d16_hi   040 flat_atomic_swap         041 flat_atomic_cmpswap
042 flat_atomic_add          043 flat_atomic_sub          044 flat_atomic_smin
045 flat_atomic_umin         046 flat_atomic_smax         047 flat_atomic_umax
048 flat_atomic_and          049 flat_atomic_or           04a flat_atomic_xor
04b flat_atomic_inc          04c flat_atomic_dec          04d flat_atomic_add_f32
04e flat_atomic_pk_add_f16   04f flat_atomic_add_f64      050 flat_atomic_min_f64
051 flat_atomic_max_f64      052 flat_atomic_pk_add_bf16  060 flat_atomic_swap_x2
061 flat_atomic_cmpswap_x2   062 flat_atomic_add_x2       063 flat_atomic_sub_x2
064 flat_atomic_smin_x2      065 flat_atomic_umin_x2      066 flat_atomic_smax_x2
067 flat_atomic_umax_x2      068 flat_atomic_and_x2       069 flat_atomic_or_x2
06a flat_atomic_xor_x2       06b flat_atomic_inc_x2       06c flat_atomic_dec_x2
""")
SCRATCH_NAMES = _table("""
010 scratch_load_ubyte          011 scratch_load_sbyte          012 scratch_load_ushort
013 scratch_load_sshort         014 scratch_load_dword          015 scratch_load_dwordx2
016 scratch_load_dwordx3        017 scratch_load_dwordx4        018 scratch_store_byte
019 scratch_store_byte_d16_hi   01a scratch_store_short         01b scratch_store_short_d16_hi
01c scratch_store_dword         01d scratch_store_dwordx2       01e scratch_store_dwordx3
01f scratch_store_dwordx4       020 scratch_load_ubyte_d16      021 scratch_load_ubyte_d16_hi
022 scratch_load_sbyte_d16      023 scratch_load_sbyte_d16_hi   024 scratch_load_short_d16
025 scratch_load_short_d16_hi   026 scratch_load_lds_ubyte      027 scratch_load_lds_sbyte
028 scratch_load_lds_ushort     029 scratch_load_lds_sshort     02a scratch_load_lds_dword
""")
GLOBAL_NAMES = _table("""
010 global_load_ubyte          011 global_load_sbyte          012 global_load_ushort
013 global_load_sshort         014 global_load_dword          015 global_load_dwordx2
016 global_load_dwordx3        017 global_load_dwordx4        018 global_store_byte
019 global_store_byte_d16_hi   01a global_store_short         01b global_store_short_d16_hi
01c global_store_dword         01d global_store_dwordx2       01e global_store_dwordx3
01f global_store_dwordx4       020 global_load_ubyte_d16      021 global_load_ubyte_d16_hi
022 global_load_sbyte_d16      023 global_load_sbyte_d16_hi   024 global_load_short_d16
025 global_load_short_d16_hi   026 global_load_lds_ubyte      027 global_load_lds_sbyte
028 global_load_lds_ushort     029 global_load_lds_sshort     02a global_load_lds_dword
040 global_atomic_swap         041 global_atomic_cmpswap      042 global_atomic_add
043 global_atomic_sub          044 global_atomic_smin         045 global_atomic_umin
046 global_atomic_smax         047 global_atomic_umax         048 global_atomic_and
049 global_atomic_or           04a global_atomic_xor          04b global_atomic_inc
04c global_atomic_dec          04d global_atomic_add_f32      04e global_atomic_pk_add_f16
04f global_atomic_add_f64      050 global_atomic_min_f64      051 global_atomic_max_f64
052 global_atomic_pk_add_bf16  060 global_atomic_swap_x2      061 global_atomic_cmpswap_x2
062 global_atomic_add_x2       063 global_atomic_sub_x2       064 global_atomic_smin_x2
065 global_atomic_umin_x2      066 global_atomic_smax_x2      067 global_atomic_umax_x2
068 global_atomic_and_x2       069 global_atomic_or_x2        06a global_atomic_xor_x2
06b global_atomic_inc_x2       06c global_atomic_dec_x2
""")
MUBUF_NAMES = _table("""
000 buffer_load_format_x          001 buffer_load_format_xy         002 buffer_load_format_xyz
003 buffer_load_format_xyzw       004 buffer_store_format_x         005 buffer_store_format_xy
006 buffer_store_format_xyz       007 buffer_store_format_xyzw      008 buffer_load_format_d16_x
009 buffer_load_format_d16_xy     00a buffer_load_format_d16_xyz    00b buffer_load_format_d16_xyzw
00c buffer_store_format_d16_x     00d buffer_store_format_d16_xy    00e buffer_store_format_d16_xyz
00f buffer_store_format_d16_xyzw  010 buffer_load_ubyte             011 buffer_load_sbyte
012 buffer_load_ushort            013 buffer_load_sshort            014 buffer_load_dword
015 buffer_load_dwordx2           016 buffer_load_dwordx3           017 buffer_load_dwordx4
018 buffer_store_byte             019 buffer_store_byte_d16_hi      01a buffer_store_short
01b buffer_store_short_d16_hi     01c buffer_store_dword            01d buffer_store_dwordx2
01e buffer_store_dwordx3          01f buffer_store_dwordx4          020 buffer_load_ubyte_d16
021 buffer_load_ubyte_d16_hi      022 buffer_load_sbyte_d16         023 buffer_load_sbyte_d16_hi
024 buffer_load_short_d16         025 buffer_load_short_d16_hi      026 buffer_load_format_d16_hi_x
027 buffer_store_format_d16_hi_x  028 buffer_wbl2                   029 buffer_inv
040 buffer_atomic_swap            041 buffer_atomic_cmpswap         042 buffer_atomic_add
043 buffer_atomic_sub             044 buffer_atomic_smin            045 buffer_atomic_umin
046 buffer_atomic_smax            047 buffer_atomic_umax            048 buffer_atomic_and
049 buffer_atomic_or              04a buffer_atomic_xor             04b buffer_atomic_inc
04c buffer_atomic_dec             04d buffer_atomic_add_f32         04e buffer_atomic_pk_add_f16
04f buffer_atomic_add_f64         050 buffer_atomic_min_f64         051 buffer_atomic_max_f64
060 buffer_atomic_swap_x2         061 buffer_atomic_cmpswap_x2      062 buffer_atomic_add_x2
063 buffer_atomic_sub_x2          064 buffer_atomic_smin_x2         065 buffer_atomic_umin_x2
066 buffer_atomic_smax_x2         067 buffer_atomic_umax_x2         068 buffer_atomic_and_x2
069 buffer_atomic_or_x2           06a buffer_atomic_xor_x2          06b buffer_atomic_inc_x2
06c buffer_atomic_dec_x2
""")

# Native VOP1/VOP2 opcodes that have no VOP3 (``_e64``) form.
NO_VOP3_FORM: frozenset[str] = frozenset({
    "v_fmamk_f32", "v_fmaak_f32", "v_madmk_f16", "v_madak_f16", "v_swap_b32", "v_accvgpr_mov_b32",
    "v_readfirstlane_b32"})
VOP3_CARRY_OUT: frozenset[str] = frozenset({
    "v_add_co_u32", "v_sub_co_u32", "v_subrev_co_u32", "v_addc_co_u32", "v_subb_co_u32",
    "v_subbrev_co_u32", "v_div_scale_f32", "v_div_scale_f64", "v_mad_u64_u32", "v_mad_i64_i32"})
VOP3_PROMOTED_BASE: dict[str, int] = {"VOPC": 0x000, "VOP2": 0x100, "VOP1": 0x140}

_D = DType
_TYPE_TOKENS: dict[str, DType] = {
    "b16": _D.B16, "i16": _D.I16, "u16": _D.U16, "f16": _D.F16, "bf16": _D.BF16,
    "b32": _D.B32, "i32": _D.I32, "u32": _D.U32, "f32": _D.F32, "xf32": _D.F32,
    "b64": _D.B64, "i64": _D.I64, "u64": _D.U64, "f64": _D.F64,
    "i24": _D.I32, "u24": _D.U32, "i8": _D.I32, "u8": _D.U32, "i4": _D.I32, "u4": _D.U32,
    "fp8": _D.B32, "bf8": _D.B32,
}
_PACKED: dict[DType, DType] = {_D.F16: _D.V2F16, _D.BF16: _D.V2BF16, _D.I16: _D.V2I16, _D.U16: _D.V2U16,
                               _D.B16: _D.V2U16, _D.F32: _D.V2F32, _D.B32: _D.B64}
_BY_BITS: dict[int, DType] = {32: _D.B32, 64: _D.B64, 96: _D.B96, 128: _D.B128, 256: _D.B256, 512: _D.B512,
                              1024: _D.B1024}

# Exceptions to the name rule: name -> (dst, srcs).  Each is a documented operand of the CDNA3 ISA.
_OVERRIDES: dict[str, tuple[DType | None, tuple[DType, ...]]] = {
    "v_lshlrev_b64": (_D.B64, (_D.U32, _D.B64)),
    "v_lshrrev_b64": (_D.B64, (_D.U32, _D.B64)),
    "v_ashrrev_i64": (_D.I64, (_D.U32, _D.I64)),
    "v_ldexp_f64": (_D.F64, (_D.F64, _D.I32)),
    "v_ldexp_f32": (_D.F32, (_D.F32, _D.I32)),
    "v_ldexp_f16": (_D.F16, (_D.F16, _D.I32)),  # LLVM types the exponent as a 32-bit integer
    "v_trig_preop_f64": (_D.F64, (_D.F64, _D.U32)),
    "v_lshl_add_u64": (_D.U64, (_D.U64, _D.U32, _D.U64)),
    "v_mad_u64_u32": (_D.U64, (_D.U32, _D.U32, _D.U64)),
    "v_mad_i64_i32": (_D.I64, (_D.I32, _D.I32, _D.I64)),
    "v_qsad_pk_u16_u8": (_D.B64, (_D.B64, _D.U32, _D.B64)),
    "v_mqsad_pk_u16_u8": (_D.B64, (_D.B64, _D.U32, _D.B64)),
    "v_mqsad_u32_u8": (_D.B128, (_D.B64, _D.U32, _D.B128)),
    "v_readlane_b32": (_D.B32, (_D.B32, _D.U32)),
    "v_writelane_b32": (_D.B32, (_D.B32, _D.U32)),
    "v_cvt_pk_f32_fp8": (_D.V2F32, (_D.B32,)),
    "v_cvt_pk_f32_bf8": (_D.V2F32, (_D.B32,)),
    "v_pack_b32_f16": (_D.B32, (_D.F16, _D.F16)),
    "v_cvt_pkrtz_f16_f32": (_D.V2F16, (_D.F32, _D.F32)),
    "v_cvt_pknorm_i16_f32": (_D.V2I16, (_D.F32, _D.F32)),
    "v_cvt_pknorm_u16_f32": (_D.V2U16, (_D.F32, _D.F32)),
    "v_cvt_pknorm_i16_f16": (_D.V2I16, (_D.F16, _D.F16)),
    "v_cvt_pknorm_u16_f16": (_D.V2U16, (_D.F16, _D.F16)),
    "v_cvt_pk_u16_u32": (_D.V2U16, (_D.U32, _D.U32)),
    "v_cvt_pk_i16_i32": (_D.V2I16, (_D.I32, _D.I32)),
    "v_cvt_pk_u8_f32": (_D.B32, (_D.F32, _D.U32, _D.U32)),
    "v_cvt_pkaccum_u8_f32": (_D.B32, (_D.F32, _D.U32)),
    "v_cvt_pk_fp8_f32": (_D.B32, (_D.F32, _D.F32)),
    "v_cvt_pk_bf8_f32": (_D.B32, (_D.F32, _D.F32)),
    "v_cvt_sr_fp8_f32": (_D.B32, (_D.F32, _D.U32)),
    "v_cvt_sr_bf8_f32": (_D.B32, (_D.F32, _D.U32)),
    "v_cvt_f32_fp8": (_D.F32, (_D.B32,)),
    "v_cvt_f32_bf8": (_D.F32, (_D.B32,)),
    "v_sat_pk_u8_i16": (_D.B32, (_D.B32,)),  # two i16 in one dword; LLVM types it as i32
    "v_dot2_f32_f16": (_D.F32, (_D.V2F16, _D.V2F16, _D.F32)),
    "v_dot2_i32_i16": (_D.I32, (_D.V2I16, _D.V2I16, _D.I32)),
    "v_dot2_u32_u16": (_D.U32, (_D.V2U16, _D.V2U16, _D.U32)),
    "v_dot2c_f32_f16": (_D.F32, (_D.V2F16, _D.V2F16)),
    "v_dot2c_i32_i16": (_D.I32, (_D.V2I16, _D.V2I16)),
    "v_fma_mix_f32": (_D.F32, (_D.F32, _D.F32, _D.F32)),
    "v_fma_mixlo_f16": (_D.F16, (_D.F32, _D.F32, _D.F32)),
    "v_fma_mixhi_f16": (_D.F16, (_D.F32, _D.F32, _D.F32)),
    "v_pk_mov_b32": (_D.V2B32, (_D.V2B32, _D.V2B32)),
    "v_pk_fmac_f16": (_D.V2F16, (_D.V2F16, _D.V2F16)),
    "v_cvt_off_f32_i4": (_D.F32, (_D.U32,)),
    "v_sad_u16": (_D.U32, (_D.U32, _D.U32, _D.U32)),  # LLVM: VOP_I32_I32_I32 (32-bit constants)
    "v_mad_i32_i16": (_D.I32, (_D.I16, _D.I16, _D.I32)),
    "v_mad_u32_u16": (_D.U32, (_D.U16, _D.U16, _D.U32)),
    "v_nop": (None, ()),
    "v_clrexcp": (None, ()),
    "s_lshl_b64": (_D.B64, (_D.B64, _D.U32)),
    "s_lshr_b64": (_D.B64, (_D.B64, _D.U32)),
    "s_ashr_i64": (_D.I64, (_D.I64, _D.U32)),
    "s_bfe_u64": (_D.U64, (_D.U64, _D.U32)),
    "s_bfe_i64": (_D.I64, (_D.I64, _D.U32)),
    "s_bfm_b64": (_D.B64, (_D.U32, _D.U32)),
    "s_bitset0_b64": (_D.B64, (_D.U32,)),
    "s_bitset1_b64": (_D.B64, (_D.U32,)),
    "s_bitreplicate_b64_b32": (_D.B64, (_D.B32,)),
    "s_bitcmp0_b64": (None, (_D.B64, _D.U32)),
    "s_bitcmp1_b64": (None, (_D.B64, _D.U32)),
    "s_rfe_restore_b64": (None, (_D.B64, _D.B32)),
    "s_cbranch_g_fork": (None, (_D.B64, _D.B64)),
    "s_getpc_b64": (_D.B64, ()),
    "s_setpc_b64": (None, (_D.B64,)),
    "s_rfe_b64": (None, (_D.B64,)),
    "s_cbranch_join": (None, (_D.B32,)),
    "s_set_gpr_idx_idx": (None, (_D.B32,)),
    "s_set_gpr_idx_on": (None, (_D.B32,)),  # ssrc1 is an immediate mode mask, not a source
    "s_memtime": (_D.B64, ()),
    "s_memrealtime": (_D.B64, ()),
    "s_dcache_inv": (None, ()),
    "s_dcache_wb": (None, ()),
    "s_dcache_inv_vol": (None, ()),
    "s_dcache_wb_vol": (None, ()),
    "ds_nop": (None, ()),
    "ds_gws_init": (None, (_D.B32,)),
    "ds_gws_sema_br": (None, (_D.B32,)),
    "ds_gws_barrier": (None, (_D.B32,)),
    "ds_gws_sema_release_all": (None, ()),
    "ds_gws_sema_v": (None, ()),
    "ds_gws_sema_p": (None, ()),
}


_MFMA_NAME = re.compile(r"v_s?mfmac?_(\w+?)_(\d+)x(\d+)x(\d+)(?:_(\d+)b)?_(\w+)$")
_MFMA_INPUT_DWORDS = {"f32": 1, "xf32": 2, "f16": 2, "bf16": 2, "f64": 2, "bf8_bf8": 2, "bf8_fp8": 2,
                      "fp8_bf8": 2, "fp8_fp8": 2}


def _mfma_signature(name: str) -> tuple[DType, tuple[DType, ...]]:
    """MFMA/SMFMAC operand widths from the shape in the name: D and C hold M*N*blocks/64 lanes'
    results per lane (doubled for f64); A/B hold the per-lane input slice; SMFMAC's B is twice A and
    its src2 is the 32-bit sparsity index."""
    match = _MFMA_NAME.fullmatch(name)
    assert match is not None, name
    out, m, n, k, blocks, inputs = match.groups()
    dst_dwords = int(m) * int(n) * int(blocks or 1) // 64 * (2 if out == "f64" else 1)
    a_dwords = _MFMA_INPUT_DWORDS.get(inputs, 2 if int(k) >= 16 else 1)
    dst = _BY_BITS[32 * dst_dwords]
    if name.startswith("v_smfmac"):
        return dst, (_BY_BITS[32 * a_dwords], _BY_BITS[64 * a_dwords], _D.B32)
    return dst, (_BY_BITS[32 * a_dwords], _BY_BITS[32 * a_dwords], dst)


def _type_suffix(name: str) -> list[DType]:
    """Data types named at the end of an opcode, outermost (destination) first."""
    found: list[DType] = []
    for token in reversed(name.split("_")[1:]):
        if token not in _TYPE_TOKENS:
            break
        found.append(_TYPE_TOKENS[token])
    return found[::-1]


def _valu_signature(name: str, encoding: str, count: int) -> tuple[DType | None, tuple[DType, ...]]:
    types = _type_suffix(name) or [DType.B32]
    dst, src = types[0], types[-1]
    if "cmp" in name.split("_")[1]:
        second = DType.U32 if "class" in name else src
        return DType.B64, (src, second)
    if encoding == "VOP3P" and name.startswith("v_pk_"):
        dst = src = _PACKED[src]
    return dst, (src,) * count


def _memory_width(name: str) -> DType:
    """Register data width of a load/store/atomic, from its name."""
    formats = {"x": 1, "xy": 2, "xyz": 3, "xyzw": 4}
    if "_format_" in name:
        components = formats[name.rsplit("_", 1)[1]]
        return _BY_BITS[32 * ((components + 1) // 2 if "_d16" in name else components)]
    match = re.search(r"(dwordx|_b|_x)(\d+)$", name) or re.search(r"_[biuf](\d+)$", name)
    if name.endswith("_x2"):
        return DType.B64
    if match is None:
        return DType.B32
    bits = int(match.group(match.lastindex or 1))
    if "dwordx" in match.group(0):
        bits *= 32
    return _BY_BITS.get(bits, DType.B32)


def _memory_signature(name: str, encoding: str) -> tuple[DType | None, tuple[DType, ...]]:
    width = _memory_width(name)
    double = _BY_BITS.get(width.bits * 2, width)
    has_two = any(part in name for part in ("cmpswap", "cmpst", "mskor", "wrap", "write2", "wrxchg2"))
    if encoding == "SMEM":
        if "atomic" in name:
            return width, ((double if "cmpswap" in name else width),)
        return (None if "store" in name else width), ((width,) if "store" in name else ())
    if "load_lds" in name:
        return None, ()
    stores = any(part in name for part in ("store", "write")) and "wrxchg" not in name
    returns = "load" in name or "read" in name or "_rtn" in name or "atomic" in name or "swizzle" in name \
        or "permute" in name or name in ("ds_consume", "ds_append")
    if stores or (encoding == "DS" and not returns):
        data = (width, width) if has_two or "write2" in name else (width,)
        return None, data
    if "read2" in name or "wrxchg2" in name:
        return double, ((width, width) if "wrxchg2" in name else ())
    if "atomic" in name:
        data = double if "cmpswap" in name else width
        return width, (data,)
    if "_rtn" in name or "permute" in name:
        return width, ((width, width) if has_two else (width,))
    return width, ()


_SOURCE_COUNT: dict[str, int] = {"SOP1": 1, "SOP2": 2, "SOPC": 2, "SOPK": 0, "SOPP": 0,
                                 "VOP1": 1, "VOP2": 2, "VOPC": 2}
_MEMORY = frozenset({"SMEM", "DS", "FLAT", "GLOBAL", "SCRATCH", "MUBUF"})


def _signature(name: str, encoding: str, count: int) -> tuple[DType | None, tuple[DType, ...]]:
    if name in _OVERRIDES:
        return _OVERRIDES[name]
    if encoding in _MEMORY:
        return _memory_signature(name, encoding)
    if name.startswith(("v_mfma", "v_smfmac")):
        return _mfma_signature(name)
    if name.startswith("v_"):
        return _valu_signature(name, encoding, count)
    # SALU operands are whole 32/64-bit registers even where the name says b16 (s_pack_*).
    types = [t if t.bits >= 32 else DType.B32 for t in _type_suffix(name)] or [DType.B32]
    dst = None if encoding in ("SOPC", "SOPP") or name.startswith("s_cmpk") else types[0]
    return dst, (types[-1],) * count


def _vop3p_source_count(name: str) -> int:
    if name.startswith(("v_mfma", "v_smfmac")) or any(k in name for k in ("mad", "fma", "dot")):
        return 3 if "fmac" not in name else 2
    return 1 if name.startswith("v_accvgpr") else 2


def _info(encoding: str, op: int, row: str) -> OpInfo:
    name, _, count_text = row.partition("/")
    if count_text:
        count = int(count_text)
    elif encoding == "VOP3P":
        count = _vop3p_source_count(name)
    else:
        count = _SOURCE_COUNT.get(encoding, 0)
    dst, srcs = _signature(name, encoding, count)
    return OpInfo(name, encoding, op, dst, srcs, vop3b=name in VOP3_CARRY_OUT,
                  mai=name.startswith(("v_mfma", "v_smfmac", "v_accvgpr")))


_NATIVE: dict[str, dict[int, str]] = {
    "SOP2": SOP2_NAMES, "SOPK": SOPK_NAMES, "SOP1": SOP1_NAMES, "SOPC": SOPC_NAMES, "SOPP": SOPP_NAMES,
    "SMEM": SMEM_NAMES, "VOP2": VOP2_NAMES, "VOP1": VOP1_NAMES, "VOPC": VOPC_NAMES, "VOP3": VOP3_NAMES,
    "VOP3P": VOP3P_NAMES, "DS": DS_NAMES, "FLAT": FLAT_NAMES, "GLOBAL": GLOBAL_NAMES,
    "SCRATCH": SCRATCH_NAMES, "MUBUF": MUBUF_NAMES,
}


@cache
def _all() -> dict[tuple[str, int], OpInfo]:
    table = {(enc, op): _info(enc, op, row) for enc, rows in _NATIVE.items() for op, row in rows.items()}
    for native, base in VOP3_PROMOTED_BASE.items():
        for op, row in _NATIVE[native].items():
            if row not in NO_VOP3_FORM:
                info = table[(native, op)]
                table[("VOP3", base + op)] = OpInfo(info.name, "VOP3", base + op, info.dst, info.srcs,
                                                   vop3b=info.vop3b, mai=info.mai, promoted_from=native)
    return table


def lookup(encoding: str, op: int) -> OpInfo | None:
    """The opcode ``op`` of ``encoding`` ("VOP3" includes promoted VOPC/VOP2/VOP1), or ``None``."""
    return _all().get((encoding, op))


def all_opcodes() -> list[OpInfo]:
    """Every (encoding, opcode) row, promoted VOP3 forms included."""
    return list(_all().values())


def native_form(info: OpInfo) -> str | None:
    """For a VOP3 row promoted from VOPC/VOP2/VOP1, that native encoding; else ``None``."""
    return info.promoted_from
