"""Algebraic identities every correctly rounded implementation satisfies, checked on random f32/f64
bit patterns (hypothesis): they tie the rounding modes and operations to each other, so an error
in one mode's rounding shows up against another's."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ptx2gcn.reference import run

MODES = ["rn", "rz", "rm", "rp"]
F32_BITS = st.integers(0, 2 ** 32 - 1).map(np.uint32)
F64_BITS = st.integers(0, 2 ** 64 - 1).map(np.uint64)
SIGN32, SIGN64 = np.uint32(0x80000000), np.uint64(1 << 63)


def is_nan32(x: np.uint32) -> bool:
    return bool(np.isnan(np.uint32(x).view(np.float32)))


def value(res: object) -> int:
    return int(res.value)  # type: ignore[attr-defined]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(F32_BITS, F32_BITS, st.sampled_from(MODES))
def test_sub_is_add_of_negation(a: np.uint32, b: np.uint32, mode: str) -> None:
    got = run(f"sub.{mode}.f32", a, b)
    want = value(run(f"add.{mode}.f32", a, b ^ SIGN32))
    assert bool(got.matches(np.uint32(want)))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(F32_BITS, F32_BITS, st.sampled_from(["add", "mul"]), st.sampled_from(MODES))
def test_commutative(a: np.uint32, b: np.uint32, op: str, mode: str) -> None:
    if is_nan32(a) or is_nan32(b):
        return
    assert value(run(f"{op}.{mode}.f32", a, b)) == value(run(f"{op}.{mode}.f32", b, a))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(F32_BITS, F32_BITS, st.sampled_from(["add", "mul", "div"]))
def test_rm_is_negated_rp_of_negated_operands(a: np.uint32, b: np.uint32, op: str) -> None:
    """rm(x) = -rp(-x): negate the exact result by negating one operand (add: both)."""
    if is_nan32(a) or is_nan32(b):
        return
    na, nb = (a ^ SIGN32, b ^ SIGN32) if op == "add" else (a ^ SIGN32, b)
    down, up = value(run(f"{op}.rm.f32", a, b)), value(run(f"{op}.rp.f32", na, nb))
    if is_nan32(np.uint32(down)):  # invalid operations (0/0, inf-inf) have no sign relation
        return
    assert down == up ^ int(SIGN32)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(F32_BITS, st.sampled_from(MODES))
def test_rz_lies_between_rm_and_rp_towards_zero(a: np.uint32, mode: str) -> None:
    """For sqrt: rz equals rm (results are non-negative), and rn is rm or rp."""
    if is_nan32(a) or np.uint32(a).view(np.float32) < 0:
        return
    rm, rp = value(run("sqrt.rm.f32", a)), value(run("sqrt.rp.f32", a))
    assert value(run("sqrt.rz.f32", a)) == rm
    assert value(run(f"sqrt.{mode}.f32", a)) in (rm, rp)
    assert rp - rm in (0, 1)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(F64_BITS, F64_BITS, st.sampled_from(["rn", "rz", "rp"]))
def test_fma_with_negative_zero_addend_is_mul(a: np.uint64, b: np.uint64, mode: str) -> None:
    """a*b + (-0) rounds once, like a*b (not for .rm, where +0 + -0 is -0)."""
    if np.isnan(np.uint64(a).view(np.float64)) or np.isnan(np.uint64(b).view(np.float64)):
        return
    fma = value(run(f"fma.{mode}.f64", a, b, SIGN64))
    mul = run(f"mul.{mode}.f64", a, b)
    assert bool(mul.matches(np.uint64(fma)))
