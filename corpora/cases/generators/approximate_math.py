"""float_intrinsics (math_float) and the numba math kernels: one generator, kept whole because its
cases share one random stream.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction

import numpy as np
from casegen import Buffer, CaseSpec

from generators.common import F32, NV, case, exact, fma, rng
from generators.doubles import round_mode
from generators.numba import numba_array, numba_case


# == float_intrinsics, numba math ====================================================================
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
