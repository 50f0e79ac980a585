"""Cases of corpora/nvcc apps_numeric.cu.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

from generators.common import F32, NV, case, f32_inputs, fma, rng


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
