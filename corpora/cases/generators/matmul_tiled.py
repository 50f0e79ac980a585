"""Cases of corpora/nvcc matmul_tiled.cu.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

from generators.common import NV, case, rng, small_ints_f32


# == matmul_tiled.cu =================================================================================
def sgemm_operands(seed_a: int, seed_b: int, m: int, n: int, k: int) -> tuple[list, dict]:
    """(A, B, C, M, N, K) for C = A @ B of small-integer f32 matrices (row-major), and C's values."""
    a, b = small_ints_f32(seed_a, m * k), small_ints_f32(seed_b, k * n)
    c = (a.reshape(m, k).astype(np.float64) @ b.reshape(k, n)).astype(np.float32)
    args = [("A", Buffer("f32", a)), ("B", Buffer("f32", b)), ("C", Buffer("f32", count=m * n))]
    return args + [("M", Scalar("s32", m)), ("N", Scalar("s32", n)), ("K", Scalar("s32", k))], {"C": c}


def matmul_tiled() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "matmul_tiled.ptx"
    # Small-integer matrices: every product and partial sum is exact, so fma contraction and
    # summation order cannot change the result.
    for tile, (m, n, k) in [(16, (37, 29, 45)), (32, (40, 33, 50))]:
        grid = ((n + tile - 1) // tile, (m + tile - 1) // tile)
        args, expect = sgemm_operands(30 + tile, 31 + tile, m, n, k)
        kernel = f"_Z12matmul_tiledILi{tile}EEvPKfS1_Pfiii"
        yield f"matmul_tiled/matmul_tiled_{tile}", case(src, kernel, grid, (tile, tile), args, expect)
    args, expect = sgemm_operands(34, 35, 21, 35, 19)
    yield "matmul_tiled/matmul_naive", case(src, "matmul_naive", (3, 3), (16, 8), args, expect)
    n = 64
    a = rng(36).integers(-8, 9, n * n).astype(np.float64)
    b = rng(37).integers(-8, 9, n * n).astype(np.float64)
    c0 = rng(38).integers(-8, 9, n * n).astype(np.float64)
    alpha, beta = 2.0, -0.5
    c = alpha * (a.reshape(n, n) @ b.reshape(n, n)).reshape(-1) + beta * c0
    yield "matmul_tiled/dgemm_2x2", case(
        src, "dgemm_2x2", (2, 2), (16, 16),
        [
            ("A", Buffer("f64", a)), ("B", Buffer("f64", b)), ("C", Buffer("f64", c0)), ("n", Scalar("s32", n)),
            ("alpha", Scalar("f64", alpha)), ("beta", Scalar("f64", beta)),
        ],
        {"C": c},
    )
