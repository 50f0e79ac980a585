"""Cases of the numba kernels (corpora/src/numba/*.py).

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

from generators.common import CORPUS, F32, M64, case, f32_inputs, fma, rng, s64, small_ints_f32
from generators.triton import entry_param_count

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
