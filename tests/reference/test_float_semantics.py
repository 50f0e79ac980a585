"""Float rules beyond plain rounding: hand-computed directed results, rounding identities, .ftz,
.sat, min/max NaN and signed-zero rules, abs/neg, testp, copysign, relu."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from ptx2gcn.reference import run
from ptx2gcn.reference.floatformat import F32


def F(value: object) -> np.ndarray:
    """A float32 array (scalar or list): the operand form the model takes for .f32."""
    return np.asarray(value, dtype=np.float32)


def bits(x: float) -> int:
    return int(np.float32(x).view(np.uint32))


def test_one_third_in_every_mode() -> None:
    # 1/3 = 0x3eaaaaaa.aaa...: below the halfway point, so rn and rz/rm agree, rp rounds up.
    got = {m: int(run(f"div.{m}.f32", F(1), F(3)).value) for m in ("rn", "rz", "rm", "rp")}
    assert got == {"rn": 0x3EAAAAAB, "rz": 0x3EAAAAAA, "rm": 0x3EAAAAAA, "rp": 0x3EAAAAAB}
    neg = {m: int(run(f"div.{m}.f32", F(-1), F(3)).value) for m in ("rn", "rz", "rm", "rp")}
    assert neg == {"rn": 0xBEAAAAAB, "rz": 0xBEAAAAAA, "rm": 0xBEAAAAAB, "rp": 0xBEAAAAAA}


def test_overflow_per_mode() -> None:
    big = F(3.4028235e38)
    got = {m: int(run(f"add.{m}.f32", big, big).value) for m in ("rn", "rz", "rm", "rp")}
    assert got == {"rn": 0x7F800000, "rz": 0x7F7FFFFF, "rm": 0x7F7FFFFF, "rp": 0x7F800000}
    got = {m: int(run(f"add.{m}.f32", -big, -big).value) for m in ("rn", "rz", "rm", "rp")}
    assert got == {"rn": 0xFF800000, "rz": 0xFF7FFFFF, "rm": 0xFF800000, "rp": 0xFF7FFFFF}


def test_exact_zero_sum_sign() -> None:
    assert int(run("add.rn.f32", F(1), F(-1)).value) == 0
    assert int(run("add.rm.f32", F(1), F(-1)).value) == 0x80000000
    assert int(run("add.rn.f32", F(-0.0), F(-0.0)).value) == 0x80000000
    assert int(run("sub.rn.f32", F(-0.0), F(0.0)).value) == 0x80000000
    assert int(run("fma.rn.f32", F(0.0), F(-1), F(-0.0)).value) == 0x80000000


@pytest.mark.parametrize("op", ["add", "mul", "div"])
def test_directed_identities(op: str) -> None:
    rng = np.random.default_rng(31)
    a = (rng.standard_normal(300) * 2.0 ** rng.integers(-140, 120, 300)).astype(np.float32)
    b = (rng.standard_normal(300) * 2.0 ** rng.integers(-10, 10, 300)).astype(np.float32)
    fa, fb = [F32.exact(int(x)) for x in a.view(np.uint32)], [F32.exact(int(x)) for x in b.view(np.uint32)]
    exact = {"add": lambda x, y: x + y, "mul": lambda x, y: x * y, "div": lambda x, y: x / y}[op]
    rm, rp, rz, rn = (run(f"{op}.{m}.f32", a, b).value for m in ("rm", "rp", "rz", "rn"))
    for i in range(300):
        value = exact(fa[i], fb[i])
        lo, hi = F32.exact(int(rm[i])), F32.exact(int(rp[i]))
        assert lo <= value <= hi                                  # rm <= exact <= rp
        assert int(rn[i]) in (int(rm[i]), int(rp[i]))             # rn is a neighbour
        assert abs(F32.exact(int(rz[i]))) <= abs(value)            # rz never grows the magnitude
        if lo != hi:                                               # neighbours are one ulp apart
            assert abs(int(rp[i]) - int(rm[i])) == 1 or {int(rp[i]), int(rm[i])} == {0, 0x80000000}


def test_ftz_flushes_inputs_and_results_keeping_sign() -> None:
    sub = np.uint32(0x00000001).view(np.float32)
    assert int(run("add.ftz.f32", sub, F(0)).value) == 0
    assert int(run("add.f32", sub, F(0)).value) == 1
    assert int(run("mul.rn.ftz.f32", F(-1e-20), F(1e-20)).value) == 0x80000000  # -1e-40 flushed
    assert int(run("mul.rn.f32", F(-1e-20), F(1e-20)).value) != 0x80000000


def test_sat_clamps_and_zeroes_nan() -> None:
    got = run("add.sat.f32", F([2, -3, np.nan, 0.25]), F([0, 0, 0, 0])).value.view(np.float32)
    assert got.tolist() == [1.0, 0.0, 0.0, 0.25]
    assert int(run("mul.sat.f32", F(-0.0), F(1)).value) == 0  # -0 clamps to +0


def test_min_max_nan_and_zero_rules() -> None:
    nan = np.uint32(0x7FC01234).view(np.float32)
    assert run("min.f32", nan, F(2)).value.view(np.float32) == 2
    assert run("max.f32", F(2), nan).value.view(np.float32) == 2
    assert run("min.f32", nan, nan).matches(np.uint32(0xFFC00001))     # f32: unspecified NaN
    assert int(run("min.NaN.f32", nan, F(1)).value) == 0x7FFFFFFF       # .NaN: canonical
    assert not run("min.NaN.f32", nan, F(1)).matches(np.uint32(0x7FC00000))
    h_nan = np.uint16(0x7E01)
    assert int(run("max.f16", h_nan, h_nan).value) == 0x7FFF            # f16: canonical
    assert not run("max.f16", h_nan, h_nan).matches(h_nan)
    # three inputs, .abs alone (PTX 8.8 form): max of magnitudes, sign dropped
    assert int(run("max.abs.f32", F(-7), F(3), F(5)).value) == bits(7.0)
    assert int(run("min.f32", F(2), F(np.nan), F(-1)).value) == bits(-1.0)
    assert int(run("min.f32", F(0.0), F(-0.0)).value) == 0x80000000
    assert int(run("max.f32", F(-0.0), F(0.0)).value) == 0
    assert int(run("min.xorsign.abs.f32", F(-5), F(3)).value) == bits(-3.0)
    assert int(run("max.xorsign.abs.f32", F(-5), F(-3)).value) == bits(5.0)
    assert int(run("max.f16", np.float16(1), np.float16(-2)).value) == int(np.float16(1).view(np.uint16))
    # f16 follows the f32 zero rule in either operand order
    assert int(run("min.f16", np.float16(-0.0), np.float16(0.0)).value) == 0x8000
    assert int(run("min.f16", np.float16(0.0), np.float16(-0.0)).value) == 0x8000
    assert int(run("max.bf16", np.uint16(0x8000), np.uint16(0)).value) == 0
    h2 = int(np.array([1, -2], dtype=np.float16).view(np.uint32)[0])
    g2 = int(np.array([-1, 3], dtype=np.float16).view(np.uint32)[0])
    assert int(run("min.f16x2", h2, g2).value) == int(np.array([-1, -2], dtype=np.float16).view(np.uint32)[0])


def test_abs_neg_testp_copysign() -> None:
    assert int(run("abs.f32", F(-2)).value) == bits(2.0)
    assert int(run("neg.f32", F(0.0)).value) == 0x80000000
    assert run("neg.f32", F(np.nan)).matches(np.uint32(0x7F800001))  # any NaN
    values = F([0.0, -0.0, 1.0, np.inf, np.nan, 1e-40])
    expect = {
        "finite": [True, True, True, False, False, True],
        "infinite": [False, False, False, True, False, False],
        "number": [True, True, True, True, False, True],
        "notanumber": [False, False, False, False, True, False],
        "normal": [True, True, True, False, False, False],   # zeros count as normal (PTX testp)
        "subnormal": [False, False, False, False, False, True],
    }
    for op, want in expect.items():
        assert run(f"testp.{op}.f32", values).value.tolist() == want, op
    assert int(run("copysign.f32", F(-1), F(2)).value) == bits(-2.0)  # sign of a, value of b
    assert int(run("copysign.f32", F(1), F(-2)).value) == bits(2.0)


def test_fma_relu_f16() -> None:
    h = np.float16
    assert int(run("fma.rn.relu.f16", h(2), h(-3), h(1)).value) == 0
    assert int(run("fma.rn.relu.f16", h(2), h(3), h(1)).value) == int(h(7).view(np.uint16))
    assert int(run("fma.rn.relu.f16", h(np.inf), h(0), h(1)).value) == 0x7FFF


def test_sqrt_of_exact_squares_and_negative() -> None:
    assert run("sqrt.rn.f64", np.float64(np.pi * np.pi)).value.view(np.float64) == np.sqrt(np.pi * np.pi)
    assert int(run("sqrt.rn.f32", F(-0.0)).value) == 0x80000000
    assert run("sqrt.rn.f32", F(-1)).matches(np.uint32(0xFFC00000))
    assert Fraction(4) == F32.exact(int(run("sqrt.rz.f32", F(16)).value))


def test_packed_f32x2_matches_scalar_f32() -> None:
    rng = np.random.default_rng(40)
    a = rng.standard_normal(200).astype(np.float32)
    b = rng.standard_normal(200).astype(np.float32)
    got = run("mul.rz.f32x2", a.view(np.uint64), b.view(np.uint64)).value.view(np.uint32)
    assert (got == run("mul.rz.f32", a, b).value).all()


def test_mixed_precision_widens_exactly() -> None:
    """fma.rn.f32.f16: the product of two f16 values is exact in f32 and adding an f32 in float64
    is exact for these magnitudes, so numpy gives the single-rounding result."""
    rng = np.random.default_rng(41)
    a = rng.standard_normal(300).astype(np.float16)
    b = rng.standard_normal(300).astype(np.float16)
    c = rng.standard_normal(300).astype(np.float32)
    exact = a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)
    assert (run("fma.rn.f32.f16", a, b, c).value.view(np.float32) == exact.astype(np.float32)).all()
    assert (run("sub.rn.f32.f16", a, c).value.view(np.float32) == (a.astype(np.float32) - c)).all()


def test_f64_nan_payload_propagates_f32_does_not() -> None:
    """PTX ISA 9.7.3: "NaN payloads are supported for double-precision instructions ...
    Single-precision instructions return an unspecified NaN"."""
    snan = np.uint64(0x7FF0000000001234).view(np.float64)      # signalling, payload 0x1234
    res = run("add.rn.f64", snan, np.float64(1.0))
    assert res.matches(np.uint64(0x7FF8000000001234))          # quieted, payload kept
    assert res.matches(np.uint64(0xFFF8000000001234))          # sign is not fixed
    assert not res.matches(np.uint64(0x7FF8000000000000))      # payload lost
    assert run("mul.rn.f64", snan, snan).matches(np.uint64(0x7FF8000000000000))  # two NaNs: any
    f32 = run("add.rn.f32", np.uint32(0x7F801234).view(np.float32), F(1))
    assert f32.matches(np.uint32(0x7FFFFFFF))
    assert int(run("abs.f64", -snan).value) == 0xFFF0000000001234  # abs.f64: NaN unchanged
    assert run("neg.f64", snan).matches(np.uint64(0x7FF8000000000000))  # neg: unspecified NaN


def test_ftz_result_rounding_up_to_min_normal_accepts_both_answers() -> None:
    """2^-63 * (2^-63 - 2^-87) = 2^-126 - 2^-150, halfway between the largest subnormal and
    2^-126; .rn rounds to the even 2^-126. Whether .ftz treats that as a subnormal result
    (tininess before rounding) is unspecified, so 2^-126 and +0 are both accepted -- never the
    subnormal itself."""
    a = F(2.0 ** -63)
    b = np.nextafter(F(2.0 ** -63), F(0))                      # 2^-63 - 2^-87
    plain = run("mul.rn.f32", a, b)
    assert int(plain.value) == 0x00800000 and not plain.matches(np.uint32(0))
    tiny = run("mul.rn.ftz.f32", a, b)
    assert tiny.matches(np.uint32(0x00800000)) and tiny.matches(np.uint32(0))
    assert not tiny.matches(np.uint32(0x007FFFFF)) and not tiny.matches(np.uint32(0x80000000))
    rz = run("mul.rz.ftz.f32", a, b)                            # rounds down: a subnormal, flushed
    assert int(rz.value) == 0 and not rz.matches(np.uint32(0x00800000))
