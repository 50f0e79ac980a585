"""Cases of corpora/nvcc scan_sort.cu.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

from generators.common import NV, case, f32_inputs, rng, small_ints_f32, wrap32


def scan_sort() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "scan_sort.ptx"
    n = 100  # blockDim == n, one block
    x = rng(50).integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    exclusive = wrap32(np.concatenate([[0], np.cumsum(x[:-1].astype(np.int64))]))
    yield "scan_sort/scan_hillis_steele", case(
        src, "scan_hillis_steele", 1, n,
        [("in", Buffer("s32", x)), ("out", Buffer("s32", count=n)), ("n", Scalar("s32", n))],
        {"out": exclusive},
        shared_bytes=2 * n * 4,
        note="exclusive scan, 32-bit wrap-around",
    )
    n = 256  # n = 2 * blockDim, a power of two
    f = small_ints_f32(51, n)
    yield "scan_sort/scan_blelloch", case(
        src, "scan_blelloch", 1, n // 2,
        [("data", Buffer("f32", f)), ("n", Scalar("s32", n))],
        {"data": np.concatenate([[0], np.cumsum(f[:-1].astype(np.float64))]).astype(np.float32)},
        shared_bytes=n * 4,
        note="small-integer floats: the tree order is exact",
    )
    keys = rng(52).integers(0, 2**32, 2048, dtype=np.uint64).astype(np.uint32)
    keys[:4] = [0, 0xFFFFFFFF, 0xFFFFFFFF, 0]
    yield "scan_sort/bitonic_sort_shared", case(
        src, "bitonic_sort_shared", 2, 1024,
        [("keys", Buffer("u32", keys))],
        {"keys": np.sort(keys.reshape(2, 1024), axis=1).reshape(-1)},
    )
    # radix_rank: one warp per block, so the per-digit atomicAdd base is 0 and ranks are deterministic.
    grid, shift = 3, 4
    keys = rng(53).integers(0, 2**32, grid * 32, dtype=np.uint64).astype(np.uint32)
    digits = (keys >> shift) & 15
    ranks = np.zeros_like(keys)
    hist = np.zeros(grid * 16, np.uint32)
    for b in range(grid):
        for lane in range(32):
            d = digits[b * 32 + lane]
            ranks[b * 32 + lane] = np.count_nonzero(digits[b * 32 : b * 32 + lane] == d)
        hist[b * 16 : (b + 1) * 16] = np.bincount(digits[b * 32 : (b + 1) * 32], minlength=16)
    yield "scan_sort/radix_rank", case(
        src, "radix_rank", grid, 32,
        [
            ("keys", Buffer("u32", keys)), ("ranks", Buffer("u32", count=grid * 32)),
            ("hist", Buffer("u32", count=grid * 16)), ("shift", Scalar("s32", shift)),
        ],
        {"ranks": ranks, "hist": hist},
        note="blockDim 32: one warp per block, so the leader's atomicAdd base is always 0",
    )
    # compact_positive: only warp 4 (i in [128, 160)) has positives, so the output order is fixed.
    n = 180
    v = -np.abs(f32_inputs(54, n, edges=False)) - 1
    v[128:160] = rng(55).standard_normal(32).astype(np.float32)
    v[130], v[131], v[132] = 0.0, -0.0, 1e-45
    kept = v[:n][v[:n] > 0]
    out = np.zeros(64, np.float32)
    out[: kept.size] = kept
    yield "scan_sort/compact_positive", case(
        src, "compact_positive", 2, 96,
        [
            ("in", Buffer("f32", v)), ("out", Buffer("f32", count=64)), ("count", Buffer("u32", count=1)),
            ("n", Scalar("s32", n)),
        ],
        {"out": out, "count": np.array([kept.size], np.uint32)},
        note="positives only in one warp: the atomicAdd order between warps cannot matter",
    )
