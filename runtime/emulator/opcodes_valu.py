"""gfx942 vector ALU opcode numbers: VOP2, VOP1, VOPC, VOP3 (VOP3-only opcodes) and VOP3P, and the
facts about their VOP3 forms.

Invariant: one row per opcode number, the name exactly as LLVM 22 spells it for gfx942 without the
``_e32``/``_e64``/``_dpp``/``_sdwa`` suffix; a VOP3 row is ``name/N`` with N its number of sources.
The promoted VOPC/VOP2/VOP1 forms live at ``VOP3_PROMOTED_BASE`` + op of the VOP3 space and reuse
the native row, except the opcodes in ``NO_VOP3_FORM``.
"""

from __future__ import annotations

from ptx2gcn.runtime.emulator.opcodes_types import name_table

VOP2_NAMES = name_table("""
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
VOP1_NAMES = name_table("""
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
VOPC_NAMES = name_table("""
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
VOP3_NAMES = name_table("""
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
VOP3P_NAMES = name_table("""
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

# Native VOP1/VOP2 opcodes that have no VOP3 (``_e64``) form.
NO_VOP3_FORM: frozenset[str] = frozenset({
    "v_fmamk_f32", "v_fmaak_f32", "v_madmk_f16", "v_madak_f16", "v_swap_b32", "v_accvgpr_mov_b32",
    "v_readfirstlane_b32"})
VOP3_CARRY_OUT: frozenset[str] = frozenset({
    "v_add_co_u32", "v_sub_co_u32", "v_subrev_co_u32", "v_addc_co_u32", "v_subb_co_u32",
    "v_subbrev_co_u32", "v_div_scale_f32", "v_div_scale_f64", "v_mad_u64_u32", "v_mad_i64_i32"})
VOP3_PROMOTED_BASE: dict[str, int] = {"VOPC": 0x000, "VOP2": 0x100, "VOP1": 0x140}
