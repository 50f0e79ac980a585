"""Cases of corpora/nvcc half_bf16.cu (half_math included).

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

from generators.atomics import bf16_float
from generators.common import NV, case, rng


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


# == half_math =======================================================================================
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
