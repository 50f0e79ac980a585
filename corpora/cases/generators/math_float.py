"""Cases of corpora/nvcc math_float.cu.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

from generators.common import F32, M32, NV, case, fma, rng, s32


# == math_float.cu ===================================================================================
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
