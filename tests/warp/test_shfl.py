"""T2–T8, T25 and the random-mask property test: shfl.sync on two warps per wave, per-warp data."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from tests.warp import model
from tests.warp.conftest import SENTINEL, run, warp_kernel

MODES = ("up", "down", "bfly", "idx")
BLOCK = (128, 1, 1)


def _per_warp_values(rng: np.random.Generator, n: int) -> npt.NDArray[np.int64]:
    return rng.integers(0, 2**32, n, dtype=np.int64)


def _check(out: npt.NDArray[np.uint32], mode: str, a: npt.ArrayLike, b: npt.ArrayLike, c: npt.ArrayLike,
           active: npt.ArrayLike, d_row: int, p_row: int) -> int:
    """Compare every warp with the model; returns how many (lane, d) pairs were defined."""
    a, b, c, active = (np.broadcast_to(np.asarray(x, dtype=np.int64), out.shape[1:]) for x in (a, b, c, active))
    checked = 0
    for w in range(out.shape[1] // 32):
        s = slice(32 * w, 32 * w + 32)
        mask = sum(1 << i for i in range(32) if active[s][i])
        expect = model.shfl(mode, [int(x) for x in a[s]], [int(x) for x in b[s]], [int(x) for x in c[s]], mask)
        for lane, e in enumerate(expect):
            got_d, got_p = int(out[d_row][32 * w + lane]), int(out[p_row][32 * w + lane])
            if e is None:
                assert got_d == SENTINEL and got_p == SENTINEL, (w, lane)
                continue
            assert got_p == int(e[1]), (mode, w, lane, int(b[s][lane]), int(c[s][lane]))
            if e[0] >= 0:
                assert got_d == e[0], (mode, w, lane, int(b[s][lane]), int(c[s][lane]))
                checked += 1
    return checked


def _all_modes(b: str, c: str) -> str:
    return "\n".join(f"shfl.sync.{m}.b32 %o{2 * i}|%p{i + 1}, %a0, {b}, {c}, -1; "
                     f"selp.u32 %o{2 * i + 1}, 1, 0, %p{i + 1};" for i, m in enumerate(MODES))


DYNAMIC = warp_kernel(_all_modes("%a1", "%a2"), 8)


@pytest.mark.parametrize(("b", "c"), [
    (0, 0x1F), (1, 0), (1, 0x1F),                 # T2 idx broadcast of lane 0, T3 up edge, T4 down edge
    (32, 0x1F), (33, 0x1F), (0xFFFFFFFF, 0x1F), (35, 0x1F), (0xFFFFFFFF, 0),  # T5 b keeps only b[4:0]
    (3, 0x181F), (1, 0x1E00), (5, 0x1C1F), (2, 0x0F), (1, 0x1803), (7, 0x100F),  # T7 segments / clamps
])
def test_static_b_c(b: int, c: int, rng: np.random.Generator) -> None:
    ptx = warp_kernel(_all_modes(str(b), str(c)), 8)
    a = _per_warp_values(rng, 128)
    out = run(ptx, BLOCK, [a], 8)
    for i, mode in enumerate(MODES):
        assert _check(out, mode, a, b, c, 1, 2 * i, 2 * i + 1) > 0


def test_half_isolation_traps() -> None:
    """T3/T5: the odd warp's lane 0 never reads the even warp's lane 31, b >= 32 never crosses."""
    ptx = warp_kernel(_all_modes("%a1", "%a2"), 8)
    a = np.arange(128) + 1000
    for b, c in ((1, 0), (33, 0x1F), (0xFFFFFFFF, 0x1F), (32, 0x1F)):
        out = run(ptx, BLOCK, [a, np.full(128, b), np.full(128, c)], 8)
        for i in range(4):
            source_warp = (out[2 * i].astype(np.int64) - 1000) // 32
            assert (source_warp == np.arange(128) // 32).all(), (MODES[i], b, c)


@pytest.mark.parametrize("seed", range(4))
def test_dynamic_b_c(seed: int) -> None:
    """T6: per-lane random b (any 32 bits) and c (CUDA widths and random 13-bit) for all modes."""
    rng = np.random.default_rng(seed)
    a = _per_warp_values(rng, 128)
    b = rng.integers(0, 2**32, 128)
    widths = rng.choice([2, 4, 8, 16, 32], 128)
    cuda_c = ((32 - widths) << 8) | np.where(rng.random(128) < 0.3, 0, 0x1F)
    c = np.where(rng.random(128) < 0.5, cuda_c, rng.integers(0, 2**13, 128))
    out = run(DYNAMIC, BLOCK, [a, b, c], 8)
    for i, mode in enumerate(MODES):
        _check(out, mode, a, b, c, 1, 2 * i, 2 * i + 1)


PARTIAL = warp_kernel("setp.ne.u32 %p9, %a3, 0;\n@%p9 bra SKIP;\n" + _all_modes("%a1", "%a2") + "\nSKIP:", 8)


@pytest.mark.parametrize("seed", range(6))
def test_random_exec_masks(seed: int) -> None:
    """Property: two warps per wave with independent random active sets, random a/b/c; every lane's
    d (where its source is active) and p (where it is active) equal the 32-lane model."""
    rng = np.random.default_rng(100 + seed)
    n = 128
    density = rng.choice([0.2, 0.5, 0.9, 1.0], n // 32).repeat(32)
    active = rng.random(n) < density
    a = _per_warp_values(rng, n)
    b = np.where(rng.random(n) < 0.5, rng.integers(0, 40, n), rng.integers(0, 2**32, n))
    c = np.where(rng.random(n) < 0.5, 0x1F, rng.integers(0, 2**13, n))
    out = run(PARTIAL, (n, 1, 1), [a, b, c, ~active], 8)
    for i, mode in enumerate(MODES):
        _check(out, mode, a, b, c, active, 2 * i, 2 * i + 1)


DIVERGENT = warp_kernel("""
and.b32 %t0, %w, 1; setp.eq.u32 %p1, %t0, 0; @%p1 bra EVEN;
  shfl.sync.down.b32 %o0, %a0, 3, 0x1f, -1; bra.uni JOIN;
EVEN:
  and.b32 %t1, %lane, 1; setp.eq.u32 %p2, %t1, 0; @%p2 bra JOIN;
  shfl.sync.bfly.b32 %o0, %a0, 2, 0x1f, 0xAAAAAAAA;
JOIN:
""", 1)


def test_divergent_members_partner_in_other_branch(rng: np.random.Generator) -> None:
    """T8: odd lanes of even warps shuffle by bfly 2 while odd warps shuffle down by 3 elsewhere."""
    a = _per_warp_values(rng, 128)
    out = run(DIVERGENT, BLOCK, [a], 1)
    for w in range(4):
        base = 32 * w
        for lane in range(32):
            got = int(out[0][base + lane])
            if w % 2:
                assert got == a[base + lane + 3 if lane + 3 < 32 else base + lane]
            elif lane % 2:
                assert got == a[base + (lane ^ 2)]
            else:
                assert got == SENTINEL


LOOP = warp_kernel("""
and.b32 %t0, %a1, 7; mov.u32 %o0, %a0; mov.u32 %t1, 0;
LOOP:
  setp.ge.u32 %p1, %t1, %t0; @%p1 bra DONE;
  shfl.sync.bfly.b32 %t2, %o0, 1, 0x1f, -1;
  add.u32 %o0, %o0, %t2; add.u32 %t1, %t1, 1; bra.uni LOOP;
DONE:
""", 1)


def test_shuffle_in_loop_with_per_lane_trip_counts(rng: np.random.Generator) -> None:
    """T25: each lane loops (a1 & 7) times; iteration k involves the lanes still looping."""
    a = rng.integers(0, 1000, 128)
    trips = rng.integers(0, 8, 64).repeat(2)  # lanes i and i^1 loop together: the bfly source is live
    out = run(LOOP, BLOCK, [a, trips], 1)
    for w in range(4):
        s = slice(32 * w, 32 * w + 32)
        acc, trip = [int(x) for x in a[s]], [int(x) for x in trips[s]]
        for k in range(8):
            active = sum(1 << i for i in range(32) if trip[i] > k)
            got = model.shfl("bfly", acc, [1] * 32, [0x1F] * 32, active)
            acc = [acc[i] if e is None else (acc[i] + e[0]) & model.M32 for i, e in enumerate(got)]
        assert [int(x) for x in out[0][s]] == acc
    assert len(set(trips.tolist())) > 1


CONSTANT_CASES = (("bfly", 5, 0x1F), ("idx", 39, 0x1F), ("bfly", 2, 0x181F), ("idx", 6, 0x181F),
                  ("bfly", 1, 0x1F), ("down", 1, 0x101F), ("up", 2, 0x1000), ("down", 16, 0x1F),
                  ("down", 3, 0x1F), ("up", 1, 0x0))
"""DPP (bfly 1, down/up inside 16-lane segments), ds_swizzle (bfly, idx, down 16) and offset
ds_bpermute (down 3, up 1 at full width) patterns."""

CONSTANT_PARTIAL = warp_kernel("setp.ne.u32 %p15, %a3, 0;\n@%p15 bra SKIP;\n" + "\n".join(
    f"shfl.sync.{m}.b32 %o{2 * i}|%p{i + 1}, %a0, {b}, {c}, -1; selp.u32 %o{2 * i + 1}, 1, 0, %p{i + 1};"
    for i, (m, b, c) in enumerate(CONSTANT_CASES))
    + "\nSKIP:", 2 * len(CONSTANT_CASES))


@pytest.mark.parametrize("seed", range(3))
def test_constant_fast_paths_under_random_exec_masks(seed: int) -> None:
    """The constant-pattern paths (constant b, c) with independent active sets per warp."""
    rng = np.random.default_rng(200 + seed)
    active = rng.random(128) < 0.6
    a = _per_warp_values(rng, 128)
    out = run(CONSTANT_PARTIAL, BLOCK, [a, 0, 0, ~active], 2 * len(CONSTANT_CASES))
    for i, (mode, b, c) in enumerate(CONSTANT_CASES):
        _check(out, mode, a, b, c, active, 2 * i, 2 * i + 1)
