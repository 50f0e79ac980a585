"""Integer and bitwise VALU operations (VOP1/VOP2/VOP3 without carries), as numpy over typed lanes.

Invariant: each entry is the CDNA3 ISA pseudocode of the opcode written over numpy lanes of the
operand types named in its ``VOp`` (u32 = ``uint32`` ...). Shift amounts are masked to the bits the
ISA reads (``S0[4:0]`` for 32-bit, ``S0[5:0]`` for 64-bit, ``S0[3:0]`` for 16-bit) before shifting,
because numpy (like C) leaves over-wide shifts undefined. Arithmetic wraps modulo the width.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ptx2gcn.runtime.emulator.semantics_common import I32, I64, U16, U32, U64
from ptx2gcn.runtime.emulator.semantics_valu import VOp

A = Any
_M5, _M6, _M4, _M3 = U32(31), U32(63), U16(15), U32(7)


def _sext24(x: A) -> A:
    return ((x.astype(U32) & U32(0xFFFFFF)) ^ U32(0x800000)).astype(I64) - I64(0x800000)


def _u24(x: A) -> A:
    return (x & U32(0xFFFFFF)).astype(U64)


def _bfe_u(x: A, offset: A, width: A) -> A:
    o, wd = offset & _M5, width & _M5
    return ((x.astype(U64) >> o.astype(U64)) & ((U64(1) << wd.astype(U64)) - U64(1))).astype(U32)


def _bfe_i(x: A, offset: A, width: A) -> A:
    o, wd = (offset & _M5).astype(I64), (width & _M5).astype(I64)
    field = (x.astype(I64) & I64(0xFFFFFFFF)) >> o & ((I64(1) << wd) - 1)
    sign = I64(1) << np.maximum(wd - 1, 0)
    return np.where(wd == 0, I64(0), (field ^ sign) - sign).astype(U32)


def _ffbh_u32(x: A) -> A:
    """Leading zero count (binary search), 0xFFFFFFFF for 0."""
    original = x = np.asarray(x, dtype=U32)
    count = np.zeros(x.shape, dtype=U32)
    for shift in (16, 8, 4, 2, 1):
        empty = (x >> U32(32 - shift)) == 0
        count = np.where(empty, count + U32(shift), count)
        x = np.where(empty, x << U32(shift), x)
    return np.where(original == 0, U32(0xFFFFFFFF), count)


def _ffbl_b32(x: A) -> A:
    x = np.asarray(x, dtype=U32)
    lowest = x & (~x + U32(1))
    return np.where(x == 0, U32(0xFFFFFFFF), popcount(lowest - U32(1)))


def _ffbh_i32(x: A) -> A:
    x = np.asarray(x, dtype=U32)
    flipped = np.where(x >> U32(31) != 0, ~x, x)
    result = _ffbh_u32(flipped)
    return np.where((x == 0) | (x == U32(0xFFFFFFFF)), U32(0xFFFFFFFF), result)


def popcount(x: A) -> A:
    x = np.asarray(x, dtype=U32)
    x = x - ((x >> U32(1)) & U32(0x55555555))
    x = (x & U32(0x33333333)) + ((x >> U32(2)) & U32(0x33333333))
    x = (x + (x >> U32(4))) & U32(0x0F0F0F0F)
    return (x * U32(0x01010101)) >> U32(24)


def _bfrev(x: A) -> A:
    x = np.asarray(x, dtype=U32)
    for shift, mask in ((1, 0x55555555), (2, 0x33333333), (4, 0x0F0F0F0F), (8, 0x00FF00FF)):
        x = ((x >> U32(shift)) & U32(mask)) | ((x & U32(mask)) << U32(shift))
    return (x >> U32(16)) | (x << U32(16))


def _perm_byte(s0: A, s1: A, sel: A) -> A:
    """One result byte of v_perm_b32 for selector bytes ``sel`` (CDNA3 ``BYTE_PERMUTE``)."""
    data = (s0.astype(U64) << U64(32)) | s1.astype(U64)
    sel = sel.astype(U64)
    byte = (data >> ((sel & U64(7)) * U64(8))) & U64(0xFF)

    def sign_of(i: int) -> A:
        return np.where((data >> U64(8 * i + 7)) & U64(1) != 0, U64(0xFF), U64(0))

    out = np.where(sel < 8, byte, U64(0))
    out = np.where(sel == 8, sign_of(1), out)
    out = np.where(sel == 9, sign_of(3), out)
    out = np.where(sel == 10, sign_of(5), out)
    out = np.where(sel == 11, sign_of(7), out)
    out = np.where(sel == 12, U64(0), out)
    return np.where(sel >= 13, U64(0xFF), out)


def _perm(s0: A, s1: A, s2: A) -> A:
    s0, s1, s2 = (np.asarray(v, dtype=U32) for v in (s0, s1, s2))
    out = U64(0)
    for i in range(4):
        out = out | (_perm_byte(s0, s1, (s2 >> U32(8 * i)) & U32(0xFF)) << U64(8 * i))
    return np.asarray(out).astype(U32)


def _med3(a: A, b: A, c: A) -> A:
    return np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), c))


def _min3(a: A, b: A, c: A) -> A:
    return np.minimum(np.minimum(a, b), c)


def _max3(a: A, b: A, c: A) -> A:
    return np.maximum(np.maximum(a, b), c)


def _min_max_med3(bits: int) -> dict[str, VOp]:
    """``v_min3``/``v_max3``/``v_med3`` on three ``i<bits>`` or three ``u<bits>`` sources."""
    return {
        f"v_{name}3_{t}": VOp(fn, t, (t,) * 3)
        for name, fn in (("min", _min3), ("max", _max3), ("med", _med3))
        for t in (f"i{bits}", f"u{bits}")
    }


def _mul_hi_u32(a: A, b: A) -> A:
    return ((a.astype(U64) * b.astype(U64)) >> U64(32)).astype(U32)


def _mul_hi_i32(a: A, b: A) -> A:
    return ((a.astype(I64) * b.astype(I64)) >> I64(32)).astype(U32)


def _sad(a: A, b: A) -> A:
    return np.where(a > b, a - b, b - a)


def _sad_u8(a: A, b: A, c: A) -> A:
    total = c.astype(U32)
    for i in range(4):
        x, y = (a >> U32(8 * i)) & U32(0xFF), (b >> U32(8 * i)) & U32(0xFF)
        total = total + _sad(x, y)
    return total


def _msad_u8(a: A, b: A, c: A) -> A:
    """Like v_sad_u8, but bytes where the reference (S1) is 0 are skipped."""
    total = c.astype(U32)
    for i in range(4):
        x, y = (a >> U32(8 * i)) & U32(0xFF), (b >> U32(8 * i)) & U32(0xFF)
        total = total + np.where(y == 0, U32(0), _sad(x, y))
    return total


def _lerp_u8(a: A, b: A, c: A) -> A:
    """Per byte: (S0 + S1 + S2[0 of the byte]) >> 1 (rounding average with S2's low bit)."""
    out = np.zeros(np.broadcast(a, b, c).shape, dtype=U32)
    for i in range(4):
        shift = U32(8 * i)
        x, y = (a >> shift) & U32(0xFF), (b >> shift) & U32(0xFF)
        r = (c >> shift) & U32(1)
        out = out | (((x + y + r) >> U32(1)) << shift)
    return out


def _dot(a: A, b: A, c: A, bits: int, signed: bool) -> A:
    """Sum of products of the packed ``bits``-wide elements of a and b, plus c (32-bit wrap)."""
    total = np.asarray(c).astype(np.int64)
    mask = (1 << bits) - 1
    for i in range(32 // bits):
        x = (a.astype(np.int64) >> (bits * i)) & mask
        y = (b.astype(np.int64) >> (bits * i)) & mask
        if signed:
            x = np.where(x >> (bits - 1) != 0, x - (1 << bits), x)
            y = np.where(y >> (bits - 1) != 0, y - (1 << bits), y)
        total = total + x * y
    return total.astype(np.uint64).astype(U32) if not signed else total.astype(I32)


def _sat_pk_u8_i16(a: A) -> A:
    lo = np.clip(a.view(U32).astype(np.int64) << 48 >> 48, 0, 255)
    hi = np.clip(a.view(U32).astype(np.int64) << 32 >> 48, 0, 255)
    return (lo | hi << 8).astype(U32)


def _qsad(a: A, b: A, c: A, masked: bool) -> A:
    """V_QSAD_PK_U16_U8 / V_MQSAD_PK_U16_U8: four (masked) SADs of the byte windows S0[8i+31:8i]
    against S1, each plus the u16 S2[16i+15:16i], truncated to 16 bits and packed into 64 bits."""
    sad = _msad_u8 if masked else _sad_u8
    a64, c64 = np.asarray(a, U64), np.asarray(c, U64)
    out = np.zeros(np.broadcast(a64, b, c64).shape, dtype=U64)
    for i in range(4):
        window = ((a64 >> U64(8 * i)) & U64(0xFFFFFFFF)).astype(U32)
        accumulator = ((c64 >> U64(16 * i)) & U64(0xFFFF)).astype(U32)
        part = sad(window, np.asarray(b, U32), accumulator) & U32(0xFFFF)
        out = out | (part.astype(U64) << U64(16 * i))
    return out


def _pack16(lo: A, hi: A) -> A:
    return (lo.astype(U32) & U32(0xFFFF)) | (hi.astype(U32) << U32(16))


U32_OPS: dict[str, VOp] = {
    "v_mov_b32": VOp(lambda a: a, "u32", ("u32",)),
    "v_mov_b64": VOp(lambda a: a, "u64", ("u64",)),
    "v_not_b32": VOp(lambda a: ~a, "u32", ("u32",)),
    "v_bfrev_b32": VOp(_bfrev, "u32", ("u32",)),
    "v_ffbh_u32": VOp(_ffbh_u32, "u32", ("u32",)),
    "v_ffbl_b32": VOp(_ffbl_b32, "u32", ("u32",)),
    "v_ffbh_i32": VOp(_ffbh_i32, "u32", ("u32",)),
    "v_add_u32": VOp(lambda a, b: a + b, "u32", ("u32", "u32")),
    "v_sub_u32": VOp(lambda a, b: a - b, "u32", ("u32", "u32")),
    "v_subrev_u32": VOp(lambda a, b: b - a, "u32", ("u32", "u32")),
    "v_add_i32": VOp(lambda a, b: a + b, "i32", ("i32", "i32")),
    "v_sub_i32": VOp(lambda a, b: a - b, "i32", ("i32", "i32")),
    "v_mul_i32_i24": VOp(lambda a, b: _sext24(a) * _sext24(b), "i32", ("i32", "i32")),
    "v_mul_hi_i32_i24": VOp(lambda a, b: (_sext24(a) * _sext24(b)) >> I64(32), "i32", ("i32", "i32")),
    "v_mul_u32_u24": VOp(lambda a, b: _u24(a) * _u24(b), "u32", ("u32", "u32")),
    "v_mul_hi_u32_u24": VOp(lambda a, b: (_u24(a) * _u24(b)) >> U64(32), "u32", ("u32", "u32")),
    "v_mad_i32_i24": VOp(lambda a, b, c: _sext24(a) * _sext24(b) + c, "i32", ("i32", "i32", "i32")),
    "v_mad_u32_u24": VOp(lambda a, b, c: _u24(a) * _u24(b) + c, "u32", ("u32", "u32", "u32")),
    "v_min_i32": VOp(np.minimum, "i32", ("i32", "i32")),
    "v_max_i32": VOp(np.maximum, "i32", ("i32", "i32")),
    "v_min_u32": VOp(np.minimum, "u32", ("u32", "u32")),
    "v_max_u32": VOp(np.maximum, "u32", ("u32", "u32")),
    "v_lshrrev_b32": VOp(lambda a, b: b >> (a & _M5), "u32", ("u32", "u32")),
    "v_ashrrev_i32": VOp(lambda a, b: b >> (a.view(U32) & _M5).astype(I32), "i32", ("i32", "i32")),
    "v_lshlrev_b32": VOp(lambda a, b: b << (a & _M5), "u32", ("u32", "u32")),
    "v_and_b32": VOp(np.bitwise_and, "u32", ("u32", "u32")),
    "v_or_b32": VOp(np.bitwise_or, "u32", ("u32", "u32")),
    "v_xor_b32": VOp(np.bitwise_xor, "u32", ("u32", "u32")),
    "v_xnor_b32": VOp(lambda a, b: ~(a ^ b), "u32", ("u32", "u32")),
    "v_bfe_u32": VOp(_bfe_u, "u32", ("u32", "u32", "u32")),
    "v_bfe_i32": VOp(_bfe_i, "u32", ("u32", "u32", "u32")),
    "v_bfi_b32": VOp(lambda a, b, c: (a & b) | (~a & c), "u32", ("u32", "u32", "u32")),
    "v_bfm_b32": VOp(
        lambda a, b: ((U64(1) << (a & _M5).astype(U64)) - U64(1)) << (b & _M5).astype(U64),
        "u32",
        ("u32", "u32"),
    ),
    "v_alignbit_b32": VOp(
        lambda a, b, c: (a.astype(U64) << U64(32) | b.astype(U64)) >> (c & _M5).astype(U64),
        "u32",
        ("u32", "u32", "u32"),
    ),
    "v_alignbyte_b32": VOp(
        lambda a, b, c: (a.astype(U64) << U64(32) | b.astype(U64)) >> ((c & U32(3)) * U32(8)).astype(U64),
        "u32",
        ("u32", "u32", "u32"),
    ),
    **_min_max_med3(32),
    "v_sad_u32": VOp(lambda a, b, c: _sad(a, b) + c, "u32", ("u32",) * 3),
    "v_sad_u8": VOp(_sad_u8, "u32", ("u32",) * 3),
    "v_sad_hi_u8": VOp(lambda a, b, c: (_sad_u8(a, b, U32(0)) << U32(16)) + c, "u32", ("u32",) * 3),
    "v_msad_u8": VOp(_msad_u8, "u32", ("u32",) * 3),
    "v_lerp_u8": VOp(_lerp_u8, "u32", ("u32",) * 3),
    "v_mul_lo_u32": VOp(lambda a, b: a * b, "u32", ("u32", "u32")),
    "v_mul_hi_u32": VOp(_mul_hi_u32, "u32", ("u32", "u32")),
    "v_mul_hi_i32": VOp(_mul_hi_i32, "u32", ("i32", "i32")),
    "v_lshl_add_u32": VOp(lambda a, b, c: (a << (b & _M5)) + c, "u32", ("u32",) * 3),
    "v_add_lshl_u32": VOp(lambda a, b, c: (a + b) << (c & _M5), "u32", ("u32",) * 3),
    "v_add3_u32": VOp(lambda a, b, c: a + b + c, "u32", ("u32",) * 3),
    "v_lshl_or_b32": VOp(lambda a, b, c: (a << (b & _M5)) | c, "u32", ("u32",) * 3),
    "v_and_or_b32": VOp(lambda a, b, c: (a & b) | c, "u32", ("u32",) * 3),
    "v_or3_b32": VOp(lambda a, b, c: a | b | c, "u32", ("u32",) * 3),
    "v_xad_u32": VOp(lambda a, b, c: (a ^ b) + c, "u32", ("u32",) * 3),
    "v_perm_b32": VOp(_perm, "u32", ("u32",) * 3),
    "v_bcnt_u32_b32": VOp(lambda a, b: popcount(a) + b, "u32", ("u32", "u32")),
    "v_lshlrev_b64": VOp(lambda a, b: b << (a & _M6).astype(U64), "u64", ("u32", "u64")),
    "v_lshrrev_b64": VOp(lambda a, b: b >> (a & _M6).astype(U64), "u64", ("u32", "u64")),
    "v_ashrrev_i64": VOp(lambda a, b: b >> (a & _M6).astype(I64), "i64", ("u32", "i64")),
    "v_lshl_add_u64": VOp(lambda a, b, c: (a << (b & _M3).astype(U64)) + c, "u64", ("u64", "u32", "u64")),
    "v_cvt_pk_u16_u32": VOp(
        lambda a, b: _pack16(np.minimum(a, U32(0xFFFF)), np.minimum(b, U32(0xFFFF))), "u32", ("u32", "u32")
    ),
    "v_cvt_pk_i16_i32": VOp(
        lambda a, b: _pack16(np.clip(a, -32768, 32767).astype(U32), np.clip(b, -32768, 32767).astype(U32)),
        "u32",
        ("i32", "i32"),
    ),
    "v_mad_u32_u16": VOp(lambda a, b, c: a.astype(U32) * b.astype(U32) + c, "u32", ("u16", "u16", "u32")),
    "v_mad_i32_i16": VOp(lambda a, b, c: a.astype(I32) * b.astype(I32) + c, "i32", ("i16", "i16", "i32")),
}

U16_OPS: dict[str, VOp] = {
    "v_add_u16": VOp(lambda a, b: a + b, "u16", ("u16", "u16")),
    "v_sub_u16": VOp(lambda a, b: a - b, "u16", ("u16", "u16")),
    "v_subrev_u16": VOp(lambda a, b: b - a, "u16", ("u16", "u16")),
    "v_add_i16": VOp(lambda a, b: a + b, "i16", ("i16", "i16")),
    "v_sub_i16": VOp(lambda a, b: a - b, "i16", ("i16", "i16")),
    "v_mul_lo_u16": VOp(lambda a, b: a * b, "u16", ("u16", "u16")),
    "v_lshlrev_b16": VOp(lambda a, b: b << (a & _M4), "u16", ("u16", "u16")),
    "v_lshrrev_b16": VOp(lambda a, b: b >> (a & _M4), "u16", ("u16", "u16")),
    "v_ashrrev_i16": VOp(lambda a, b: b >> (a.view(U16) & _M4).astype(np.int16), "i16", ("i16", "i16")),
    "v_max_u16": VOp(np.maximum, "u16", ("u16", "u16")),
    "v_min_u16": VOp(np.minimum, "u16", ("u16", "u16")),
    "v_max_i16": VOp(np.maximum, "i16", ("i16", "i16")),
    "v_min_i16": VOp(np.minimum, "i16", ("i16", "i16")),
    "v_mad_u16": VOp(lambda a, b, c: a * b + c, "u16", ("u16",) * 3),
    "v_mad_legacy_u16": VOp(lambda a, b, c: a * b + c, "u16", ("u16",) * 3),
    "v_mad_legacy_i16": VOp(lambda a, b, c: a * b + c, "i16", ("i16",) * 3),
    "v_mad_i16": VOp(lambda a, b, c: a * b + c, "i16", ("i16",) * 3),
    **_min_max_med3(16),
    "v_sad_u16": VOp(lambda a, b, c: _sad(a, b).astype(U32) + c.astype(U32), "u32", ("u16", "u16", "u32")),
}

DOT_OPS: dict[str, VOp] = {
    "v_dot2_i32_i16": VOp(lambda a, b, c: _dot(a, b, c, 16, True), "i32", ("u32", "u32", "i32")),
    "v_dot2_u32_u16": VOp(lambda a, b, c: _dot(a, b, c, 16, False), "u32", ("u32", "u32", "u32")),
    "v_dot4_i32_i8": VOp(lambda a, b, c: _dot(a, b, c, 8, True), "i32", ("u32", "u32", "i32")),
    "v_dot4_u32_u8": VOp(lambda a, b, c: _dot(a, b, c, 8, False), "u32", ("u32", "u32", "u32")),
    "v_dot8_i32_i4": VOp(lambda a, b, c: _dot(a, b, c, 4, True), "i32", ("u32", "u32", "i32")),
    "v_dot8_u32_u4": VOp(lambda a, b, c: _dot(a, b, c, 4, False), "u32", ("u32", "u32", "u32")),
    "v_dot2c_i32_i16": VOp(lambda a, b, c: _dot(a, b, c, 16, True), "i32", ("u32", "u32", "i32")),
    "v_dot4c_i32_i8": VOp(lambda a, b, c: _dot(a, b, c, 8, True), "i32", ("u32", "u32", "i32")),
    "v_dot8c_i32_i4": VOp(lambda a, b, c: _dot(a, b, c, 4, True), "i32", ("u32", "u32", "i32")),
    "v_sat_pk_u8_i16": VOp(_sat_pk_u8_i16, "u32", ("u32",)),
    "v_qsad_pk_u16_u8": VOp(lambda a, b, c: _qsad(a, b, c, False), "u64", ("u64", "u32", "u64")),
    "v_mqsad_pk_u16_u8": VOp(lambda a, b, c: _qsad(a, b, c, True), "u64", ("u64", "u32", "u64")),
}
# Accumulating (VOP2 "c") dot forms read the destination as the third source.
ACCUMULATING = frozenset({"v_dot2c_i32_i16", "v_dot4c_i32_i8", "v_dot8c_i32_i4"})

OPS: dict[str, VOp] = {**U32_OPS, **U16_OPS, **DOT_OPS}
