"""Cases of corpora/nvcc doubles.cu.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

from generators.common import M32, M64, NV, case, exact, fma, rng, round_fraction, s32


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
