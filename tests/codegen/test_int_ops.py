"""Integer, bit and logic instructions: compiled code run on the emulator vs the reference model.

Inputs are edge values (0, ±1, min/max, carries, shift amounts past the width) crossed with each
other; the expected bits come from ``ptx2gcn.reference`` (an independent model of the PTX ISA).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ptx2gcn.reference import run as reference

EDGE32 = [0, 1, 2, 3, 7, 31, 32, 33, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFF, 0xFFFFFFFE,
          0x12345678, 0x00FF00FF, 0x0000FFFF, 0xFFFF0000, 255, 256, 0xFFFFFF, 0x800000]
EDGE64 = [0, 1, 2, 63, 64, 65, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0xFFFFFFFFFFFFFFFF,
          0xFFFFFFFF, 0x100000000, 0x123456789ABCDEF0]
EDGE16 = [0, 1, 15, 16, 0x7FFF, 0x8000, 0xFFFF, 0x1234, 0xFF]


def _edges(ptx_type: str) -> list[int]:
    width = int(ptx_type[1:])
    return {16: EDGE16, 32: EDGE32, 64: EDGE64}[width]


def _pairs(values: list[int]) -> tuple[np.ndarray, np.ndarray]:
    a, b = zip(*itertools.product(values, values))
    return np.array(a, dtype=np.uint64), np.array(b, dtype=np.uint64)


def _check(run_op, spelling: str, operands: str, in_types: list[str], out_type: str, *inputs: np.ndarray) -> None:
    got = run_op(f"{spelling} %d, {operands}", in_types, out_type, *inputs)
    storage = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
    cast = [np.asarray(x).astype(storage[max(int(t[1:]) if t[1:].isdigit() else 32, 8)]) if t != "pred"
            else np.asarray(x).astype(np.bool_) for x, t in zip(inputs, in_types)]
    expected = reference(spelling, *cast)
    ok = expected.outputs[0].matches(got)
    bad = np.flatnonzero(~ok)
    assert not bad.size, (f"{spelling}: {bad.size} lanes differ, first inputs "
                          f"{[hex(int(x[bad[0]])) for x in inputs]} got {hex(int(got[bad[0]]))} "
                          f"expected {hex(int(expected.outputs[0].bits[bad[0]]))}")


BINARY = ["add.s32", "add.u32", "add.sat.s32", "sub.s32", "sub.sat.s32", "add.s64", "sub.u64",
          "mul.lo.s32", "mul.hi.s32", "mul.hi.u32", "mul.lo.u64", "mul.hi.s64", "mul.hi.u64",
          "mul24.lo.s32", "mul24.lo.u32", "mul24.hi.s32", "mul24.hi.u32", "div.s32", "div.u32",
          "rem.s32", "rem.u32", "div.s64", "rem.u64", "min.s32", "min.u32", "max.s32", "max.u64",
          "max.relu.s32", "and.b32", "or.b64", "xor.b32", "add.u16", "mul.lo.s16", "min.s16", "max.u16"]


@pytest.mark.parametrize("spelling", BINARY)
def test_binary(run_op, spelling: str) -> None:
    t = spelling.rsplit(".", 1)[1]
    a, b = _pairs(_edges(t))
    _check(run_op, spelling, "%a0, %a1", [t, t], t, a, b)


@pytest.mark.parametrize("spelling,wide", [("mul.wide.s32", "s64"), ("mul.wide.u32", "u64"),
                                           ("mul.wide.s16", "s32"), ("mul.wide.u16", "u32")])
def test_mul_wide(run_op, spelling: str, wide: str) -> None:
    t = spelling.rsplit(".", 1)[1]
    a, b = _pairs(_edges(t))
    _check(run_op, spelling, "%a0, %a1", [t, t], wide, a, b)


@pytest.mark.parametrize("spelling", ["shl.b32", "shr.u32", "shr.s32", "shl.b64", "shr.s64", "shr.u64",
                                      "shl.b16", "shr.s16"])
def test_shifts_clamp(run_op, spelling: str) -> None:
    t = spelling.rsplit(".", 1)[1]
    values = _edges(t)
    amounts = [0, 1, 7, 15, 16, 31, 32, 33, 63, 64, 65, 0xFFFFFFFF, 0x80000000]
    a, b = zip(*itertools.product(values, amounts))
    _check(run_op, spelling, "%a0, %a1", [t, "u32"], t, np.array(a, np.uint64), np.array(b, np.uint64))


@pytest.mark.parametrize("spelling", ["mad.lo.s32", "mad.hi.u32", "mad.hi.s32", "mad.lo.u64", "mad24.lo.s32",
                                      "mad24.hi.u32", "sad.s32", "sad.u32", "mad.hi.sat.s32"])
def test_ternary(run_op, spelling: str) -> None:
    t = spelling.rsplit(".", 1)[1]
    values = _edges(t)[:10]
    a, b, c = (np.array(x, np.uint64) for x in zip(*itertools.product(values, values, values)))
    _check(run_op, spelling, "%a0, %a1, %a2", [t, t, t], t, a, b, c)


@pytest.mark.parametrize("spelling,out", [("popc.b32", "u32"), ("popc.b64", "u32"), ("clz.b32", "u32"),
                                          ("clz.b64", "u32"), ("bfind.u32", "u32"), ("bfind.s32", "u32"),
                                          ("bfind.shiftamt.s64", "u32"), ("brev.b32", "b32"), ("brev.b64", "b64"),
                                          ("not.b32", "b32"), ("cnot.b32", "b32"), ("abs.s32", "s32"),
                                          ("neg.s64", "s64"), ("abs.s16", "s16")])
def test_unary(run_op, spelling: str, out: str) -> None:
    t = spelling.rsplit(".", 1)[1]
    values = np.array(_edges(t), np.uint64)
    _check(run_op, spelling, "%a0", [t], out, values)


@pytest.mark.parametrize("spelling", ["bfe.u32", "bfe.s32", "bfe.u64", "bfe.s64"])
def test_bfe(run_op, spelling: str) -> None:
    t = spelling.rsplit(".", 1)[1]
    values = _edges(t)[:8]
    positions = [0, 1, 8, 31, 32, 63, 64, 255, 256 + 4]
    lengths = [0, 1, 8, 24, 32, 33, 64, 255, 256 + 3]
    a, b, c = (np.array(x, np.uint64) for x in zip(*itertools.product(values, positions, lengths)))
    _check(run_op, spelling, "%a0, %a1, %a2", [t, "u32", "u32"], t, a, b, c)


@pytest.mark.parametrize("spelling", ["bfi.b32", "bfi.b64"])
def test_bfi(run_op, spelling: str) -> None:
    t = spelling.rsplit(".", 1)[1]
    values = _edges(t)[:5]
    positions = [0, 4, 31, 32, 63, 64, 300]
    lengths = [0, 3, 16, 32, 64, 300]
    a, b, c, d = (np.array(x, np.uint64) for x in zip(*itertools.product(values, values[::-1], positions, lengths)))
    _check(run_op, spelling, "%a0, %a1, %a2, %a3", [t, t, "u32", "u32"], t, a, b, c, d)


@pytest.mark.parametrize("spelling", ["shf.l.wrap.b32", "shf.r.wrap.b32", "shf.l.clamp.b32", "shf.r.clamp.b32"])
def test_funnel_shift(run_op, spelling: str) -> None:
    values = EDGE32[:8]
    amounts = [0, 1, 4, 31, 32, 33, 64, 0xFFFFFFFF]
    a, b, c = (np.array(x, np.uint64) for x in zip(*itertools.product(values, values[::-1], amounts)))
    _check(run_op, spelling, "%a0, %a1, %a2", ["b32", "b32", "u32"], "b32", a, b, c)


@pytest.mark.parametrize("spelling", ["bmsk.clamp.b32", "bmsk.wrap.b32"])
def test_bmsk(run_op, spelling: str) -> None:
    values = [0, 1, 5, 31, 32, 33, 40, 0xFFFFFFFF]
    a, b = _pairs(values)
    _check(run_op, spelling, "%a0, %a1", ["u32", "u32"], "b32", a, b)


def test_prmt(run_op) -> None:
    selectors = [0x3210, 0x0123, 0x4567, 0x7654, 0x8888, 0xBA98, 0x1F2E, 0xFFFF]
    values = EDGE32[:8]
    a, b, c = (np.array(x, np.uint64) for x in zip(*itertools.product(values, values[::-1], selectors)))
    _check(run_op, "prmt.b32", "%a0, %a1, %a2", ["b32", "b32", "b32"], "b32", a, b, c)


def test_lop3(run_op) -> None:
    values = EDGE32[:8]
    for lut in (0x00, 0xFF, 0x96, 0xE8, 0xF0, 0xCC, 0xAA, 0x1E):
        a, b, c = (np.array(x, np.uint64) for x in zip(*itertools.product(values, values, values[:3])))
        got = run_op(f"lop3.b32 %d, %a0, %a1, %a2, {lut}", ["b32", "b32", "b32"], "b32", a, b, c)
        lut_lanes = np.full(a.shape, lut, np.uint32)
        expected = reference("lop3.b32", a.astype(np.uint32), b.astype(np.uint32), c.astype(np.uint32), lut_lanes)
        assert expected.outputs[0].matches(got).all(), f"lop3 lut {lut:#x}"


@pytest.mark.parametrize("cmp", ["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"])
@pytest.mark.parametrize("t", ["s32", "u64"])
def test_setp_int(run_op, cmp: str, t: str) -> None:
    if cmp in ("lo", "ls", "hi", "hs") and t.startswith("s"):
        t = "u32"
    a, b = _pairs(_edges(t)[:12])
    _check(run_op, f"setp.{cmp}.{t}", "%a0, %a1", [t, t], "pred", a, b)


@pytest.mark.parametrize("spelling", ["shl.b32", "shr.u32", "shr.s32", "shl.b64", "shr.s64", "shr.u64"])
@pytest.mark.parametrize("amount", [0, 1, 31, 32, 40, 63, 64, 100])
def test_shift_by_immediate(run_op, spelling: str, amount: int) -> None:
    t = spelling.rsplit(".", 1)[1]
    values = np.array(_edges(t), np.uint64)
    got = run_op(f"{spelling} %d, %a0, {amount}", [t], t, values)
    storage = np.uint32 if t.endswith("32") else np.uint64
    expected = reference(spelling, values.astype(storage), np.full(values.shape, amount, np.uint32))
    assert expected.outputs[0].matches(got).all()


@pytest.mark.parametrize("spelling,wide", [("mad.wide.s32", "s64"), ("mad.wide.u32", "u64"), ("mad.wide.u16", "u32")])
def test_mad_wide(run_op, spelling: str, wide: str) -> None:
    t = spelling.rsplit(".", 1)[1]
    values = _edges(t)[:8]
    addends = _edges(wide)[:6]
    a, b, c = (np.array(x, np.uint64) for x in zip(*itertools.product(values, values, addends)))
    _check(run_op, spelling, "%a0, %a1, %a2", [t, t, wide], wide, a, b, c)


def test_mad_carry_chain_gives_the_full_product_plus_addend(run_op) -> None:
    """mad.lo.cc + madc.hi: the high word of a·b + c (a 32x32+32 → 64-bit multiply-add)."""
    values = EDGE32[:10]
    a, b, c = (np.array(x, np.uint64) for x in zip(*itertools.product(values, values, values[:5])))
    got = run_op("mad.lo.cc.u32 %tmp, %a0, %a1, %a2;\nmadc.hi.u32 %d, %a0, %a1, 0", ["u32"] * 3, "u32", a, b, c)
    expected = [((int(x) * int(y) + int(z)) >> 32) & 0xFFFFFFFF for x, y, z in zip(a, b, c)]
    assert np.array_equal(got, np.array(expected, np.uint32))


@pytest.mark.parametrize("mode", ["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"])
def test_prmt_modes(run_op, mode: str) -> None:
    a = np.array([0x33221100, 0x80FF7F01, 0xDEADBEEF] * 8, np.uint64)
    b = np.array([0x77665544, 0x01020304, 0xCAFEF00D] * 8, np.uint64)
    c = np.repeat(np.array([0, 1, 2, 3, 4, 7, 0xFFFFFFF2, 0x1234567B], np.uint64), 3)
    _check(run_op, f"prmt.b32.{mode}", "%a0, %a1, %a2", ["b32", "b32", "b32"], "b32", a, b, c)
