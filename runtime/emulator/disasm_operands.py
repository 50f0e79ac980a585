"""Operand spelling of the gfx942 disassembler: registers, inline constants, literals, modifiers.

Invariant: every function returns LLVM 22's text for one operand (llvm-mc / llvm-objdump spelling);
``operand_text`` is the one entry for a VALU/SALU source code, given its ``DType``.
"""

from __future__ import annotations

from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.opcodes import DType
from ptx2gcn.runtime.emulator.operands import (
    FLOAT_INLINE_TEXT,
    LITERAL_CODE,
    SPECIAL_CODE,
    VGPR_BASE,
    inline_constant_bits,
)

_PAIR_NAMES = {102: "flat_scratch", 104: "xnack_mask", 106: "vcc", 126: "exec"}
_SPECIAL_NAMES = {code: reg.value for reg, code in SPECIAL_CODE.items()}
_F64_INV_2PI = "0.15915494309189532"


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


def inlinable(value: int, bits: int) -> bool:
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
        return inline_value_text(value << 32, 64) if inlinable(value << 32, 64) else f"0x{value:x}"
    if dtype is not None and dtype.is_packed:
        signed = value - (1 << 32) if value >> 31 else value
        f16_constant = any(inline_constant_bits(code, 16) == value for code in FLOAT_INLINE_TEXT)
        packed = (-16 <= signed <= 64 or f16_constant) if dtype in FLOAT_PACKED else inlinable(value, 32)
        return f"lit(0x{value:x})" if packed else f"0x{value:x}"
    if bits == 16 and dtype is not None:
        as_literal = inlinable(value & 0xFFFF, 16) if dtype.is_float else inlinable(value, 32)
        return f"lit(0x{value:x})" if as_literal else f"0x{value & 0xFFFF:x}"
    return f"lit(0x{value:x})" if inlinable(value, 64 if bits == 64 else 32) else f"0x{value:x}"


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


def with_modifiers(text: str, neg: bool, absolute: bool, sext: bool = False) -> str:
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


def dst_dwords(inst: Instruction) -> int:
    return inst.info.dst.dwords if inst.info is not None and inst.info.dst is not None else 1


def src_types(inst: Instruction) -> tuple[DType, ...]:
    return inst.info.srcs if inst.info is not None else ()


FLOAT_PACKED = frozenset({DType.V2F16, DType.V2BF16, DType.V2F32})

# Their source is printed as a plain value even when it is a literal (no lit()).
LITERAL_AS_VALUE = frozenset({"s_movrels_b32", "s_movrels_b64", "v_accvgpr_mov_b32", "s_setpc_b64",
                               "s_rfe_b64", "s_cbranch_join", "v_swap_b32", "v_readfirstlane_b32"})


def value_literal_text(value: int) -> str:
    return inline_value_text(value, 32) if inlinable(value, 32) else f"0x{value:x}"
