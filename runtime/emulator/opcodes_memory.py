"""gfx942 memory opcode numbers: DS, FLAT, SCRATCH, GLOBAL and MUBUF.

Invariant: one row per opcode number, the name exactly as LLVM 22 spells it for gfx942 (rows produced
by LLVM 22's gfx942 disassembler; ``tests/emu/test_decoder_llvm.py`` re-checks every row).
"""

from __future__ import annotations

from ptx2gcn.runtime.emulator.opcodes_types import name_table

DS_NAMES = name_table("""
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
FLAT_NAMES = name_table("""
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
SCRATCH_NAMES = name_table("""
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
GLOBAL_NAMES = name_table("""
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
MUBUF_NAMES = name_table("""
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
