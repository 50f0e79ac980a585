"""Cases of corpora/nvcc vector_add.cu.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

from generators.common import F32_EDGES, NV, case, f32_inputs, fma, rng


# == vector_add.cu ===================================================================================
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
