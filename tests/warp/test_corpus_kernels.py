"""nvcc-compiled corpus kernels that use warp operations, run on the emulator with several warps
per CTA (different data per warp) and checked against numpy models of the CUDA source
(corpora/src/cuda/warp_intrinsics.cu, reduction.cu) on 32-lane warps."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from ptx2gcn.compiler import compile
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

NVCC = Path(__file__).resolve().parents[2] / "corpora" / "nvcc"
ARCHS = ["sm_75", "sm_80", "sm_90"]
WARP_KERNELS = ["shuffles", "votes", "match", "warp_reduce_redux", "warp_scan"]
_objects: dict[tuple[str, str], bytes] = {}


KERNELS = {
    "warp_intrinsics": WARP_KERNELS,
    "reduction": ["reduce_warp_atomic", "argmin", "count_positive"],
    "reduction.debug": ["count_positive"],
    "cooperative_groups": ["cg_tile_reduce", "cg_coalesced", "cg_vote", "cg_reduce_scan"],
    "cooperative_groups:dynamic": ["cg_dynamic_tiles"],
}


def _code(arch: str, name: str) -> bytes:
    key = (arch, name)
    if key not in _objects:
        path = NVCC / arch / f"{name.split(':')[0]}.ptx"
        _objects[key] = compile(path, kernels=KERNELS[name]).data
    return _objects[key]


def _launch(data: bytes, kernel: str, block: int, args: list[npt.NDArray[np.generic] | int | float],
            fmt: str, grid: int = 1) -> list[npt.NDArray[np.generic]]:
    """Arrays are copied to the device (and back); ints/floats are passed by value per ``fmt``."""
    memory = DeviceMemory()
    values: list[int | float] = []
    arrays: list[tuple[int, npt.NDArray[np.generic]]] = []
    for arg in args:
        if isinstance(arg, np.ndarray):
            addr = memory.alloc(max(arg.nbytes, 4))
            memory.write(addr, arg.tobytes())
            arrays.append((addr, arg))
            values.append(addr)
        else:
            values.append(arg)
    launch(load(data, "corpus.hsaco"), kernel, grid=(grid, 1, 1), block=(block, 1, 1),
           kernarg=struct.pack(fmt, *values), memory=memory)
    return [np.frombuffer(memory.read(addr, a.nbytes), dtype=a.dtype).copy() for addr, a in arrays]


def _warps(n: int) -> list[slice]:
    return [slice(w, w + 32) for w in range(0, n, 32)]


@pytest.mark.parametrize("arch", ARCHS)
def test_shuffles(arch: str, rng: np.random.Generator) -> None:
    n, src, delta = 128, 37, 3
    v = rng.integers(-1000, 1000, n).astype(np.int32)
    _, out = _launch(_code(arch, "warp_intrinsics"), "shuffles", n,
                     [v, np.zeros(8 * n, np.int32), src, delta], "<QQii")
    out = out.reshape(n, 8)
    lane = np.arange(n) % 32
    base = np.arange(n) - lane
    assert (out[:, 0] == v[base + (src & 31)]).all()
    assert (out[:, 1] == np.where(lane >= delta, v[np.maximum(np.arange(n) - delta, 0)], v)).all()
    assert (out[:, 2] == np.where(lane + delta <= 31, v[np.minimum(np.arange(n) + delta, n - 1)], v)).all()
    assert (out[:, 3] == v[base + (lane & ~7)]).all()
    assert (out[:, 4] == v[base + (lane & ~7) + (src & 7)]).all()
    members = lane < 16  # __shfl_down_sync(0x0000ffff, f, 1, 16): lanes 16-31 are not members (UB)
    down16 = np.where(lane % 16 + 1 < 16, v[np.minimum(np.arange(n) + 1, n - 1)], v) * 0.5
    assert (out[:, 5][members] == np.trunc(down16).astype(np.int32)[members]).all()
    assert (out[:, 6] == np.trunc(v[np.arange(n) ^ 16] * 0.25).astype(np.int32)).all()
    assert (out[:, 7] == 0).all()


@pytest.mark.parametrize("arch", ARCHS)
def test_votes(arch: str, rng: np.random.Generator) -> None:
    n = 96  # three warps: the last wave holds one warp
    v = rng.integers(-3, 4, 2 * n).astype(np.int32)
    v[40:72] = 5  # a warp that is all-positive
    _, out = _launch(_code(arch, "warp_intrinsics"), "votes", n, [v, np.zeros(10 * n, np.uint32)], "<QQ", grid=2)
    out = out.reshape(2 * n, 5)
    for s in _warps(2 * n):
        w = v[s]
        ballot = sum(1 << i for i in range(32) if w[i] > 0)
        odd = sum(1 << i for i in range(32) if w[i] & 1)
        assert (out[s, 0] == ballot).all()
        assert (out[s, 1] == int((w < 0).any())).all()
        assert (out[s, 2] == int((w != 0).all())).all()
        assert (out[s, 3] == int(len(set((w != 0).tolist())) == 1)).all()
        assert (out[s, 4] == np.where(w & 1, odd, 0)).all()


@pytest.mark.parametrize("arch", ARCHS)
def test_match(arch: str, rng: np.random.Generator) -> None:
    n = 128
    v = (np.arange(n) % 32 // 4).astype(np.int32)   # the same values in both warps of each wave
    v[64:96] = 7                                     # warp 2: all equal
    v[100] = 9
    _, out = _launch(_code(arch, "warp_intrinsics"), "match", n, [v, np.zeros(4 * n, np.uint32)], "<QQ")
    out = out.reshape(n, 4)
    for s in _warps(n):
        w = v[s]
        anymask = [sum(1 << j for j in range(32) if w[j] == w[i]) for i in range(32)]
        same = len(set(w.tolist())) == 1
        assert out[s, 0].tolist() == anymask and out[s, 1].tolist() == anymask
        assert (out[s, 2] == (0xFFFFFFFF if same else 0)).all()
        assert (out[s, 3] == int(same)).all()


@pytest.mark.parametrize("arch", ARCHS)
def test_warp_reduce_redux(arch: str, rng: np.random.Generator) -> None:
    n = 128
    v = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    _, out = _launch(_code(arch, "warp_intrinsics"), "warp_reduce_redux", n, [v, np.zeros(6 * n, np.uint32)], "<QQ")
    out = out.reshape(n, 6)
    for s in _warps(n):
        w = v[s].astype(np.uint64)
        assert (out[s, 0] == int(w.sum()) & 0xFFFFFFFF).all()
        if arch == "sm_75":
            continue  # the pre-sm_80 build only has the butterfly-shuffle sum
        assert (out[s, 1] == w.min()).all()
        assert (out[s, 2] == v[s].view(np.int32).max().astype(np.int64) & 0xFFFFFFFF).all()
        assert (out[s, 3] == np.bitwise_and.reduce(v[s])).all()
        assert (out[s, 4] == np.bitwise_or.reduce(v[s])).all()
        even = out[s, 5][0::2]  # mask 0x55555555: odd lanes are not members (UB), not checked
        assert (even == np.bitwise_xor.reduce(v[s][0::2])).all()


@pytest.mark.parametrize("arch", ARCHS)
def test_warp_scan(arch: str, rng: np.random.Generator) -> None:
    n = 160
    v = rng.integers(-100, 100, n).astype(np.int32)
    _, out = _launch(_code(arch, "warp_intrinsics"), "warp_scan", n, [v, np.zeros(n, np.int32)], "<QQ")
    for s in _warps(n):
        assert (out[s] == np.cumsum(v[s])).all()


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("block", [64, 96, 256])
def test_reduce_warp_atomic(arch: str, block: int, rng: np.random.Generator) -> None:
    n = 1000
    x = rng.integers(-50, 50, n).astype(np.float32)  # small integers: every partial sum is exact
    _, total = _launch(_code(arch, "reduction"), "reduce_warp_atomic", block, [x, np.zeros(1, np.float32), n],
                       "<QQi", grid=2)
    assert total[0] == x.sum()


@pytest.mark.parametrize("arch", ARCHS)
def test_argmin(arch: str, rng: np.random.Generator) -> None:
    n = 777
    x = rng.integers(-10_000, 10_000, n).astype(np.float32)
    x[[5, 600]] = x.min() - 1
    _, value, index = _launch(_code(arch, "reduction"), "argmin", 128,
                              [x, n, np.zeros(1, np.float32), np.zeros(1, np.int32)], "<Qi4xQQ")
    assert value[0] == x.min() and index[0] == 5


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("build", ["reduction", "reduction.debug"])
@pytest.mark.parametrize("block", [96, 256])
def test_syncthreads_count_and_or(arch: str, build: str, block: int, rng: np.random.Generator) -> None:
    """bar.red.popc/and/or (``__syncthreads_count/and/or``; out of line in -G builds)."""
    grid = 3
    v = rng.integers(-5, 20, grid * block).astype(np.int32)
    v[block:2 * block] = np.abs(v[block:2 * block]) + 1  # CTA 1: all positive
    _, count, all_pos, any_pos = _launch(_code(arch, build), "count_positive", block,
                                         [v, np.zeros(grid, np.int32), np.zeros(grid, np.int32),
                                          np.zeros(grid, np.int32)], "<QQQQ", grid=grid)
    per_cta = (v > 0).reshape(grid, block)
    assert count.tolist() == per_cta.sum(axis=1).tolist()
    assert all_pos.tolist() == per_cta.all(axis=1).astype(int).tolist()
    assert any_pos.tolist() == per_cta.any(axis=1).astype(int).tolist()


@pytest.mark.parametrize("arch", ["sm_75", "sm_80"])  # sm_90's file has a barrier.cluster (rejected)
def test_cooperative_groups(arch: str, rng: np.random.Generator) -> None:
    """cg tiles (shfl_down, ballot, any/all of 4-thread tiles), coalesced_threads warp aggregation."""
    code = _code(arch, "cooperative_groups")
    n = 128
    v = rng.integers(-20, 20, 2 * n).astype(np.int32)
    _, total = _launch(code, "cg_tile_reduce", n, [v, np.zeros(1, np.int32)], "<QQ", grid=2)
    assert total[0] == v.sum()
    _, out, counter = _launch(code, "cg_coalesced", n, [v, np.full(2 * n, -1, np.int32), np.zeros(1, np.int32)],
                              "<QQQ", grid=2)
    positive = v[v > 0]
    assert counter[0] == positive.size
    assert sorted(out[:positive.size].tolist()) == sorted(positive.tolist())
    _, votes = _launch(code, "cg_vote", n, [v[:n], np.zeros(3 * n, np.uint32)], "<QQ")
    votes = votes.reshape(n, 3)
    for s in _warps(n):
        w = v[s]
        assert (votes[s, 0] == sum(1 << i for i in range(32) if w[i] > 0)).all()
        quads = w.reshape(8, 4)
        assert (votes[s, 1] == (quads > 10).any(axis=1).repeat(4)).all()
        assert (votes[s, 2] == (quads > 0).all(axis=1).repeat(4) + np.arange(8).repeat(4) * 2).all()


@pytest.mark.parametrize("arch", ["sm_75", "sm_80"])
def test_cooperative_groups_dynamic_tiles(arch: str, rng: np.random.Generator) -> None:
    """tiled_partition(block, n) + thread_group::sync(): a switch over the group type reaching a
    non-aligned barrier.sync 0 or bar.warp.sync. (The sm_90 build also has a cluster-group arm,
    rejected with a located error at its barrier.cluster.)"""
    n = 128
    v = rng.integers(-20, 20, n).astype(np.int32)
    for tile_size in (4, 16, 32):
        _, dyn = _launch(_code(arch, "cooperative_groups:dynamic"), "cg_dynamic_tiles", n,
                         [v, np.zeros(n, np.int32), tile_size], "<QQI")
        assert (dyn == v * tile_size + np.arange(n) % tile_size).all(), tile_size


@pytest.mark.parametrize("arch", ["sm_75", "sm_80"])
def test_cooperative_groups_reduce_scan(arch: str, rng: np.random.Generator) -> None:
    """cg::reduce / cg::inclusive_scan on 16-thread tiles (redux.sync with per-tile masks on sm_80)."""
    n = 128
    v = rng.integers(-40, 40, n).astype(np.float32) / 4  # exact in f32 at every partial sum
    _, sums, scan, maxes = _launch(_code(arch, "cooperative_groups"), "cg_reduce_scan", n,
                                   [v, np.zeros(n // 16, np.float32), np.zeros(n, np.float32),
                                    np.zeros(n // 16, np.uint32)], "<QQQQ")
    tiles = v.reshape(-1, 16)
    assert (sums == tiles.sum(axis=1)).all()
    assert (scan == np.cumsum(tiles, axis=1).reshape(-1)).all()
    clamped = np.clip(np.trunc(tiles * 100.0), 0, None)  # cvt.rzi.u32.f32 saturates negatives to 0
    assert (maxes == clamped.max(axis=1)).all()
