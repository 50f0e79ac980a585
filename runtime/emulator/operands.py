"""Operand codes of gfx942 instructions: what a source/destination field value names.

Invariant: an operand code decodes to exactly one typed ``Operand`` value and never to an index into
emulator state: inline constants are values (``InlineInt``/``InlineFloat``), special registers are
named (``Special``), the literal is a marker (``Literal``; its dword lives in
``Instruction.literal``).  In particular code 248 is the inline constant 1/(2*pi), not a register.

Codes (CDNA3 ISA guide, "SSRC"/"SRC" operand tables; LLVM ``SIDefines.h``, ``AMDGPUDisassembler.cpp``):

==========  ==========================================================
0-101       SGPR s0..s101 (``Sgpr(n)``)
102/103     flat_scratch_lo/hi        104/105  xnack_mask_lo/hi
106/107     vcc_lo/vcc_hi             108-123  ttmp0..ttmp15 (``Ttmp(n)``)
124         m0                        126/127  exec_lo/exec_hi
128-192     integers 0..64            193-208  integers -1..-16
230/231     src_flat_scratch_base_lo/hi (gfx940 architected flat scratch base, read-only)
235-238     src_shared_base/limit, src_private_base/limit (aperture registers, launch-ABI note §7.1)
239         src_pops_exiting_wave_id
240-248     0.5 -0.5 1.0 -1.0 2.0 -2.0 4.0 -4.0 1/(2*pi)
249/250     SDWA / DPP markers (only as VOP1/2/C src0; decoded into the extension dword)
251-254     src_vccz, src_execz, src_scc, src_lds_direct
255         a 32-bit literal follows the instruction
256-511     VGPR v0..v255 (``Vgpr(n)``); in ``acc``/AGPR positions ``Agpr(n)``
==========  ==========================================================

Scalar destinations (7 bits) use the same table 0..127.  How an inline constant or literal becomes
operand bits depends on the operand's data type (``DType`` in ``opcodes``):
``inline_constant_bits(code, bits, is_float)`` and ``literal_bits(literal, bits, is_float, signed)``
implement the CDNA3 rules (float constants as f16/f32/f64 patterns; integers sign-extended; a
32-bit literal for a 64-bit float operand is the high dword, for a 64-bit integer it is sign- or
zero-extended).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class SpecialReg(enum.Enum):
    """Named scalar registers and read-only sources (value = LLVM's printed name)."""

    FLAT_SCRATCH_LO = "flat_scratch_lo"
    FLAT_SCRATCH_HI = "flat_scratch_hi"
    XNACK_MASK_LO = "xnack_mask_lo"
    XNACK_MASK_HI = "xnack_mask_hi"
    VCC_LO = "vcc_lo"
    VCC_HI = "vcc_hi"
    M0 = "m0"
    EXEC_LO = "exec_lo"
    EXEC_HI = "exec_hi"
    FLAT_SCRATCH_BASE_LO = "src_flat_scratch_base_lo"
    FLAT_SCRATCH_BASE_HI = "src_flat_scratch_base_hi"
    SHARED_BASE = "src_shared_base"
    SHARED_LIMIT = "src_shared_limit"
    PRIVATE_BASE = "src_private_base"
    PRIVATE_LIMIT = "src_private_limit"
    POPS_EXITING_WAVE_ID = "src_pops_exiting_wave_id"
    VCCZ = "src_vccz"
    EXECZ = "src_execz"
    SCC = "src_scc"
    LDS_DIRECT = "src_lds_direct"


@dataclass(frozen=True, slots=True)
class Sgpr:
    index: int


@dataclass(frozen=True, slots=True)
class Vgpr:
    index: int


@dataclass(frozen=True, slots=True)
class Agpr:
    index: int


@dataclass(frozen=True, slots=True)
class Ttmp:
    index: int


@dataclass(frozen=True, slots=True)
class Special:
    reg: SpecialReg


@dataclass(frozen=True, slots=True)
class InlineInt:
    value: int


@dataclass(frozen=True, slots=True)
class InlineFloat:
    """Float inline constant; ``code`` is 240..248, bit patterns per width in ``FLOAT_INLINE_BITS``."""

    code: int


@dataclass(frozen=True, slots=True)
class Literal:
    """The 32-bit literal dword that follows the instruction (``Instruction.literal``)."""


@dataclass(frozen=True, slots=True)
class Reserved:
    """A code with no meaning on gfx942 (125, 209-234, 249/250 outside VOP src0)."""

    code: int


Operand = Sgpr | Vgpr | Agpr | Ttmp | Special | InlineInt | InlineFloat | Literal | Reserved

LITERAL_CODE = 255
VGPR_BASE = 256

# code -> (f16 bits, f32 bits, f64 bits); CDNA3 ISA table "inline constants".
FLOAT_INLINE_BITS: dict[int, tuple[int, int, int]] = {
    240: (0x3800, 0x3F000000, 0x3FE0000000000000),  # 0.5
    241: (0xB800, 0xBF000000, 0xBFE0000000000000),  # -0.5
    242: (0x3C00, 0x3F800000, 0x3FF0000000000000),  # 1.0
    243: (0xBC00, 0xBF800000, 0xBFF0000000000000),  # -1.0
    244: (0x4000, 0x40000000, 0x4000000000000000),  # 2.0
    245: (0xC000, 0xC0000000, 0xC000000000000000),  # -2.0
    246: (0x4400, 0x40800000, 0x4010000000000000),  # 4.0
    247: (0xC400, 0xC0800000, 0xC010000000000000),  # -4.0
    248: (0x3118, 0x3E22F983, 0x3FC45F306DC9C882),  # 1/(2*pi)
}
FLOAT_INLINE_TEXT: dict[int, str] = {240: "0.5", 241: "-0.5", 242: "1.0", 243: "-1.0", 244: "2.0",
                                     245: "-2.0", 246: "4.0", 247: "-4.0", 248: "0.15915494"}

_SPECIAL_CODES: dict[int, SpecialReg] = {
    102: SpecialReg.FLAT_SCRATCH_LO, 103: SpecialReg.FLAT_SCRATCH_HI,
    104: SpecialReg.XNACK_MASK_LO, 105: SpecialReg.XNACK_MASK_HI,
    106: SpecialReg.VCC_LO, 107: SpecialReg.VCC_HI, 124: SpecialReg.M0,
    126: SpecialReg.EXEC_LO, 127: SpecialReg.EXEC_HI,
    230: SpecialReg.FLAT_SCRATCH_BASE_LO, 231: SpecialReg.FLAT_SCRATCH_BASE_HI,
    235: SpecialReg.SHARED_BASE, 236: SpecialReg.SHARED_LIMIT,
    237: SpecialReg.PRIVATE_BASE, 238: SpecialReg.PRIVATE_LIMIT,
    239: SpecialReg.POPS_EXITING_WAVE_ID, 251: SpecialReg.VCCZ, 252: SpecialReg.EXECZ,
    253: SpecialReg.SCC, 254: SpecialReg.LDS_DIRECT,
}
SPECIAL_CODE: dict[SpecialReg, int] = {reg: code for code, reg in _SPECIAL_CODES.items()}


def _build(code: int) -> Operand:
    if code <= 101:
        return Sgpr(code)
    if code in _SPECIAL_CODES:
        return Special(_SPECIAL_CODES[code])
    if 108 <= code <= 123:
        return Ttmp(code - 108)
    if 128 <= code <= 192:
        return InlineInt(code - 128)
    if 193 <= code <= 208:
        return InlineInt(192 - code)
    if code in FLOAT_INLINE_BITS:
        return InlineFloat(code)
    if code == LITERAL_CODE:
        return Literal()
    if code >= VGPR_BASE:
        return Vgpr(code - VGPR_BASE)
    return Reserved(code)


_TABLE: tuple[Operand, ...] = tuple(_build(code) for code in range(512))


def source(code: int) -> Operand:
    """The operand named by a 9-bit source code (or 8-bit scalar source / 7-bit scalar dest)."""
    return _TABLE[code]


def vgpr_or_agpr(index: int, acc: bool) -> Vgpr | Agpr:
    """An 8-bit vector register field: an AGPR when the instruction's ``acc`` bit selects it."""
    return Agpr(index) if acc else Vgpr(index)


def is_inline_constant(code: int) -> bool:
    return 128 <= code <= 208 or code in FLOAT_INLINE_BITS


def inline_constant_bits(code: int, bits: int, is_float: bool = True) -> int:
    """Bit pattern of inline constant ``code`` as a ``bits``-wide (16, 32 or 64) operand.

    Integers are sign-extended to the width.  Float constants give the f32/f64 pattern of their
    value for 32/64-bit operands, integer operands included (LLVM folds an i64 0x3FE0000000000000
    as code 240: ``AMDGPU::isInlinableLiteral64``).  A 16-bit float operand gets the f16 pattern; a
    16-bit *integer* operand (``is_float`` false) gets the low half of the f32 pattern (0.5 -> 0,
    1/(2*pi) -> 0xF983): the hardware rule stated in LLVM's ``AMDGPU::getInlineEncodingV216`` ("for
    UI16 instructions: corresponding single-precision float value"; LLVM's disassembler prints
    f16 bits instead, and LLVM's code generator never uses a float code for a 16-bit integer).
    See docs/emulator-operands.md.
    """
    mask = (1 << bits) - 1
    if 128 <= code <= 208:
        value = code - 128 if code <= 192 else 192 - code
        return value & mask
    f16, f32, f64 = FLOAT_INLINE_BITS[code]
    if bits == 16:
        return f16 if is_float else f32 & mask
    return {32: f32, 64: f64}[bits]


def packed16_constant_bits(code: int, is_f16: bool) -> int:
    """The 32-bit value of inline constant ``code`` as a packed 16-bit operand (VOP3P ``v_pk_*`` 16-bit
    ops, ``v_dot2*`` 16-bit sources, ``v_pk_fmac_f16``), before op_sel/op_sel_hi pick its halves.

    Integer codes give their sign-extended 32-bit value (-1: both halves 0xFFFF; 5: low half 5, high
    half 0).  Float codes give, for an f16 operand, the f16 pattern in the low half and 0 in the high
    half (0.5 = 0x00003800), and for an integer (i16/u16) operand the f32 pattern (0.5 = 0x3F000000).
    This is the hardware behaviour LLVM's ``AMDGPU::getInlineEncodingV216`` states and relies on when
    it folds ``<2 x half>`` constants with op_sel (SIFoldOperands ``tryFoldImmWithOpSel``); the constant
    is not replicated into the high half.
    """
    if 128 <= code <= 208:
        return inline_constant_bits(code, 32)
    f16, f32, _ = FLOAT_INLINE_BITS[code]
    return f16 if is_f16 else f32


def literal_bits(literal: int, bits: int, is_float: bool, signed: bool = False) -> int:
    """Operand bits of a 32-bit literal dword used as a ``bits``-wide operand.

    A 64-bit float operand takes the literal as its high dword (low dword zero); a 64-bit signed
    integer operand sign-extends it and an unsigned/bitwise one zero-extends it (the hardware rule
    LLVM relies on, llvm/llvm-project#70274).  16-bit operands use the low 16 bits.
    """
    literal &= 0xFFFFFFFF
    if bits == 16:
        return literal & 0xFFFF
    if bits == 32:
        return literal
    if is_float:
        return literal << 32
    if signed and literal >> 31:
        return literal | 0xFFFFFFFF00000000
    return literal
