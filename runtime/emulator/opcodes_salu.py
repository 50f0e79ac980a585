"""gfx942 scalar opcode numbers: SOP2, SOPK, SOP1, SOPC, SOPP and SMEM.

Invariant: one row per opcode number, the name exactly as LLVM 22 spells it for gfx942 (rows produced
by LLVM 22's gfx942 disassembler; ``tests/emu/test_decoder_llvm.py`` re-checks every row).
"""

from __future__ import annotations

from ptx2gcn.runtime.emulator.opcodes_types import name_table

SOP2_NAMES = name_table("""
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
SOPK_NAMES = name_table("""
000 s_movk_i32          001 s_cmovk_i32         002 s_cmpk_eq_i32       003 s_cmpk_lg_i32
004 s_cmpk_gt_i32       005 s_cmpk_ge_i32       006 s_cmpk_lt_i32       007 s_cmpk_le_i32
008 s_cmpk_eq_u32       009 s_cmpk_lg_u32       00a s_cmpk_gt_u32       00b s_cmpk_ge_u32
00c s_cmpk_lt_u32       00d s_cmpk_le_u32       00e s_addk_i32          00f s_mulk_i32
010 s_cbranch_i_fork    011 s_getreg_b32        012 s_setreg_b32        014 s_setreg_imm32_b32
015 s_call_b64
""")
SOP1_NAMES = name_table("""
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
SOPC_NAMES = name_table("""
000 s_cmp_eq_i32      001 s_cmp_lg_i32      002 s_cmp_gt_i32      003 s_cmp_ge_i32
004 s_cmp_lt_i32      005 s_cmp_le_i32      006 s_cmp_eq_u32      007 s_cmp_lg_u32
008 s_cmp_gt_u32      009 s_cmp_ge_u32      00a s_cmp_lt_u32      00b s_cmp_le_u32
00c s_bitcmp0_b32     00d s_bitcmp1_b32     00e s_bitcmp0_b64     00f s_bitcmp1_b64
010 s_setvskip        011 s_set_gpr_idx_on  012 s_cmp_eq_u64      013 s_cmp_lg_u64
""")
SOPP_NAMES = name_table("""
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
SMEM_NAMES = name_table("""
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
