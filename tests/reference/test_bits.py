"""Bit operations against the PTX manual's own examples and independent Python models."""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.reference import run

RNG = np.random.default_rng(77)
A = RNG.integers(0, 2 ** 32, 400, dtype=np.uint64).astype(np.uint32)
B = RNG.integers(0, 2 ** 32, 400, dtype=np.uint64).astype(np.uint32)


def test_popc_clz_brev() -> None:
    assert [int(x) for x in run("popc.b32", A).value] == [bin(int(x)).count("1") for x in A]
    assert int(run("clz.b32", 0).value) == 32 and int(run("clz.b64", 1).value) == 63
    assert int(run("brev.b32", 1).value) == 0x80000000
    assert int(run("brev.b64", 0x3).value) == 0xC000000000000000


def test_bfind() -> None:
    assert int(run("bfind.u32", 0).value) == 0xFFFFFFFF
    assert int(run("bfind.u32", 0x00010000).value) == 16
    assert int(run("bfind.shiftamt.u32", 0x00010000).value) == 15
    assert int(run("bfind.s32", 0xFFFFFFFF).value) == 0xFFFFFFFF  # -1: no non-sign bit
    assert int(run("bfind.s32", 0xFFFF0000).value) == 15  # ~a = 0x0000ffff


@pytest.mark.parametrize("base,offset,expected", [(3, 1, 3), (3, -1, 3), (2, 1, 3), (2, -1, 1)])
def test_fns_manual_examples(base: int, offset: int, expected: int) -> None:
    assert int(run("fns.b32", 0xAAAAAAAA, base, offset).value) == expected


def test_fns_not_found_and_undefined_base() -> None:
    assert int(run("fns.b32", 0xAAAAAAAA, 30, 3).value) == 0xFFFFFFFF
    assert not run("fns.b32", 1, 40, 1).defined


def test_bfe() -> None:
    assert int(run("bfe.u32", 0xABCD1234, 8, 8).value) == 0x12
    assert int(run("bfe.s32", 0x0000F000, 12, 4).value) == 0xFFFFFFFF  # field 0xF sign-extends
    assert int(run("bfe.s32", 0x80000000, 28, 10).value) == 0xFFFFFFF8  # past msb: a[31] fills
    assert int(run("bfe.u32", 0xFFFFFFFF, 4, 0).value) == 0
    # Python model over random operands
    pos = RNG.integers(0, 40, 400)
    ln = RNG.integers(0, 40, 400)
    got = run("bfe.u32", A, pos, ln).value
    want = [(int(a) >> p) & ((1 << min(l_, max(0, 32 - p))) - 1) if p < 32 else 0
            for a, p, l_ in zip(A, pos, ln)]
    assert [int(x) for x in got] == want


def test_bfi() -> None:
    assert int(run("bfi.b32", 0xF, 0, 4, 4).value) == 0xF0
    assert int(run("bfi.b32", 0xFF, 0, 28, 8).value) == 0xF0000000  # clipped at bit 31
    assert int(run("bfi.b32", 0xFF, 0x12345678, 40, 8).value) == 0x12345678


def test_szext_and_bmsk_manual_examples() -> None:
    assert int(run("szext.wrap.u32", 0xFFFFFFFF, 0).value) == 0
    assert int(run("bmsk.wrap.b32", 1, 2).value) == 0x6
    assert int(run("szext.clamp.s32", 0x80, 8).value) == 0xFFFFFF80
    assert int(run("szext.clamp.s32", 0x80, 40).value) == 0x80
    assert int(run("szext.wrap.s32", 0x80, 40).value) == 0xFFFFFF80  # N = 40 & 31 = 8
    assert int(run("bmsk.clamp.b32", 4, 40).value) == 0xFFFFFFF0
    assert int(run("bmsk.clamp.b32", 40, 4).value) == 0


def test_logic_ops() -> None:
    assert (run("and.b32", A, B).value == (A & B)).all()
    assert (run("xor.b32", A, B).value == (A ^ B)).all()
    assert (run("not.b32", A).value == ~A).all()
    assert [int(x) for x in run("cnot.b32", np.array([0, 5])).value] == [1, 0]
    assert run("or.pred", np.array([True, False]), np.array([False, False])).value.tolist() == [True, False]


@pytest.mark.parametrize("lut,fn", [
    (0x80, lambda a, b, c: a & b & c), (0xFE, lambda a, b, c: a | b | c),
    (0x40, lambda a, b, c: a & b & ~c), (0x1A, lambda a, b, c: (a & b | c) ^ a),
    (0x96, lambda a, b, c: a ^ b ^ c)])
def test_lop3_manual_luts(lut: int, fn: object) -> None:
    c = A ^ B
    want = np.array([fn(int(x), int(y), int(z)) & 0xFFFFFFFF for x, y, z in zip(A, B, c)], dtype=np.uint32)  # type: ignore[operator]
    assert (run("lop3.b32", A, B, c, lut).value == want).all()


def test_shf_against_64_bit_model() -> None:
    n = RNG.integers(0, 70, 400)
    joined = (B.astype(object) << 32) | A.astype(object)
    clamp = [min(int(x), 32) for x in n]
    want_l = [((int(j) << s) >> 32) & 0xFFFFFFFF for j, s in zip(joined, clamp)]
    want_r = [(int(j) >> s) & 0xFFFFFFFF for j, s in zip(joined, clamp)]
    assert [int(x) for x in run("shf.l.clamp.b32", A, B, n).value] == want_l
    assert [int(x) for x in run("shf.r.clamp.b32", A, B, n).value] == want_r
    wrap = [int(x) & 31 for x in n]
    assert [int(x) for x in run("shf.r.wrap.b32", A, B, n).value] == [
        (int(j) >> s) & 0xFFFFFFFF for j, s in zip(joined, wrap)]


def test_shifts_past_width() -> None:
    assert int(run("shl.b32", 1, 32).value) == 0
    assert int(run("shr.u32", 0x80000000, 100).value) == 0
    assert int(run("shr.s32", 0x80000000, 100).value) == 0xFFFFFFFF
    assert int(run("shr.s16", 0x8000, 3).value) == 0xF000


def test_prmt_all_modes() -> None:
    a, b = 0x33221100, 0x77665544  # byte i of b:a is 0xii
    assert int(run("prmt.b32", a, b, 0x7531).value) == 0x77553311
    assert int(run("prmt.b32", a, b, 0x0008).value) == 0x00000000  # sign of byte 0 (0x00) replicated
    assert int(run("prmt.b32", 0x80, 0, 0x8888).value) == 0xFFFFFFFF
    expected = {
        "f4e": [0x33221100, 0x44332211, 0x55443322, 0x66554433],
        "b4e": [0x55667700, 0x66770011, 0x77001122, 0x00112233],
        "rc8": [0x00000000, 0x11111111, 0x22222222, 0x33333333],
        "ecl": [0x33221100, 0x33221111, 0x33222222, 0x33333333],
        "ecr": [0x00000000, 0x11111100, 0x22221100, 0x33221100],
        "rc16": [0x11001100, 0x33223322, 0x11001100, 0x33223322],
    }
    for mode, values in expected.items():
        assert [int(run(f"prmt.b32.{mode}", a, b, s).value) for s in range(4)] == values, mode


def test_lop3_bool_op_predicate() -> None:
    d, p = run("lop3.or.b32", 0xF0, 0xCC, 0xAA, 0x80, False).outputs  # a & b & c = 0x80
    assert int(d.bits) == 0x80 and bool(p.bits)
    d, p = run("lop3.and.b32", 0x0F, 0xF0, 0, 0x80, True).outputs   # result 0 -> p false
    assert int(d.bits) == 0 and not bool(p.bits)
