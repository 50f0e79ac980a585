"""`.rn` arithmetic of the reference model against numpy, which is correctly rounded for + - * / sqrt
on float32/float64 (IEEE 754 on the host). NaN lanes compare as "is NaN" (PTX leaves payloads open)."""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.reference import run

SPECIALS32 = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.1754942e-38,
                       1.1754944e-38, 3.4028235e38, -3.4028235e38, 0.5, 3.0], dtype=np.float32)


def random_floats(rng: np.random.Generator, n: int, dtype: type) -> np.ndarray:
    bits_type = np.uint32 if dtype is np.float32 else np.uint64
    info = np.iinfo(bits_type)
    raw: np.ndarray = rng.integers(0, info.max, size=n, dtype=bits_type, endpoint=True).view(dtype)
    near: np.ndarray = (rng.standard_normal(n) * 10.0 ** rng.integers(-5, 5, n)).astype(dtype)
    return np.concatenate([raw, near])


def same_bits_or_both_nan(expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    return (expected.view(f"uint{expected.itemsize * 8}") == actual.view(f"uint{actual.itemsize * 8}")) | (
        np.isnan(expected) & np.isnan(actual))


@pytest.mark.parametrize("dtype,name", [(np.float32, "f32"), (np.float64, "f64")])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_binary_rn_matches_numpy(dtype: type, name: str, op: str) -> None:
    rng = np.random.default_rng(1234)
    a = random_floats(rng, 300, dtype)
    b = np.concatenate([random_floats(rng, 300, dtype)])
    specials: np.ndarray = SPECIALS32.astype(dtype)
    sa, sb = np.meshgrid(specials, specials)
    a = np.concatenate([a, sa.ravel(), a[:300]])
    with np.errstate(all="ignore"):
        b = np.concatenate([b, sb.ravel(), (a[:300] * dtype(1.0000001)).astype(dtype)])
    with np.errstate(all="ignore"):
        expected = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}[op](a, b)
    got = run(f"{op}.rn.{name}", a, b)
    assert got.matches(expected).all()
    assert same_bits_or_both_nan(expected, got.value.view(dtype)).all()


@pytest.mark.parametrize("dtype,name", [(np.float32, "f32"), (np.float64, "f64")])
def test_sqrt_rn_matches_numpy(dtype: type, name: str) -> None:
    rng = np.random.default_rng(99)
    a = np.concatenate([random_floats(rng, 500, dtype), SPECIALS32.astype(dtype)])
    with np.errstate(all="ignore"):
        expected = np.sqrt(a)
    got = run(f"sqrt.rn.{name}", a)
    assert got.matches(expected).all()
    assert same_bits_or_both_nan(expected, got.value.view(dtype)).all()


def test_f32_fma_rn_matches_float64_evaluation() -> None:
    """fma in f32: a*b is exact in float64 and a*b+c rounded to float64 then float32 is a double
    rounding, so use only inputs where the float64 sum is exact (same binade magnitudes)."""
    rng = np.random.default_rng(7)
    a = (rng.random(400) + 1).astype(np.float32)
    b = (rng.random(400) + 1).astype(np.float32)
    c = (rng.random(400) + 1).astype(np.float32)
    exact = a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)  # < 2^53 bits: exact
    got = run("fma.rn.f32", a, b, c)
    assert (got.value.view(np.float32) == exact.astype(np.float32)).all()


def test_rcp_rn_is_div_of_one() -> None:
    rng = np.random.default_rng(3)
    a = random_floats(rng, 300, np.float32)
    with np.errstate(all="ignore"):
        expected = np.float32(1) / a
    assert run("rcp.rn.f32", a).matches(expected).all()


def flush32(x: np.ndarray) -> np.ndarray:
    tiny = (x != 0) & (np.abs(x) < np.float32(2.0 ** -126))
    return np.where(tiny, np.copysign(np.float32(0), x), x).astype(np.float32)


@pytest.mark.parametrize("op", ["add", "mul", "div"])
def test_ftz_matches_numpy_on_flushed_operands(op: str) -> None:
    """.ftz = flush subnormal inputs, compute, flush a subnormal result (sign kept)."""
    rng = np.random.default_rng(21)
    scale = 2.0 ** rng.integers(-140, -100, 600)
    a = (rng.standard_normal(600) * scale).astype(np.float32)
    b = (rng.standard_normal(600) * (2.0 ** rng.integers(-20, 20, 600))).astype(np.float32)
    if op == "mul":
        b = (rng.standard_normal(600) * 2.0 ** rng.integers(-30, 2, 600)).astype(np.float32)
    fn = {"add": np.add, "mul": np.multiply, "div": np.divide}[op]
    with np.errstate(all="ignore"):
        expected = flush32(fn(flush32(a), flush32(b)))
    got = run(f"{op}.rn.ftz.f32", a, b)
    assert got.matches(expected).all()
    assert (flush32(a) != a).any()   # the sample really has subnormal inputs
