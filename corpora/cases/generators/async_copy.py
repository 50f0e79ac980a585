"""Launch cases for corpora/src/cuda/cp_async.cu (``corpora/cases/async_copy/``): cp.async with
4/8/16-byte copies, .ca/.cg, zero fill, commit/wait groups, a double-buffered pipeline and a raw
mbarrier arrive/test_wait loop, modelled with numpy from the CUDA source. Nothing imports ptx2gcn.
Invariant: like every generator of ``make_cases.py`` (which runs these), byte-identical output per run.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

SRC = "nvcc/sm_{arch}/cp_async.ptx"


def _case(arch: int, kernel: str, threads: int, args: list, expect: dict, note: str) -> CaseSpec:
    return CaseSpec(SRC.format(arch=arch), kernel, (1, 1, 1), (threads, 1, 1), args, expect, note=note)


def _raw(rng: np.random.Generator, arch: int, valid: int) -> CaseSpec:
    """tile[t] = src[t] (16 bytes, .cg); itile[t] = isrc[t] or, with valid = 0, zero (src-size 0);
    dst[t] = tile[127 - t], idst[t] = itile[(t + 1) % 128]."""
    src = rng.standard_normal((128, 4)).astype(np.float32)
    isrc = rng.integers(-(2**31), 2**31, 128).astype(np.int32)
    itile = isrc if valid else np.zeros(128, np.int32)
    return _case(arch, "cp_async_raw", 128, [
        ("src", Buffer("f32", src.reshape(-1))), ("dst", Buffer("f32", count=512)), ("isrc", Buffer("s32", isrc)),
        ("idst", Buffer("s32", count=128)), ("valid", Scalar("s32", valid)),
    ], {"dst": src[::-1].reshape(-1), "idst": np.roll(itile, -1)}, f"valid = {valid}")


def _pipeline(rng: np.random.Generator, arch: int) -> CaseSpec:
    """Double-buffered 256-float tiles: acc = sum over tiles of tile[(t * 7) % 256], added in tile order."""
    tiles = 5
    data = rng.integers(-50, 50, tiles * 256).astype(np.float32)
    acc = np.zeros(256, np.float32)
    for tile in range(tiles):
        acc = (acc + data[tile * 256 + (np.arange(256) * 7) % 256]).astype(np.float32)
    return _case(arch, "cp_async_pipeline", 256, [
        ("in", Buffer("f32", data)), ("out", Buffer("f32", count=256)), ("n_tiles", Scalar("s32", tiles)),
    ], {"out": acc}, "integer-valued floats: every partial sum exact")


def _zfill(rng: np.random.Generator, arch: int) -> CaseSpec:
    """8-byte copies; threads t >= n copy with src-size 0 (zero fill); dst[t] = s[63 - t]."""
    n = 40
    src = rng.standard_normal(64)
    s = np.where(np.arange(64) < n, src, 0.0)
    return _case(arch, "cp_async_8byte_zfill", 64, [
        ("src", Buffer("f64", src)), ("dst", Buffer("f64", count=64)), ("n", Scalar("s32", n)),
    ], {"dst": s[::-1].copy()}, "threads 40-63 zero-fill")


def _mbarrier(rng: np.random.Generator, arch: int) -> CaseSpec:
    """Thread 0 inits the barrier for blockDim arrivals; every thread stores data[t], arrives and
    spins on test_wait, then reads data[(t + 1) % blockDim]."""
    values = rng.integers(-1000, 1000, 32).astype(np.int32)
    return _case(arch, "mbarrier_raw", 32, [("in", Buffer("s32", values)), ("out", Buffer("s32", count=32))],
                 {"out": np.roll(values, -1)}, "one warp (data[] holds 32 ints)")


def nvcc_cp_async() -> Iterator[tuple[str, CaseSpec]]:
    rng = np.random.default_rng(310)
    for arch, suffix in ((80, ""), (90, "_sm90")):
        yield f"async_copy/cp_async_raw{suffix}", _raw(rng, arch, 1)
        yield f"async_copy/cp_async_raw_zero_fill{suffix}", _raw(rng, arch, 0)
        yield f"async_copy/cp_async_pipeline{suffix}", _pipeline(rng, arch)
        yield f"async_copy/cp_async_8byte_zfill{suffix}", _zfill(rng, arch)
        yield f"async_copy/mbarrier_raw{suffix}", _mbarrier(rng, arch)


GENERATORS = [nvcc_cp_async]
