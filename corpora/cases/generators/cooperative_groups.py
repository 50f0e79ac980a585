"""Cases of corpora/nvcc cooperative_groups.cu.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

from generators.common import NV, case, rng, small_ints_f32, wrap32
from generators.warp_intrinsics import lane_mask, warps


def cooperative_groups() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "cooperative_groups.ptx"
    grid, block = 3, 96
    v = rng(150).integers(-(2**31), 2**31, grid * block, dtype=np.int64).astype(np.int32)
    total = wrap32(np.array([int(v.astype(np.int64).sum()) + 17]))
    yield "cooperative_groups/cg_tile_reduce", case(
        src, "cg_tile_reduce", grid, block,
        [("in", Buffer("s32", v)), ("out", Buffer("s32", np.array([17], np.int32)))],
        {"out": total},
    )
    grid, block = 2, 80
    x = small_ints_f32(151, grid * block)
    tiles = x.reshape(-1, 16)
    maxes = np.array([max(0, int(m)) * 100 for m in tiles.max(1)], np.uint32)  # (unsigned)(v * 100): < 0 -> 0
    yield "cooperative_groups/cg_reduce_scan", case(
        src, "cg_reduce_scan", grid, block,
        [
            ("in", Buffer("f32", x)), ("sums", Buffer("f32", count=tiles.shape[0])),
            ("scan", Buffer("f32", count=x.size)), ("maxes", Buffer("u32", count=tiles.shape[0])),
        ],
        {
            "sums": tiles.sum(1).astype(np.float32), "scan": np.cumsum(tiles, 1).astype(np.float32).reshape(-1),
            "maxes": maxes,
        },
        note="small-integer floats: tile sums and scans are exact in any order; "
        "cvt.rzi.u32.f32 saturates negatives to 0",
    )
    grid, block = 2, 96
    v = -np.abs(rng(152).integers(0, 100, grid * block)).astype(np.int32)
    v[128:160] = rng(153).integers(-50, 50, 32)  # only warp 4 has positives: the counter order is fixed
    kept = v[128:160][v[128:160] > 0]
    out = np.zeros(40, np.int32)
    out[5 : 5 + kept.size] = kept
    yield "cooperative_groups/cg_coalesced", case(
        src, "cg_coalesced", grid, block,
        [
            ("in", Buffer("s32", v)), ("out", Buffer("s32", count=40)),
            ("counter", Buffer("s32", np.array([5], np.int32))),
        ],
        {"out": out, "counter": np.array([5 + kept.size], np.int32)},
    )
    t = 96
    v = rng(154).integers(-1000, 1000, t).astype(np.int32)
    for size in (4, 16):
        yield f"cooperative_groups/cg_dynamic_tiles_{size}", case(
            src, "cg_dynamic_tiles", 1, t,
            [("in", Buffer("s32", v)), ("out", Buffer("s32", count=t)), ("tile_size", Scalar("u32", size))],
            {"out": (v * size + np.arange(t) % size).astype(np.int32)},
        )
    v = rng(155).integers(-5, 20, t).astype(np.int32)
    out = []
    for row in warps(v):
        ballot = lane_mask(row > 0)
        for lane in range(32):
            quad = row[lane & ~3 : (lane & ~3) + 4]
            out += [ballot, int((quad > 10).any()), int((quad > 0).all()) + (lane >> 2) * 2]
    yield "cooperative_groups/cg_vote", case(
        src, "cg_vote", 1, t,
        [("in", Buffer("s32", v)), ("out", Buffer("u32", count=t * 3))],
        {"out": np.array(out, np.uint32)},
    )
