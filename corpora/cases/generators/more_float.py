"""double_math (doubles) and half2_arith (half_bf16): one generator, kept whole because both cases draw
from one random stream.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

from generators.common import NV, case, rng
from generators.half_bf16 import to_f16


# == double_math, half2_arith =======================================================================
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
