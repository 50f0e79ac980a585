"""`.approx` interval results: correct answers (host libm rounded to f32) are accepted, answers
outside the manual's bound are rejected, special inputs are exact."""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.reference import ReferenceInputError, is_within, run


def F(value: object) -> np.ndarray:
    """A float32 array (scalar or list): the operand form the model takes for .f32."""
    return np.asarray(value, dtype=np.float32)
RNG = np.random.default_rng(21)
POSITIVE = (RNG.random(500) * 2.0 ** RNG.integers(-30, 30, 500)).astype(np.float32)
SIGNED = (RNG.standard_normal(500) * 3).astype(np.float32)

CASES = {
    "rcp.approx.f32": (POSITIVE, lambda x: 1.0 / x.astype(np.float64)),
    "sqrt.approx.f32": (POSITIVE, lambda x: np.sqrt(x.astype(np.float64))),
    "rsqrt.approx.f32": (POSITIVE, lambda x: 1.0 / np.sqrt(x.astype(np.float64))),
    "sin.approx.f32": (SIGNED, lambda x: np.sin(x.astype(np.float64))),
    "cos.approx.f32": (SIGNED, lambda x: np.cos(x.astype(np.float64))),
    "lg2.approx.f32": (POSITIVE, lambda x: np.log2(x.astype(np.float64))),
    "ex2.approx.f32": (SIGNED * 10, lambda x: np.exp2(x.astype(np.float64))),
    "tanh.approx.f32": (SIGNED, lambda x: np.tanh(x.astype(np.float64))),
}


@pytest.mark.parametrize("spelling", list(CASES))
def test_correctly_rounded_answers_are_accepted(spelling: str) -> None:
    x, fn = CASES[spelling]
    assert is_within(spelling, fn(x).astype(np.float32), x).all()


@pytest.mark.parametrize("spelling", list(CASES))
def test_far_answers_are_rejected(spelling: str) -> None:
    x, fn = CASES[spelling]
    exact = fn(x)
    wrong = (exact * (1 + 2.0 ** -8) + np.sign(exact) * 2.0 ** -8).astype(np.float32)
    assert not is_within(spelling, wrong, x).any()


def test_ulp_bound_edges_for_rcp() -> None:
    """The bound is measured from the exact value: 1/3 lies 0.33 ulp below its nearest f32, so
    both neighbours of 1/3 are within 1 ulp but the next value up (1.33 ulp away) is not."""
    x = F(3.0)
    nearest = np.float32(1 / 3)
    down = np.nextafter(nearest, F(0))
    up = np.nextafter(nearest, F(1))
    assert is_within("rcp.approx.f32", np.array([nearest, down]), x).all()
    assert not is_within("rcp.approx.f32", up, x).any()


def test_special_inputs_are_exact() -> None:
    res = run("rcp.approx.f32", F([0.0, -0.0, np.inf, np.nan]))
    assert res.value[:3].tolist() == [0x7F800000, 0xFF800000, 0]
    assert res.matches(F([np.inf, -np.inf, 0.0, np.nan])).all()
    assert not res.matches(F([np.inf, np.inf, 0.0, np.nan]))[1]
    assert run("lg2.approx.f32", F(0)).value == 0xFF800000
    assert run("ex2.approx.f32", F(-np.inf)).value == 0
    assert run("sqrt.approx.f32", F(-1)).matches(F(np.nan))


def test_sin_out_of_range_is_undefined_and_div_approx_range() -> None:
    assert not run("sin.approx.f32", F(1000)).defined
    big = run("div.approx.f32", F([1, np.inf]), F(2.0 ** 127))
    assert big.value[0] == 0 and big.matches(F([0.0, np.nan])).all()
    assert not run("div.approx.f32", F(1), np.uint32(5).view(np.float32)).defined
    assert is_within("div.full.f32", F(1 / 3), F(1), F(3))
    assert not is_within("div.full.f32", F(0.34), F(1), F(3))


def test_half_precision_approx_bounds() -> None:
    x = (RNG.standard_normal(300) * 3).astype(np.float16)
    with np.errstate(over="ignore"):
        good_ex2 = np.exp2(x.astype(np.float64)).astype(np.float16)
    assert is_within("ex2.approx.f16", good_ex2, x).all()
    assert is_within("tanh.approx.f16", np.tanh(x.astype(np.float64)).astype(np.float16), x).all()
    assert not is_within("tanh.approx.f16", np.float16(0.5), np.float16(0.0)).any()


def test_manual_special_values() -> None:
    assert int(run("cos.approx.f32", F(-0.0)).value) == 0x3F800000          # exactly +1.0
    assert not run("cos.approx.f32", F(-0.0)).matches(np.float32(np.nextafter(F(1), F(0))))
    assert int(run("ex2.approx.f32", F(0.0)).value) == 0x3F800000
    tiny = np.uint32(0x80000005).view(np.float32)
    assert int(run("tanh.approx.f32", tiny).value) == 0x80000005           # passed through
    assert int(run("tanh.approx.f32", F(-np.inf)).value) == 0xBF800000
    assert int(run("ex2.approx.ftz.bf16", np.uint16(0x8001)).value) == 0x3F80  # -subnormal -> 1.0


def test_sin_bound_switches_at_two_pi() -> None:
    x = F(6.0)  # inside [-2pi, 2pi]: 2^-20.5 absolute
    assert not is_within("sin.approx.f32", F(np.sin(6.0) + 2.0 ** -17), x)
    y = F(10.0)  # beyond 2pi: 2^-14.7 absolute
    assert is_within("sin.approx.f32", F(np.sin(10.0) + 2.0 ** -17), y)


def test_lg2_absolute_near_one_relative_elsewhere() -> None:
    x = F(1.0000001)  # log2 is ~1.7e-7: an absolute 2^-22 bound allows 2.4e-7 of error
    assert is_within("lg2.approx.f32", F(np.log2(np.float64(x)) + 2.0e-7), x)
    big = F(1e30)  # relative 2^-22 of ~99.66 is ~2.4e-5
    assert not is_within("lg2.approx.f32", F(np.log2(1e30) + 1e-4), big)


def test_gross_f64_reciprocal_reads_the_upper_word() -> None:
    a = np.float64(3.0).view(np.uint64) | np.uint64(0xFFFFFFFF)  # low word is ignored
    good = (np.float64(1 / 3).view(np.uint64) & ~np.uint64(0xFFFFFFFF))
    res = run("rcp.approx.ftz.f64", a)
    assert res.matches(good)
    assert not res.matches(good | np.uint64(1))                  # low word must be zero
    assert int(run("rcp.approx.ftz.f64", np.float64(np.nan)).value) == 0x7FFFFFFF00000000
    assert int(run("rcp.approx.ftz.f64", np.uint64(0x000FFFFF00000000)).value) == 0x7FF0000000000000
    assert "assumed" in run("rsqrt.approx.ftz.f64", np.float64(4)).notes[0]


def test_results_beyond_the_format_accept_infinity() -> None:
    x = np.float16(20.0)                      # 2^20 overflows f16
    res = run("ex2.approx.f16", x)
    assert res.matches(np.float16(np.inf)) and not res.matches(np.float16(65504))
    assert run("ex2.approx.f32", F(128.5)).matches(F(np.inf))  # 2^128.5 > FLT_MAX


def test_packed_half_approximations_check_each_element() -> None:
    x = np.array([0.5, -1.0], dtype=np.float16).view(np.uint32)
    good = np.exp2(np.array([0.5, -1.0])).astype(np.float16)
    res = run("ex2.approx.f16x2", x)
    assert res.matches(good.view(np.uint32)).all()
    wrong_high = np.array([good[0], np.float16(0.75)], dtype=np.float16).view(np.uint32)
    assert not res.matches(wrong_high).any()                    # the high element is checked too
    specials = np.array([np.nan, 0.0], dtype=np.float16).view(np.uint32)
    t = run("tanh.approx.f16x2", specials)
    assert t.matches(np.array([np.float16(np.nan), 0], dtype=np.float16).view(np.uint32)).all()
    assert "elements in" in res.explain(0)
    with pytest.raises(ReferenceInputError):
        run("sin.approx.f16x2", x)


def test_bound_never_tighter_than_faithful_rounding() -> None:
    """2^-24.5 lies between f16's 0 and its smallest subnormal 2^-24; a relative 2^-9.9 bound
    would exclude both, but a result must be representable, so both neighbours are accepted."""
    res = run("ex2.approx.f16", np.float16(-24.5))
    assert res.matches(np.uint16(0)) and res.matches(np.uint16(1))
    assert not res.matches(np.uint16(2))
