"""One-warp argmin (reduction), numba warp_votes and Triton dropout: one generator over three
collections, kept whole because its cases share one random stream (splitting it would change their
inputs).

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

from generators.common import F32, M32, NV, case, f32_inputs, rng, s32
from generators.numba import numba_array, numba_case
from generators.triton import triton_case
from generators.warp_intrinsics import lane_mask, warps


# == more: one-warp argmin, numba warp_votes, Triton dropout =======================================
def extra_kernels() -> Iterator[tuple[str, CaseSpec]]:
    r = rng(240)
    v = f32_inputs(241, 500, edges=False)
    v[[33, 90, 411]] = np.float32(-77.5)
    v[7] = np.nan
    best = int(np.argmin(np.where(np.isnan(v), np.inf, v)))
    yield "reduction/argmin_one_warp", case(
        NV + "reduction.ptx", "argmin", 1, 32,
        [
            ("in", Buffer("f32", v)), ("n", Scalar("s32", 500)), ("out_value", Buffer("f32", count=1)),
            ("out_index", Buffer("s32", count=1)),
        ],
        {"out_value": v[[best]], "out_index": np.array([best], np.int32)},
        note="blockDim 32: the per_warp loop does not run (compare reduction/argmin)",
    )
    t = 96
    x = r.integers(-3, 4, t).astype(np.int32)
    x[0:32] = 2  # uniform warp
    out = []
    for row in warps(x):
        ballot = lane_mask(row > 0)
        for lane in range(32):
            up = row[lane - 1] if lane >= 1 else row[lane]
            out += [
                ballot,
                int((row != 0).all()),
                int((row < 0).any()),
                int(len(set((row > 0).tolist())) == 1),
                lane_mask(row == row[lane]),
                ballot.bit_count() + (32 - ballot.bit_length()) + (ballot & -ballot).bit_length(),
                int(f"{ballot:032b}"[::-1], 2),
                (int(row[0]) + int(row[lane ^ 1]) + int(up)) & M32,
                (1 << lane) - 1,
            ]
    yield "numba/warp_votes", numba_case(
        "warp_votes", 1, t,
        [numba_array("x", "s32", x, (t,)), numba_array("out", "u32", None, (t, 9))],
        {"out": np.array(out, np.uint32)},
        note="cuda.ffs is 1-based (0 for 0), like CUDA's __ffs",
    )

    def philox(seed: int, c0: int) -> int:
        """Triton's tl.randint: Philox-4x32 with 10 rounds, key = (seed lo, seed hi), counter = (offset, 0, 0, 0)."""
        c1 = c2 = c3 = 0
        k0, k1 = seed & M32, (seed >> 32) & M32
        for _ in range(10):
            a0, a2 = c0, c2
            c0 = ((0xCD9E8D57 * a2) >> 32) ^ c1 ^ k0
            c2 = ((0xD2511F53 * a0) >> 32) ^ c3 ^ k1
            c1 = (0xCD9E8D57 * a2) & M32
            c3 = (0xD2511F53 * a0) & M32
            k0 = (k0 + 0x9E3779B9) & M32
            k1 = (k1 + 0xBB67AE85) & M32
        return c0

    n, p, seed = 2500, 0.3, 1234
    x = f32_inputs(242, n, edges=False)
    out = np.zeros(n, np.float32)
    for i in range(n):
        u = s32(philox(seed, i))
        u = -u - 1 if u < 0 else u
        rnd = F32(F32(u) * F32(4.6566127342e-10))
        if rnd > F32(p):
            out[i] = x[i] / (F32(1) - F32(p))
    yield "triton/dropout_kernel", triton_case(
        "dropout_kernel", 3,
        [
            ("x_ptr", Buffer("f32", x)), ("out_ptr", Buffer("f32", count=n)), ("n", Scalar("s32", n)),
            ("p", Scalar("f32", p)), ("seed", Scalar("s32", seed)),
        ],
        {"out_ptr": out},
        tolerance={"out_ptr": (3e-7, 0.0)},
        note="tl.rand = Philox-4x32-10 (triton/language/random.py) -> int32 -> |.| * 2^-31; the kept values "
        "use div.full.f32 (2 ulp): rtol 3e-7, and atol 0, so every dropped element must be exactly 0",
    )
