"""Cases of corpora/nvcc stencil_constant.cu.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

from generators.common import NV, case, f32_inputs, rng


# == stencil_constant.cu =============================================================================
def stencil_constant() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "stencil_constant.ptx"
    # c_weights is a __constant__ without an initializer and a case file cannot set module globals:
    # the weights are 0, so out[g] = sum(0 * s[..]) = 0 for finite inputs (the sentinel proves the write).
    n = 600
    x = f32_inputs(60, n, edges=False)
    out0 = np.full(n + 40, 7.0, np.float32)
    expect = out0.copy()
    expect[:n] = 0.0
    yield "stencil_constant/stencil_1d", case(
        src, "stencil_1d", 3, 256,
        [("in", Buffer("f32", x)), ("out", Buffer("f32", out0)), ("n", Scalar("s32", n))],
        {"out": expect},
        note="c_weights (a __constant__ with no initializer) reads as zeros: the case format cannot set globals",
    )
    nx, ny = 45, 30
    u = f32_inputs(61, nx * ny, edges=False)
    v0 = np.full(nx * ny, -3.0, np.float32)
    v = v0.copy().reshape(ny, nx)
    U = u.reshape(ny, nx)
    inner = ((U[1:-1, :-2] + U[1:-1, 2:]) + U[:-2, 1:-1]) + U[2:, 1:-1]
    v[1:-1, 1:-1] = np.float32(0.25) * inner
    yield "stencil_constant/jacobi_2d", case(
        src, "jacobi_2d", (3, 3), (16, 12),
        [("u", Buffer("f32", u)), ("v", Buffer("f32", v0)), ("nx", Scalar("s32", nx)), ("ny", Scalar("s32", ny))],
        {"v": v.reshape(-1)},
        note="f32 sums left to right as written; the 0.25 scaling is exact",
    )
    nx, ny, nz = 20, 13, 7
    d = rng(62).integers(-64, 64, nx * ny * nz).astype(np.float64) / 8
    o0 = np.full(d.size, 9.5)
    o = o0.copy().reshape(nz, ny, nx)
    D = d.reshape(nz, ny, nx)
    c0, c1 = 0.5, -0.25
    s6 = (
        D[:-2, 1:-1, 1:-1]
        + D[2:, 1:-1, 1:-1]
        + D[1:-1, 1:-1, :-2]
        + D[1:-1, 1:-1, 2:]
        + D[1:-1, :-2, 1:-1]
        + D[1:-1, 2:, 1:-1]
    )
    o[1:-1, 1:-1, 1:-1] = c0 * D[1:-1, 1:-1, 1:-1] + c1 * s6
    yield "stencil_constant/stencil_3d", case(
        src, "stencil_3d", (2, 2), (16, 8),
        [
            ("in", Buffer("f64", d)), ("out", Buffer("f64", o0)), ("nx", Scalar("s32", nx)), ("ny", Scalar("s32", ny)),
            ("nz", Scalar("s32", nz)), ("c0", Scalar("f64", c0)), ("c1", Scalar("f64", c1)),
        ],
        {"out": o.reshape(-1)},
        note="multiples of 1/8 and c0, c1 powers of two: exact whatever fma contraction nvcc chose",
    )
