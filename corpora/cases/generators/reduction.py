"""Cases of corpora/nvcc reduction.cu.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

from generators.common import NV, case, f32_inputs, rng, small_ints_f32


# == reduction.cu ====================================================================================
def reduction() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "reduction.ptx"
    # Inputs are small integers (as floats): every summation order gives the same, exact result.
    n, block, grid = 1000, 128, 4
    x = small_ints_f32(20, n)
    per_block = [x[b * 2 * block : (b + 1) * 2 * block].sum(dtype=np.float64) for b in range(grid)]
    yield "reduction/reduce_shared", case(
        src, "reduce_shared", grid, block,
        [("in", Buffer("f32", x)), ("out", Buffer("f32", count=grid)), ("n", Scalar("u32", n))],
        {"out": np.array(per_block, np.float32)},
        shared_bytes=block * 4,
        note="sums of small integers: exact in any order",
    )
    x = small_ints_f32(21, 2000)
    yield "reduction/reduce_warp_atomic", case(
        src, "reduce_warp_atomic", 3, 96,
        [("in", Buffer("f32", x)), ("total", Buffer("f32", np.array([0.5], np.float32))), ("n", Scalar("s32", 2000))],
        {"total": np.array([x.sum(dtype=np.float64) + 0.5], np.float32)},
    )
    v = f32_inputs(22, 1000, edges=False)
    v[[17, 400, 901]] = np.float32(-123.25)  # the minimum three times: the lowest index wins
    v[[5, 700]] = np.nan  # NaN never compares less: ignored
    v[3] = np.inf
    finite = np.where(np.isnan(v), np.inf, v)
    best = int(np.argmin(finite))
    yield "reduction/argmin", case(
        src, "argmin", 1, 160,
        [
            ("in", Buffer("f32", v)), ("n", Scalar("s32", 1000)), ("out_value", Buffer("f32", count=1)),
            ("out_index", Buffer("s32", count=1)),
        ],
        {"out_value": v[[best]], "out_index": np.array([best], np.int32)},
    )
    d = rng(23).integers(-1000, 1000, 1500).astype(np.float64) * 0.25
    grid, block = 3, 128
    sums = []
    for b in range(grid):
        total = 0.0
        for t in range(block):
            total += d[b * block + t :: grid * block].sum()
        sums.append(total)
    yield "reduction/reduce_f64", case(
        src, "reduce_f64", grid, block,
        [("in", Buffer("f64", d)), ("out", Buffer("f64", count=grid)), ("n", Scalar("s32", 1500))],
        {"out": np.array(sums)},
        note="multiples of 0.25 below 2^40: exact in any order",
    )
    grid, block = 4, 100
    vals = rng(24).integers(-5, 6, grid * block).astype(np.int32)
    vals[0:100] = np.abs(vals[0:100]) + 1  # block 0: all positive
    vals[100:200] = -np.abs(vals[100:200])  # block 1: none positive
    blocks = vals.reshape(grid, block) > 0
    yield "reduction/count_positive", case(
        src, "count_positive", grid, block,
        [
            ("in", Buffer("s32", vals)), ("count", Buffer("s32", count=grid)), ("all_pos", Buffer("s32", count=grid)),
            ("any_pos", Buffer("s32", count=grid)),
        ],
        {
            "count": blocks.sum(1).astype(np.int32), "all_pos": blocks.all(1).astype(np.int32),
            "any_pos": blocks.any(1).astype(np.int32),
        },
    )
