"""Helpers shared by the collections: seeds, dimensions, edge-case inputs, exact rounding (fma,
round_fraction), integer wrap-around.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path

import numpy as np
from casegen import CaseSpec

CASES = Path(__file__).resolve().parent.parent
CORPUS = CASES.parent
NV = "nvcc/sm_80/"

Generator = Callable[[], Iterator[tuple[str, CaseSpec]]]
"""A collection's generator: yields (case folder name, case) pairs."""


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


# == scan_sort.cu ====================================================================================
def wrap32(values: np.ndarray) -> np.ndarray:
    return (values.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)


# == device_functions.cu =============================================================================
F32 = np.float32


# == int_intrinsics.cu ===============================================================================
M32, M64 = (1 << 32) - 1, (1 << 64) - 1


def s32(v: int) -> int:
    return (v + 2**31) % 2**32 - 2**31


def s64(v: int) -> int:
    return (v + 2**63) % 2**64 - 2**63


def exact(v: float) -> Fraction:
    return Fraction(float(v))
