"""Cases of corpora/nvcc warp_intrinsics.cu.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

from generators.common import F32, M32, NV, case, rng, wrap32
from generators.int_intrinsics import u32_inputs


# == warp_intrinsics.cu / cooperative_groups.cu ======================================================
def warps(values: np.ndarray) -> np.ndarray:
    """(n,) -> (n // 32, 32): one row per CUDA warp (blocks are whole warps in these cases)."""
    return values.reshape(-1, 32)


def lane_mask(bits: np.ndarray) -> int:
    return int(sum(1 << lane for lane, bit in enumerate(bits) if bit))


def warp_intrinsics() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "warp_intrinsics.ptx"
    t, srcl, delta = 96, 37, 3
    v = rng(140).integers(-1000, 1000, t).astype(np.int32)
    out = np.zeros((t, 8), np.int64)
    for w, row in enumerate(warps(v)):
        f = row.astype(np.float32) * F32(0.5)
        d = row.astype(np.float64) * 0.25
        for lane in range(32):
            o = out[w * 32 + lane]
            o[0] = row[srcl % 32]
            o[1] = row[lane - delta] if lane >= delta else row[lane]
            o[2] = row[lane + delta] if lane + delta < 32 else row[lane]
            o[3] = row[lane & ~7]
            o[4] = row[(lane & ~7) + srcl % 8]
            o[5] = int(f[lane + 1] if (lane & 15) + 1 < 16 else f[lane])  # (int) truncates toward zero
            o[6] = int(d[lane ^ 16])
            o[7] = 0  # (int) of (long long)v << 33 keeps the low 32 bits: 0, then >> 1
    yield "warp_intrinsics/shuffles", case(
        src, "shuffles", 1, t,
        [
            ("in", Buffer("s32", v)), ("out", Buffer("s32", count=t * 8)), ("src", Scalar("s32", srcl)),
            ("delta", Scalar("s32", delta)),
        ],
        {"out": out.astype(np.int32).reshape(-1)},
        note="out[5]: lanes 16-31 are outside the 0x0000ffff mask (undefined in CUDA); modelled as the same "
        "width-16 shuffle, which is what NVIDIA hardware does",
    )
    grid, block = 2, 96
    v = rng(141).integers(-3, 4, grid * block).astype(np.int32)
    v[0:32] = 5  # uniform, all positive
    v[32:64] = np.abs(v[32:64]) + 1
    out = []
    for row in warps(v):
        ballot = lane_mask(row > 0)
        for lane in range(32):
            out += [
                ballot,
                int((row < 0).any()),
                int((row != 0).all()),
                # __uni_sync(mask, v) votes on the predicate v != 0 (nvcc: vote.sync.uni.pred on
                # setp.ne), not on v itself: equal truth values, not equal integers
                int(((row != 0) == (row[0] != 0)).all()),
                lane_mask(row & 1) if row[lane] & 1 else 0,
            ]
    yield "warp_intrinsics/votes", case(
        src, "votes", grid, block,
        [("in", Buffer("s32", v)), ("out", Buffer("u32", count=grid * block * 5))],
        {"out": np.array(out, np.uint32)},
        note="__activemask() inside `if (v & 1)`: the lanes that took the branch",
    )
    t = 128
    v = rng(142).integers(0, 5, t).astype(np.int32)
    v[32:64] = 9
    out = []
    for row in warps(v):
        same_all = bool((row == row[0]).all())
        for lane in range(32):
            m = lane_mask(row == row[lane])
            out += [m, m, 0xFFFFFFFF if same_all else 0, int(same_all)]
    yield "warp_intrinsics/match", case(
        src, "match", 1, t,
        [("in", Buffer("s32", v)), ("out", Buffer("u32", count=t * 4))],
        {"out": np.array(out, np.uint32)},
    )
    t = 96
    v = u32_inputs(143, t)
    out = []
    for row in warps(v):
        r = [
            int(row.astype(np.uint64).sum()) & M32,
            int(row.min()),
            int(row.view(np.int32).max()) & M32,
            int(np.bitwise_and.reduce(row)),
            int(np.bitwise_or.reduce(row)),
            int(np.bitwise_xor.reduce(row[0::2])),
        ]
        out += r * 32
    yield "warp_intrinsics/warp_reduce_redux", case(
        src, "warp_reduce_redux", 1, t,
        [("in", Buffer("u32", v)), ("out", Buffer("u32", count=t * 6))],
        {"out": np.array(out, np.uint32)},
        note="__reduce_xor_sync(0x55555555): the even lanes' xor; odd lanes (outside the mask, undefined in "
        "CUDA) are modelled as receiving the same value",
    )
    grid, block = 3, 64
    v = rng(144).integers(-(2**31), 2**31, grid * block, dtype=np.int64).astype(np.int32)
    scan = np.concatenate([wrap32(np.cumsum(row.astype(np.int64))) for row in warps(v)])
    yield "warp_intrinsics/warp_scan", case(
        src, "warp_scan", grid, block,
        [("in", Buffer("s32", v)), ("out", Buffer("s32", count=grid * block))],
        {"out": scan},
    )
    d = rng(145).integers(-1000, 1000, 32).astype(np.int32)
    expect = np.array([d[15 - lane] * 2 if lane < 16 else d[47 - lane] + 1 for lane in range(32)], np.int32)
    yield "warp_intrinsics/syncwarp_divergent", case(
        src, "syncwarp_divergent", 1, 32,
        [("data", Buffer("s32", d))],
        {"data": expect},
        note="one warp: every warp would use the same data[lane]",
    )
