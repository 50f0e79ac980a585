"""T13: ``elect.sync`` on half-waves — the leader comes from the executing warp's own active members.

Expected values are the manual's definition applied by hand: among the lanes of *this* warp that are
active and in ``membermask``, one leader (CUDA and ptx2gcn: the lowest); ``d`` is its lane id in
every member, ``p`` is true only in the leader. The partner warp of the same wave uses different
active sets, masks and branches, so a lowering that looked at the whole wave would pick its lanes.
"""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.reference import run as reference_run
from tests.warp.conftest import SENTINEL, run, warp_kernel

BLOCK = (128, 1, 1)

ELECT = warp_kernel("""
setp.ne.u32 %p9, %a3, 0; @%p9 exit;
elect.sync %o0|%p1, %a1; selp.u32 %o1, 1, 0, %p1;
elect.sync _|%p2, -1; selp.u32 %o2, 1, 0, %p2;
""", 3)


def _leader(active: int, member: int) -> int:
    both = active & member
    return (both & -both).bit_length() - 1


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_elect_leader_is_per_warp(seed: int) -> None:
    rng = np.random.default_rng(seed)
    lane, warp = np.arange(128) % 32, np.arange(128) // 32
    gone = rng.random(128) < 0.4
    gone[warp == 3] = lane[warp == 3] < 20   # warp 3: the lowest 20 lanes exited
    members = np.zeros(128, dtype=np.uint32)
    for w in range(4):
        members[warp == w] = [0xFFFFFFFF, 0xFFFF0000, 0x0F0F0F0F, 0xFFFFFFFF][w]
    out = run(ELECT, BLOCK, [0, members, 0, gone], 3)
    for w in range(4):
        s = slice(32 * w, 32 * w + 32)
        active = sum(1 << i for i in range(32) if not gone[s][i])
        member = int(members[s][0])
        leader = _leader(active, member)
        any_leader = _leader(active, 0xFFFFFFFF)
        for i in range(32):
            got = [int(out[k][s][i]) for k in range(3)]
            if not active >> i & 1:
                assert got == [SENTINEL] * 3
            elif member >> i & 1:
                assert got == [leader, int(i == leader), int(i == any_leader)], (w, i)
            else:  # not in membermask: d and p are undefined there; only the full-mask elect is checked
                assert got[2] == int(i == any_leader), (w, i)


def test_elect_in_divergent_arms() -> None:
    """Both warps of a wave elect in different arms of an if: each leader is its own warp's lowest lane."""
    ptx = warp_kernel("""
    and.b32 %t0, %w, 1; setp.ne.u32 %p1, %t0, 0; setp.ge.u32 %p3, %lane, 7;
    @%p1 bra ODD;
      elect.sync %o0|%p2, -1; bra.uni JOIN;
    ODD:
      @%p3 bra JOIN;
      elect.sync %o0|%p2, -1;
    JOIN:
    """, 1)
    out = run(ptx, BLOCK, [], 1)
    for w in range(4):
        s = slice(32 * w, 32 * w + 32)
        expected = np.full(32, 0, dtype=np.uint32) if w % 2 == 0 else np.where(np.arange(32) < 7, 0, SENTINEL)
        assert (out[0][s] == expected).all(), w


def test_reference_model_agrees_on_the_lowest_leader() -> None:
    """The independent PTX model (ptx2gcn.reference) makes the same choice for a full warp."""
    active = 0b1011_0000
    result = reference_run("elect.sync", np.full(32, 0xFFFFFFFF, dtype=np.uint32), active)
    values = result.outputs[0].bits
    assert int(values[4]) == 4 and int(values[7]) == 4
