"""Cases of corpora/nvcc wide_types.cu.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Raw, Scalar

from generators.common import M64, NV, case, f32_inputs, rng, s32, s64


# == wide_types.cu ===================================================================================
def wide_types() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "wide_types.ptx"
    t = 40
    a = rng(130).integers(0, 2**64, 2 * t, dtype=np.uint64)
    b = rng(131).integers(0, 2**64, 2 * t, dtype=np.uint64)
    b[0:2] = 0  # y == 0: q = r = 0
    b[2:4] = a[2:4]  # x == y
    b[4], b[5] = 0, 12345  # a small divisor
    a[6], a[7] = 1 << 63, 0
    M128 = (1 << 128) - 1
    out = []
    for i in range(t):
        x = (int(a[2 * i]) << 64) | int(a[2 * i + 1])
        y = (int(b[2 * i]) << 64) | int(b[2 * i + 1])
        sx = (x - (1 << 128) if x >> 127 else x) >> (i & 127)
        vals = [(x + y) & M128, (x - y) & M128, (x * y) & M128, x // y if y else 0, x % y if y else 0]
        for v in vals:
            out += [v >> 64, v & M64]
        out += [(sx & M128) >> 64, int(x < y) + int(x == y)]
    yield "wide_types/int128_ops", case(
        src, "int128_ops", 1, t,
        [("a", Buffer("u64", a)), ("b", Buffer("u64", b)), ("out", Buffer("u64", count=t * 12))],
        {"out": np.array(out, np.uint64)},
    )
    t = 70
    sizes = rng(132).integers(-1000, 1000, t).astype(np.int32)
    out = [sum(k * k for k in range(int(v) & 63, -1, -3)) for v in sizes]
    yield "wide_types/dynamic_alloca", case(
        src, "dynamic_alloca", 1, t,
        [("sizes", Buffer("s32", sizes)), ("out", Buffer("s32", count=t))],
        {"out": np.array(out, np.int32)},
    )
    count = 2100
    w = f32_inputs(133, 2048)
    x = f32_inputs(134, count + 50, edges=False)
    y0 = np.full(count + 50, -1.0, np.float32)
    y = y0.copy()
    with np.errstate(all="ignore"):
        y[:count] = w[np.arange(count) & 2047] * x[:count]
    yield "wide_types/big_param_block", case(
        src, "big_param_block", 9, 240,
        [("p", Raw(w.tobytes() + np.int32(count).tobytes())), ("x", Buffer("f32", x)), ("y", Buffer("f32", y0))],
        {"y": y},
        note="BigParams (8196 bytes) by value",
    )
    t = 50
    raw = rng(135).integers(0, 256, (t, 16)).astype(np.uint8)
    raw[:, 1] &= 1  # bool
    raw[0, 0] = 127  # char wraps to -128
    raw[:, 7] = 0  # padding: its value after the struct copy is unspecified, so the input keeps it 0
    table = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89] + [0] * 290
    out = raw.copy()
    sums = []
    for i in range(t):
        r = out[i]
        c = (int(r[0]) + 1) & 255
        r[0] = c
        r[1] = 1 - r[1]
        sh = (int(np.frombuffer(r[2:4].tobytes(), "<i2")[0]) * 3) & 0xFFFF
        r[2:4] = np.frombuffer(np.uint16(sh).tobytes(), np.uint8)
        r[4 + i % 3] ^= 0x5A
        ll = s64(int(np.frombuffer(r[8:16].tobytes(), "<i8")[0]) + table[i % 300])
        r[8:16] = np.frombuffer(np.int64(ll).tobytes(), np.uint8)
        sums.append(
            s32(
                (c - 256 if c > 127 else c)
                + (sh - 65536 if sh > 32767 else sh)
                + int(r[4])
                + int(r[5])
                + int(r[6])
                + s32(ll)
            )
        )
    yield "wide_types/packed_structs", case(
        src, "packed_structs", 1, t,
        [("in", Buffer("u8", raw.reshape(-1))), ("out", Buffer("u8", count=t * 16)), ("sum", Buffer("s32", count=t))],
        {"out": out.reshape(-1), "sum": np.array(sums, np.int32)},
        note="Packed {char c; bool flag; short s; unsigned char bytes[3]; long long ll} = 16 bytes; byte 7 is "
        "padding, 0 in the input, and 0 expected (nvcc's PTX writes the fields, not the padding)",
    )
    n, offset = 300, 3
    srcb = rng(136).integers(0, 256, n + 16).astype(np.uint8)
    dst = np.zeros(n + 8, np.uint8)
    dst[:n] = srcb[offset : offset + n]
    dst[n : n + 4] = srcb[offset + 1 : offset + 5]
    yield "wide_types/unaligned_copy", case(
        src, "unaligned_copy", 1, 100,
        [
            ("src", Buffer("u8", srcb)), ("dst", Buffer("u8", count=n + 8)), ("offset", Scalar("s32", offset)),
            ("n", Scalar("s32", n)),
        ],
        {"dst": dst},
    )
