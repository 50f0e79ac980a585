"""The fuzzer's newer statements and register classes, each checked twice: the evaluator against an
independent numpy computation written here, and the emulator against the evaluator (``judge``).
Plus: generated programs really contain every feature, and shrinking works on them."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from ptx2gcn.fuzz.eval import evaluate
from ptx2gcn.fuzz.gen import generate
from ptx2gcn.fuzz.oracle import Verdict, emulator_device, judge
from ptx2gcn.fuzz.program import (
    BLOCK,
    FULL_MASK,
    THREADS,
    Atomic,
    If,
    Loop,
    Op,
    Operand,
    Program,
    Statement,
    Warp,
    children,
)
from ptx2gcn.fuzz.runner import FuzzConfig
from ptx2gcn.fuzz.shrink import shrink, size
from ptx2gcn.fuzz.text import ptx_text

M32 = np.uint64(0xFFFFFFFF)
LANES = np.arange(THREADS)


def reg(cls: str, i: int) -> Operand:
    return Operand(cls, i)


def imm(cls: str, value: int) -> Operand:
    return Operand(cls, value=value)


def program(*body: Statement, seed: int = 21) -> Program:
    return Program(tuple(body), generate(seed).inputs)


def check_on_emulator(prog: Program) -> None:
    verdict = judge(prog)
    assert verdict.kind == "ok", verdict.details


def test_block_atomics_on_one_word_are_order_independent() -> None:
    prog = program(
        Atomic("atom.max.s32", "global", False, reg("i32", 0), reg("i32", 1), (reg("i32", 2),)),
        Atomic("red.xor.b64", "shared", False, reg("i64", 3), reg("i64", 0), (reg("i64", 1),)),
        Atomic("atom.inc.u32", "shared", False, reg("i32", 3), reg("i32", 3), (imm("i32", 5),)),
        Atomic("red.add.f32", "global", False, reg("f32", 1), reg("f32", 0), (reg("i32", 1),), integral=True),
    )
    s = prog.input_bits()
    values, poison = evaluate(prog)
    blocks = THREADS // BLOCK

    def signed(x: np.ndarray) -> np.ndarray:
        return x.astype(np.uint32).view(np.int32).astype(np.int64)

    init = signed(s[("i32", 1)])[::BLOCK]
    best = np.maximum(init, signed(s[("i32", 2)]).reshape(blocks, BLOCK).max(axis=1))
    np.testing.assert_array_equal(values[("i32", 0)], np.repeat(best.astype(np.uint64) & M32, BLOCK))
    xor = s[("i64", 0)][::BLOCK] ^ np.bitwise_xor.reduce(s[("i64", 1)].reshape(blocks, BLOCK), axis=1)
    np.testing.assert_array_equal(values[("i64", 3)], np.repeat(xor, BLOCK))
    # inc with bound 5, applied BLOCK times to thread 0's %r3: r -> (r >= 5 ? 0 : r + 1)
    start = s[("i32", 3)][::BLOCK].astype(object)
    ends = []
    for r in start:
        for _ in range(BLOCK):
            r = 0 if r >= 5 else r + 1
        ends.append(r)
    np.testing.assert_array_equal(values[("i32", 3)], np.repeat(np.array(ends, dtype=np.uint64), BLOCK))
    # integral float add: 0.0 + sum of (r1 & 255), r1 as it is after the max above wrote %r0 only
    sums = (s[("i32", 1)] & np.uint64(255)).reshape(blocks, BLOCK).sum(axis=1).astype(np.float32)
    np.testing.assert_array_equal(values[("f32", 1)], np.repeat(sums.view(np.uint32).astype(np.uint64), BLOCK))
    assert not any(p.any() for p in poison.values())
    check_on_emulator(prog)


@pytest.mark.parametrize("space", ["global", "shared"])
def test_private_atomics_return_the_old_value_and_leave_the_new(space: str) -> None:
    prog = program(
        Atomic("atom.cas.b32", space, True, reg("i32", 0), reg("i32", 1), (reg("i32", 1), reg("i32", 2))),
        Atomic("atom.cas.b64", space, True, reg("i64", 0), reg("i64", 1), (reg("i64", 2), reg("i64", 3))),
        Atomic("atom.dec.u32", space, True, reg("i32", 3), reg("i32", 2), (reg("i32", 3),)),
        Atomic("atom.exch.b64", space, True, reg("i64", 2), reg("i64", 2), (reg("i64", 3),)),
    )
    s = prog.input_bits()
    values, _ = evaluate(prog)
    np.testing.assert_array_equal(values[("i32", 0)], s[("i32", 1)])  # old value
    np.testing.assert_array_equal(values[("i32", 1)], s[("i32", 2)])  # compare hit: swapped in
    hit = s[("i64", 1)] == s[("i64", 2)]
    np.testing.assert_array_equal(values[("i64", 0)], s[("i64", 1)])
    np.testing.assert_array_equal(values[("i64", 1)], np.where(hit, s[("i64", 3)], s[("i64", 1)]))
    old, bound = s[("i32", 2)], s[("i32", 3)]
    dec = np.where((old == 0) | (old > bound), bound, old - np.uint64(1))
    np.testing.assert_array_equal(values[("i32", 3)], old)
    np.testing.assert_array_equal(values[("i32", 2)], dec)
    np.testing.assert_array_equal(values[("i64", 2)], s[("i64", 3)])  # exch into its own register
    check_on_emulator(prog)


def test_partial_membermask_warp_ops_touch_only_their_lanes() -> None:
    half = 0x0000FFFF
    prog = program(
        Warp(Op("vote.sync.ballot.b32", reg("i32", 0), (reg("pred", 0),)), membermask=half),
        Op("and.b32", reg("i32", 1), (reg("i32", 1), imm("i32", 3))),
        Warp(Op("match.any.sync.b32", reg("i32", 2), (reg("i32", 1),)), membermask=0x55555555),
        Warp(Op("match.all.sync.b32", reg("i32", 3), (reg("i32", 1),)), membermask=FULL_MASK, pred_dest=2),
        Warp(Op("redux.sync.add.u32", reg("i32", 1), (reg("i32", 1),)), membermask=0x80000001),
    )
    s = prog.input_bits()
    values, poison = evaluate(prog)
    lane = LANES % 32
    base = LANES - lane
    pred0 = s[("pred", 0)].astype(bool)
    ballot = np.array([sum(int(pred0[b + k]) << k for k in range(16)) for b in base], dtype=np.uint64)
    np.testing.assert_array_equal(values[("i32", 0)], np.where(lane < 16, ballot, s[("i32", 0)]))
    v = s[("i32", 1)] & np.uint64(3)
    in_odd_mask = lane % 2 == 0
    match_any = np.array(
        [sum(1 << k for k in range(0, 32, 2) if v[b + k] == v[t]) for t, b in zip(LANES, base)], dtype=np.uint64
    )
    np.testing.assert_array_equal(values[("i32", 2)], np.where(in_odd_mask, match_any, s[("i32", 2)]))
    uniform = np.array([len(set(v[b : b + 32].tolist())) == 1 for b in base])
    np.testing.assert_array_equal(values[("pred", 2)], uniform.astype(np.uint64))
    np.testing.assert_array_equal(values[("i32", 3)], np.where(uniform, np.uint64(FULL_MASK), np.uint64(0)))
    ends = (lane == 0) | (lane == 31)
    sums = v[base] + v[base + 31]
    np.testing.assert_array_equal(values[("i32", 1)], np.where(ends, sums, v))
    assert not any(p.any() for p in poison.values())
    check_on_emulator(prog)


def test_nested_loops_against_numpy() -> None:
    inner = Loop(2, (Op("add.u32", reg("i32", 0), (reg("i32", 0), imm("i32", 1))),))
    prog = program(
        Loop(1, (inner, Op("shl.b32", reg("i32", 3), (reg("i32", 3), imm("i32", 1))))),
    )
    s = prog.input_bits()
    outer, inner_trips = s[("i32", 1)] & np.uint64(3), s[("i32", 2)] & np.uint64(3)
    values, _ = evaluate(prog)
    np.testing.assert_array_equal(values[("i32", 0)], (s[("i32", 0)] + outer * inner_trips) & M32)
    np.testing.assert_array_equal(values[("i32", 3)], (s[("i32", 3)] << outer) & M32)
    assert "%cnt1" in ptx_text(prog)
    check_on_emulator(prog)


def test_half_registers_against_numpy() -> None:
    prog = program(
        Op("add.rn.f16", reg("h16", 0), (reg("h16", 0), reg("h16", 2))),
        Op("mul.rn.f16x2", reg("h32", 1), (reg("h32", 1), reg("h32", 3))),
        Op("cvt.f32.bf16", reg("f32", 2), (reg("h16", 1),)),
    )
    s = prog.input_bits()
    values, poison = evaluate(prog)

    def half(bits: np.ndarray) -> np.ndarray:
        return bits.astype(np.uint16).view(np.float16).astype(np.float64)

    a, b = half(s[("h16", 0)]), half(s[("h16", 2)])
    with np.errstate(all="ignore"):
        want = (a + b).astype(np.float16)  # exact in float64, so one rounding
    ok = ~poison[("h16", 0)]  # NaN results have an open payload
    assert ok.sum() > THREADS // 2
    np.testing.assert_array_equal(values[("h16", 0)][ok], want.view(np.uint16).astype(np.uint64)[ok])
    for shift in (0, 16):
        x = half(s[("h32", 1)] >> np.uint64(shift) & np.uint64(0xFFFF))
        y = half(s[("h32", 3)] >> np.uint64(shift) & np.uint64(0xFFFF))
        got = values[("h32", 1)] >> np.uint64(shift) & np.uint64(0xFFFF)
        fine = ~poison[("h32", 1)]
        with np.errstate(all="ignore"):
            product = (x * y).astype(np.float16).view(np.uint16).astype(np.uint64)
        np.testing.assert_array_equal(got[fine], product[fine])
    widened = (s[("h16", 1)] << np.uint64(16)).astype(np.uint32)  # bf16 -> f32 is exact: the top half
    fine = ~poison[("f32", 2)]
    np.testing.assert_array_equal(values[("f32", 2)][fine], widened.astype(np.uint64)[fine])
    check_on_emulator(prog)


def _kinds(body: tuple[Statement, ...], found: collections.Counter[str], loops: int = 0) -> None:
    for st in body:
        name = type(st).__name__
        if isinstance(st, Warp):
            name += ".partial" if st.membermask != FULL_MASK else ".full"
            found[st.op.spelling.split(".")[0]] += 1
        elif isinstance(st, Atomic):
            name += f".{st.space}.{'private' if st.private else 'word'}"
        elif isinstance(st, Op) and ("f16" in st.spelling or "bf16" in st.spelling):
            found["half"] += 1
        elif isinstance(st, Loop) and loops:
            found["nested loop"] += 1
        found[name] += 1
        for inner in children(st):
            _kinds(inner, found, loops + isinstance(st, Loop))


def test_generated_programs_use_every_feature() -> None:
    options = FuzzConfig().gen_options()
    found: collections.Counter[str] = collections.Counter()
    for seed in range(60):
        _kinds(generate(9000 + seed, options).body, found)
    wanted = {
        "If", "Loop", "nested loop", "LocalStore", "LocalLoad", "SharedRotate", "Call", "half",
        "Warp.full", "Warp.partial", "shfl", "vote", "redux", "match",
        "Atomic.global.private", "Atomic.shared.private", "Atomic.global.word", "Atomic.shared.word",
    }
    assert wanted <= set(found), sorted(wanted - set(found))
    guarded = sum(1 for seed in range(20) if "@%p" in ptx_text(generate(9000 + seed, options)))
    assert guarded >= 10


def test_shrinking_reaches_a_statement_inside_nested_structure() -> None:
    """A fault in a match.all inside the program shrinks to the warp statement alone."""
    def broken(ptx: str, inputs: bytes, size_: int) -> bytes:
        out = bytearray(emulator_device(ptx, inputs, size_))
        if "match.all" in ptx:
            out[-1] ^= 1
        return bytes(out)

    target = Warp(Op("match.all.sync.b32", reg("i32", 3), (reg("i32", 1),)), 0x0000FFFF, pred_dest=1)
    prog = program(
        Op("add.u32", reg("i32", 0), (reg("i32", 1), reg("i32", 2))),
        If(0, (Loop(1, (Op("xor.b32", reg("i32", 2), (reg("i32", 2), reg("i32", 0))),)),)),
        target,
        Atomic("atom.add.u64", "global", True, reg("i64", 0), reg("i64", 1), (reg("i64", 2),)),
    )
    verdict = judge(prog, broken)
    assert verdict.kind == "mismatch"

    def judged(candidate: Program) -> Verdict:
        return judge(candidate, broken)

    small = shrink(prog, verdict, judged)
    assert size(small.body) == 1 and isinstance(small.body[0], Warp)
    assert small.body[0].op.spelling == "match.all.sync.b32"
    assert small.body[0].membermask == FULL_MASK and small.body[0].pred_dest is None
