"""Operand data types of gfx942 opcodes and the rules that derive them from an opcode's name.

Invariant: ``signature(name, encoding, count)`` gives the (destination, sources) types of every opcode
from its LLVM 22 name alone, by the suffix rules below plus the explicit ``_OVERRIDES`` table (each
a documented operand of the CDNA3 ISA); ``name_table`` parses the "hex-number name" tables of the
encoding-family modules (``opcodes_salu``, ``opcodes_valu``, ``opcodes_memory``).

``DType`` is the data type of one operand: its width in bits (16, 32, 64; 96... for memory and
SMEM data), whether it is a float (so that float inline constants and 64-bit literal expansion follow
``operands.inline_constant_bits``/``literal_bits``) and whether it is signed. Packed types (``V2F16``,
``V2I16``, ``V2F32``...) are ``packed``. Types of 16-bit and fp8 operands follow LLVM's operand
classes where the ISA is ambiguous (noted in ``_OVERRIDES``).
"""

from __future__ import annotations

import enum
import re


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



def name_table(text: str) -> dict[int, str]:
    """``"000 s_add_u32  001 s_sub_u32 ..."`` -> {0: "s_add_u32", 1: "s_sub_u32", ...}."""
    tokens = text.split()
    return {int(tokens[i], 16): tokens[i + 1] for i in range(0, len(tokens), 2)}


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


_MEMORY = frozenset({"SMEM", "DS", "FLAT", "GLOBAL", "SCRATCH", "MUBUF"})


def signature(name: str, encoding: str, count: int) -> tuple[DType | None, tuple[DType, ...]]:
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


def vop3p_source_count(name: str) -> int:
    if name.startswith(("v_mfma", "v_smfmac")) or any(k in name for k in ("mad", "fma", "dot")):
        return 3 if "fmac" not in name else 2
    return 1 if name.startswith("v_accvgpr") else 2
