"""Cases of corpora/nvcc atomics.cu (and the 2-byte-buffer variant of atomics_float).

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

from generators.common import NV, case, f32_inputs, rng


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


# == 16-bit atomics on exactly-sized buffers =========================================================
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
