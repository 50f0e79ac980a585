"""Atomics (old value, new memory value) and warp-level collectives on hand-built warps."""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.reference import run
from ptx2gcn.reference.warp import elect_matches

LANES = np.arange(32, dtype=np.uint32)


def test_atom_integer_ops() -> None:
    old = np.array([0, 4, 5, 9], dtype=np.uint32)
    d, new = run("atom.global.inc.u32", old, 5).outputs
    assert d.bits.tolist() == [0, 4, 5, 9] and new.bits.tolist() == [1, 5, 0, 0]
    assert run("atom.dec.u32", old, 5).outputs[1].bits.tolist() == [5, 3, 4, 5]
    assert run("atom.cas.b32", np.array([1, 2]), 1, 7).outputs[1].bits.tolist() == [7, 2]
    assert run("atom.min.s32", 0xFFFFFFFF, 1).outputs[1].bits.tolist() == 0xFFFFFFFF
    assert int(run("atom.max.u32", 0xFFFFFFFF, 1).outputs[1].bits) == 0xFFFFFFFF
    assert int(run("atom.add.u32", 0xFFFFFFFF, 2).outputs[1].bits) == 1
    assert int(run("atom.exch.b64", 3, 2 ** 40).outputs[1].bits) == 2 ** 40
    assert len(run("red.add.u32", 1, 2).outputs) == 1


def test_atom_float_add() -> None:
    sub = np.uint32(1).view(np.float32)
    assert int(run("atom.global.add.f32", sub, np.float32(0)).outputs[1].bits) == 0   # ftz on global
    assert int(run("atom.shared.add.f32", sub, np.float32(0)).outputs[1].bits) == 1
    h = np.float16
    assert run("atom.add.noftz.f16", h(1), h(2)).outputs[1].bits == h(3).view(np.uint16)
    new = run("atom.add.f64", np.float64(0.1), np.float64(0.2)).outputs[1].bits
    assert new == np.float64(0.1 + 0.2).view(np.uint64)


def test_shfl_modes_and_predicate() -> None:
    up = run("shfl.sync.up.b32", LANES * 10, 1, 0, 0xFFFFFFFF)
    assert up.value[:4].tolist() == [0, 0, 10, 20] and up.outputs[1].bits[:2].tolist() == [False, True]
    bfly = run("shfl.sync.bfly.b32", LANES, 1, 0x1F, 0xFFFFFFFF)
    assert bfly.value.tolist() == [i ^ 1 for i in range(32)]
    idx = run("shfl.sync.idx.b32", LANES, 3, 0x181F, 0xFFFFFFFF)  # 4 segments of 8 lanes
    assert idx.value.tolist() == [(i & 0x18) + 3 for i in range(32)]
    down = run("shfl.sync.down.b32", LANES, 4, 0x1F, 0xFFFFFFFF, 0x0000FFFF)
    assert down.defined[:12].all() and not down.defined[12:].any()
    assert down.matches(np.where(LANES < 12, LANES + 4, 12345), np.arange(32) < 28).all()


def test_vote_match_redux_activemask_elect() -> None:
    pred = LANES % 3 == 0
    assert int(run("vote.sync.ballot.b32", pred, 0xFFFFFFFF).value[0]) == sum(1 << i for i in range(0, 32, 3))
    assert not run("vote.sync.all.pred", pred, 0xFFFFFFFF).value[0]
    assert run("vote.sync.any.pred", pred, 0xFFFFFFFF).value[0]
    assert run("vote.sync.uni.pred", True, 0xFFFFFFFF).value.all()
    assert run("vote.sync.all.pred", pred, 0x00000009).value[0]  # lanes 0 and 3 only
    partial = run("vote.sync.ballot.b32", True, 0xFFFFFFFF, 0x0000FFFF)  # lanes 16.. have exited
    assert partial.defined.tolist() == [True] * 16 + [False] * 16
    assert int(partial.value[0]) == 0x0000FFFF
    d, p = run("match.all.sync.b32", 7, 0xFFFFFFFF, 0x000000FF).outputs
    assert int(d.bits[0]) == 0xFF and bool(p.bits[0])
    assert int(run("match.any.sync.b32", LANES % 4, 0xFFFFFFFF).value[1]) == 0x22222222
    d, p = run("match.all.sync.b32", 7, 0xFFFFFFFF).outputs
    assert int(d.bits[0]) == 0xFFFFFFFF and p.bits.all()
    assert int(run("redux.sync.add.u32", LANES, 0xFFFFFFFF).value[0]) == sum(range(32))
    assert int(run("redux.sync.min.s32", LANES.astype(np.int64) - 5, 0xFFFFFFFF).value[0]) == 2 ** 32 - 5
    assert int(run("redux.sync.xor.b32", LANES, 0x0000000F).value[0]) == 0 ^ 1 ^ 2 ^ 3
    assert int(run("activemask.b32", 0x00FF00FF).value[0]) == 0x00FF00FF
    d, p = run("elect.sync", 0xFFFFFFF0).outputs
    assert int(d.bits[4]) == 4 and p.bits[4:8].tolist() == [True, False, False, False]


def test_redux_f32_min_max_rules() -> None:
    values = np.zeros(32, dtype=np.float32)
    values[3] = -0.0
    assert int(run("redux.sync.min.f32", values, 0xFFFFFFFF).value[0]) == 0x80000000  # +0 > -0
    assert int(run("redux.sync.max.f32", values, 0xFFFFFFFF).value[0]) == 0
    values[5] = np.nan
    values[7] = -4
    assert int(run("redux.sync.min.f32", values, 0xFFFFFFFF).value[0]) == int(np.float32(-4).view(np.uint32))
    assert int(run("redux.sync.min.NaN.f32", values, 0xFFFFFFFF).value[0]) == 0x7FFFFFFF
    four = int(np.float32(4).view(np.uint32))
    assert int(run("redux.sync.max.abs.f32", values, 0xFFFFFFFF).value[0]) == four


def test_elect_matches_checks_the_manual_property() -> None:
    d, p = run("elect.sync", 0xFFFFFFF0).outputs
    assert elect_matches(d.bits, p.bits, 0xFFFFFFF0)
    other = np.full(32, 7, dtype=np.uint32)                  # lane 7 is also a valid leader
    assert elect_matches(other, LANES == 7, 0xFFFFFFF0)
    assert not elect_matches(other, LANES == 7, 0xFFFFFF00)  # 7 is not a member
    assert not elect_matches(other, LANES >= 7, 0xFFFFFFF0)  # two leaders


@pytest.mark.parametrize("width", [2, 4, 8, 16, 32])
def test_shfl_matches_cuda_intrinsic_semantics(width: int) -> None:
    """CUDA's __shfl*_sync(mask, var, x, width) lower to shfl.sync with c = ((32 - width) << 8)
    (| 0x1f except for .up); their documented results give an independent expectation."""
    values = (LANES * 7 + 3).astype(np.uint32)
    seg = 32 - width
    lanes = np.arange(32)
    base = lanes // width * width
    for delta in (0, 1, 3, width - 1, width):
        up = np.where(lanes % width >= delta, lanes - delta, lanes)
        down = np.where(lanes % width + delta < width, lanes + delta, lanes)
        xor = np.where((lanes ^ delta) < base + width, lanes ^ delta, lanes)
        idx = base + delta % width
        cases = {"up": (up, seg << 8), "down": (down, seg << 8 | 0x1F),
                 "bfly": (xor, seg << 8 | 0x1F), "idx": (idx, seg << 8 | 0x1F)}
        for mode, (source, c) in cases.items():
            got = run(f"shfl.sync.{mode}.b32", values, delta, c, 0xFFFFFFFF).value
            assert (got == values[source]).all(), (mode, width, delta)


def test_shfl_source_outside_the_readers_membermask_is_undefined() -> None:
    res = run("shfl.sync.idx.b32", LANES, 5, 0x1F, 0x0000000F)   # lanes 0..3 read lane 5
    assert not res.defined[:4].any()
    assert bool(res.outputs[1].bits[0])                           # the predicate is still defined
