#!/usr/bin/env python3
"""Generate the corpus launch cases: ``corpora/cases/<collection>/<kernel>/case.toml`` + ``.npy`` files.

Each generator below reads like the CUDA / Triton / numba source it models (quoted in its docstring)
and computes the expected outputs with numpy or plain Python, independently of ptx2gcn: nothing here
imports the compiler or runs a kernel. Inputs come from ``numpy.random.default_rng(seed)`` with a fixed
seed per case, so two runs write byte-identical files.

Invariant: every folder under ``corpora/cases/`` that holds a ``case.toml`` is written by exactly one
generator here; ``--check`` regenerates into a temporary folder and reports any difference.

Usage: ``.venv/bin/python corpora/cases/make_cases.py [--only SUBSTRING] [--check]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import filecmp
import hashlib
import math
import os
import sys
import tempfile
import zlib
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cases_async
import cases_matrix
from casegen import Buffer, CaseSpec, Raw, Scalar

CASES = Path(__file__).resolve().parent
CORPUS = CASES.parent
NV = "nvcc/sm_80/"

Generator = Callable[[], Iterator[tuple[str, CaseSpec]]]
GENERATORS: list[Generator] = []


def generator(fn: Generator) -> Generator:
    GENERATORS.append(fn)
    return fn


def rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def dim(value: int | tuple[int, ...]) -> tuple[int, int, int]:
    t = (value,) if isinstance(value, int) else tuple(value)
    return (t + (1, 1, 1))[:3]  # type: ignore[return-value]


def case(
    source: str, kernel: str, grid: object, block: object, args: list, expect: dict, **kw: object
) -> CaseSpec:
    return CaseSpec(source, kernel, dim(grid), dim(block), args, expect, **kw)  # type: ignore[arg-type]


F32_EDGES = np.array(
    [
        0.0,
        -0.0,
        1.0,
        -1.0,
        1e-45,
        -1e-45,
        1.17549435e-38,
        3.4028235e38,
        -3.4028235e38,
        np.inf,
        -np.inf,
        0.5,
        2.0**-126,
        65504.0,
        1e30,
        -1e-30,
    ],
    dtype=np.float32,
)


def f32_inputs(seed: int, n: int, edges: bool = True) -> np.ndarray:
    x = (rng(seed).standard_normal(n) * 10).astype(np.float32)
    if edges:
        k = min(n, F32_EDGES.size)
        x[:k] = F32_EDGES[:k]
    return x


def fma(a: np.ndarray | float, b: np.ndarray | float, c: np.ndarray | float, dtype: type) -> np.ndarray:
    """fma.rn: a*b+c computed exactly (fractions) and rounded once to ``dtype``; IEEE specials via numpy."""
    a, b, c = np.broadcast_arrays(np.asarray(a, dtype), np.asarray(b, dtype), np.asarray(c, dtype))
    out = np.empty(a.shape, dtype)
    for i, (p, q, r) in enumerate(zip(a.flat, b.flat, c.flat)):
        if dtype is np.float32 and np.isfinite(p) and np.isfinite(q) and np.isfinite(r):
            prod = np.float64(p) * np.float64(q)  # exact: 24 + 24 bits
            total = prod + np.float64(r)
            if total - prod == np.float64(r) and total - np.float64(r) == prod and total != 0:
                with np.errstate(over="ignore"):
                    out.flat[i] = np.float32(total)  # the f64 sum is exact: one rounding to f32
                continue
        if np.isfinite(p) and np.isfinite(q) and np.isfinite(r):
            exact = Fraction(float(p)) * Fraction(float(q)) + Fraction(float(r))
            if exact == 0:  # RN: -0 only for (-0 product) + (-0)
                negative = p * q == 0 and np.signbit(p) != np.signbit(q) and r == 0 and np.signbit(r)
                out.flat[i] = dtype(-0.0 if negative else 0.0)
            else:
                out.flat[i] = round_fraction(exact, dtype)
        else:
            with np.errstate(all="ignore"):
                out.flat[i] = dtype(np.float64(p) * np.float64(q) + np.float64(r))
    return out


def round_fraction(x: Fraction, dtype: type) -> float:
    """Round an exact rational to ``dtype`` (round to nearest even), via f64 only where that is exact."""
    try:
        d = float(x)  # correctly rounded to f64
    except OverflowError:
        return dtype(np.inf if x > 0 else -np.inf)
    if dtype is np.float64:
        return np.float64(d)
    # f64 -> f32 double rounding is wrong only when d is a tie of f32 produced by rounding; fix exactly.
    with np.errstate(over="ignore"):
        f = np.float32(d)
    if np.isinf(f):
        return f
    lo, hi = (
        (np.nextafter(f, np.float32(-np.inf)), f)
        if Fraction(float(f)) > x
        else (f, np.nextafter(f, np.float32(np.inf)))
    )
    dlo, dhi = x - Fraction(float(lo)), Fraction(float(hi)) - x
    if dlo < dhi:
        return lo
    if dhi < dlo:
        return hi
    return lo if int(lo.view(np.uint32)) % 2 == 0 else hi


def small_ints_f32(seed: int, n: int, lo: int = -8, hi: int = 9) -> np.ndarray:
    """Floats that are small integers: any summation order gives the exact same result."""
    return rng(seed).integers(lo, hi, n).astype(np.float32)


# == vector_add.cu ===================================================================================
@generator
def vector_add() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "vector_add.ptx"
    n = 1000
    a, b = f32_inputs(1, n), f32_inputs(2, n)
    b[:16] = F32_EDGES[::-1]
    with np.errstate(all="ignore"):
        c = a + b
    yield "vector_add/vector_add_f32", case(
        src, "vector_add_f32", 9, 120,
        [("a", Buffer("f32", a)), ("b", Buffer("f32", b)), ("c", Buffer("f32", count=n + 3)), ("n", Scalar("s32", n))],
        {"c": np.concatenate([c, np.zeros(3, np.float32)])},
    )
    ai = rng(3).integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    bi = rng(4).integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    ai[:3] = [2**31 - 1, -(2**31), -1]
    bi[:3] = [1, -1, -1]
    yield "vector_add/vector_add_i32", case(
        src, "vector_add_i32", 5, 200,
        [("a", Buffer("s32", ai)), ("b", Buffer("s32", bi)), ("c", Buffer("s32", count=n)), ("n", Scalar("s32", n))],
        {"c": (ai.astype(np.int64) + bi).astype(np.int32)},
    )
    ad = rng(5).standard_normal(700) * 1e3
    bd = rng(6).standard_normal(700)
    ad[:4] = [1e308, -0.0, 5e-324, np.inf]
    bd[:4] = [1e308, 0.0, 5e-324, -1.0]
    with np.errstate(all="ignore"):
        cd = ad + bd
    yield "vector_add/vector_add_f64", case(
        src, "vector_add_f64", 4, 190,
        [
            ("a", Buffer("f64", ad)), ("b", Buffer("f64", bd)), ("c", Buffer("f64", count=760)),
            ("n", Scalar("s64", 700)),
        ],
        {"c": np.concatenate([cd, np.zeros(60)])},
    )
    # saxpy: y = a * x + y (nvcc contracts to fma.rn.f32 by default: -fmad=true), grid-stride loop.
    x, y = f32_inputs(7, n), f32_inputs(8, n, edges=False)
    a32 = np.float32(-1.75)
    fy = fma(a32, x, y, np.float32)
    saxpy_args = [("n", Scalar("s32", n)), ("a", Scalar("f32", float(a32)))]
    saxpy_args += [("x", Buffer("f32", x)), ("y", Buffer("f32", y))]
    yield "vector_add/saxpy", case(
        src, "saxpy", 3, 96, saxpy_args, {"y": fy},
        note="nvcc contracts a * x[i] + y[i] to fma.rn.f32 (-fmad=true): modelled as an exact fma",
    )
    xd, yd = rng(9).standard_normal(n), rng(10).standard_normal(n)
    ad = 0.1
    fd = fma(ad, xd, yd, np.float64)
    yield "vector_add/daxpy", case(
        src, "daxpy", 2, 100,
        [("n", Scalar("s32", n)), ("a", Scalar("f64", ad)), ("x", Buffer("f64", xd)), ("y", Buffer("f64", yd))],
        {"y": fd},
        note="fma(a, x, y) in f64 modelled exactly with fractions.Fraction, rounded once",
    )
    yield "vector_add/saxpy_ldg", case(src, "saxpy_ldg", 9, 125, saxpy_args, {"y": fy})  # same data, x via __ldg
    a4, b4 = f32_inputs(11, 4 * 300), f32_inputs(12, 4 * 300)
    with np.errstate(all="ignore"):
        c4 = a4 + b4
    c4[4 * 250 :] = 0  # n4 = 250 of 300 float4s
    yield "vector_add/vector_add_f32x4", case(
        src, "vector_add_f32x4", 3, 100,
        [
            ("a", Buffer("f32", a4)), ("b", Buffer("f32", b4)), ("c", Buffer("f32", count=1200)),
            ("n4", Scalar("s32", 250)),
        ],
        {"c": c4},
    )
    nx, ny, nz, pitch = 37, 5, 3, 40
    size = nz * ny * pitch
    a8 = rng(13).integers(0, 256, size).astype(np.uint8)
    b16 = rng(14).integers(0, 65536, size).astype(np.uint16)
    c32 = np.zeros(size, np.uint32)
    for z in range(nz):
        for yy in range(ny):
            for xx in range(nx):
                i = (z * ny + yy) * pitch + xx
                c32[i] = (int(a8[i]) * 3 + int(b16[i])) & 0xFFFFFFFF
    yield "vector_add/add_3d", case(
        src, "add_3d", (3, 2, 2), (16, 4, 2),
        [
            ("a", Buffer("u8", a8)), ("b", Buffer("u16", b16)), ("c", Buffer("u32", count=size)),
            ("pitch", Scalar("u64", pitch)), ("nx", Scalar("u32", nx)), ("ny", Scalar("u32", ny)),
            ("nz", Scalar("u32", nz)),
        ],
        {"c": c32},
    )
    # scale<T>: p[i] *= s for i < n.
    for tag, mangled, ty, data, s in [
        ("float", "_Z5scaleIfEvPT_S0_i", "f32", f32_inputs(15, 300), 3.0),
        ("double", "_Z5scaleIdEvPT_S0_i", "f64", rng(16).standard_normal(300), -0.3),
        (
            "int",
            "_Z5scaleIiEvPT_S0_i",
            "s32",
            rng(17).integers(-(2**31), 2**31, 300, dtype=np.int64).astype(np.int32),
            -7,
        ),
        ("short", "_Z5scaleIsEvPT_S0_i", "s16", rng(18).integers(-(2**15), 2**15, 300).astype(np.int16), 301),
        (
            "ull",
            "_Z5scaleIyEvPT_S0_i",
            "u64",
            rng(19).integers(0, 2**63, 300, dtype=np.uint64) * np.uint64(2) + np.uint64(1),
            0xFFFF_FFFF_0000_0003,
        ),
    ]:
        n_used = 290
        out = data.copy()
        with np.errstate(all="ignore"):
            if ty in ("s32", "s16", "u64"):
                bits = {"s32": 32, "s16": 16, "u64": 64}[ty]
                vals = [((int(v) * int(s)) & ((1 << bits) - 1)) for v in data[:n_used]]
                out[:n_used] = (
                    np.array(vals, dtype=np.uint64 if bits == 64 else np.int64)
                    .astype({"s32": np.uint32, "s16": np.uint16, "u64": np.uint64}[ty])
                    .view(data.dtype)
                )
            else:
                out[:n_used] = data[:n_used] * data.dtype.type(s)
        yield f"vector_add/scale_{tag}", case(
            src, mangled, 5, 64,
            [("p", Buffer(ty, data)), ("s", Scalar(ty, s)), ("n", Scalar("s32", n_used))],
            {"p": out},
        )


# == reduction.cu ====================================================================================
@generator
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


# == matmul_tiled.cu =================================================================================
def sgemm_operands(seed_a: int, seed_b: int, m: int, n: int, k: int) -> tuple[list, dict]:
    """(A, B, C, M, N, K) for C = A @ B of small-integer f32 matrices (row-major), and C's values."""
    a, b = small_ints_f32(seed_a, m * k), small_ints_f32(seed_b, k * n)
    c = (a.reshape(m, k).astype(np.float64) @ b.reshape(k, n)).astype(np.float32)
    args = [("A", Buffer("f32", a)), ("B", Buffer("f32", b)), ("C", Buffer("f32", count=m * n))]
    return args + [("M", Scalar("s32", m)), ("N", Scalar("s32", n)), ("K", Scalar("s32", k))], {"C": c}


@generator
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


# == transpose.cu ====================================================================================
@generator
def transpose() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "transpose.ptx"
    w, h = 70, 45
    x = f32_inputs(40, w * h)
    for kernel in ("transpose_naive", "transpose_shared"):
        yield f"transpose/{kernel}", case(
            src, kernel, (3, 2), (32, 8),
            [
                ("odata", Buffer("f32", count=w * h)), ("idata", Buffer("f32", x)), ("width", Scalar("s32", w)),
                ("height", Scalar("s32", h)),
            ],
            {"odata": x.reshape(h, w).T.reshape(-1).copy()},
        )
    n = 64
    m = rng(41).integers(0, 65536, n * n).astype(np.uint16)
    yield "transpose/transpose_inplace_u16", case(
        src, "transpose_inplace_u16", (2, 2), (32, 8),
        [("m", Buffer("u16", m)), ("n", Scalar("s32", n))],
        {"m": m.reshape(n, n).T.reshape(-1).copy()},
    )


# == scan_sort.cu ====================================================================================
def wrap32(values: np.ndarray) -> np.ndarray:
    return (values.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)


@generator
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


# == stencil_constant.cu =============================================================================
@generator
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


# == atomics.cu ======================================================================================
def bf16_round(x: np.ndarray) -> np.ndarray:
    """f32 -> bf16 bits, round to nearest even (finite inputs)."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(bits: np.ndarray) -> np.ndarray:
    return (np.asarray(bits, np.uint32) << 16).view(np.float32)


def bf16_float(bits: int) -> float:
    """The value of one bf16 bit pattern."""
    return float((np.uint32(bits) << np.uint32(16)).view(np.float32))


@generator
def atomics() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "atomics.ptx"
    # atomics_int: one thread, since i[9] = old + atomicAdd(&i[10], 1) races between threads.
    v = -77
    i0 = np.array([5, 5, 5, 5, 5, 0x0F0F, 0x100, 0x33, 0, 0, 40], np.int32)
    u0 = np.array([17, 0, 0xFFFFFFF0, 3], np.uint32)
    ull0 = np.array([2**64 - 1, 1, 0x0123456789ABCDEF, 1, 0xFFFF], np.uint64)
    ll0 = np.array([-5, 2**62], np.int64)
    M64 = (1 << 64) - 1
    i1 = i0.copy()
    i1[0] = 5 + v
    i1[1] = 5 - v
    i1[2] = v
    i1[3] = min(5, v)
    i1[4] = max(5, v)
    i1[5] = 0x0F0F & v
    i1[6] = 0x100 | v
    i1[7] = 0x33 ^ v
    i1[8] = v  # CAS(0 -> v) succeeds, old = 0
    i1[9] = 0 + 40
    i1[10] = 41
    u1 = np.array(
        [
            0,  # atomicInc: old >= 17 -> 0
            17,  # atomicDec: old == 0 -> 17
            min(0xFFFFFFF0, v & 0xFFFFFFFF),
            max(3, v & 0xFFFFFFFF),
        ],
        np.uint32,
    )
    ull1 = np.array(
        [
            (2**64 - 1 + (v & M64)) & M64,
            v & M64,
            0x0123456789ABCDEF & 0xFF00FF00FF00FF00,
            1 | ((v & M64) << 40) & M64,
            0xFFFF ^ 0x5555,
        ],
        np.uint64,
    )
    ll1 = np.array([min(-5, v), max(2**62, v)], np.int64)
    yield "atomics/atomics_int", case(
        src, "atomics_int", 1, 1,
        [
            ("i", Buffer("s32", i0)), ("u", Buffer("u32", u0)), ("ull", Buffer("u64", ull0)),
            ("ll", Buffer("s64", ll0)), ("v", Scalar("s32", v)),
        ],
        {"i": i1, "u": u1, "ull": ull1, "ll": ll1},
        note="one thread: i[9] = old + atomicAdd(&i[10], 1) races when several threads run",
    )
    # atomics_float: T threads each add the same v, so every order gives the same rounding sequence.
    T, vf = 100, 1.5
    f0 = np.array([0.25, 3.0], np.float32)
    d0 = np.array([-1.0])
    h2_0 = np.array([1.0, 2.0], np.float16)
    # The 16-bit scalars get a padding element: a 16-bit atomic may be done as a 32-bit CAS on the
    # aligned word (as LLVM's AMDGPU back end does), which real allocations (256-byte granules) allow.
    h0 = np.array([-0.5, 0.0], np.float16)
    b0 = bf16_round(np.array([1.0, 0.0], np.float32))
    b2_0 = bf16_round(np.array([0.0, 1.0], np.float32))
    h2, h, b, b2 = h2_0.copy(), h0.copy(), b0.copy(), b2_0.copy()
    for _ in range(T):
        h2 = (h2.astype(np.float32) + np.array([vf, -vf], np.float32)).astype(np.float16)
        h[0] = np.float16(np.float32(h[0]) + np.float32(vf))
        b[0] = bf16_round(bf16_value(b[:1]) + bf16_value(bf16_round(np.float32(vf))))[0]
        b2 = bf16_round(bf16_value(b2) + bf16_value(bf16_round(np.array([vf, 2 * vf], np.float32))))
    yield "atomics/atomics_float", case(
        src, "atomics_float", 2, 50,
        [
            ("f", Buffer("f32", f0)), ("d", Buffer("f64", d0)), ("h2", Buffer("f16", h2_0)), ("h", Buffer("f16", h0)),
            ("b", Buffer("u16", b0)), ("b2", Buffer("u16", b2_0)), ("v", Scalar("f32", vf)),
        ],
        {
            "f": np.array([0.25 + T * vf, vf], np.float32), "d": np.array([-1.0 + T * vf]), "h2": h2, "h": h, "b": b,
            "b2": b2,
        },
        note="bf16 buffers hold raw bits (u16); the sums are stepped in bf16/f16 like the hardware",
    )
    n = 300
    x = f32_inputs(70, n, edges=False)
    x[7] = 3.4028235e38
    prod = 2.0
    for value in x:
        prod *= 1.0 + float(value) * 1e-3
    yield "atomics/cas_loops", case(
        src, "cas_loops", 3, 110,
        [
            ("in", Buffer("f32", x)), ("max_out", Buffer("f32", np.array([-np.inf], np.float32))),
            ("prod", Buffer("f64", np.array([2.0]))), ("n", Scalar("s32", n)),
        ],
        {"max_out": np.array([x.max()], np.float32), "prod": np.array([prod])},
        tolerance={"prod": (1e-13, 0.0)},
        note="prod: 300 f64 multiplications in a racing order: |error| <= 300 * 2^-53 relative (< 1e-13)",
    )
    yield "atomics/cas16_hit", case(
        src, "cas16", 1, 1,
        [
            ("p", Buffer("u16", np.array([0xBEEF, 0x1234], np.uint16))), ("expect", Scalar("u16", 0xBEEF)),
            ("desired", Scalar("u16", 0xFFFF)), ("old", Buffer("u16", count=1)),
        ],
        {"p": np.array([0xFFFF, 0x1234], np.uint16), "old": np.array([0xBEEF], np.uint16)},
    )
    yield "atomics/cas16_miss", case(
        src, "cas16", 1, 70,
        [
            ("p", Buffer("u16", np.array([0xBEEF, 0x1234], np.uint16))), ("expect", Scalar("u16", 0xBEEE)),
            ("desired", Scalar("u16", 7)), ("old", Buffer("u16", count=70)),
        ],
        {"p": np.array([0xBEEF, 0x1234], np.uint16), "old": np.full(70, 0xBEEF, np.uint16)},
    )
    grid, block, n = 3, 100, 1500
    data = rng(71).integers(0, 255, n).astype(np.uint8)
    for b in range(grid):
        data[b * block] = 255  # each block's maximum byte is 255: hist[257] does not race
    hist0 = np.arange(258, dtype=np.uint32)
    hist = hist0.copy()
    hist[:256] += np.bincount(data, minlength=256).astype(np.uint32)
    for b in range(grid):
        mine = np.concatenate([data[s : s + block] for s in range(b * block, n, grid * block)])
        hist[256] += int(mine.astype(np.int64).sum())
    hist[257] = 255
    yield "atomics/shared_histogram_atomics", case(
        src, "shared_histogram_atomics", grid, block,
        [("data", Buffer("u8", data)), ("hist", Buffer("u32", hist0)), ("n", Scalar("s32", n))],
        {"hist": hist},
    )
    grid, block = 2, 70
    T = grid * block
    yield "atomics/scoped_atomics", case(
        src, "scoped_atomics", grid, block,
        [
            ("p", Buffer("s32", np.array([1, 2, 0, 0, -9], np.int32))),
            ("f", Buffer("f32", np.array([0.5], np.float32))), ("flag", Buffer("s32", np.array([1, 0], np.int32))),
        ],
        {
            "p": np.array([1 + T, 2 + T, 1, 7, block - 1], np.int32), "f": np.array([0.5 + 1.5 * T], np.float32),
            "flag": np.array([1, 1], np.int32),
        },
    )
    for tag, grid, block in (("one_warp_per_wave", 3, 32), ("two_warps_per_wave", 2, 96)):
        warps = grid * ((block + 31) // 32)
        yield f"atomics/spin_lock_{tag}", case(
            src, "spin_lock", grid, block,
            [("lock", Buffer("s32", count=1)), ("counter", Buffer("s32", np.array([10], np.int32)))],
            {"lock": np.array([0], np.int32), "counter": np.array([10 + warps], np.int32)},
        )


# == device_functions.cu =============================================================================
F32 = np.float32


def particles(seed: int, n: int) -> np.ndarray:
    """Particle {Vec3 pos, vel; float mass; int id} as 8 little-endian 32-bit words each."""
    r = rng(seed)
    words = np.zeros((n, 8), np.uint32)
    words[:, :7] = (r.standard_normal((n, 7)) * 4).astype(np.float32).view(np.uint32)
    words[:, 7] = np.arange(n, dtype=np.uint32) * 7 + 3
    return words.reshape(-1)


def step_model(
    words: np.ndarray, dt: float, damping: float, steps: int, g: tuple[float, float, float]
) -> np.ndarray:
    """step(): vel = (vel + g*dt) * damping; pos = pos + vel*dt; f32, no contraction across __noinline__ calls."""
    p = words.reshape(-1, 8).copy()
    f = p[:, :7].view(np.float32)
    gd = np.array(g, np.float64).astype(np.float32) * F32(dt)
    for _ in range(steps):
        f[:, 3:6] = (f[:, 3:6] + gd) * F32(damping)
        f[:, 0:3] = f[:, 0:3] + f[:, 3:6] * F32(dt)
    return p


def integrate_const_model(ps: np.ndarray, n: int, fused: bool) -> np.ndarray:
    """integrate_const: step() with c_params, then mass *= c_table[i & 63] (zeros) + dot(pos, vel).

    nvcc -O3 emits dot() as mul y*y, fma x*x, fma z*z; the -G build as three mul.f32 and two add.f32."""
    p = step_model(ps[: n * 8], 0.01, 0.99, 4, (0.0, -9.81, 0.0))
    f = p[:, :7].view(np.float32)
    pos, vel = f[:, 0:3], f[:, 3:6]
    if fused:
        d = fma(pos[:, 2], vel[:, 2], fma(pos[:, 0], vel[:, 0], pos[:, 1] * vel[:, 1], F32), F32)
    else:
        d = (pos[:, 0] * vel[:, 0] + pos[:, 1] * vel[:, 1]) + pos[:, 2] * vel[:, 2]
    f[:, 6] = f[:, 6] * (F32(0.0) + d)
    expect = ps.reshape(-1, 8).copy()
    expect[:n] = p
    return expect.reshape(-1)


@generator
def device_functions() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "device_functions.ptx"
    n = 100
    ps = particles(80, n + 5)
    dt, damping, steps, g = 0.02, 0.95, 3, (0.5, -9.81, 1.25)
    params = (
        np.array([dt, damping], np.float32).tobytes()
        + np.int32(steps).tobytes()
        + bytes(4)
        + np.array(g, np.float64).tobytes()
        + b"tag\0\0\0"
        + bytes(2)
    )
    assert len(params) == 48
    expect = ps.reshape(-1, 8).copy()
    expect[:n] = step_model(ps[: n * 8], dt, damping, steps, g)
    yield "device_functions/integrate", case(
        src, "integrate", 2, 70,
        [("ps", Buffer("b32", ps)), ("n", Scalar("s32", n)), ("prm", Raw(params))],
        {"ps": expect.reshape(-1)},
        note="Params {float dt, damping; int steps; double g[3]; char tag[6]} passed by value (48 bytes)",
    )
    # integrate_const: c_params = {0.01f, 0.99f, 4, {0, -9.81, 0}}; c_table has no initializer (zeros).
    expect = integrate_const_model(ps, n, fused=True)
    yield "device_functions/integrate_const", case(
        src, "integrate_const", 2, 70,
        [("ps", Buffer("b32", ps)), ("n", Scalar("s32", n))],
        {"ps": expect},
        note="dot() is mul.f32 y*y, fma x*x, fma z*z in nvcc's PTX; modelled the same way with exact fmas",
    )

    def fib(k: int) -> int:
        a, b = 0, 1
        for _ in range(k):
            a, b = b, a + b
        return a

    def ackermann(m: int, k: int) -> int:
        return k + 1 if m == 0 else 2 + (k + 3) - 3 if m == 1 else 2 * k + 3

    t = 40
    ins = rng(81).integers(0, 2**32, t, dtype=np.uint64).astype(np.uint32)
    ins[:3] = [0, 1, 19]
    fibs = np.array([fib(int(v) % 20) for v in ins], np.uint32)
    acks = np.array([ackermann(int(v) % 3, i % 4) for i, v in enumerate(ins)], np.uint64)
    rows = []
    for v in ins:
        h = (int(v) * 2654435761) & 0xFFFFFFFF
        rows.append(sorted(((h >> (k + 8)) & 1023) for k in range(16)))
    yield "device_functions/recursion", case(
        src, "recursion", 1, t,
        [
            ("in", Buffer("u32", ins)), ("fibs", Buffer("u32", count=t)), ("ack", Buffer("u64", count=t)),
            ("sorted", Buffer("s32", count=t * 16)),
        ],
        {"fibs": fibs, "ack": acks, "sorted": np.array(rows, np.int32).reshape(-1)},
        note="ackermann(1, n) = n + 2, ackermann(2, n) = 2n + 3",
    )
    t = 50
    x = f32_inputs(82, t)
    which = rng(83).integers(0, 1000, t).astype(np.int32)
    fns = [lambda v: v * v, lambda v: -v, lambda v: F32(0.5) * v]
    with np.errstate(all="ignore"):
        out = np.array([fns[w % 3](v) for v, w in zip(x, which)], np.float32)
    yield "device_functions/indirect_calls", case(
        src, "indirect_calls", 1, t,
        [("in", Buffer("f32", x)), ("out", Buffer("f32", count=t)), ("which", Buffer("s32", which))],
        {"out": out},
    )
    t, n = 80, 9
    idx = rng(84).integers(0, 1000, n).astype(np.int32)
    out = np.zeros(t, np.float32)
    for th in range(t):
        buf = [F32(k * k) + F32(th) for k in range(32)]
        acc = F32(0)
        for k in range(n):
            acc = F32(acc + buf[idx[k] & 31])
        buf[idx[0] & 31] = acc
        out[th] = buf[idx[1] & 31] + F32(0)  # g_buffer: zero-initialised __device__ array
    yield "device_functions/local_array", case(
        src, "local_array", 1, t,
        [("idx", Buffer("s32", idx)), ("out", Buffer("f32", count=t)), ("n", Scalar("s32", n))],
        {"out": out},
    )
    a = rng(85).integers(-4, 5, (4, 4)).astype(np.float32)
    b = rng(86).integers(-4, 5, (4, 4)).astype(np.float32)
    tm = (a.astype(np.float64) @ b).astype(np.float32)
    n = 150
    pts = rng(87).integers(-20, 21, (n + 10, 4)).astype(np.float32)
    for flags, shift in ((0x81, -3), (0x80, -300)):
        out = pts.copy()
        q = (pts[:n].astype(np.float64) @ tm[:3].T.astype(np.float64)).astype(np.float32)
        out[:n, :3] = q
        out[:n, 3] = pts[:n, 3] if flags & 1 else np.float32(shift)
        yield f"device_functions/transform_flags{flags:#x}", case(
            src, "transform", 3, 60,
            [
                ("a", Raw(a.tobytes())), ("b", Raw(b.tobytes())), ("points", Buffer("f32", pts.reshape(-1))),
                ("n", Scalar("s32", n)), ("flags", Scalar("u8", flags)), ("shift", Scalar("s16", shift)),
            ],
            {"points": out.reshape(-1)},
            note="Matrix4 by value (64 bytes); small integers: every product exact",
        )
    t = 90
    v = f32_inputs(88, t)
    v[20] = np.nan
    lo, hi = -2.5, 7.0
    changed = (v < lo) | (v > hi)
    clamped = np.fmin(np.fmax(v, F32(lo)), F32(hi))
    yield "device_functions/clamp_kernel", case(
        src, "clamp_kernel", 1, t,
        [
            ("v", Buffer("f32", v)), ("clamped", Buffer("s32", np.array([1000], np.int32))), ("lo", Scalar("f32", lo)),
            ("hi", Scalar("f32", hi)),
        ],
        {"v": clamped, "clamped": np.array([1000 + changed.sum()], np.int32)},
        note="fminf/fmaxf return the non-NaN operand: a NaN input clamps to lo",
    )


# == control_flow.cu =================================================================================
def cvt_rzi_s32(x: np.ndarray) -> np.ndarray:
    """cvt.rzi.s32.f32: truncate, saturate to the s32 range, NaN -> 0."""
    with np.errstate(invalid="ignore"):
        t = np.trunc(np.nan_to_num(x.astype(np.float64), nan=0.0))
    return np.clip(t, -(2**31), 2**31 - 1).astype(np.int64).astype(np.int32)


def nested_loops_model(g: np.ndarray, stop: int, th: int, t: int) -> int:
    """nested_loops for thread ``th`` of ``t``: count odd cells of its columns until a ``stop`` cell."""
    found = 0
    for row in g:
        if row[0] == stop:
            break
        for v in (int(v) for v in row[th::t]):
            if v == stop:
                return found
            if v >= 0:
                found += v & 1
    return found


def collatz_steps(x: int) -> int:
    """irreducible: the Collatz steps to reach 1 (s32 arithmetic, C division), at most 1001 odd steps."""
    n = 0
    state = "odd" if x & 1 else "even"
    while True:
        if state == "even":
            x = int(x / 2)  # C division truncates toward zero
            n += 1
            if x <= 1:
                return n
            state = "odd" if x & 1 else "even"
        else:
            x = (3 * x + 1 + 2**31) % 2**32 - 2**31
            n += 1
            if n > 1000:
                return n
            state = "even"


def builtins_model(v: int) -> int:
    if v == 2**31 - 1:
        return -1
    r = [v, v * 3, v - 7, ~v][v & 3]
    return (r + 2**31) % 2**32 - 2**31


def newton_sqrt(target: float) -> tuple[float, int]:
    """newton_until_converged: the root of ``target`` by Newton's method in f64, and the iterations."""
    x = max(1.0, target)
    it = 0
    while True:
        prev = x
        x = 0.5 * (x + target / x)
        it += 1
        if not (abs(x - prev) > 1e-12 * x and it < 100):
            return x, it


def _bytecode_jump(insn: int, acc: int, pc: int, end: int) -> int:
    """The next pc after ``insn`` (already past it) in the interpreter kernel's byte code."""
    hi, lo = insn >> 4, insn & 15
    if hi == 4 and acc & 1:
        return pc + lo
    if hi == 5:
        return pc - lo if pc - lo >= 0 else end
    return end if hi == 15 else pc


def _bytecode_acc(insn: int, acc: int, stack: list[int]) -> int:
    """The accumulator after ``insn`` (pushing to or popping ``stack``), wrapped to s32."""
    hi, lo = insn >> 4, insn & 15
    if hi == 0:
        acc += lo
    elif hi == 1:
        acc *= lo + 1
    elif hi == 2:
        if len(stack) < 16:
            stack.append(acc)
    elif hi == 3:
        acc += stack.pop() if stack else 0
    elif hi not in (4, 5, 15):
        acc ^= insn
    return (acc + 2**31) % 2**32 - 2**31


def bytecode_model(code: np.ndarray, acc: int) -> int:
    """interpreter: run the byte code on ``acc``; the result plus the final stack depth, as s32."""
    stack: list[int] = []
    pc, fuel = 0, 0
    while pc < len(code):
        fuel += 1
        assert fuel < 10000, "the model program must terminate"
        insn = int(code[pc])
        acc = _bytecode_acc(insn, acc, stack)
        pc = _bytecode_jump(insn, acc, pc + 1, len(code))
    return (acc + len(stack) + 2**31) % 2**32 - 2**31


@generator
def control_flow() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "control_flow.ptx"
    n = 400
    op = rng(90).integers(0, 2**31, n, dtype=np.int64).astype(np.int32)
    a, b = f32_inputs(91, n), f32_inputs(92, n)
    a[16:32], b[32:48] = np.nan, np.nan
    a[48:64] = [3e9, -3e9, 2.5, -2.5, 0.5, -0.7, 1e-40, 2**31, -(2**31), 16777217, 1, 2, 3, 4, 5, 6]
    x, y = a, b
    with np.errstate(all="ignore"):
        results = [
            x + y,
            x - y,
            x * y,
            x / y,
            np.fmin(x, y),
            np.fmax(x, y),
            np.sqrt(np.abs(x)),
            -x,
            fma(x, x, y, F32),
            np.floor(x),
            np.ceil(y),
            x * F32(0.5),
            y * F32(2.0),
            np.where(x > y, x, F32(0)),
            cvt_rzi_s32(x).astype(np.float32),
            np.zeros(n, F32),
        ]
    out = np.choose(op & 15, [r.astype(np.float32) for r in results])
    yield "control_flow/dense_switch", case(
        src, "dense_switch", 4, 110,
        [
            ("op", Buffer("s32", op)), ("a", Buffer("f32", a)), ("b", Buffer("f32", b)),
            ("out", Buffer("f32", count=n)), ("n", Scalar("s32", n)),
        ],
        {"out": out},
        note="div.rn / sqrt.rn are correctly rounded (nvcc default -prec-div/-prec-sqrt); x*x+y is an fma",
    )
    t = 70
    idx = rng(93).integers(0, 2**32, t, dtype=np.uint64).astype(np.uint32)
    table = [10, 21, 32, 43]
    yield "control_flow/indirect_branch", case(
        src, "indirect_branch", 1, t,
        [("idx", Buffer("u32", idx)), ("out", Buffer("s32", count=t))],
        {"out": np.array([table[v & 3] + table[(v >> 2) & 3] for v in idx], np.int32)},
    )
    keys = np.array([7, 100, 1000, 65536, 0xDEADBEEF, 0, 8, 99, 65535, 0xDEADBEEE, 0xFFFFFFFF] * 7, np.uint32)
    cases = {7: 1, 100: 2, 1000: 3, 65536: 4, 0xDEADBEEF: 5}
    yield "control_flow/sparse_switch", case(
        src, "sparse_switch", 1, keys.size,
        [("key", Buffer("u32", keys)), ("out", Buffer("s32", count=keys.size))],
        {"out": np.array([cases.get(int(k), -1) for k in keys], np.int32)},
    )
    w, h, stop, t = 150, 12, 99, 40
    g = rng(94).integers(-3, 60, (h, w)).astype(np.int32)
    g[7, 100] = stop  # threads reaching it leave both loops
    g[9, 0] = stop  # row 9 stops every thread that gets there
    counts = np.array([nested_loops_model(g, stop, th, t) for th in range(t)], np.int32)
    yield "control_flow/nested_loops", case(
        src, "nested_loops", 1, t,
        [
            ("grid", Buffer("s32", g.reshape(-1))), ("counts", Buffer("s32", count=t)), ("w", Scalar("s32", w)),
            ("h", Scalar("s32", h)), ("stop", Scalar("s32", stop)),
        ],
        {"counts": counts},
    )
    t = 100
    v = f32_inputs(95, t)
    v[40:70:3] = np.nan
    with np.errstate(all="ignore"):
        out = np.where(np.isnan(v), F32(0), np.where(v < 0, -v, v * F32(2)))
    yield "control_flow/divergent_returns", case(
        src, "divergent_returns", 1, t,
        [("in", Buffer("f32", v)), ("out", Buffer("f32", count=t))],
        {"out": out.astype(np.float32)},
    )
    t = 90
    xs = rng(96).integers(-50, 5000, t).astype(np.int32)
    xs[:5] = [0, 1, 2, 27, -7]
    yield "control_flow/irreducible", case(
        src, "irreducible", 1, t,
        [("in", Buffer("s32", xs)), ("out", Buffer("s32", count=t))],
        {"out": np.array([collatz_steps(int(x)) for x in xs], np.int32)},
    )
    t, n = 100, 37
    vals = rng(97).integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    vals[:3] = [2**31 - 1, -(2**31), 0]
    yield "control_flow/builtins", case(
        src, "builtins", 1, t,
        [("in", Buffer("s32", vals)), ("out", Buffer("s32", count=t)), ("n", Scalar("s32", n))],
        {"out": np.array([builtins_model(int(vals[i % n])) for i in range(t)], np.int32)},
    )
    t = 64 + 7
    targets = np.abs(rng(98).standard_normal(t)) * 10.0 ** rng(99).integers(-3, 8, t)
    targets[:4] = [0.0, 1.0, 2.0, 1e300]
    roots, iters = zip(*(newton_sqrt(float(target)) for target in targets))
    yield "control_flow/newton_until_converged", case(
        src, "newton_until_converged", 1, t,
        [("a", Buffer("f64", targets)), ("root", Buffer("f64", count=t)), ("iters", Buffer("s32", count=t))],
        {"root": np.array(roots), "iters": np.array(iters, np.int32)},
        note="f64 IEEE arithmetic, correctly rounded division: Python floats model it exactly",
    )
    code = np.array(
        [
            0x05,
            0x12,
            0x20,
            0x13,
            0x41,
            0x07,
            0x30,
            0x20,
            0x20,
            0x8A,
            0x43,
            0x01,
            0x01,
            0x41,
            0x53,
            0x31,
            0x0F,
        ],
        np.uint8,
    )
    t = 50
    args = rng(100).integers(-1000, 1000, t).astype(np.int32)

    yield "control_flow/interpreter", case(
        src, "interpreter", 1, t,
        [
            ("code", Buffer("u8", code)), ("code_len", Scalar("s32", code.size)), ("args", Buffer("s32", args)),
            ("results", Buffer("s32", count=t)),
        ],
        {"results": np.array([bytecode_model(code, int(a)) for a in args], np.int32)},
    )


# == int_intrinsics.cu ===============================================================================
M32, M64 = (1 << 32) - 1, (1 << 64) - 1


def s32(v: int) -> int:
    return (v + 2**31) % 2**32 - 2**31


def s64(v: int) -> int:
    return (v + 2**63) % 2**64 - 2**63


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


@generator
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


# == dynamic_shared.cu ===============================================================================
@generator
def dynamic_shared() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "dynamic_shared.ptx"
    grid, block = 3, 100
    x = f32_inputs(120, grid * block)
    yield "dynamic_shared/dyn_shared_float", case(
        src, "dyn_shared_float", grid, block,
        [("in", Buffer("f32", x)), ("out", Buffer("f32", count=grid * block))],
        {"out": x.reshape(grid, block)[:, ::-1].reshape(-1).copy()},
        shared_bytes=block * 4,
    )
    t = 90
    v = rng(121).integers(-1000, 1000, t).astype(np.int32)
    odd = int(np.count_nonzero(v & 1))
    out = np.array([int(v[(i + 1) % t]) + int(np.trunc(v[i] * 0.5)) + odd for i in range(t)], np.int32)
    yield "dynamic_shared/dyn_shared_carved", case(
        src, "dyn_shared_carved", 1, t,
        [("in", Buffer("s32", v)), ("out", Buffer("s32", count=t)), ("n_ints", Scalar("s32", t))],
        {"out": out},
        shared_bytes=((t * 4 + 15) & ~15) + t * 8,
    )
    t = 70
    x = f32_inputs(122, t * 4)
    yield "dynamic_shared/dyn_shared_float4", case(
        src, "dyn_shared_float4", 1, t,
        [("in", Buffer("f32", x)), ("out", Buffer("f32", count=t * 4))],
        {"out": x.reshape(t, 4)[np.arange(t) ^ 1].reshape(-1).copy()},
        shared_bytes=t * 16,
    )
    t = 72
    g = rng(123).integers(-(10**6), 10**6, t).astype(np.int32)
    out = []
    for i in range(t):
        if i & 1:
            out += [1, 0, 0, int(g[i])]
        elif i & 2:
            out += [0, 1, 0, int(g[i])]
        else:
            out += [0, 0, 1, (i & 3) + 1]
    yield "dynamic_shared/address_spaces", case(
        src, "address_spaces", 1, t,
        [("g", Buffer("s32", g)), ("out", Buffer("s32", count=t * 4))],
        {"out": np.array(out, np.int32)},
        shared_bytes=t * 4,
        note="the kernel has no static shared memory: the dynamic array's shared address is 0",
    )


# == wide_types.cu ===================================================================================
@generator
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


# == warp_intrinsics.cu / cooperative_groups.cu ======================================================
def warps(values: np.ndarray) -> np.ndarray:
    """(n,) -> (n // 32, 32): one row per CUDA warp (blocks are whole warps in these cases)."""
    return values.reshape(-1, 32)


def lane_mask(bits: np.ndarray) -> int:
    return int(sum(1 << lane for lane, bit in enumerate(bits) if bit))


@generator
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


@generator
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


# == apps_integer.cu / apps_numeric.cu ===============================================================
@generator
def apps_integer() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "apps_integer.ptx"
    # sha256_block compresses one 64-byte block from the standard IV: for a message of < 56 bytes padded
    # by hand that is exactly SHA-256 of the message (hashlib).
    n = 70
    r = rng(160)
    blocks, digests = bytearray(), []
    for m in range(n):
        msg = bytes(r.integers(0, 256, m % 56, dtype=np.uint8)) if m else b""
        padded = msg + b"\x80" + bytes(55 - len(msg)) + (8 * len(msg)).to_bytes(8, "big")
        blocks += padded
        digests.append(np.frombuffer(hashlib.sha256(msg).digest(), ">u4").astype(np.uint32))
    yield "apps_integer/sha256_block", case(
        src, "sha256_block", 2, 48,
        [
            ("blocks", Buffer("u32", np.frombuffer(bytes(blocks), "<u4").copy())),
            ("digests", Buffer("u32", count=n * 8)), ("n", Scalar("s32", n)),
        ],
        {"digests": np.concatenate(digests)},
        note="expected digests: hashlib.sha256 of the unpadded messages",
    )
    msgs = [bytes(r.integers(0, 256, int(k), dtype=np.uint8)) for k in r.integers(0, 40, 75)]
    msgs[0], msgs[1] = b"", b"123456789"
    offsets = np.cumsum([0] + [len(m) for m in msgs]).astype(np.int32)
    yield "apps_integer/crc32", case(
        src, "crc32", 2, 40,
        [
            ("data", Buffer("u8", np.frombuffer(b"".join(msgs) + b"\0", np.uint8).copy())),
            ("offsets", Buffer("s32", offsets)), ("crcs", Buffer("u32", count=75)), ("n_messages", Scalar("s32", 75)),
        ],
        {"crcs": np.array([zlib.crc32(m) for m in msgs], np.uint32)},
        note="expected: zlib.crc32",
    )
    # bfs_step: only frontier[17] has unvisited neighbours, so the order of `next` is fixed.
    nv = 120
    adj_lists = [sorted(set(r.integers(0, 60, 4).tolist())) for _ in range(nv)]
    frontier = np.arange(40, dtype=np.int32)
    special = [61, 70, 70, 99, 61, 119, 3]
    adj_lists[17] = special
    dist = np.full(nv, -1, np.int32)
    dist[:60] = 2
    row_ptr = np.cumsum([0] + [len(a) for a in adj_lists]).astype(np.int32)
    adj = np.array([u for a in adj_lists for u in a], np.int32)
    level = 2
    new_dist = dist.copy()
    nxt = []
    for u in special:
        if new_dist[u] == -1:
            new_dist[u] = level + 1
            nxt.append(u)
    next0 = np.full(16, -7, np.int32)
    next1 = next0.copy()
    next1[: len(nxt)] = nxt
    yield "apps_integer/bfs_step", case(
        src, "bfs_step", 1, 64,
        [
            ("row_ptr", Buffer("s32", row_ptr)), ("adj", Buffer("s32", adj)), ("dist", Buffer("s32", dist)),
            ("frontier", Buffer("s32", frontier)), ("frontier_size", Scalar("s32", 40)), ("next", Buffer("s32", next0)),
            ("next_size", Buffer("s32", count=1)), ("level", Scalar("s32", level)),
        ],
        {"dist": new_dist, "next": next1, "next_size": np.array([len(nxt)], np.int32)},
        note="one frontier vertex reaches unvisited vertices: the atomicAdd order cannot matter",
    )
    grid, block, n = 3, 96, 5000
    data = r.integers(0, 256, n).astype(np.uint8)
    data[:300] = 7  # a hot bin: many same-address atomics
    hist0 = r.integers(0, 1000, 256).astype(np.uint32)
    yield "apps_integer/histogram256_warp_private", case(
        src, "histogram256_warp_private", grid, block,
        [("data", Buffer("u8", data)), ("hist", Buffer("u32", hist0)), ("n", Scalar("s32", n))],
        {"hist": hist0 + np.bincount(data, minlength=256).astype(np.uint32)},
        shared_bytes=block // 32 * 256 * 4,
    )
    w, h = 45, 21
    rgba = r.integers(0, 256, (h * w, 4)).astype(np.uint8)
    rgba[:4, :3] = [[255, 255, 255], [0, 0, 0], [1, 1, 1], [128, 128, 128]]
    c = rgba[:, :3].astype(np.float32)
    g = fma(c[:, 2], F32(0.114), fma(c[:, 0], F32(0.299), c[:, 1] * F32(0.587), F32), F32)
    yield "apps_integer/rgba_to_grey", case(
        src, "rgba_to_grey", (3, 3), (16, 8),
        [
            ("rgba", Buffer("u8", rgba.reshape(-1))), ("grey", Buffer("u8", count=w * h)), ("w", Scalar("s32", w)),
            ("h", Scalar("s32", h)),
        ],
        {"grey": np.rint(g).astype(np.uint8)},
        note="nvcc: mul.f32 y*0.587, fma x*0.299, fma z*0.114, cvt.rni (half to even): modelled op for op",
    )
    words, sets = 5, 150
    a = r.integers(0, 2**64, sets * words, dtype=np.uint64)
    b = r.integers(0, 2**64, words, dtype=np.uint64)
    a[:words] = M64
    counts = [sum((int(a[s * words + i]) & int(b[i])).bit_count() for i in range(words)) for s in range(sets)]
    yield "apps_integer/bitset_intersections", case(
        src, "bitset_intersections", 2, 100,
        [
            ("a", Buffer("u64", a)), ("b", Buffer("u64", b)), ("counts", Buffer("u32", count=sets)),
            ("words", Scalar("s32", words)), ("sets", Scalar("s32", sets)),
        ],
        {"counts": np.array(counts, np.uint32)},
    )


def mandelbrot_iterations(cr: np.float32, ci: np.float32, it_max: int) -> int:
    """mandelbrot's escape count for c = cr + i*ci, f32 op for op as nvcc emitted it."""
    zr = zi = zr2 = zi2 = F32(0)
    it = 0
    while zr2 + zi2 < F32(4) and it < it_max:
        t = F32(cr + F32(zr2 - zi2))
        zi = fma(F32(zr + zr), zi, ci, F32)[()]
        zr = t
        zr2, zi2 = F32(t * t), F32(zi * zi)
        it += 1
    return it


@generator
def apps_numeric() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "apps_numeric.ptx"
    r = rng(170)
    n = 300
    price = r.uniform(5, 100, n).astype(np.float32)
    strike = r.uniform(5, 100, n).astype(np.float32)
    years = r.uniform(0.25, 5, n).astype(np.float32)
    rr, vv = 0.02, 0.3

    def cnd(d: np.ndarray) -> np.ndarray:
        a1, a2, a3, a4, a5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
        k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
        c = (
            0.39894228040143267794
            * np.exp(-0.5 * d * d)
            * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))))
        )
        return np.where(d > 0, 1.0 - c, c)

    s_, x_, t_ = price.astype(np.float64), strike.astype(np.float64), years.astype(np.float64)
    d1 = (np.log(s_ / x_) + (rr + 0.5 * vv * vv) * t_) / (vv * np.sqrt(t_))
    d2 = d1 - vv * np.sqrt(t_)
    e = np.exp(-rr * t_)
    call = s_ * cnd(d1) - x_ * e * cnd(d2)
    put = x_ * e * (1.0 - cnd(d2)) - s_ * (1.0 - cnd(d1))
    yield "apps_numeric/black_scholes", case(
        src, "black_scholes", 2, 100,
        [
            ("call", Buffer("f32", count=n)), ("put", Buffer("f32", count=n)), ("price", Buffer("f32", price)),
            ("strike", Buffer("f32", strike)), ("years", Buffer("f32", years)), ("r", Scalar("f32", rr)),
            ("v", Scalar("f32", vv)), ("n", Scalar("s32", n)),
        ],
        {"call": call.astype(np.float32), "put": put.astype(np.float32)},
        tolerance={"call": (1e-4, 1e-4), "put": (1e-4, 1e-4)},
        note="logf/expf (2 ulp), __expf (fast, ~2 + 1.2*|x| ulp) and f32 rounding of a ~20-operation formula "
        "vs. an f64 model: prices up to 100 agree to rtol 1e-4 / atol 1e-4",
    )
    w, h, it_max = 40, 30, 60
    x0, y0, sc = F32(-2.0), F32(-1.2), F32(0.07)
    img = np.zeros((h, w), np.uint8)
    for py, px in np.ndindex(h, w):
        cr, ci = fma(F32(px), sc, x0, F32)[()], fma(F32(py), sc, y0, F32)[()]
        img[py, px] = mandelbrot_iterations(cr, ci, it_max) * 255 // it_max
    yield "apps_numeric/mandelbrot", case(
        src, "mandelbrot", (3, 4), (16, 8),
        [
            ("image", Buffer("u8", count=w * h)), ("w", Scalar("s32", w)), ("h", Scalar("s32", h)),
            ("x0", Scalar("f32", float(x0))), ("y0", Scalar("f32", float(y0))), ("scale", Scalar("f32", float(sc))),
            ("max_iter", Scalar("s32", it_max)),
        ],
        {"image": img.reshape(-1)},
        note="f32 op for op as nvcc emitted it: zi = fma(zr + zr, zi, ci), zr = cr + (zr*zr - zi*zi)",
    )
    rows = 37
    lens = r.integers(0, 80, rows)
    lens[3] = 0
    row_ptr = np.cumsum(np.concatenate([[0], lens])).astype(np.int32)
    nnz = int(row_ptr[-1])
    ncols = 50
    cols = r.integers(0, ncols, nnz).astype(np.int32)
    vals = r.integers(-64, 64, nnz) / 4.0
    xv = r.integers(-64, 64, ncols) / 8.0
    y = np.array([sum(vals[k] * xv[cols[k]] for k in range(row_ptr[i], row_ptr[i + 1])) for i in range(rows)])
    y0v = np.full(rows + 3, 5.5)
    y1 = y0v.copy()
    y1[:rows] = y
    yield "apps_numeric/spmv_csr", case(
        src, "spmv_csr", 10, 128,
        [
            ("row_ptr", Buffer("s32", row_ptr)), ("cols", Buffer("s32", cols)), ("vals", Buffer("f64", vals)),
            ("x", Buffer("f64", xv)), ("y", Buffer("f64", y0v)), ("rows", Scalar("s32", rows)),
        ],
        {"y": y1},
        note="values are multiples of 1/32 well below 2^40: the warp's summation order is exact",
    )
    w, h = 30, 20
    img_in = f32_inputs(171, w * h, edges=False)
    out0 = np.full(w * h + 5, 3.0, np.float32)
    out1 = out0.copy()
    out1[: w * h] = 0.0
    yield "apps_numeric/conv2d", case(
        src, "conv2d", (2, 3), (16, 8),
        [("in", Buffer("f32", img_in)), ("out", Buffer("f32", out0)), ("w", Scalar("s32", w)), ("h", Scalar("s32", h))],
        {"out": out1},
        note="c_filter (a __constant__ with no initializer) reads as zeros: the case format cannot "
        "set globals, so every in-range output is 0",
    )
    n = 256
    for half_span, tol in ((2, None), (16, (1e-6, 1e-5))):
        data = r.integers(-100, 100, 2 * n).astype(np.float32) / 4
        z = data.reshape(-1, 2).astype(np.float64)
        zc = z[:, 0] + 1j * z[:, 1]
        out = zc.copy()
        for t in range(n // 2):
            g, k = divmod(t, half_span)
            i = g * 2 * half_span + k
            j = i + half_span
            tw = zc[j] * np.exp(-1j * np.pi * k / half_span)
            out[i], out[j] = zc[i] + tw, zc[i] - tw
        expect = np.stack([out.real, out.imag], 1).astype(np.float32).reshape(-1)
        yield f"apps_numeric/fft_radix2_stage_{half_span}", case(
            src, "fft_radix2_stage", 2, 70,
            [("data", Buffer("f32", data)), ("n", Scalar("s32", n)), ("half_span", Scalar("s32", half_span))],
            {"data": expect},
            tolerance={"data": tol} if tol else {},
            note="half_span 2: twiddles 1 and -i are exact (sincospif at multiples of 1/2), so the stage is exact"
            if tol is None
            else "sincospif (1 ulp) and f32 rounding of the butterfly: |error| < 1e-5 for |values| < 100",
        )
    n, k, dims = 150, 6, 3
    pts = r.standard_normal(n * dims).astype(np.float32) * 3
    cents = r.standard_normal(k * dims).astype(np.float32) * 3
    cents[3:6] = cents[0:3]  # a duplicate centroid: the first one wins ties
    labels = []
    for i in range(n):
        best, best_d = 0, F32(np.inf)
        for c in range(k):
            d = F32(0)
            for j in range(dims):
                diff = F32(pts[i * dims + j] - cents[c * dims + j])
                d = fma(diff, diff, d, F32)[()]
            if d < best_d:
                best, best_d = c, d
        labels.append(best)
    yield "apps_numeric/kmeans_assign", case(
        src, "kmeans_assign", 2, 100,
        [
            ("points", Buffer("f32", pts)), ("centroids", Buffer("f32", cents)), ("labels", Buffer("s32", count=n)),
            ("n", Scalar("s32", n)), ("k", Scalar("s32", k)), ("dims", Scalar("s32", dims)),
        ],
        {"labels": np.array(labels, np.int32)},
    )


# == Triton (src/triton/*.py) =======================================================================
TR = "triton/sm_80/"


def entry_param_count(source: str) -> int:
    """How many .param lines the (single) .entry of a corpus PTX file declares."""
    text = (CORPUS / source).read_text(encoding="utf-8")
    head = text[text.index(".entry") :]
    return head[: head.index(")")].count(".param")


def triton_case(kernel: str, grid: object, args: list, expect: dict, entry: str = "", **kw: object) -> CaseSpec:
    """Triton 3.9 appends two pointer parameters (global and profile scratch): passed as null.
    ``kernel`` names the corpus file; ``entry`` the kernel in it when that name differs."""
    src = TR + kernel + ".ptx"
    text = (CORPUS / src).read_text(encoding="utf-8")
    threads = int(text.split(".reqntid", 1)[1].split()[0])
    extra = entry_param_count(src) - len(args)
    full = args + [(f"scratch{k}", Scalar("u64", 0)) for k in range(extra)]
    return case(src, entry or kernel, grid, threads, full, expect, **kw)


def rotl32(x: np.ndarray, k: int) -> np.ndarray:
    return ((x << np.uint32(k)) | (x >> np.uint32(32 - k))).astype(np.uint32)


@generator
def triton_kernels() -> Iterator[tuple[str, CaseSpec]]:
    r = rng(180)
    n = 2500
    x, y = f32_inputs(181, n), f32_inputs(182, n)
    with np.errstate(all="ignore"):
        out = x + y
    yield "triton/add_kernel", triton_case(
        "add_kernel", 3,
        [
            ("x_ptr", Buffer("f32", x)), ("y_ptr", Buffer("f32", y)), ("out_ptr", Buffer("f32", count=n)),
            ("n", Scalar("s32", n)),
        ],
        {"out_ptr": out},
        note="BLOCK = 1024, 128 threads (num_warps 4)",
    )
    n = 700
    x = (r.standard_normal(n) * 1e5).astype(np.float32)
    x[:6] = [0.5, 1.5, -2.5, 65519.0, 65520.0, -1e30]
    lo, hi = -1e5, 9e4
    c = np.minimum(np.maximum(x, F32(lo)), F32(hi))
    with np.errstate(over="ignore"):
        c16 = c.astype(np.float16)
    yield "triton/cast_clamp_kernel", triton_case(
        "cast_clamp_kernel", 3,
        [
            ("x_ptr", Buffer("f32", x)), ("h_ptr", Buffer("f16", count=n)), ("b_ptr", Buffer("u16", count=n)),
            ("i_ptr", Buffer("s32", count=n)), ("n", Scalar("s32", n)), ("lo", Scalar("f32", lo)),
            ("hi", Scalar("f32", hi)),
        ],
        {"h_ptr": c16, "b_ptr": bf16_round(c), "i_ptr": cvt_rzi_s32(c)},
        note="fp16/bf16 round to nearest even (65520 -> inf in fp16); int32 truncates; bf16 buffer as raw u16 bits",
    )
    n = 1300
    u = u32_inputs(183, n)
    yield "triton/inline_asm_kernel", triton_case(
        "inline_asm_kernel", 3,
        [("x_ptr", Buffer("u32", u)), ("y_ptr", Buffer("u32", count=n)), ("n", Scalar("s32", n))],
        {"y_ptr": rotl32(u, 7) ^ u},
    )
    n = 5000
    x = small_ints_f32(184, n, -100, 100)
    x[4321] = 1000.0
    total0 = np.array([0.5, -np.inf], np.float32)
    yield "triton/sum_atomic_kernel", triton_case(
        "sum_atomic_kernel", 3,
        [("x_ptr", Buffer("f32", x)), ("total_ptr", Buffer("f32", total0)), ("n", Scalar("s32", n))],
        {"total_ptr": np.array([0.5 + x.sum(dtype=np.float64), 1000.0], np.float32)},
        shared_bytes=8192,
        note="small-integer floats: exact in any order; shared_bytes covers Triton's global_smem scratch",
    )
    rows, cols, stride = 5, 300, 320
    x = (r.standard_normal(rows * stride) * 10).astype(np.float32)
    m = x.reshape(rows, stride)
    m[1, 250] = m[1, 20] = 99.0  # a tie: the lower index wins
    m[2, 310] = 1e9  # beyond n_cols: ignored
    yield "triton/argmax_kernel", triton_case(
        "argmax_kernel", rows,
        [
            ("x_ptr", Buffer("f32", x)), ("idx_ptr", Buffer("s32", count=rows)), ("stride", Scalar("s32", stride)),
            ("n_cols", Scalar("s32", cols)),
        ],
        {"idx_ptr": np.argmax(m[:, :cols], axis=1).astype(np.int32)},
        shared_bytes=8192,
    )
    rows = 3
    x = r.integers(-(2**31), 2**31, rows * 256, dtype=np.int64).astype(np.int32)
    yield "triton/cumsum_kernel", triton_case(
        "cumsum_kernel", rows,
        [("x_ptr", Buffer("s32", x)), ("y_ptr", Buffer("s32", count=rows * 256))],
        {"y_ptr": np.concatenate([wrap32(np.cumsum(row.astype(np.int64))) for row in x.reshape(rows, 256)])},
        shared_bytes=8192,
    )
    rows = 2
    x = (r.standard_normal(rows * 128) * 100).astype(np.float32)
    x[:3] = [np.inf, -np.inf, 3e38]
    yield "triton/sort_kernel", triton_case(
        "sort_kernel", rows,
        [("x_ptr", Buffer("f32", x)), ("y_ptr", Buffer("f32", count=rows * 128))],
        {"y_ptr": -np.sort(-x.reshape(rows, 128), axis=1).reshape(-1)},
    )
    rows, cols, stride = 4, 700, 704
    x = (r.standard_normal(rows * stride) * 5).astype(np.float32)
    m = x.reshape(rows, stride)[:, :cols].astype(np.float64)
    e = np.exp(m - m.max(axis=1, keepdims=True))
    sm = np.zeros((rows, stride), np.float32)
    sm[:, :cols] = e / e.sum(axis=1, keepdims=True)
    yield "triton/softmax_kernel", triton_case(
        "softmax_kernel", rows,
        [
            ("out_ptr", Buffer("f32", count=rows * stride)), ("in_ptr", Buffer("f32", x)),
            ("in_stride", Scalar("s32", stride)), ("out_stride", Scalar("s32", stride)),
            ("n_cols", Scalar("s32", cols)),
        ],
        {"out_ptr": sm.reshape(-1)},
        tolerance={"out_ptr": (2e-5, 1e-9)},
        shared_bytes=8192,
        note="tl.exp is ex2.approx.f32 (2^-22 relative) and the division div.full.f32 (2 ulp): rtol 2e-5 vs. f64",
    )
    rows, n, stride, eps = 3, 1500, 1536, 1e-5
    x = (r.standard_normal(rows * stride) * 2 + 0.5).astype(np.float16)
    w = r.standard_normal(n).astype(np.float32)
    b = r.standard_normal(n).astype(np.float32)
    xm = x.reshape(rows, stride)[:, :n].astype(np.float64)
    mean = xm.mean(axis=1)
    rstd = 1 / np.sqrt(((xm - mean[:, None]) ** 2).mean(axis=1) + eps)
    yv = x.reshape(rows, stride).copy()
    yv[:, :n] = ((xm - mean[:, None]) * rstd[:, None] * w + b).astype(np.float16)
    yield "triton/layernorm_kernel", triton_case(
        "layernorm_kernel", rows,
        [
            ("x_ptr", Buffer("f16", x)), ("y_ptr", Buffer("f16", x)), ("w_ptr", Buffer("f32", w)),
            ("b_ptr", Buffer("f32", b)), ("mean_ptr", Buffer("f32", count=rows)),
            ("rstd_ptr", Buffer("f32", count=rows)), ("stride", Scalar("s32", stride)), ("n", Scalar("s32", n)),
            ("eps", Scalar("f32", eps)),
        ],
        {"y_ptr": yv.reshape(-1), "mean_ptr": mean.astype(np.float32), "rstd_ptr": rstd.astype(np.float32)},
        tolerance={"y_ptr": (2e-3, 2e-3), "mean_ptr": (1e-5, 1e-6), "rstd_ptr": (1e-5, 0.0)},
        shared_bytes=8192,
        note="f32 sums of 1500 terms in Triton's tree order vs. f64: rtol 1e-5; y is fp16 (1 ulp = 2^-10 relative)",
    )
    n = 1100
    x = (r.standard_normal(n) * 3).astype(np.float16)
    xf = x.astype(np.float64)
    from math import erf

    exact = 0.5 * xf * (1.0 + np.array([erf(v * 0.7071067811865476) for v in xf]))
    inner = 0.7978845608028654 * (xf + 0.044715 * xf**3)
    approx = 0.5 * xf * (1.0 + (2.0 / (1.0 + np.exp(-2.0 * inner)) - 1.0))
    yield "triton/gelu_kernel", triton_case(
        "gelu_kernel", 3,
        [("x_ptr", Buffer("f16", x)), ("out_ptr", Buffer("f16", count=n)), ("n", Scalar("s32", n))],
        {"out_ptr": (exact + approx).astype(np.float16)},
        tolerance={"out_ptr": (2e-3, 2e-3)},
        note="f32 erf/sigmoid (ex2.approx) then fp16: within 2e-3 (fp16 half-ulp 4.9e-4 plus f32 error)",
    )
    n = 600
    x = r.uniform(0.1, 3.0, n).astype(np.float32)
    xf = x.astype(np.float64)
    ym = (
        np.exp(xf)
        + np.log(xf)
        + np.sin(xf) * np.cos(xf)
        + np.sqrt(xf)
        + 1 / np.sqrt(xf)
        + xf**1.5
        + np.tanh(xf)
        + np.floor(xf)
        + np.abs(xf)
        + np.exp2(xf)
        + xf / (xf + 1.0)
        + (xf * xf + xf)
    )
    yield "triton/math_kernel", triton_case(
        "math_kernel", 3,
        [("x_ptr", Buffer("f32", x)), ("out_ptr", Buffer("f32", count=n)), ("n", Scalar("s32", n))],
        {"out_ptr": ym.astype(np.float32)},
        tolerance={"out_ptr": (1e-5, 1e-5)},
        note="approximate exp/log/sin/cos/rsqrt (ex2/lg2/sin/cos/rsqrt.approx.f32, ~2^-21) summed: rtol 1e-5",
    )


# == numba (src/numba/*.py) =========================================================================
NB = "numba/sm_80/"


def entry_name(source: str) -> str:
    text = (CORPUS / source).read_text(encoding="utf-8")
    return text.split(".entry", 1)[1].split("(", 1)[0].strip()


def numba_array(
    name: str, element: str, data: np.ndarray | None, shape: tuple[int, ...], lanes: int = 1
) -> list[tuple[str, object]]:
    """Numba's array ABI: meminfo, parent, nitems, itemsize, data, shape[ndim], strides[ndim] (C order, bytes).

    ``lanes`` elements of type ``element`` make one array item (complex64 = 2 x f32)."""
    itemsize = np.dtype(_numba_dtype(element)).itemsize * lanes
    count = int(np.prod(shape))
    strides = [itemsize * int(np.prod(shape[k + 1 :])) for k in range(len(shape))]
    buffer = Buffer(element, data.reshape(-1)) if data is not None else Buffer(element, count=count * lanes)
    return (
        [
            (f"{name}_meminfo", Scalar("u64", 0)),
            (f"{name}_parent", Scalar("u64", 0)),
            (f"{name}_nitems", Scalar("s64", count)),
            (f"{name}_itemsize", Scalar("s64", itemsize)),
            (name, buffer),
        ]
        + [(f"{name}_shape{k}", Scalar("s64", v)) for k, v in enumerate(shape)]
        + [(f"{name}_stride{k}", Scalar("s64", v)) for k, v in enumerate(strides)]
    )


def _numba_dtype(element: str) -> str:
    return {"f16": "<f2", "f32": "<f4", "f64": "<f8", "s32": "<i4", "u32": "<u4", "s64": "<i8", "u64": "<u8"}[
        element
    ]


def numba_case(kernel: str, grid: object, block: object, args: list, expect: dict, **kw: object) -> CaseSpec:
    src = NB + kernel + ".ptx"
    flat: list = []
    for item in args:
        flat.extend(item if isinstance(item, list) else [item])
    assert len(flat) == entry_param_count(src), (kernel, len(flat), entry_param_count(src))
    return case(src, entry_name(src), grid, block, flat, expect, **kw)


@generator
def numba_kernels() -> Iterator[tuple[str, CaseSpec]]:
    r = rng(190)
    n = 1000
    x, y = f32_inputs(191, n), f32_inputs(192, n, edges=False)
    a = F32(2.5)
    yield "numba/axpy", numba_case(
        "axpy", 9, 120,
        [
            numba_array("r", "f32", None, (n,)), ("a", Scalar("f32", float(a))), numba_array("x", "f32", x, (n,)),
            numba_array("y", "f32", y, (n,)),
        ],
        {"r": fma(a, x, y, F32)},
        note="NVVM contracts a * x[i] + y[i] to fma.rn.f32",
    )
    rows, cols = 37, 45
    m = r.standard_normal(rows * cols)
    yield "numba/scale_2d", numba_case(
        "scale_2d", (2, 2), (16, 8),
        [numba_array("m", "f64", m, (rows, cols)), ("s", Scalar("f64", -1.75))],
        {"m": m * -1.75},
        note="grid-stride 2D loop: 32 x 16 threads cover 45 x 37",
    )
    ma, ka, nb = 21, 35, 19
    A, B = small_ints_f32(193, ma * ka), small_ints_f32(194, ka * nb)
    C = (A.reshape(ma, ka).astype(np.float64) @ B.reshape(ka, nb)).astype(np.float32)
    yield "numba/matmul_shared", numba_case(
        "matmul_shared", (2, 2), (16, 16),
        [
            numba_array("a", "f32", A, (ma, ka)), numba_array("b", "f32", B, (ka, nb)),
            numba_array("c", "f32", None, (ma, nb)),
        ],
        {"c": C.reshape(-1)},
        note="small-integer matrices: exact",
    )
    nz, ny, nx = 5, 7, 20
    v = f32_inputs(195, nz * ny * nx, edges=False).reshape(nz, ny, nx)
    zz, yy, xx = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    out = (v.astype(np.float64) * (xx + 2 * yy + 3 * zz)).astype(np.float32)
    yield "numba/volume_3d", numba_case(
        "volume_3d", (2, 2, 2), (16, 4, 3),
        [numba_array("v", "f32", v, (nz, ny, nx)), numba_array("out", "f32", None, (nz, ny, nx))],
        {"out": out.reshape(-1)},
        note="float32 * int64 is float64 in numba: the product is rounded to f32 once, at the store",
    )
    rows = 70
    data = r.integers(-500, 1500, (rows, 8)).astype(np.int32)
    yield "numba/local_array_sort", numba_case(
        "local_array_sort", 2, 48,
        [numba_array("inp", "s32", data, (rows, 8)), numba_array("out", "s32", None, (rows, 8))],
        {"out": np.clip(np.sort(data, axis=1), 0, 1000).astype(np.int32).reshape(-1)},
    )
    n = 300
    xd = r.standard_normal(n) * 3
    xd[:4] = [0.0, -0.0, 1e300, -2.0]
    acc = np.zeros(n)
    for c in (1.0, -0.5, 0.25, -0.125):
        acc = fma(acc, xd, c, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        expect = acc + np.sqrt(np.abs(xd))
    yield "numba/device_calls", numba_case(
        "device_calls", 3, 110,
        [numba_array("x", "f64", xd, (n,)), numba_array("out", "f64", None, (n,))],
        {"out": expect},
        note="polynomial(): acc = fma(acc, x, c) (NVVM contraction), then + sqrt(|x|)",
    )
    grid, block = 3, 64
    xs = small_ints_f32(196, grid * block, -50, 50)
    yield "numba/warp_sum", numba_case(
        "warp_sum", grid, block,
        [numba_array("x", "f32", xs, (grid * block,)), numba_array("out", "f32", np.array([0.25], np.float32), (1,))],
        {"out": np.array([0.25 + xs.sum(dtype=np.float64)], np.float32)},
        note="small-integer floats: exact in any order",
    )
    # atomics: one thread, since exch and compare_and_swap race between threads.
    ints0 = np.array([10, -5, 3, 0x7F, 0x100, 0x55, 9, 0, 4, 0], np.int32)
    counters0 = np.array([100, 0], np.uint32)
    floats0 = np.array([1.0, -3.0, np.nan], np.float32)
    doubles0 = np.array([0.5, -2.0, 1.0])
    ints1 = ints0.copy()
    ints1[:7] = [11, 0, 0, 0, 0x100, 0x55, 0]
    old = int(ints0[7])  # compare_and_swap(ints[7:], 0, 0): old = ints[7] = 0, stays 0
    ints1[8] = 1 if ints0[8] == old else ints0[8]
    yield "numba/atomics", numba_case(
        "atomics", 1, 1,
        [
            numba_array("ints", "s32", ints0, (10,)), numba_array("floats", "f32", floats0, (3,)),
            numba_array("doubles", "f64", doubles0, (3,)), numba_array("counters", "u32", counters0, (2,)),
        ],
        {
            "ints": ints1, "floats": np.array([1.5, 0.0, 0.0], np.float32), "doubles": np.array([0.75, 0.0, 0.0]),
            "counters": np.array([0, 100], np.uint32),
        },
        note="thread 0: inc(100 at limit 100) -> 0, dec(0) -> 100, nanmin(NaN, 0) -> 0",
    )
    n = 400
    zs = (r.standard_normal((n, 2)) * 2).astype(np.float32)
    w = zs[:, 0].astype(np.float64) + 1j * zs[:, 1]
    out = w * np.conj(w) + np.exp(w) / (w + 1j) + np.abs(w) + np.sqrt(w)
    yield "numba/complex_ops", numba_case(
        "complex_ops", 4, 110,
        [numba_array("z", "f32", zs, (n,), lanes=2), numba_array("out", "f32", None, (n,), lanes=2)],
        {"out": np.stack([out.real, out.imag], 1).astype(np.float32).reshape(-1)},
        tolerance={"out": (2e-5, 2e-5)},
        note="complex64 as (re, im) f32 pairs; f32 exp/sin/cos/sqrt/hypot and complex division vs. f64: 2e-5",
    )
    n = 500
    ha = (r.standard_normal(n) * 4).astype(np.float16)
    hb = (r.standard_normal(n) * 4).astype(np.float16)
    t = (ha.astype(np.float64) - (hb.astype(np.float64) * 0.5).astype(np.float16)).astype(np.float16)
    hout = (ha.astype(np.float64) * hb.astype(np.float64) + t.astype(np.float64)).astype(np.float16)
    yield "numba/half_ops", numba_case(
        "half_ops", 5, 110,
        [numba_array("a", "f16", ha, (n,)), numba_array("b", "f16", hb, (n,)), numba_array("out", "f16", None, (n,))],
        {"out": hout},
        note="fp16 ops each rounded once; x*y+t is exact in f64 before its single rounding to fp16",
    )
    for kernel, element, lo, hi in (("int_ops", "s64", -(2**40), 2**40), ("uint_ops", "u64", 0, 2**63)):
        n = 200
        av = r.integers(lo, hi, n, dtype=np.int64 if element == "s64" else np.uint64)
        bv = r.integers(lo, hi, n, dtype=np.int64 if element == "s64" else np.uint64)
        av[:3] = [0, 7, 5 if element == "u64" else -9]
        res = []
        for xv, yv in zip(map(int, av), map(int, bv)):
            if element == "s64":
                v_ = (
                    xv // (yv | 1) + xv % 7 + (xv >> 3) + s64(xv << 2) + (xv ^ yv) + min(xv, yv) * max(xv, yv)
                )
                res.append(s64(v_))
            else:
                v_ = (
                    xv // (yv | 1)
                    + xv % 7
                    + (xv >> 3)
                    + ((xv << 2) & M64)
                    + (xv ^ yv)
                    + min(xv, yv) * max(xv, yv)
                )
                res.append(v_ & M64)
        yield f"numba/{kernel}", numba_case(
            kernel, 2, 110,
            [
                numba_array("a", element, av, (n,)), numba_array("b", element, bv, (n,)),
                numba_array("out", element, None, (n,)),
            ],
            {"out": np.array(res, np.int64 if element == "s64" else np.uint64)},
            note="Python semantics: floor division and modulo follow the divisor's sign; 64-bit wrap-around",
        )


# == doubles.cu ======================================================================================
def round_mode(x: Fraction, dtype: type, mode: str) -> float:
    """Round an exact rational to ``dtype`` in PTX rounding mode rn/rz/rm/rp (finite results)."""
    nearest = round_fraction(x, dtype) if x != 0 else dtype(0.0)
    if np.isinf(
        nearest
    ):  # overflow: the directed modes that point back to zero give the largest finite value
        big = np.finfo(dtype).max
        keep = mode == "rn" or (mode == "rp" and x > 0) or (mode == "rm" and x < 0)
        return nearest if keep else dtype(big if x > 0 else -big)
    if mode == "rn" or Fraction(float(nearest)) == x:
        return nearest
    above = Fraction(float(nearest)) > x
    toward = {"rz": (-np.inf if x > 0 else np.inf), "rm": -np.inf, "rp": np.inf}[mode]
    if (toward == -np.inf and above) or (toward == np.inf and not above):
        return np.nextafter(nearest, dtype(toward))
    return nearest


def round_half_away(v: float) -> float:
    """round(): to the nearest integer, halves away from zero."""
    return float(np.trunc(v + np.copysign(0.5, v))) if abs(v) < 2**52 else v


def exact(v: float) -> Fraction:
    return Fraction(float(v))


@generator
def doubles() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "doubles.ptx"
    r = rng(200)
    t = 48
    # x: powers of 4 (rsqrt.approx.f64 and sqrt are then exact) of both signs; y: random.
    x = np.array([4.0 ** int(k) for k in r.integers(-6, 7, t)]) * np.where(np.arange(t) % 5 == 4, -1, 1)
    y = r.standard_normal(t) * 10.0 ** r.integers(-3, 4, t)
    y[:4] = [2.5, -3.5, 0.5, 1.0]
    x[:4] = [4.0, 16.0, 0.25, 1.0]
    out = []
    for xv, yv in zip(map(float, x), map(float, y)):
        X, Y = exact(xv), exact(yv)
        with np.errstate(invalid="ignore", divide="ignore"):
            sq = np.sqrt(xv)
            rs = 1.0 / np.sqrt(xv) if xv > 0 else np.nan
        sqrt_ru = float(sq) if xv < 0 else float(round_mode(Fraction(float(sq)), np.float64, "rp"))
        if xv > 0:  # sqrt of a power of 4 is exact, so RU == RN
            sqrt_ru = float(sq)
        out += [
            xv / yv,
            float(sq),
            float(rs),
            float(fma(xv, yv, -xv, np.float64)[()]),
            float(round_mode(X + Y, np.float64, "rz")),
            float(round_mode(X * Y, np.float64, "rp")),
            float(round_mode(X / Y, np.float64, "rm")),
            sqrt_ru,
            float(round_mode(1 / Y, np.float64, "rn")),
            float(round_mode(X * Y + 1, np.float64, "rz")),
            min(xv, yv) + max(xv, yv) + abs(xv) + float(np.copysign(xv, yv)),
            float(np.floor(xv) + np.ceil(yv) + np.trunc(xv) + round_half_away(yv) + np.rint(xv)),
        ]
    yield "doubles/double_arith", case(
        src, "double_arith", 1, t,
        [("a", Buffer("f64", x)), ("b", Buffer("f64", y)), ("out", Buffer("f64", count=t * 12))],
        {"out": np.array(out)},
        note="directed rounding modelled exactly with fractions; x are powers of 4 so "
        "rsqrt.approx.f64 is exact; round() is half away from zero",
    )
    vals = [
        0.0,
        -0.0,
        0.5,
        1.5,
        2.5,
        -0.5,
        -1.5,
        -2.5,
        1e300,
        -1e300,
        np.inf,
        -np.inf,
        np.nan,
        2.0**63,
        -(2.0**63),
        2.0**64,
        4294967296.5,
        -2147483648.5,
        2147483647.5,
        5e-324,
        1.0000000000000002,
        3.4028235677973366e38,
        1e-310,
        123456789.123,
    ]
    t = 40
    a = np.concatenate([vals, r.standard_normal(t - len(vals)) * 1e6])
    ll, ull, k, f, back, cls = [], [], [], [], [], []
    for i, v in enumerate(map(float, a)):
        nan = math.isnan(v)
        # NaN from .f64 converts to 1 << (width - 1) (NVIDIA hardware; see ptx2gcn/reference/convert.py).
        ll_v = (
            -(2**63)
            if nan
            else int(max(-(2**63), min(2**63 - 1, np.trunc(v) if abs(v) != np.inf else np.sign(v) * 2.0**64)))
        )
        ll.append(ll_v)
        ull.append(
            2**63
            if nan
            else int(max(0, min(2**64 - 1, np.rint(v) if abs(v) != np.inf else np.sign(v) * 2.0**65)))
        )
        k.append(
            -(2**31)
            if nan
            else int(max(-(2**31), min(2**31 - 1, np.floor(v) if abs(v) != np.inf else np.sign(v) * 2.0**40)))
        )
        bits = int(np.float64(v).view(np.uint64))
        k.append(s32((bits >> 32) ^ (bits & M32)))
        with np.errstate(over="ignore"):
            f.append(np.float32(v))
        if nan or abs(v) == np.inf:
            f.append(np.float32(v))
        else:
            f.append(round_mode(exact(v), np.float32, "rp") if v != 0 else np.float32(v))
        back += [
            float(ll_v),
            float(np.uint64((0x3FF00000 << 32) | i).view(np.float64)),
            float(np.uint64(bits & (M64 >> 1)).view(np.float64)),
        ]
        cls.append(
            int(nan) | (int(abs(v) == np.inf) << 1) | (int(np.signbit(v)) << 2) | (int(np.isfinite(v)) << 3)
        )
    yield "doubles/double_conversions", case(
        src, "double_conversions", 1, t,
        [
            ("a", Buffer("f64", a)), ("ll", Buffer("s64", count=t)), ("ull", Buffer("u64", count=t)),
            ("k", Buffer("s32", count=2 * t)), ("f", Buffer("f32", count=2 * t)), ("back", Buffer("f64", count=3 * t)),
            ("cls", Buffer("s32", count=t)),
        ],
        {
            "ll": np.array(ll, np.int64), "ull": np.array(ull, np.uint64), "k": np.array(k, np.int32),
            "f": np.array(f, np.float32), "back": np.array(back), "cls": np.array(cls, np.int32),
        },
        note="cvt to integers saturates; NaN from f64 becomes 1 << (width - 1) (NVIDIA's rule)",
    )
    n = 300
    xv = r.uniform(-0.9, 3, n)
    xv[:3] = [0.0, -0.5, 1.0]
    coeff = [
        1.0,
        -0.5,
        0.375,
        -0.3125,
        0.2734375,
        -0.24609375,
        0.2255859375,
        -0.20947265625,
        0.196380615234375,
    ]
    ys = []
    for v in map(float, xv):
        acc = 0.0
        for c in reversed(coeff):
            acc = float(fma(acc, v, c, np.float64)[()])
        t1 = v + 1.0
        rr = float(round_mode(1 / exact(t1), np.float64, "rn"))
        rr = rr * (2.0 - t1 * rr)
        rr = rr * (2.0 - t1 * rr)
        ys.append(float(fma(rr, 2.0 - t1 * rr, acc, np.float64)[()]))
    yield "doubles/double_poly", case(
        src, "double_poly", 3, 110,
        [("x", Buffer("f64", xv)), ("y", Buffer("f64", count=n)), ("n", Scalar("s32", n))],
        {"y": np.array(ys)},
        note="op for op as nvcc emitted it: rcp.rn, two mul/sub Newton steps, "
        "the third fused into fma(r, 2 - t*r, acc)",
    )


# == math_float.cu ===================================================================================
@generator
def math_float() -> Iterator[tuple[str, CaseSpec]]:

    src = NV + "math_float.ptx"
    r = rng(210)
    t = 64 + 30
    x = r.uniform(0.05, 6.0, t).astype(np.float32)
    x[:6] = [1.0, 2.0, 0.5, 3.0, 4.0, 0.25]
    out = []
    for v in map(float, np.float64(x)):
        out += [
            math.sin(v),
            math.cos(v),
            math.tan(v),
            math.exp(v),
            2**v,
            10**v,
            math.log(v),
            math.log2(v),
            math.log10(v),
            v ** float(F32(1.7)),
            math.sqrt(v),
            1 / math.sqrt(v),
            math.tanh(v),
            math.erf(v),
            math.atan2(v, 2.0),
            math.asin(float(F32(v * F32(0.1)))) + math.acos(float(F32(v * F32(0.1)))),
            v / (v + 3.0),
            math.fmod(v, 1.25),
            v ** (1 / 3) + math.hypot(v, 3.0),
            math.sin(v) * math.cos(v),
        ]
    yield "math_float/float_math", case(
        src, "float_math", 1, t,
        [("a", Buffer("f32", x)), ("out", Buffer("f32", count=t * 20))],
        {"out": np.array(out, np.float32)},
        tolerance={"out": (4e-6, 1e-6)},
        note="CUDA single-precision math is within 1-4 ulp (CUDA C++ Programming Guide, Mathematical Functions); "
        "f64 model: rtol 4e-6 (about 32 ulp at the sums' worst, e.g. o[15] asin + acos), atol 1e-6 near zeros",
    )
    t = 70
    x = (r.standard_normal(t) * 20).astype(np.float32)
    x[:14] = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1e-40, -3.4e38, 3.4e38, 7.0, -7.25, 1e-5, 123456.7, -0.75]
    out, ints, bits = [], [], []
    for v in x:
        v = F32(v)
        fl, ce, tr = np.floor(v), np.ceil(v), np.trunc(v)
        rd = F32(np.trunc(v + np.copysign(F32(0.5), v))) if abs(v) < 2**23 else v
        with np.errstate(over="ignore"):
            o2 = F32(F32(F32(F32(F32(fl + ce) + tr) + rd) + np.rint(v)) + np.rint(v))
            o4 = F32(F32(v * F32(8)) + np.ldexp(v, -2).astype(np.float32))
        mant, e = np.frexp(v)
        fdim = F32(v - F32(1)) if v > 1 else F32(0)
        out += [
            F32(np.fmin(v, F32(0.5)) + np.fmax(v, F32(-0.5))),
            F32(abs(v) + np.copysign(F32(1), v)),
            o2,
            fma(v, v, F32(-1), F32)[()],
            o4,
            F32(F32(mant) + F32(e)),
            F32(fdim + F32(v - tr)),
            tr,
        ]
        ilogb = int(np.floor(np.log2(abs(np.float64(v)))))
        v64 = np.float64(v)
        ints += [
            int(np.clip(np.rint(v64), -(2**31), 2**31 - 1)),
            int(np.clip(np.trunc(v64), -(2**31), 2**31 - 1)),
            s32(int(np.clip(np.ceil(v64), 0, 2**32 - 1))),
            s32(4 * int(np.signbit(v)) + 8 * ilogb),
        ]
        with np.errstate(over="ignore"):
            scaled = F32(v * F32(1e10))
        ll = (
            int(np.clip(np.floor(np.float64(scaled)), -(2**63), 2**63 - 1))
            if np.isfinite(scaled)
            else (2**63 - 1 if scaled > 0 else -(2**63))
        )
        bits += [int(v.view(np.uint32)) ^ 0x7F800000, ll & M32]
    yield "math_float/float_misc", case(
        src, "float_misc", 1, t,
        [
            ("a", Buffer("f32", x)), ("out", Buffer("f32", count=t * 8)), ("ints", Buffer("s32", count=t * 4)),
            ("bits", Buffer("u32", count=t * 2)),
        ],
        {"out": np.array(out, np.float32), "ints": np.array(ints, np.int32), "bits": np.array(bits, np.uint32)},
        note="finite non-zero inputs (frexpf/ilogbf of 0, inf, NaN are implementation-specific); roundf is half "
        "away from zero, rintf/nearbyintf/__float2int_rn half to even; conversions saturate",
    )
    rows, cols = 5, 100
    xin = (r.standard_normal(rows * cols) * 4).astype(np.float32)
    m = xin.reshape(rows, cols).astype(np.float64)
    e = np.exp(m - m.max(axis=1, keepdims=True))
    yield "math_float/softmax_rows", case(
        src, "softmax_rows", rows, 32,
        [("in", Buffer("f32", xin)), ("out", Buffer("f32", count=rows * cols)), ("cols", Scalar("s32", cols))],
        {"out": (e / e.sum(axis=1, keepdims=True)).astype(np.float32).reshape(-1)},
        tolerance={"out": (1e-5, 1e-9)},
        note="expf (2 ulp) and a 100-term f32 sum vs. f64: rtol 1e-5",
    )
    rows, d, eps = 3, 300, 1e-5
    xin = (r.standard_normal(rows * d) + 0.25).astype(np.float32)
    gamma = r.standard_normal(d).astype(np.float32)
    beta = r.standard_normal(d).astype(np.float32)
    m = xin.reshape(rows, d).astype(np.float64)
    mean = m.mean(axis=1, keepdims=True)
    rstd = 1 / np.sqrt((m * m).mean(axis=1, keepdims=True) - mean * mean + eps)
    yield "math_float/layernorm", case(
        src, "layernorm", rows, 96,
        [
            ("x", Buffer("f32", xin)), ("gamma", Buffer("f32", gamma)), ("beta", Buffer("f32", beta)),
            ("y", Buffer("f32", count=rows * d)), ("d", Scalar("s32", d)), ("eps", Scalar("f32", eps)),
        ],
        {"y": ((m - mean) * rstd * gamma + beta).astype(np.float32).reshape(-1)},
        tolerance={"y": (1e-4, 1e-5)},
        note="f32 sums of 300 squares, E[x^2] - mean^2 and rsqrtf (2 ulp) vs. f64: rtol 1e-4, atol 1e-5",
    )


# == half_bf16.cu ====================================================================================
def round_sig(v: float, bits: int, mode: str = "rn") -> float:
    """Round a finite f64 to ``bits`` significant bits (normal range only): rn (half even), rz, rm, rp."""

    if v == 0 or not math.isfinite(v):
        return v
    m, e = math.frexp(v)
    scaled = Fraction(m) * 2**bits
    if mode == "rn":
        q = round(scaled)  # Fraction.__round__: half to even
    elif mode == "rz":
        q = math.trunc(scaled)
    elif mode == "rm":
        q = math.floor(scaled)
    else:
        q = math.ceil(scaled)
    return float(Fraction(q) * Fraction(2) ** (e - bits))


def to_f16(v: float, mode: str = "rn") -> np.float16:
    """Round an f64 (holding an exact value) to fp16 with overflow and subnormals handled."""

    if not math.isfinite(v) or v == 0:
        return np.float16(v)
    if abs(v) < 2.0**-14:  # subnormal: a fixed quantum of 2^-24
        q = Fraction(v) * 2**24
        q = {"rn": round(q), "rz": math.trunc(q), "rm": math.floor(q), "rp": math.ceil(q)}[mode]
        return np.float16(float(q) * 2.0**-24)
    r = round_sig(v, 11, mode)
    if abs(r) > 65504:
        toward_zero = mode == "rz" or (mode == "rm" and v > 0) or (mode == "rp" and v < 0)
        return np.float16(math.copysign(65504.0 if toward_zero else math.inf, v))
    return np.float16(r)


def to_bf16_bits(v: float, mode: str = "rn") -> int:
    return int(np.float32(round_sig(v, 8, mode)).view(np.uint32)) >> 16


def bf16_out2(p0: float, p1: float, yv: float, fused: bool) -> list[int]:
    """bf16_ops out2[i]: __hmul2(p, p), then __hfma2(p, p, y) (sm_80+, one rounding) or, below sm_80,
    __hadd2(__hmul2(p, p), y) (two roundings)."""
    sq = [to_bf16_bits(p0 * p0), to_bf16_bits(p1 * p1)]
    if fused:
        return sq + [to_bf16_bits(p0 * p0 + yv), to_bf16_bits(p1 * p1 + yv)]
    return sq + [to_bf16_bits(bf16_float(sq[0]) + yv), to_bf16_bits(bf16_float(sq[1]) + yv)]


@generator
def half_bf16() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "half_bf16.ptx"
    r = rng(220)
    n = 300
    a = (r.standard_normal(n + 20) * 8).astype(np.float16)
    b = (r.standard_normal(n + 20) * 8).astype(np.float16)
    a[:4], b[:4] = [1.0, -2.0, 0.0, 100.0], [-1.0, -2.0, 3.0, 0.5]
    out = []
    for xv, yv in zip(map(float, a[:n]), map(float, b[:n])):
        rr = float(to_f16(xv * yv + float(to_f16(xv + 1.0))))
        rr = float(to_f16(rr * float(to_f16(xv - yv))))
        with np.errstate(divide="ignore", invalid="ignore"):
            rr = float(to_f16(float(np.float64(rr) / np.float64(to_f16(yv + 2.0)))))
        if rr < 0:
            rr = -rr
        rr = float(np.fmax(rr, np.fmin(xv, yv)))  # __hmax/__hmin return the non-NaN operand
        out.append(abs(rr))
    yield "half_bf16/half_arith", case(
        src, "half_arith", 3, 110,
        [("a", Buffer("f16", a)), ("b", Buffer("f16", b)), ("out", Buffer("f16", count=n)), ("n", Scalar("s32", n))],
        {"out": np.array(out, np.float16)},
        note="each fp16 operation rounded once to nearest even (exact in f64 first; the quotient to f64 then fp16)",
    )
    t = 60
    f = (r.standard_normal(t) * 1000).astype(np.float32)
    f[:10] = [65504.0, 65519.0, 65520.0, 1e6, -1e6, 6e-8, 2.0**-25, 1.00048828125, -3.0e-5, 0.1]
    d = r.standard_normal(t) * 50
    k = r.integers(-100000, 100000, t).astype(np.int32)
    k[:3] = [2049, 65519, -70000]
    h, back, ints, bits = [], [], [], []
    for fv, dv, kv in zip(map(float, f), map(float, d), map(int, k)):
        hs = [
            to_f16(fv, "rn"),
            to_f16(fv, "rz"),
            to_f16(fv, "rm"),
            to_f16(fv, "rp"),
            to_f16(dv, "rn"),
            to_f16(float(kv), "rn"),
        ]
        h += hs
        back.append(np.float32(hs[0]))

        def h2i(x: np.float16, how: str, lo: int, hi: int) -> int:
            v = float(x)
            if math.isnan(v):
                return 0

            q = (
                {"rz": math.trunc, "rn": lambda z: int(np.rint(z)), "rm": math.floor}[how](v)
                if math.isfinite(v)
                else (hi if v > 0 else lo)
            )
            return max(lo, min(hi, q))

        ints += [
            h2i(hs[0], "rz", -(2**31), 2**31 - 1),
            h2i(hs[1], "rn", -(2**31), 2**31 - 1),
            h2i(hs[2], "rm", -(2**15), 2**15 - 1),
        ]
        bits.append(int(hs[3].view(np.uint16)) ^ 0x7BFF)
    yield "half_bf16/half_conversions", case(
        src, "half_conversions", 1, t,
        [
            ("f", Buffer("f32", f)), ("d", Buffer("f64", d)), ("k", Buffer("s32", k)),
            ("h", Buffer("f16", count=6 * t)), ("back", Buffer("f32", count=t)), ("ints", Buffer("s32", count=3 * t)),
            ("bits", Buffer("u16", count=t)),
        ],
        {
            "h": np.array(h, np.float16), "back": np.array(back, np.float32), "ints": np.array(ints, np.int32),
            "bits": np.array(bits, np.uint16),
        },
        note="fp16 rounding modes modelled exactly (overflow: rz/rm/rp toward zero give 65504); conversions to "
        "integers saturate",
    )
    n2 = 300
    ha = r.integers(-6, 7, 2 * n2).astype(np.float16)
    hb = r.integers(-6, 7, 2 * n2).astype(np.float16)
    total = float((ha.astype(np.float64) * hb).sum()) + 0.5
    yield "half_bf16/half_dot", case(
        src, "half_dot", 1, 96,
        [
            ("a", Buffer("f16", ha)), ("b", Buffer("f16", hb)), ("out", Buffer("f32", np.array([0.5], np.float32))),
            ("n2", Scalar("s32", n2)),
        ],
        {"out": np.array([total], np.float32)},
        note="small-integer halves: every product and sum exact, so the order cannot matter",
    )
    t = 70
    xa = (np.abs(r.standard_normal(t)) * 4 + 0.01).astype(np.float32)
    ya = (r.standard_normal(t) * 4).astype(np.float32)
    pa = (r.standard_normal(2 * t) * 4).astype(np.float32)
    xb = np.array([to_bf16_bits(float(v)) for v in xa], np.uint16)
    yb = np.array([to_bf16_bits(float(v)) for v in ya], np.uint16)
    pb = np.array([to_bf16_bits(float(v)) for v in pa], np.uint16)
    out, out2, fo = [], [], []
    for i in range(t):
        xv, yv = bf16_float(xb[i]), bf16_float(yb[i])
        out += [
            to_bf16_bits(xv + yv),
            to_bf16_bits(xv * yv + 0.5),
            xb[i] if xv >= yv else yb[i],
            to_bf16_bits(float(np.float32(xv) / np.float32(3.0)), "rz"),
        ]
        p0, p1 = bf16_float(pb[2 * i]), bf16_float(pb[2 * i + 1])
        out2 += bf16_out2(p0, p1, yv, fused=True)
        fo.append(float(np.float32(np.float32(p0 + p1) + np.float32(bf16_float(to_bf16_bits(xv**0.5))))))
    yield "half_bf16/bf16_ops", case(
        src, "bf16_ops", 1, t,
        [
            ("a", Buffer("u16", xb)), ("b", Buffer("u16", yb)), ("out", Buffer("u16", count=4 * t)),
            ("a2", Buffer("u16", pb)), ("out2", Buffer("u16", count=2 * 2 * t)), ("f", Buffer("f32", count=t)),
        ],
        {"out": np.array(out, np.uint16), "out2": np.array(out2, np.uint16), "f": np.array(fo, np.float32)},
        tolerance={"f": (8e-3, 0.0)},
        note="bf16 as raw u16 bits; each bf16 op rounds once to nearest even; f: hsqrt(bf16) goes through "
        "an approximate f32 square root, so f allows 2 bf16 ulps (8e-3 relative)",
    )


# == Triton matmul.py ================================================================================
@generator
def triton_matmul() -> Iterator[tuple[str, CaseSpec]]:
    r = rng(230)
    # Small-integer matrices: tf32/bf16/fp16 hold them exactly and every partial sum is exact, so the
    # tensor-core accumulation order cannot matter.
    specs = [
        ("matmul_int8", "s8", "s32", 64, 64, (70, 50, 100), ""),
        ("matmul_tf32", "f32", "f32", 64, 64, (70, 50, 40), "leaky_relu"),
        ("matmul_bf16", "u16", "f32", 64, 64, (70, 50, 40), ""),
        ("matmul_fp16_leaky_relu", "f16", "f16", 128, 128, (100, 60, 40), "leaky_relu"),
    ]
    for kernel, in_t, out_t, bm, bn, (m, n, k), act in specs:
        a = r.integers(-8, 9, (m, k))
        b = r.integers(-8, 9, (k, n))
        c = (a @ b).astype(np.float64)
        if act:
            c = np.where(c >= 0, c, np.float64(F32(0.01)) * c)
        conv = {
            "s8": lambda z: z.astype(np.int8),
            "f32": lambda z: z.astype(np.float32),
            "f16": lambda z: z.astype(np.float16),
            "u16": lambda z: bf16_round(z.astype(np.float32)),
        }[in_t]
        expect = {
            "s32": lambda z: z.astype(np.int32),
            "f32": lambda z: z.astype(np.float32),
            "f16": lambda z: z.astype(np.float32).astype(np.float16),
        }[out_t](c)
        grid = -(-m // bm) * -(-n // bn)
        yield f"triton/{kernel}", triton_case(
            kernel, grid,
            [
                ("a_ptr", Buffer(in_t, conv(a).reshape(-1))), ("b_ptr", Buffer(in_t, conv(b).reshape(-1))),
                ("c_ptr", Buffer(out_t, count=m * n)), ("M", Scalar("s32", m)), ("N", Scalar("s32", n)),
                ("K", Scalar("s32", k)), ("stride_am", Scalar("s32", k)), ("stride_ak", Scalar("s32", 1)),
                ("stride_bk", Scalar("s32", n)), ("stride_bn", Scalar("s32", 1)), ("stride_cm", Scalar("s32", n)),
                ("stride_cn", Scalar("s32", 1)),
            ],
            {"c_ptr": expect.reshape(-1)},
            entry="matmul_kernel",
            shared_bytes=65536,
            note="small-integer inputs: exact in tf32/bf16/fp16 and in any accumulation order; leaky_relu "
            "multiplies by the f32 constant 0.01 once",
        )


# == more: one-warp argmin, numba warp_votes, Triton dropout =======================================
@generator
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


# == double_math, half2_arith =======================================================================
@generator
def more_float_kernels() -> Iterator[tuple[str, CaseSpec]]:

    r = rng(250)
    t = 70
    x = r.uniform(0.1, 5.0, t)
    x[:4] = [0.5, 1.0, 2.0, 3.0]
    out = []
    for v in map(float, x):
        out += [
            math.sin(v),
            math.cos(v),
            math.tan(v),
            math.exp(v),
            math.log(v),
            math.log2(v),
            v**2.5,
            math.atan2(v, 1.0 - v),
            math.erf(v),
            math.lgamma(v),
            0.0,
            math.tanh(v),
            math.expm1(v) + math.log1p(v),
            math.fmod(v, 0.75) + math.remainder(v, 0.75),
        ]
    out[10::14] = [float(np.cbrt(v)) for v in x]
    yield "doubles/double_math", case(
        NV + "doubles.ptx", "double_math", 1, t,
        [("a", Buffer("f64", x)), ("out", Buffer("f64", count=t * 14))],
        {"out": np.array(out)},
        tolerance={"out": (1e-15, 1e-15)},
        note="CUDA double math is within 1-4 ulp (lgamma 4, sin/cos/tan/pow/atan2/erf/tanh 2); the model is "
        "Python's math (glibc, < 1 ulp): rtol 1e-15 (~4.5 ulp), atol 1e-15 at lgamma's zeros 1 and 2",
    )
    n = 260
    ha = (r.standard_normal(2 * n) * 2).astype(np.float16)
    hb = (r.standard_normal(2 * n) * 2).astype(np.float16)
    ha[:4], hb[:4] = [0.5, 0.25, 1.0, 1.0], [0.5, 0.25, 1.0, 1.0]
    out, dots = [], []
    for i in range(n):
        lanes = []
        for j in (0, 1):
            xv, yv = float(ha[2 * i + j]), float(hb[2 * i + j])
            rr = float(to_f16(xv * yv + float(to_f16(xv * xv))))
            s_ = float(to_f16(rr + float(to_f16(yv - xv))))
            rr = 0.0 if math.isnan(s_) else min(max(s_, 0.0), 1.0)  # .sat: clamp to [0, 1], NaN -> 0
            rr = float(to_f16(rr * yv + xv))
            rr = 0.0 if rr < 0 else rr  # .relu
            m = float(np.fmax(rr, np.fmin(xv, yv)))
            lanes.append((rr, m))
        (r0, m0), (r1, m1) = lanes
        out += [m1, m0] if (m0 == r0 and m1 == r1) else [m0, m1]
        dots.append(np.float32(r0) * np.float32(r1))
    yield "half_bf16/half2_arith", case(
        NV + "half_bf16.ptx", "half2_arith", 3, 100,
        [
            ("a", Buffer("f16", ha)), ("b", Buffer("f16", hb)), ("out", Buffer("f16", count=2 * n)),
            ("dotp", Buffer("f32", count=n)), ("n", Scalar("s32", n)),
        ],
        {"out": np.array(out, np.float16), "dotp": np.array(dots, np.float32)},
        note="per lane: fma.rn.f16, add.sat (clamp to [0, 1]), fma.rn.relu; __hbeq2 true swaps the halves",
    )


# == float_intrinsics, numba math ====================================================================
@generator
def approximate_math() -> Iterator[tuple[str, CaseSpec]]:

    r = rng(260)
    t = 64 + 20
    x = r.uniform(0.1, 1.3, t).astype(np.float32)  # away from pi/2, where __tanf's error grows like 1/cos
    y = r.uniform(-2.0, 2.0, t).astype(np.float32)
    y[np.abs(y) < 0.05] = 0.5
    out = []
    for xf, yf in zip(x, y):
        xv, yv = float(xf), float(yf)
        X, Y = exact(xv), exact(yv)
        out += [
            math.sin(xv),
            math.cos(xv),
            math.exp(xv),
            math.log(xv),
            xv**yv,
            xv / yv,
            float(round_mode(Fraction(1) / Fraction(math.sqrt(xv)), np.float32, "rn")),
            float(np.float32(np.sqrt(np.float32(xf)))),
            float(round_mode(X + Y, np.float32, "rz")),
            float(round_mode(X * Y, np.float32, "rp")),
            float(np.float32(xf / yf)),
            float(round_mode(X * Y + 1, np.float32, "rm")),
            min(max(xv, 0.0), 1.0),
            float(round_mode(1 / Y, np.float32, "rz")),
            math.tan(xv),
            10**xv,
        ]
    yield "math_float/float_intrinsics", case(
        NV + "math_float.ptx", "float_intrinsics", 1, t,
        [("a", Buffer("f32", x)), ("b", Buffer("f32", y)), ("out", Buffer("f32", count=t * 16))],
        {"out": np.array(out, np.float32)},
        tolerance={"out": (4e-6, 2e-6)},
        note="__sinf/__cosf/__expf/__logf/__powf/__tanf/__exp10f/__fdividef are hardware approximations "
        "(abs. error 2^-21.4 for sin/cos, 2 + 1.16|x| ulp for exp): rtol 4e-6, atol 2e-6, with x in "
        "[0.1, 1.3] so that __tanf = __sinf / __cosf stays well conditioned. The directed-rounding columns "
        "are only checked to that tolerance too.",
    )
    n = 300
    v = r.uniform(0.1, 3.0, n).astype(np.float32)
    ref = []
    for vf in v:
        a = float(vf)
        ref.append(
            math.sin(a)
            + math.cos(a)
            + math.exp(a)
            + math.log(a + 2.0)
            + math.erf(a)
            + math.atan2(a, 2.0)
            + a**1.5
            + math.sqrt(abs(a))
            + math.tanh(a)
            + math.floor(a)
            + math.ceil(a)
            + math.fmod(a, 0.3)
            + math.hypot(a, 1.0)
            + float(fma(vf, vf, vf, F32)[()])
        )
    for kernel, tol in (("math_f32", (2e-6, 1e-6)), ("math_f32_fastmath", (2e-5, 1e-5))):
        yield f"numba/{kernel}", numba_case(
            kernel, 3, 110,
            [numba_array("x", "f32", v, (n,)), numba_array("out", "f32", None, (n,))],
            {"out": np.array(ref, np.float32)},
            tolerance={"out": tol},
            note="float32 libdevice math (1-4 ulp; fastmath: approximate sin/cos/exp/log) summed with float64 "
            "terms (v + 2.0, atan2, pow, fmod, hypot are float64 in numba): tolerance vs. an f64 model",
        )
    xd = r.uniform(-3.0, 3.0, n)
    xd[:3] = [0.0, -0.0, 1.0]
    ref = [
        math.sin(a)
        + math.exp(a)
        + math.log1p(abs(a))
        + math.gamma(abs(a) + 1.0)
        + math.lgamma(abs(a) + 1.0)
        + math.asinh(a)
        + math.expm1(a)
        + math.copysign(2.0, a)
        for a in map(float, xd)
    ]
    yield "numba/math_f64", numba_case(
        "math_f64", 3, 110,
        [numba_array("x", "f64", xd, (n,)), numba_array("out", "f64", None, (n,))],
        {"out": np.array(ref)},
        tolerance={"out": (1e-14, 1e-14)},
        note="libdevice double math (gamma up to ~10 ulp) summed: rtol 1e-14 vs. Python's math",
    )


# == modules with one rejected kernel, split ========================================================
# When one kernel of a corpus module uses an instruction ptx2gcn rejects, the whole module fails to load,
# hiding the other kernels. `_derived/<stem>.without_<kernel>.ptx` is the corpus file with that kernel's
# `.entry` block removed (text only, nothing else changes), so the other kernels run today too.
DERIVED: dict[str, tuple[str, tuple[str, ...]]] = {
    "cases/_derived/warp_intrinsics.without_lane_masks.ptx": (NV + "warp_intrinsics.ptx", ("lane_masks",)),
    "cases/_derived/int_intrinsics.bit_ops_saturating.ptx": (
        NV + "int_intrinsics.ptx",
        ("int_arith", "ptx_bitfield"),
    ),
}


def without_entry(text: str, kernel: str) -> str:
    start = text.index(f".visible .entry {kernel}(")
    end = text.index("\n}\n", start) + 3
    return text[:start] + text[end:].lstrip("\n")


def write_derived(cases_root: Path) -> None:
    for target, (source, kernels) in DERIVED.items():
        path = cases_root / target.removeprefix("cases/")
        path.parent.mkdir(parents=True, exist_ok=True)
        text = (CORPUS / source).read_text(encoding="utf-8")
        for kernel in kernels:
            text = without_entry(text, kernel)
        path.write_text(text, encoding="utf-8")


@generator
def split_modules() -> Iterator[tuple[str, CaseSpec]]:

    for derived, (source, dropped) in DERIVED.items():
        maker = warp_intrinsics if "warp" in derived else int_intrinsics
        for name, spec in maker():
            if spec.source == source and spec.kernel not in dropped:
                note = (
                    f"{spec.note}\nthe corpus module without {', '.join(dropped)} (see make_cases.py DERIVED)"
                )
                yield f"{name}_split", dataclasses.replace(spec, source=derived, note=note.strip())


# == build variants of the same sources ==============================================================
# The same models against other builds of the same source: -lineinfo (.loc), -G (unoptimised debug
# PTX), and numba's lineinfo / debug builds. Named <kernel>_<variant>.
VARIANTS: list[tuple[Generator, str, str, str]] = [
    (vector_add, NV + "vector_add.ptx", NV + "vector_add.lineinfo.ptx", "lineinfo"),
    (matmul_tiled, NV + "matmul_tiled.ptx", NV + "matmul_tiled.lineinfo.ptx", "lineinfo"),
    (reduction, NV + "reduction.ptx", NV + "reduction.debug.ptx", "debug"),
    (device_functions, NV + "device_functions.ptx", NV + "device_functions.debug.ptx", "debug"),
]


@generator
def build_variants() -> Iterator[tuple[str, CaseSpec]]:

    for maker, source, variant, tag in VARIANTS:
        for name, spec in maker():
            if spec.source == source:
                note = f"{spec.note}\nthe {tag} build: {variant}".strip()
                if name == "device_functions/integrate_const":  # -G: no contraction in dot()
                    ps = dict(spec.args)["ps"].data
                    n = int(dict(spec.args)["n"].value)
                    spec = dataclasses.replace(spec, expect={"ps": integrate_const_model(ps, n, fused=False)})
                    note = (
                        f"the {tag} build: {variant}; dot() is three mul.f32 and two add.f32 (no contraction)"
                    )
                yield f"{name}_{tag}", dataclasses.replace(spec, source=variant, note=note)
    for name, spec in numba_kernels():
        for base, variant in (("axpy", "axpy_debug"), ("matmul_shared", "matmul_shared_lineinfo")):
            if name == f"numba/{base}":
                src = NB + variant + ".ptx"
                if variant == "axpy_debug":  # opt=False: mul.f32 then add.f32, no fma contraction
                    args = dict(spec.args)
                    a, x, y = F32(args["a"].value), args["x"].data, args["y"].data
                    with np.errstate(all="ignore"):
                        spec = dataclasses.replace(
                            spec,
                            expect={"r": (a * x + y).astype(np.float32)},
                            note="opt=False: a * x[i] is rounded before + y[i] (no fma)",
                        )
                yield (
                    f"numba/{variant}",
                    dataclasses.replace(
                        spec,
                        source=src,
                        kernel=entry_name(src),
                        note=f"{spec.note}\nthe {variant} build".strip(),
                    ),
                )


# == other targets ===================================================================================
NVCC_GENERATORS: list[Generator] = [
    vector_add,
    reduction,
    matmul_tiled,
    transpose,
    scan_sort,
    stencil_constant,
    atomics,
    device_functions,
    control_flow,
    int_intrinsics,
    dynamic_shared,
    wide_types,
    warp_intrinsics,
    cooperative_groups,
    apps_integer,
    apps_numeric,
    doubles,
    math_float,
    half_bf16,
    more_float_kernels,
    approximate_math,
]


# Not repeated per target: the step-budget hang (minutes each) and the kernels of modules that are
# rejected whole for a reason the sm_80 case already records (their _split cases run the rest).
OTHER_TARGETS_SKIP = (
    {"atomics/spin_lock_two_warps_per_wave"}
    | {
        f"warp_intrinsics/{k}"
        for k in ("shuffles", "votes", "match", "warp_reduce_redux", "warp_scan", "syncwarp_divergent")
    }
    | {f"int_intrinsics/{k}" for k in ("bit_ops", "int_arith", "ptx_bitfield", "saturating")}
)


def bf16_ops_without_bf16_fma(spec: CaseSpec) -> CaseSpec:
    """half_bf16/bf16_ops below sm_80, which takes the #else branches: out2 is __hadd2(__hmul2(p, p), y)
    (two roundings) and out[1], __float2bfloat16(x * y + 0.5f), an f32 fma (contracted to fma.rn.f32)."""
    args = dict(spec.args)
    xa, pb, yb = args["a"].data, args["a2"].data, args["b"].data
    out2 = []
    for i in range(yb.size):
        out2 += bf16_out2(bf16_float(pb[2 * i]), bf16_float(pb[2 * i + 1]), bf16_float(yb[i]), fused=False)
    out = spec.expect["out"].copy()
    for i in range(yb.size):
        prod = fma(F32(bf16_float(xa[i])), F32(bf16_float(yb[i])), F32(0.5), F32)[()]
        out[4 * i + 1] = to_bf16_bits(float(prod))
    return dataclasses.replace(spec, expect={**spec.expect, "out": out, "out2": np.array(out2, np.uint16)})


@generator
def other_targets() -> Iterator[tuple[str, CaseSpec]]:
    """Every nvcc case once more against the sm_75 and sm_90 builds of the same source (same models)."""

    for arch in ("sm_75", "sm_90"):
        for maker in [*NVCC_GENERATORS, half_math]:  # half_math is defined below
            for name, spec in maker():
                if not spec.source.startswith(NV) or name in OTHER_TARGETS_SKIP:
                    continue
                variant = spec.source.replace("sm_80", arch)
                if not (CORPUS / variant).is_file():
                    continue
                note = f"{spec.note}\nthe {arch} build: {variant}".strip()
                if name == "half_bf16/bf16_ops" and arch == "sm_75":  # the #else branch: no bf16 fma
                    spec = bf16_ops_without_bf16_fma(spec)
                    note += "\nsm_75 takes the #else branches: __hadd2(__hmul2(p, p), y) and an f32 fma for out[1]"
                yield f"{name}_{arch.replace('_', '')}", dataclasses.replace(spec, source=variant, note=note)


# == Triton attention ================================================================================
@generator
def triton_attention() -> Iterator[tuple[str, CaseSpec]]:
    r = rng(270)
    heads, seq, dim, scale = 2, 100, 64, 0.125
    q, k, v = ((r.standard_normal((heads, seq, dim)) * 0.5).astype(np.float16) for _ in range(3))
    out = np.zeros((heads, seq, dim), np.float16)
    for h in range(heads):
        s_ = (q[h].astype(np.float64) @ k[h].astype(np.float64).T) * scale
        s_[np.triu_indices(seq, 1)] = -np.inf  # causal: key j <= query i
        w = np.exp(s_ - s_.max(axis=1, keepdims=True))
        out[h] = ((w / w.sum(axis=1, keepdims=True)) @ v[h].astype(np.float64)).astype(np.float16)
    yield "triton/attention_fwd_kernel", triton_case(
        "attention_fwd_kernel", (2, heads),
        [
            ("q_ptr", Buffer("f16", q.reshape(-1))), ("k_ptr", Buffer("f16", k.reshape(-1))),
            ("v_ptr", Buffer("f16", v.reshape(-1))), ("o_ptr", Buffer("f16", count=heads * seq * dim)),
            ("seq_len", Scalar("s32", seq)), ("sm_scale", Scalar("f32", scale)), ("stride_s", Scalar("s32", dim)),
        ],
        {"o_ptr": out.reshape(-1)},
        tolerance={"o_ptr": (3e-3, 3e-3)},
        shared_bytes=65536,
        note="causal softmax(q k^T * scale) v in f64; the kernel rounds p to fp16 before the second tl.dot "
        "and the output to fp16 (2^-11 each), and uses ex2.approx: rtol/atol 3e-3",
    )


# == half_math =======================================================================================
@generator
def half_math() -> Iterator[tuple[str, CaseSpec]]:
    r = rng(280)
    t = 70
    x = r.uniform(0.1, 4.0, t).astype(np.float16)
    y = r.uniform(0.1, 4.0, 2 * t).astype(np.float16)
    xf, yf = x.astype(np.float64), y.astype(np.float64)
    out = np.stack([np.sin(xf), np.cos(xf), np.exp(xf), np.log(xf), np.sqrt(xf), 1 / xf], 1).astype(
        np.float16
    )
    y2 = yf.reshape(t, 2)
    out2 = np.stack([np.exp2(y2), 1 / np.sqrt(y2), np.floor(y2)], 1).astype(np.float16)
    yield "half_bf16/half_math", case(
        NV + "half_bf16.ptx", "half_math", 1, t,
        [
            ("a", Buffer("f16", x)), ("out", Buffer("f16", count=6 * t)), ("a2", Buffer("f16", y)),
            ("out2", Buffer("f16", count=6 * t)),
        ],
        {"out": out.reshape(-1), "out2": out2.reshape(-1)},
        tolerance={"out": (2e-3, 1e-3), "out2": (2e-3, 0.0)},
        note="hsin/hcos/hexp/hlog/hsqrt/hrcp/h2exp2/h2rsqrt go through approximate f32 instructions and round "
        "to fp16: within 2 fp16 ulps (rtol 2e-3; atol 1e-3 where cos crosses zero)",
    )


# == numba random_walk ===============================================================================
def xoroshiro_next(state: list[int]) -> int:
    """numba.cuda.random.xoroshiro128p_next (xoroshiro128+, Blackman & Vigna): returns s0 + s1."""
    s0, s1 = state
    result = (s0 + s1) & M64
    s1 ^= s0
    state[0] = (((s0 << 55) | (s0 >> 9)) & M64) ^ s1 ^ ((s1 << 14) & M64)
    state[1] = ((s1 << 36) | (s1 >> 28)) & M64
    return result


def xoroshiro_uniform_f32(state: list[int]) -> np.float32:
    """float32((x >> 11) * 2^-53): the float64 in [0, 1) rounded to float32."""
    return F32((xoroshiro_next(state) >> 11) * 2.0**-53)


@generator
def numba_random_walk() -> Iterator[tuple[str, CaseSpec]]:
    r = rng(290)
    n, steps = 150, 12
    states = r.integers(1, 2**64, (n + 10) * 2, dtype=np.uint64)
    final = [[int(states[2 * i]), int(states[2 * i + 1])] for i in range(n + 10)]
    out = np.zeros(n, np.float32)
    two_pi = F32(2 * math.pi)
    for i in range(n):
        pos = F32(0)
        for _ in range(steps):
            pos = F32(pos + F32(xoroshiro_uniform_f32(final[i]) - F32(0.5)))
            u1, u2 = xoroshiro_uniform_f32(final[i]), xoroshiro_uniform_f32(final[i])
            z0 = F32(math.sqrt(-2.0 * math.log(float(u1))) * math.cos(float(F32(two_pi * u2))))
            pos = F32(pos + F32(F32(0.01) * z0))
        out[i] = pos
    yield "numba/random_walk", numba_case(
        "random_walk", 2, 100,
        [
            numba_array("states", "u64", states, (n + 10,), lanes=2), numba_array("out", "f32", None, (n,)),
            ("steps", Scalar("s32", steps)),
        ],
        {"states": np.array(final, np.uint64).reshape(-1), "out": out},
        tolerance={"out": (0.0, 1e-6)},
        note="xoroshiro128+ states are exact (u64 pairs); the normal variate uses float32 sqrt/log/cos "
        "(1-2 ulp) scaled by 0.01, so out allows 1e-6 absolute; threads >= out.size keep their state",
    )


# == numba device_calls_fastmath =====================================================================
@generator
def numba_fastmath() -> Iterator[tuple[str, CaseSpec]]:
    r = rng(300)
    n = 300
    x = (r.standard_normal(n) * 3).astype(np.float32)
    x[:3] = [0.0, 1.0, -2.0]
    acc = np.zeros(n)
    for c in (1.0, -0.5, 0.25, -0.125):
        acc = fma(acc, x.astype(np.float64), c, np.float64)  # acc = 0.0 is float64: the polynomial is f64
    expect = (acc + np.sqrt(np.abs(x.astype(np.float64)))).astype(np.float32)
    yield "numba/device_calls_fastmath", numba_case(
        "device_calls_fastmath", 3, 110,
        [numba_array("x", "f32", x, (n,)), numba_array("out", "f32", None, (n,))],
        {"out": expect},
        tolerance={"out": (1e-6, 0.0)},
        note="float32 input, float64 polynomial (fma.rn.f64), fastmath sqrt.approx.ftz.f32 (about 1 ulp) added "
        "in f64 and stored as f32: rtol 1e-6",
    )


# == 16-bit atomics on exactly-sized buffers =========================================================
@generator
def atomics_exact_allocations() -> Iterator[tuple[str, CaseSpec]]:
    """atomics_float with every __half / __nv_bfloat16 scalar in a buffer of exactly 2 bytes."""

    for name, spec in atomics():
        if name == "atomics/atomics_float":
            args = [
                (arg_name, Buffer(arg.type, arg.data[:1]) if arg_name in ("h", "b") else arg)
                for arg_name, arg in spec.args
            ]
            expect = {k: (v[:1] if k in ("h", "b") else v) for k, v in spec.expect.items()}
            yield (
                "atomics/atomics_float_2_byte_buffers",
                dataclasses.replace(
                    spec,
                    args=args,
                    expect=expect,
                    note="as atomics_float, but h and b are 2-byte buffers (cudaMalloc(2) is valid CUDA: "
                    "allocations are 256-byte granules)",
                ),
            )


# == main ==============================================================================================
GENERATORS.extend(cases_matrix.GENERATORS + cases_async.GENERATORS)  # tensor cores, cp.async: own modules


def generate(root: Path, only: str | None) -> list[str]:
    write_derived(root)
    written = []
    pool: dict[str, Path] = {}
    for fn in GENERATORS:
        for name, spec in fn():
            folder = root / name
            skip = bool(only) and only not in name
            spec.write(folder, os.path.relpath(CORPUS / spec.source, CASES / name), pool, dry_run=skip)
            if not skip:
                written.append(name)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="only cases whose name contains this")
    parser.add_argument("--check", action="store_true", help="regenerate into a temporary folder and compare")
    args = parser.parse_args(argv)
    if not args.check:
        names = generate(CASES, args.only)
        print(f"wrote {len(names)} cases")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "corpora" / "cases"
        names = generate(root, args.only)
        bad = []
        for name in names:
            cmp = filecmp.dircmp(root / name, CASES / name)
            if cmp.left_only or cmp.right_only or cmp.diff_files or cmp.funny_files:
                bad.append(name)
        for stale in sorted(CASES.glob("*/*/case.toml")):
            name = stale.parent.relative_to(CASES).as_posix()
            if not args.only and name not in names:
                bad.append(f"{name} (no generator writes it any more)")
        for target in DERIVED:
            relative = target.removeprefix("cases/")
            if not filecmp.cmp(root / relative, CASES / relative, shallow=False):
                bad.append(relative)
        print(f"{len(names)} cases, {len(bad)} differ" + "".join(f"\n  {b}" for b in bad))
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
