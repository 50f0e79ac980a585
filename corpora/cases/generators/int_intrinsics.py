"""Cases of corpora/nvcc int_intrinsics.cu.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec

from generators.common import M32, M64, NV, case, rng, s32, s64


def sbyte(v: int, k: int) -> int:
    b = (v >> (8 * k)) & 0xFF
    return b - 256 if b & 0x80 else b


def sext24(v: int) -> int:
    """The low 24 bits of ``v`` as a signed number (mul24's operands)."""
    return ((v & 0xFFFFFF) ^ 0x800000) - 0x800000


def clamp(v: int, lo: int, hi: int) -> int:
    return max(lo, min(hi, v))


def byte_perm(x: int, y: int, s: int) -> int:
    pool = (x & M32) | ((y & M32) << 32)
    return sum(((pool >> (8 * ((s >> (4 * k)) & 7))) & 0xFF) << (8 * k) for k in range(4))


def u32_inputs(seed: int, n: int) -> np.ndarray:
    v = rng(seed).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    v[:6] = [0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0x00010000]
    return v


def int_intrinsics() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "int_intrinsics.ptx"
    t = 40
    a = u32_inputs(110, t)
    b = rng(111).integers(0, 2**64, t, dtype=np.uint64)
    b[:6] = [0, 1, M64, 1 << 63, 0xFFFFFFFF, 1 << 32]
    out = []
    for i, (x, y) in enumerate(zip(map(int, a), map(int, b))):
        brev = int(f"{x:032b}"[::-1], 2)
        brevll = int(f"{y:064b}"[::-1], 2)
        hi = y >> 32
        fl = (((hi << 32) | x) << (i & 31)) >> 32
        fr = (((y & M32) << 32) | x) >> min(i * 3, 32)
        out += [
            x.bit_count(),
            y.bit_count(),
            32 - x.bit_length(),
            64 - y.bit_length(),
            (x & -x).bit_length(),
            (y & -y).bit_length(),
            s32(brev),
            s32((brevll >> 17) & M32),
            s32(byte_perm(x, y, 0x5140)),
            s32(fl & M32),
            s32(fr & M32),
            s32(byte_perm(x, 0, 0x0123)),
        ]
    yield "int_intrinsics/bit_ops", case(
        src, "bit_ops", 1, t,
        [("a", Buffer("u32", a)), ("b", Buffer("u64", b)), ("out", Buffer("s32", count=t * 12))],
        {"out": np.array(out, np.int32)},
    )
    t = 50
    ai = u32_inputs(112, t).view(np.int32)
    bi = u32_inputs(113, t)[::-1].copy().view(np.int32)
    out, wide = [], []
    for x, y in zip(map(int, ai), map(int, bi)):
        xu, yu = x & M32, y & M32
        dp4a = sum(sbyte(x, k) * sbyte(y, k) for k in range(4)) + 7
        dp4au = sum(((xu >> 8 * k) & 255) * ((yu >> 8 * k) & 255) for k in range(4)) + 7
        h0, h1 = s32(x << 16) >> 16, x >> 16  # signed 16-bit halves of x
        dp2lo = h0 * sbyte(y, 0) + h1 * sbyte(y, 1) + 1
        dp2hi = h0 * sbyte(y, 2) + h1 * sbyte(y, 3) + 1
        out += [
            s32(dp4a),
            s32(dp4au),
            s32(dp2lo),
            s32(dp2hi),
            s32(sext24(x) * sext24(y)),
            s32((xu & 0xFFFFFF) * (yu & 0xFFFFFF)),
            (x * y) >> 32,
            s32(abs(x - y) + 3),
            (x + y) >> 1,
            (x + y + 1) >> 1,
            s32(sum((((xu >> 8 * k) + (yu >> 8 * k)) & 255) << 8 * k for k in range(4))),
            s32(sum(abs(((xu >> 8 * k) & 255) - ((yu >> 8 * k) & 255)) << 8 * k for k in range(4))),
        ]
        num = s64((x << 32) | yu)
        div = y | 1
        q = abs(num) // abs(div) * (1 if (num < 0) == (div < 0) else -1)
        r = abs(num) % 1000000007 * (1 if num >= 0 else -1)
        w5 = (
            xu // 7
            + (abs(x) // 3 * (1 if x >= 0 else -1))
            + (abs(y) % 5 * (1 if y >= 0 else -1))
            + (x >> (y & 31))
            + (xu >> 3)
        )
        wide += [
            x * y,
            s64((((x << 20) & M64) * ((y << 30) & M64)) >> 64),
            s64((s64(x << 20) * s64(y << 30)) >> 64),
            s64(q),
            r,
            s64(w5 & M64),
        ]
    yield "int_intrinsics/int_arith", case(
        src, "int_arith", 1, t,
        [
            ("a", Buffer("s32", ai)), ("b", Buffer("s32", bi)), ("out", Buffer("s32", count=t * 12)),
            ("wide", Buffer("s64", count=t * 6)),
        ],
        {"out": np.array(out, np.int32), "wide": np.array(wide, np.int64)},
    )
    t = 40
    a = u32_inputs(114, t)
    out = []
    for i, x in enumerate(map(int, a)):
        pos = i & 15
        field = (x >> pos) & 31
        bfe_s = field - 32 if field & 16 else field
        bfi = (x & ~(0xFFF << 8) | (((x >> 16) & 0xFFF) << 8)) & M32
        pool = x | ((~x & M32) << 32)
        f4e = sum(((pool >> (8 * (((i & 3) + k) & 7))) & 255) << (8 * k) for k in range(4))
        lop = x ^ ((x << 3) & M32) ^ (x >> 5)
        out += [(x >> 4) & 255, bfe_s & M32, bfi, x, f4e, lop]
    yield "int_intrinsics/ptx_bitfield", case(
        src, "ptx_bitfield", 1, t,
        [("a", Buffer("u32", a)), ("out", Buffer("u32", count=t * 6))],
        {"out": np.array(out, np.uint32)},
        note="prmt.f4e: result byte k = byte ((i & 3) + k) mod 8 of {~x, x}",
    )
    t = 60
    f = (rng(115).standard_normal(t) * 100).astype(np.float32)
    f[:12] = [0.5, 1.5, 2.5, -0.5, -1.5, 127.5, -128.5, 1e10, -1e10, np.nan, np.inf, -np.inf]
    k = rng(116).integers(-(2**31), 2**31, t, dtype=np.int64).astype(np.int32)
    k[:8] = [0, -1, 255, 256, 32767, -32769, 2**31 - 1, -(2**31)]
    s8 = [0 if np.isnan(v) else clamp(int(np.clip(np.rint(np.float64(v)), -1e6, 1e6)), -128, 127) for v in f]
    u32 = []
    for v in map(int, k):
        u32 += [
            clamp(v + 0x7FFFFFF0, -(2**31), 2**31 - 1) & M32,
            clamp(v - 0x7FFFFFF0, -(2**31), 2**31 - 1) & M32,
            clamp(((v * v) >> 32) + 0x7FFFFFFF, -(2**31), 2**31 - 1) & M32,
        ]
    yield "int_intrinsics/saturating", case(
        src, "saturating", 1, t,
        [
            ("f", Buffer("f32", f)), ("k", Buffer("s32", k)), ("s8", Buffer("s8", count=t)),
            ("u8", Buffer("u8", count=t)), ("s16", Buffer("s16", count=t)), ("u32", Buffer("u32", count=t * 3)),
        ],
        {
            "s8": np.array(s8, np.int8), "u8": np.array([clamp(int(v), 0, 255) for v in k], np.uint8),
            "s16": np.array([clamp(int(v), -(2**15), 2**15 - 1) for v in k], np.int16), "u32": np.array(u32, np.uint32),
        },
        note="cvt.rni.sat.s8.f32: round half to even, clamp, NaN -> 0",
    )
