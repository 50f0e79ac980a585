"""setp/set/selp/slct against numpy comparisons and the PTX ordered/unordered table."""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.reference import run


def F(value: object) -> np.ndarray:
    """A float32 array (scalar or list): the operand form the model takes for .f32."""
    return np.asarray(value, dtype=np.float32)
VALUES = F([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-45, 2.5])
A, B = (x.ravel() for x in np.meshgrid(VALUES, VALUES))

ORDERED = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
           "gt": np.greater, "ge": np.greater_equal}


@pytest.mark.parametrize("op", list(ORDERED))
def test_ordered_and_unordered(op: str) -> None:
    unordered = np.isnan(A) | np.isnan(B)
    with np.errstate(invalid="ignore"):
        ordered = ORDERED[op](A, B) & ~unordered
    if op == "ne":  # numpy's != is true for NaN; PTX ne is ordered
        ordered = np.not_equal(A, B) & ~unordered
    got = run(f"setp.{op}.f32", A, B)
    assert (got.outputs[0].bits == ordered).all()
    assert (got.outputs[1].bits == ~ordered).all()  # q is the complement
    got_u = run(f"setp.{op}u.f32", A, B).value
    assert (got_u == (ordered | unordered)).all()


def test_num_nan_and_combiners() -> None:
    unordered = np.isnan(A) | np.isnan(B)
    assert (run("setp.nan.f32", A, B).value == unordered).all()
    assert (run("setp.num.f32", A, B).value == ~unordered).all()
    c = np.arange(A.size) % 2 == 0
    with np.errstate(invalid="ignore"):
        lt = (A < B)
    res = run("setp.lt.and.f32", A, B, c)
    assert (res.outputs[0].bits == (lt & c)).all() and (res.outputs[1].bits == (~lt & c)).all()
    assert (run("setp.lt.xor.f32", A, B, c).value == (lt ^ c)).all()
    assert (run("setp.lt.or.f32", A, B, c).value == (lt | c)).all()


def test_integer_comparisons_signedness() -> None:
    assert bool(run("setp.lt.s32", 0xFFFFFFFF, 0).value)
    assert not bool(run("setp.lt.u32", 0xFFFFFFFF, 0).value)
    assert not bool(run("setp.lo.s32", 0xFFFFFFFF, 0).value)  # lo/hi/ls/hs are unsigned
    assert bool(run("setp.hs.u64", 5, 5).value)


def test_ftz_compare_and_f16x2() -> None:
    sub = np.uint32(1).view(np.float32)
    assert bool(run("setp.eq.ftz.f32", sub, F(0)).value)
    assert not bool(run("setp.eq.f32", sub, F(0)).value)
    a = int(np.array([1, 5], dtype=np.float16).view(np.uint32)[0])
    b = int(np.array([2, 3], dtype=np.float16).view(np.uint32)[0])
    p, q = run("setp.lt.f16x2", a, b).outputs
    assert bool(p.bits) and not bool(q.bits)


def test_set_selp_slct() -> None:
    assert int(run("set.lt.u32.s32", -1, 0).value) == 0xFFFFFFFF
    assert int(run("set.lt.f32.s32", -1, 0).value) == 0x3F800000
    assert int(run("set.gt.f32.f32", F(-1), F(0)).value) == 0
    assert int(run("selp.b32", 1, 2, True).value) == 1 and int(run("selp.b32", 1, 2, False).value) == 2
    assert int(run("slct.u32.s32", 1, 2, -1).value) == 2
    assert int(run("slct.u32.f32", 1, 2, F(-0.0)).value) == 1
    assert int(run("slct.u32.f32", 1, 2, F(np.nan)).value) == 2
    assert int(run("slct.ftz.u32.f32", 1, 2, -np.uint32(1).view(np.float32)).value) == 1


def test_half_set_true_values() -> None:
    a = int(np.array([1, 5], dtype=np.float16).view(np.uint32)[0])
    b = int(np.array([2, 3], dtype=np.float16).view(np.uint32)[0])
    assert int(run("set.lt.u32.f16x2", a, b).value) == 0x0000FFFF      # per half: 0xffff
    assert int(run("set.lt.f16x2.f16x2", a, b).value) == 0x00003C00    # per half: 1.0
    assert int(run("set.lt.u16.f16", np.float16(1), np.float16(2)).value) == 0xFFFF
    assert int(run("set.gt.bf16.f32", F(2), F(1)).value) == 0x3F80
