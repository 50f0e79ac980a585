"""T9–T12: vote/ballot, activemask, match and redux with the partner warp using different data."""

from __future__ import annotations

import numpy as np
import pytest

from tests.warp import model
from tests.warp.conftest import SENTINEL, run, warp_kernel

BLOCK = (128, 1, 1)
M32 = model.M32


def _mask(bits: np.ndarray) -> int:
    return sum(1 << i for i in range(32) if bits[i])


def _warps(n: int) -> list[slice]:
    return [slice(32 * w, 32 * w + 32) for w in range(n // 32)]


VOTES = warp_kernel("""
setp.ne.u32 %p9, %a3, 0; @%p9 exit;
setp.ne.u32 %p1, %a0, 0;
vote.sync.ballot.b32 %o0, %p1, -1;
vote.sync.all.pred %p2, %p1, -1; selp.u32 %o1, 1, 0, %p2;
vote.sync.any.pred %p2, %p1, -1; selp.u32 %o2, 1, 0, %p2;
vote.sync.uni.pred %p2, %p1, -1; selp.u32 %o3, 1, 0, %p2;
vote.sync.ballot.b32 %o4, !%p1, -1;
vote.sync.all.pred %p2, !%p1, -1; selp.u32 %o5, 1, 0, %p2;
vote.sync.any.pred %p2, %p1, %a1; selp.u32 %o6, 1, 0, %p2;
vote.sync.ballot.b32 %o7, %p1, %a1;
activemask.b32 %o8;
""", 9)


@pytest.mark.parametrize("exited", [False, True])
def test_vote_isolation(exited: bool) -> None:
    """T9: lane < 5 in even warps, lane >= 27 in odd warps; optionally half of warp 1 exited."""
    lane, warp = np.arange(128) % 32, np.arange(128) // 32
    pred = np.where(warp % 2 == 0, lane < 5, lane >= 27)
    gone = (warp == 1) & (lane >= 16) if exited else np.zeros(128, bool)
    member = np.full(128, 0x0FFFFFF0)
    out = run(VOTES, BLOCK, [pred, member, 0, gone], 9)
    for s in _warps(128):
        active = _mask(~gone[s])
        p = [bool(x) for x in pred[s]]
        expect = [model.vote("ballot", p, M32, active), model.vote("all", p, M32, active),
                  model.vote("any", p, M32, active), model.vote("uni", p, M32, active),
                  model.vote("ballot", [not x for x in p], M32, active),
                  model.vote("all", [not x for x in p], M32, active),
                  model.vote("any", p, 0x0FFFFFF0, active), model.vote("ballot", p, 0x0FFFFFF0, active), active]
        for lane_ in range(32):
            got = [int(out[k][s][lane_]) for k in range(9)]
            if not active >> lane_ & 1:
                assert got == [SENTINEL] * 9
            else:
                assert got == [int(e) for e in expect], lane_


def test_ballot_partner_in_other_branch() -> None:
    """Ballots with the partner warp in another branch see only their own warp."""
    ptx = warp_kernel("""
    and.b32 %t0, %w, 1; setp.ne.u32 %p1, %t0, 0; setp.ne.u32 %p2, %a0, 0;
    @%p1 bra ODD;
      vote.sync.ballot.b32 %o0, %p2, -1; activemask.b32 %o1; bra.uni JOIN;
    ODD:
      vote.sync.ballot.b32 %o0, %p2, -1; activemask.b32 %o1;
    JOIN:
    """, 2)
    pred = (np.arange(128) * 7) % 3 == 0
    out = run(ptx, BLOCK, [pred], 2)
    for s in _warps(128):
        assert (out[0][s] == _mask(pred[s])).all()
        assert (out[1][s] == M32).all()


ACTIVEMASK = warp_kernel("""
rem.u32 %t0, %lane, 3; setp.ne.u32 %p1, %t0, 0; @%p1 bra SKIP;
  and.b32 %t1, %w, 1; setp.eq.u32 %p2, %t1, 0; @%p2 bra SKIP;
  activemask.b32 %o0;
SKIP:
setp.lt.u32 %p3, %lane, %a0;
@%p3 bra THEN;
  activemask.b32 %o1; bra.uni FI;
THEN:
  activemask.b32 %o1;
FI:
activemask.b32 %o2;
""", 3)


def test_activemask_nesting_and_both_arms() -> None:
    """T10: nested ifs, and identical activemask in both arms of an if/else (no hoisting/CSE)."""
    split = np.repeat([5, 20, 0, 31], 32)
    out = run(ACTIVEMASK, BLOCK, [split], 3)
    every_third = sum(1 << i for i in range(0, 32, 3))
    for w, s in enumerate(_warps(128)):
        lane = np.arange(32)
        want0 = np.where((lane % 3 == 0) & (w % 2 == 1), every_third, SENTINEL)
        assert (out[0][s] == want0).all(), w
        below = (1 << int(split[s][0])) - 1
        assert (out[1][s] == np.where(lane < split[s][0], below, M32 & ~below)).all(), w
        assert (out[2][s] == M32).all()


MATCH = warp_kernel("""
setp.ne.u32 %p9, %a3, 0; @%p9 bra SKIP;
match.any.sync.b32 %o0, %a0, -1;
mov.b64 %rd1, {%a1, %a0};
match.any.sync.b64 %o1, %rd1, -1;
match.all.sync.b32 %o2|%p1, %a2, -1; selp.u32 %o3, 1, 0, %p1;
match.all.sync.b64 %o4|%p1, %rd1, -1; selp.u32 %o5, 1, 0, %p1;
SKIP:
""", 6)


@pytest.mark.parametrize("partial", [False, True])
def test_match(partial: bool, rng: np.random.Generator) -> None:
    """T11: equal values lane/4 in both warps of a wave; 64-bit values differing only in the high word;
    .all with all-equal and one-different warps."""
    lane, warp = np.arange(128) % 32, np.arange(128) // 32
    a0 = lane // 4
    a1 = np.where(warp % 2 == 0, lane % 2, 0)       # high word: splits the even warps' classes
    a2 = np.where(warp == 2, np.where(lane == 17, 9, 5), 5 + warp % 2 * 0)
    off = rng.random(128) < 0.3 if partial else np.zeros(128, bool)
    out = run(MATCH, BLOCK, [a0, a1, a2, off], 6)
    for w, s in enumerate(_warps(128)):
        active = _mask(~off[s])
        low = [int(x) for x in a0[s]]
        wide = [int(h) << 32 | int(x) for h, x in zip(a1[s], a0[s])]
        any32, any64 = model.match_any(low, M32, active), model.match_any(wide, M32, active)
        all32, all64 = model.match_all([int(x) for x in a2[s]], M32, active), model.match_all(wide, M32, active)
        for i in range(32):
            got = [int(out[k][s][i]) for k in range(6)]
            if any32[i] is None:
                assert got == [SENTINEL] * 6
            else:
                assert got == [any32[i], any64[i], all32[0], int(all32[1]), all64[0], int(all64[1])], (w, i)


REDUX_OPS = [("add", "u32"), ("add", "s32"), ("min", "u32"), ("max", "u32"), ("min", "s32"), ("max", "s32"),
             ("and", "b32"), ("or", "b32"), ("xor", "b32")]
REDUX = warp_kernel("setp.ne.u32 %p9, %a3, 0; @%p9 bra SKIP;\n" + "\n".join(
    f"redux.sync.{op}.{t} %o{i}, %a0, %a1;" for i, (op, t) in enumerate(REDUX_OPS)) + "\nSKIP:", len(REDUX_OPS))


@pytest.mark.parametrize("case", ["full", "half_members", "random_active"])
def test_redux(case: str, rng: np.random.Generator) -> None:
    """T12: all integer forms, negatives and overflow, partial membermask executed by its members only,
    the partner warp reducing different data at the same time."""
    n = 128
    lane = np.arange(n) % 32
    a = np.where(rng.random(n) < 0.5, rng.integers(-2**31, 2**31, n), rng.integers(-50, 50, n))
    if case == "full":
        member, off = np.full(n, M32), np.zeros(n, bool)
    elif case == "half_members":
        member, off = np.full(n, 0x0000FFFF), lane >= 16
    else:
        off = rng.random(n) < 0.4
        member = np.zeros(n, np.int64)
        for s in _warps(n):
            member[s] = _mask(~off[s])
    out = run(REDUX, BLOCK, [a, member, 0, off], len(REDUX_OPS))
    for s in _warps(n):
        active = _mask(~off[s])
        values = [int(x) & M32 for x in a[s]]
        for k, (op, t) in enumerate(REDUX_OPS):
            want = model.redux(op, t == "s32", values, int(member[s][0]) if case != "random_active" else active,
                               active)
            got = out[k][s]
            assert (got[~off[s]] == want).all(), (op, t)
            assert (got[off[s]] == SENTINEL).all()


LEGACY = """.version 6.0
.target sm_60
.address_size 64
.visible .entry k(.param .u64 out)
{
.reg .b32 %r<12>; .reg .b64 %rd<4>; .reg .pred %p<6>;
mov.u32 %r1, %tid.x; mov.u32 %r3, 0xdeadbeef; mov.u32 %r6, 0xdeadbeef; mov.u32 %r7, 0xdeadbeef;
mov.u32 %r4, 0xdeadbeef;
rem.u32 %r9, %r1, 3; setp.eq.u32 %p4, %r9, 0; @%p4 bra SKIP;
and.b32 %r2, %r1, 6; setp.ne.u32 %p1, %r2, 0;
vote.ballot.b32 %r3, %p1;
vote.all.pred %p2, %p1; selp.u32 %r6, 1, 0, %p2;
vote.any.pred %p2, !%p1; selp.u32 %r7, 1, 0, %p2;
shfl.bfly.b32 %r4, %r1, 3, 0x1f;
SKIP:
ld.param.u64 %rd1, [out];
mul.wide.u32 %rd2, %r1, 16;
add.u64 %rd3, %rd1, %rd2;
st.global.v4.u32 [%rd3], {%r3, %r6, %r7, %r4};
ret;
}
"""


def test_legacy_vote_and_shfl_use_the_active_set() -> None:
    """Pre-sm_70 ``vote``/``shfl`` without .sync: membermask = the warp's active threads."""
    from ptx2gcn.runtime.emulator.launch import launch
    from ptx2gcn.runtime.emulator.loader import load
    from ptx2gcn.runtime.emulator.memory import DeviceMemory
    from tests.warp.conftest import compiled

    n = 96
    memory = DeviceMemory()
    out = memory.alloc(16 * n)
    launch(load(compiled(LEGACY), "legacy.hsaco"), "k", grid=(1, 1, 1), block=(n, 1, 1),
           kernarg=out.to_bytes(8, "little"), memory=memory)
    got = np.frombuffer(memory.read(out, 16 * n), dtype=np.uint32).reshape(n, 4)
    tid = np.arange(n)
    for s in _warps(n):
        t = tid[s]
        active = _mask(t % 3 != 0)
        pred = [bool(x & 6) for x in t]
        ballot = model.ballot(pred, M32, active)
        for x in t:
            if x % 3 == 0:
                assert got[x].tolist() == [SENTINEL] * 4
                continue
            partner_live = (x ^ 3) % 3 != 0
            assert got[x][:3].tolist() == [ballot, int(ballot == active), int(ballot != active)]
            if partner_live:
                assert got[x][3] == x ^ 3


@pytest.mark.parametrize("size", [50, 96, 1000, 1024])
def test_partial_last_warp_and_large_blocks(size: int, rng: np.random.Generator) -> None:
    """Blocks that are not a multiple of 64 (a last wave with one warp, a partial warp) and up to
    1024 threads: votes, activemask and redux see exactly the threads that exist."""
    pred = rng.random(size) < 0.5
    member = np.full(size, M32)
    out = run(VOTES, (size, 1, 1), [pred, member, 0, 0], 9)
    values = rng.integers(0, 2**32, size)
    sums = run(REDUX, (size, 1, 1), [values, member, 0, 0], len(REDUX_OPS))
    for w in range(0, size, 32):
        s = slice(w, min(w + 32, size))
        count = s.stop - s.start
        active = (1 << count) - 1
        p = [bool(x) for x in pred[s]] + [False] * (32 - count)
        assert (out[0][s] == model.vote("ballot", p, M32, active)).all()
        assert (out[1][s] == int(model.vote("all", p, M32, active))).all()
        assert (out[8][s] == active).all()
        assert (sums[0][s] == int(values[s].sum()) & M32).all()
        assert (sums[2][s] == values[s].min()).all()


DEVICE_FUNCTION = """.version 8.0
.target sm_90
.address_size 64
.func (.reg .b32 r) warp_sum(.reg .b32 v)
{
.reg .b32 %t<4>;
shfl.sync.bfly.b32 %t1, v, 16, 0x1f, -1; add.u32 v, v, %t1;
shfl.sync.bfly.b32 %t1, v, 8, 0x1f, -1; add.u32 v, v, %t1;
shfl.sync.bfly.b32 %t1, v, 4, 0x1f, -1; add.u32 v, v, %t1;
shfl.sync.down.b32 %t1, v, 2, 0x1f, -1; add.u32 v, v, %t1;
shfl.sync.down.b32 %t1, v, 1, 0x1f, -1; add.u32 v, v, %t1;
shfl.sync.idx.b32 r, v, 0, 0x1f, -1;
ret;
}
.visible .entry k(.param .u64 out, .param .u64 in)
{
.reg .b32 %r<4>; .reg .b64 %rd<6>;
mov.u32 %r1, %tid.x; ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];
mul.wide.u32 %rd3, %r1, 4; add.u64 %rd4, %rd1, %rd3; ld.global.u32 %r2, [%rd4];
call (%r3), warp_sum, (%r2);
add.u64 %rd5, %rd2, %rd3; st.global.u32 [%rd5], %r3;
ret;
}
"""


def test_warp_ops_in_a_device_function(rng: np.random.Generator) -> None:
    from ptx2gcn.runtime.emulator.launch import launch
    from ptx2gcn.runtime.emulator.loader import load
    from ptx2gcn.runtime.emulator.memory import DeviceMemory
    from tests.warp.conftest import compiled

    n = 96
    values = rng.integers(0, 2**20, n).astype(np.uint32)
    memory = DeviceMemory()
    out, src = memory.alloc(4 * n), memory.alloc(4 * n)
    memory.write(src, values.tobytes())
    launch(load(compiled(DEVICE_FUNCTION), "f.hsaco"), "k", grid=(1, 1, 1), block=(n, 1, 1),
           kernarg=out.to_bytes(8, "little") + src.to_bytes(8, "little"), memory=memory)
    got = np.frombuffer(memory.read(out, 4 * n), dtype=np.uint32)
    for s in _warps(n):
        assert (got[s] == values[s].sum()).all()


def test_emulated_barrier_in_a_device_function_is_unsupported() -> None:
    from ptx2gcn.compiler import compile
    from ptx2gcn.diagnostics import UnsupportedError

    ptx = DEVICE_FUNCTION.replace("shfl.sync.idx.b32 r, v, 0, 0x1f, -1;", "bar.sync 1, 64; mov.u32 r, v;")
    with pytest.raises(UnsupportedError, match="only supported in kernels") as info:
        compile(ptx)
    assert info.value.span is not None and info.value.span.line == 12


TILE_MATCH = warp_kernel("""
setp.ne.u32 %p9, %a3, 0; @%p9 bra SKIP;
match.all.sync.b32 %o0|%p1, %a0, %a1; selp.u32 %o1, 1, 0, %p1;
vote.sync.all.pred %p2, %p1, %a1; selp.u32 %o2, 1, 0, %p2;
match.any.sync.b32 %o3, %a0, %a1;
SKIP:
""", 4)


@pytest.mark.parametrize("tile", [1, 2, 4, 8, 16, 32])
@pytest.mark.parametrize("partial", [False, True])
def test_per_lane_tile_masks(tile: int, partial: bool, rng: np.random.Generator) -> None:
    """cooperative-groups tiles: each lane passes its own tile's mask to redux/match/vote, so one
    instruction reduces every tile separately (and both warps of each wave at once)."""
    n = 128
    lane = np.arange(n) % 32
    masks = (((1 << tile) - 1) << (lane & -tile)) & M32
    off = (rng.random(n) < 0.3) if partial else np.zeros(n, bool)
    a = np.where(rng.random(n) < 0.5, rng.integers(-2**31, 2**31, n), rng.integers(0, 3, n))
    reds = run(REDUX, BLOCK, [a, masks, 0, off], len(REDUX_OPS))
    small = rng.integers(0, 2, n)
    small[rng.random(n) < 0.5] = 1
    matches = run(TILE_MATCH, BLOCK, [small, masks, 0, off], 4)
    for i in range(n):
        if off[i]:
            assert reds[0][i] == SENTINEL and matches[0][i] == SENTINEL
            continue
        w = i - lane[i]
        active = _mask(~off[w:w + 32])
        member = int(masks[i])
        values = [int(x) & M32 for x in a[w:w + 32]]
        for k, (op, t) in enumerate(REDUX_OPS):
            assert reds[k][i] == model.redux(op, t == "s32", values, member, active), (op, t, i)
        d, p = model.match_all([int(x) for x in small[w:w + 32]], member, active)
        any_ = model.match_any([int(x) for x in small[w:w + 32]], member, active)[lane[i]]
        assert [int(matches[k][i]) for k in range(4)] == [d, int(p), int(p), any_], i
