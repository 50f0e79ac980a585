"""The operand-decoding rules of docs/emulator-operands.md, one test per rule and encoding.

Each instruction is assembled by ``llvm-mc-22`` (so the encoding is LLVM's, not ours) and executed
once on a fresh wave; the expected lanes are computed here with numpy from the rule as the document
states it (f16/f32/f64 bit patterns written out in hex, IEEE arithmetic in numpy), never from the
emulator's own tables.  A rule LLVM's code generator relies on is marked with where LLVM states it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from ptx2gcn.runtime.emulator.errors import UnknownInstruction
from ptx2gcn.runtime.emulator.wave import VCC_LO, Wave
from tests.emu.conftest import wave_with

Run = Callable[[str, Wave], Wave]
RNG = np.random.default_rng(2026)
F16_INV_2PI, F32_INV_2PI, F64_INV_2PI = 0x3118, 0x3E22F983, 0x3FC45F306DC9C882


def halves(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return lo.view(np.uint16).astype(np.uint32) | hi.view(np.uint16).astype(np.uint32) << 16


def split(word: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return (word & 0xFFFF).astype(np.uint16), (word >> 16).astype(np.uint16)


def f16(bits: int) -> np.float16:
    return np.uint16(bits).view(np.float16)


def f32(bits: int) -> np.float32:
    return np.uint32(bits).view(np.float32)


LO = RNG.uniform(-4, 4, 64).astype(np.float16)
HI = RNG.uniform(-4, 4, 64).astype(np.float16)
PACKED = halves(LO, HI)
X32 = RNG.uniform(-8, 8, 64).astype(np.float32)
U16S = RNG.integers(0, 1 << 16, 64, dtype=np.uint32)


def _f16_result(word: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
    got_lo, got_hi = split(word)
    np.testing.assert_array_equal(got_lo, lo.astype(np.float16).view(np.uint16))
    np.testing.assert_array_equal(got_hi, hi.astype(np.float16).view(np.uint16))


# -- VOP3P packed 16-bit: f16 ops take the f16 pattern in the low half, 0 in the high half ---------
@pytest.mark.parametrize(
    ("text", "lo_operand", "hi_operand"),
    [
        # issue #13: __hadd2(x, __float2half2_rn(0.5f)) -> op_sel_hi:[1,0] reads the low half twice
        ("v_pk_add_f16 v2, v0, 0.5 op_sel_hi:[1,0]", 0x3800, 0x3800),
        # default op_sel_hi:[1,1]: the high lane reads the constant's high half, which is 0
        ("v_pk_add_f16 v2, v0, 0.5", 0x3800, 0x0000),
        # LLVM's spelling of <0.0, 2.0>: low lane the high half (0), high lane the low half (2.0)
        ("v_pk_add_f16 v2, v0, 2.0 op_sel:[0,1] op_sel_hi:[1,0]", 0x0000, 0x4000),
        ("v_pk_add_f16 v2, v0, 0.15915494 op_sel_hi:[1,0]", F16_INV_2PI, F16_INV_2PI),
        ("v_pk_add_f16 v2, v0, -4.0 op_sel_hi:[1,0]", 0xC400, 0xC400),
        # integer codes are sign-extended 32-bit values: 1 = 0x00000001 (an f16 denormal, high 0)
        ("v_pk_add_f16 v2, v0, 1", 0x0001, 0x0000),
    ],
)
def test_packed_f16_inline_constant(one_instruction: Run, text: str, lo_operand: int, hi_operand: int) -> None:
    w = one_instruction(text, wave_with(v0=PACKED))
    _f16_result(w.v[2], LO + f16(lo_operand), HI + f16(hi_operand))


def test_packed_f16_constant_with_neg_lo_neg_hi_and_fma(one_instruction: Run) -> None:
    w = one_instruction("v_pk_add_f16 v2, v0, 0.5 op_sel_hi:[1,0] neg_lo:[0,1] neg_hi:[0,1]", wave_with(v0=PACKED))
    _f16_result(w.v[2], LO - f16(0x3800), HI - f16(0x3800))
    w = one_instruction("v_pk_fma_f16 v3, v0, v1, 1.0 op_sel_hi:[1,1,0]", wave_with(v0=PACKED, v1=PACKED))
    lo = (LO.astype(np.float64) * LO + 1.0).astype(np.float16)  # exact in f64, one rounding to f16
    hi = (HI.astype(np.float64) * HI + 1.0).astype(np.float16)
    _f16_result(w.v[3], lo, hi)


@pytest.mark.parametrize(
    ("text", "lo_add", "hi_add"),
    [
        ("v_pk_add_u16 v2, v0, -1", 0xFFFF, 0xFFFF),  # -1 sign-extended: both halves
        ("v_pk_add_u16 v2, v0, 5", 5, 0),  # 0x00000005
        ("v_pk_add_u16 v2, v0, 5 op_sel_hi:[1,0]", 5, 5),
        ("v_pk_add_u16 v2, v0, 0.5", 0x0000, 0x3F00),  # integer op: the f32 pattern 0x3F000000
        ("v_pk_add_u16 v2, v0, 0.15915494", F32_INV_2PI & 0xFFFF, F32_INV_2PI >> 16),
        ("v_pk_sub_i16 v2, v0, -16 op_sel_hi:[1,0]", 0x0010, 0x0010),
        ("v_pk_sub_i16 v2, v0, -16 op_sel:[0,1]", 0x0001, 0x0001),  # high half of 0xFFFFFFF0 is -1
    ],
)
def test_packed_integer_inline_constant(one_instruction: Run, text: str, lo_add: int, hi_add: int) -> None:
    """LLVM ``AMDGPU::getInlineEncodingV216``: integer codes sign-extended to 32 bits, float codes of
    an integer (UI16) packed op give the single-precision pattern."""
    w = one_instruction(text, wave_with(v0=U16S | (U16S[::-1] << 16)))
    lo, hi = split(w.v[2])
    np.testing.assert_array_equal(lo, ((U16S + lo_add) & 0xFFFF).astype(np.uint16))
    np.testing.assert_array_equal(hi, ((U16S[::-1] + hi_add) & 0xFFFF).astype(np.uint16))


def test_pk_fmac_f16_e32_constant_has_zero_high_half(one_instruction: Run) -> None:
    """VOP2 ``v_pk_fmac_f16`` has no op_sel_hi: the high lane reads the constant's high half (0)."""
    acc = halves(np.full(64, 1.0, np.float16), np.full(64, 3.0, np.float16))
    w = one_instruction("v_pk_fmac_f16 v2, 0.5, v0", wave_with(v0=PACKED, v2=acc))
    _f16_result(w.v[2], (LO.astype(np.float64) * 0.5 + 1.0), np.full(64, 3.0))


def test_dot2_f16_sources_take_f16_constants(one_instruction: Run) -> None:
    c = RNG.uniform(-2, 2, 64).astype(np.float32)
    w = one_instruction("v_dot2_f32_f16 v3, v0, 1.0, v2", wave_with(v0=PACKED, v2=c.view(np.uint32)))
    want = (LO.astype(np.float64) * 1.0 + HI.astype(np.float64) * 0.0 + c).astype(np.float32)
    np.testing.assert_array_equal(w.v[3].view(np.float32), want)
    w = one_instruction("v_dot2c_f32_f16 v2, 0.5, v0", wave_with(v0=PACKED, v2=c.view(np.uint32)))
    want = (LO.astype(np.float64) * 0.5 + HI.astype(np.float64) * 0.0 + c).astype(np.float32)
    np.testing.assert_array_equal(w.v[2].view(np.float32), want)


@pytest.mark.parametrize(("op_sel_hi", "value"), [("[1,1,0]", f16(F16_INV_2PI)), ("[1,0,0]", f32(F32_INV_2PI))])
def test_fma_mix_constant_follows_the_source_width(one_instruction: Run, op_sel_hi: str, value: float) -> None:
    """A mix source used as f16 gets the f16 constant (low half), used as f32 the f32 constant (LLVM
    #183487: "F16 source operands ... use F16 constant values in the low 16 bits")."""
    c = RNG.uniform(-2, 2, 64).astype(np.float32)
    w = one_instruction(f"v_fma_mix_f32 v3, v0, 0.15915494, v2 op_sel_hi:{op_sel_hi}",
                        wave_with(v0=PACKED, v2=c.view(np.uint32)))
    exact = LO.astype(np.float64) * np.float64(value)  # f16 x f16/f32: exact in f64
    want = np.array([np.float32(np.longdouble(p) + np.longdouble(z)) for p, z in zip(exact, c)], np.float32)
    np.testing.assert_array_equal(w.v[3].view(np.float32), want)


# -- 16-bit (non-packed) operands --------------------------------------------------------------
def test_f16_operands_take_f16_patterns(one_instruction: Run) -> None:
    w = wave_with(v0=PACKED)
    one_instruction("v_add_f16 v2, 0.5, v0", w)  # e32
    one_instruction("v_add_f16_e64 v3, v0, 0.15915494", w)  # e64
    one_instruction("v_add_f16_e64 v4, -v0, |-0.5| clamp", w)  # modifiers apply to the constant too
    one_instruction("v_add_f16 v5, 0x3c01, v0", w)  # literal: its low 16 bits
    np.testing.assert_array_equal(w.v[2], (LO + f16(0x3800)).view(np.uint16))
    np.testing.assert_array_equal(w.v[3], (LO + f16(F16_INV_2PI)).view(np.uint16))
    np.testing.assert_array_equal(w.v[4], np.clip(-LO + f16(0x3800), 0, 1).astype(np.float16).view(np.uint16))
    np.testing.assert_array_equal(w.v[5], (LO + f16(0x3C01)).view(np.uint16))


def test_16_bit_integer_operands(one_instruction: Run) -> None:
    """Integer codes sign-extend (-1 = 0xFFFF); float codes give the low half of the f32 pattern
    (LLVM ``getInlineEncodingV216``: "for UI16 instructions: corresponding single-precision float
    value"); the high half of the destination is zeroed (gfx9 16-bit VALU)."""
    w = wave_with(v0=U16S | 0xABCD0000)
    one_instruction("v_add_u16 v2, -1, v0", w)
    one_instruction("v_add_u16 v3, 0.5, v0", w)
    one_instruction("v_add_u16_e64 v4, 0.15915494, v0", w)
    np.testing.assert_array_equal(w.v[2], (U16S + 0xFFFF) & 0xFFFF)
    np.testing.assert_array_equal(w.v[3], U16S)
    np.testing.assert_array_equal(w.v[4], (U16S + (F32_INV_2PI & 0xFFFF)) & 0xFFFF)


def test_op_sel_high_half_of_a_16_bit_constant_is_refused(one_instruction: Run) -> None:
    with pytest.raises(UnknownInstruction, match="high half of constant"):
        one_instruction("v_fma_f16 v2, v0, v1, 0.5 op_sel:[0,0,1,0]", wave_with(v0=PACKED, v1=PACKED))


# -- 32-bit operands -----------------------------------------------------------------------------
def test_32_bit_float_and_integer_constants(one_instruction: Run) -> None:
    w = wave_with(v0=X32.view(np.uint32), v1=np.arange(64))
    one_instruction("v_add_f32_e64 v2, -0.5, -|v0|", w)
    one_instruction("v_add_f32 v3, 0x3eaaaaab, v0", w)  # literal
    one_instruction("v_add_u32 v4, 0.5, v1", w)  # float code on an integer operand: the f32 bits
    one_instruction("v_add_u32 v5, -16, v1", w)
    one_instruction("v_fmaak_f32 v6, v0, v0, 0x40490fdb", w)  # literal as the third operand
    one_instruction("v_max_f32_e64 v7, v0, 4.0 clamp", w)
    np.testing.assert_array_equal(w.v[2].view(np.float32), np.float32(-0.5) - np.abs(X32))
    np.testing.assert_array_equal(w.v[3].view(np.float32), f32(0x3EAAAAAB) + X32)
    np.testing.assert_array_equal(w.v[4], np.arange(64, dtype=np.uint32) + np.uint32(0x3F000000))
    np.testing.assert_array_equal(w.v[5], (np.arange(64) - 16).astype(np.uint32))
    fma = (X32.astype(np.float64) * X32 + np.float64(f32(0x40490FDB))).astype(np.float32)  # exact product
    np.testing.assert_array_equal(w.v[6].view(np.float32), fma)
    np.testing.assert_array_equal(w.v[7].view(np.float32), np.clip(np.maximum(X32, 4.0), 0, 1))


# -- 64-bit operands -----------------------------------------------------------------------------
def _pair(values: np.ndarray) -> dict[str, np.ndarray]:
    raw = values.view(np.uint64)
    return {"v0": raw & 0xFFFFFFFF, "v1": raw >> 32}


def _u64(w: Wave, row: int) -> np.ndarray:
    return w.v[row].astype(np.uint64) | w.v[row + 1].astype(np.uint64) << 32


def test_64_bit_constants_and_literals(one_instruction: Run) -> None:
    x = RNG.uniform(-8, 8, 64)
    w = wave_with(**_pair(x))
    one_instruction("v_add_f64 v[2:3], v[0:1], 0x3fc45f306dc9c882", w)  # 1/(2*pi) as f64
    one_instruction("v_mul_f64 v[4:5], v[0:1], -2.0", w)
    one_instruction("v_lshlrev_b64 v[6:7], 4, 0.5", w)  # float code on a 64-bit integer: f64 bits
    one_instruction("v_lshlrev_b64 v[8:9], 1, -1", w)  # integer code: sign-extended to 64 bits
    one_instruction("v_cvt_f32_f64 v10, 0x400921fb", w)  # f64 literal: the high dword, low dword 0
    np.testing.assert_array_equal(_u64(w, 2).view(np.float64), x + np.uint64(F64_INV_2PI).view(np.float64))
    np.testing.assert_array_equal(_u64(w, 4).view(np.float64), x * -2.0)
    np.testing.assert_array_equal(_u64(w, 6), np.full(64, 0x3FE0000000000000 << 4 & (2**64 - 1), np.uint64))
    np.testing.assert_array_equal(_u64(w, 8), np.full(64, 2**64 - 2, np.uint64))
    pi_high = np.float32(np.uint64(0x400921FB << 32).view(np.float64))
    np.testing.assert_array_equal(w.v[10].view(np.float32), np.full(64, pi_high))


def test_scalar_64_bit_constants_and_literals(one_instruction: Run) -> None:
    w = wave_with()
    one_instruction("s_mov_b64 s[0:1], 0.5", w)  # f64 pattern
    one_instruction("s_mov_b64 s[2:3], -1", w)
    one_instruction("s_ashr_i64 s[4:5], 0x80000000, 4", w)  # signed operand: literal sign-extended
    one_instruction("s_lshr_b64 s[6:7], 0x80000000, 4", w)  # bitwise operand: zero-extended
    one_instruction("s_add_u32 s8, 0.5, 1", w)  # f32 pattern on a 32-bit integer operand
    one_instruction("s_add_u32 s9, 0x12345678, -16", w)  # literal and sign-extended integer code
    got = [int(w.s[i]) | int(w.s[i + 1]) << 32 for i in (0, 2, 4, 6)]
    assert got == [0x3FE0000000000000, 2**64 - 1, 0xFFFFFFFFF8000000, 0x08000000]
    assert (int(w.s[8]), int(w.s[9])) == (0x3F000001, 0x12345668)


# -- SDWA (gfx9: SGPRs and constants as sources) ----------------------------------------------------
def test_sdwa_constant_sources(one_instruction: Run) -> None:
    w = wave_with(v0=PACKED)
    one_instruction(
        "v_mul_f16_sdwa v2, 0.5, v0 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_1", w
    )
    one_instruction(
        "v_add_u32_sdwa v3, -1, v0 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_1 src1_sel:DWORD", w
    )
    one_instruction(
        "v_mul_f32_sdwa v4, 0.5, v0 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD", w
    )
    some_half = np.where(np.arange(64) % 3 == 0, np.float16(0.5), LO).astype(np.float16)
    cmp = one_instruction("v_cmp_eq_f16_sdwa vcc, 0.5, v0 src0_sel:DWORD src1_sel:WORD_0",
                          wave_with(v0=halves(some_half, HI)))
    np.testing.assert_array_equal(w.v[2], (HI * f16(0x3800)).view(np.uint16))
    np.testing.assert_array_equal(w.v[3], (PACKED + 0xFF).astype(np.uint32))  # BYTE_1 of 0xFFFFFFFF
    np.testing.assert_array_equal(w.v[4].view(np.float32), PACKED.view(np.float32) * np.float32(0.5))
    lanes = np.flatnonzero(some_half.view(np.uint16) == 0x3800)
    assert int(cmp.s[VCC_LO]) | int(cmp.s[VCC_LO + 1]) << 32 == sum(1 << int(i) for i in lanes)


# -- DPP: sources are VGPRs only; constants do not exist there ---------------------------------------
def test_dpp_source_is_a_register(one_instruction: Run) -> None:
    w = one_instruction("v_add_f32_dpp v2, v0, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf",
                        wave_with(v0=X32.view(np.uint32), v1=X32.view(np.uint32)))
    swapped = X32.reshape(-1, 2)[:, ::-1].ravel()
    np.testing.assert_array_equal(w.v[2].view(np.float32), swapped + X32)
