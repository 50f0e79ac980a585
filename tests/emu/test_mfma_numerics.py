"""MFMA arithmetic on random data, bit for bit, against an exact-rational model of CDNA3 matrix math.

The reference below is written from the model's description (docs/emulator-mfma.md, after the
measurements of microsoft/MMA-Sim, arXiv 2511.10909) with Python ``Fraction``s, one output and one
product at a time - a different construction from the emulator's vectorised integer version in
``mfma_arith``.  Hand-worked cases pin the two roundings that make CDNA3 differ from an exact
dot product (products truncated to 24 bits below the largest, C rounded down).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest

from ptx2gcn.runtime.emulator.wave import Wave
from tests.emu.test_mfma_layouts import dims, run_mfma

Run = Callable[[str, Wave], Wave]

# (fraction bits, smallest normal exponent) of each input format
FORMAT = {"f16": (10, -14), "bf16": (7, -126), "xf32": (10, -126), "fp8": (3, -7), "bf8": (2, -15)}


def exponent_of(x: Fraction, min_exponent: int) -> int | None:
    """floor(log2 |x|), at least ``min_exponent``; None for zero."""
    if x == 0:
        return None
    e = abs(x).numerator.bit_length() - abs(x).denominator.bit_length()
    if Fraction(2) ** e > abs(x):
        e -= 1
    return max(e, min_exponent)


def round_f32(x: Fraction) -> float:
    """Round to nearest even binary32 (subnormals, overflow to infinity)."""
    if x == 0:
        return 0.0
    e = max(exponent_of(x, -126) or 0, -126)
    quantum = Fraction(2) ** (e - 23)
    q, r = divmod(abs(x), quantum)
    if r * 2 > quantum or (r * 2 == quantum and q % 2):
        q += 1
    value = q * quantum
    if value >= Fraction(2) ** 128:
        return math.copysign(math.inf, x)
    return math.copysign(float(value), x)


def floor_to(x: Fraction, unit: Fraction) -> Fraction:
    return math.floor(x / unit) * unit


def trunc_to(x: Fraction, unit: Fraction) -> Fraction:
    return math.trunc(x / unit) * unit


def fused_sum(products: list[tuple[Fraction, int | None]]) -> tuple[Fraction, int | None]:
    """Σ of products truncated to 24 fractional bits below the largest exponent: (sum, exponent)."""
    exponents = [e for _, e in products if e is not None]
    if not exponents:
        return Fraction(0), None
    top = max(exponents)
    return sum((trunc_to(p, Fraction(2) ** (top - 24)) for p, _ in products), Fraction(0)), top


def cdna3_group(a: list[Fraction], b: list[Fraction], c: float, kind_a: str, kind_b: str) -> float:
    fa, fb = FORMAT[kind_a], FORMAT[kind_b]
    products = []
    for x, y in zip(a, b):
        ex, ey = exponent_of(x, fa[1]), exponent_of(y, fb[1])
        products.append((x * y, None if ex is None or ey is None else ex + ey))
    if kind_a in ("fp8", "bf8"):
        (s0, e0), (s1, e1) = fused_sum(products[0::2]), fused_sum(products[1::2])
        known = [e for e in (e0, e1) if e is not None]
        top = max(known) if known else None
        total = sum((floor_to(s, Fraction(2) ** (top - 24)) for s in (s0, s1)), Fraction(0)) if known else Fraction(0)
    else:
        total, top = fused_sum(products)
    cf = Fraction(c)
    ec = exponent_of(cf, -126)
    if top is None and ec is None:
        return 0.0
    joint = max(e for e in (top, ec) if e is not None)
    if kind_a in ("fp8", "bf8") and ec is not None and ec < joint - 25:
        cf = Fraction(0)
    return round_f32(floor_to(total, Fraction(2) ** (joint - 31)) + floor_to(cf, Fraction(2) ** (joint - 24)))


def reference(name: str, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    _, k, _, _, kind_a, kind_b, out = dims(name)
    result = np.zeros(c.shape, dtype=np.float64)
    for (blk, i, j), c0 in np.ndenumerate(c):
        col = [Fraction(float(b[blk, kk, j])) for kk in range(k)]
        row = [Fraction(float(a[blk, i, kk])) for kk in range(k)]
        if kind_a == "xf32":  # inputs truncated to tf32 (10 fraction bits)
            row, col = ([Fraction(float(np.float32(float(x)).view(np.uint32) & 0xFFFFE000)) for x in v]
                        for v in (row, col))
            row, col = ([Fraction(float(np.uint32(int(x)).view(np.float32))) for x in v] for v in (row, col))
        acc = float(c0)
        if kind_a in ("f32", "f64"):
            for x, y in zip(row, col):
                exact = x * y + Fraction(acc)
                acc = round_f32(exact) if kind_a == "f32" else float(exact)
        else:
            group = {"xf32": 4, "fp8": 16, "bf8": 16}.get(kind_a, min(8, k))
            for start in range(0, k, group):
                acc = cdna3_group(row[start:start + group], col[start:start + group], acc, kind_a, kind_b)
        result[blk, i, j] = acc
    return result


def random_values(rng: np.random.Generator, kind: str, shape: tuple[int, ...]) -> np.ndarray:
    """Exactly representable values of ``kind`` over a wide exponent range (some zeros)."""
    if kind in ("fp8", "bf8"):
        bias, mantissa = (8, 3) if kind == "fp8" else (16, 2)
        codes = rng.integers(0, 256, shape)
        codes[codes == 0x80] = 0
        e, m = (codes & 0x7F) >> mantissa, codes & ((1 << mantissa) - 1)
        magnitude = np.where(e > 0, (1 + m / (1 << mantissa)) * 2.0 ** (e - bias),
                             m * 2.0 ** (1 - bias - mantissa))
        return np.where(codes & 0x80, -magnitude, magnitude)
    spread = {"f16": 10, "bf16": 40, "xf32": 40, "f32": 40, "f64": 100}[kind]
    x = rng.standard_normal(shape) * 2.0 ** rng.integers(-spread, spread, shape)
    x[rng.random(shape) < 0.05] = 0.0
    if kind == "f16":
        return x.astype(np.float16).astype(np.float64)
    if kind == "bf16":
        return (x.astype(np.float32).view(np.uint32) & 0xFFFF0000).view(np.float32).astype(np.float64)
    return x.astype(np.float32).astype(np.float64) if kind != "f64" else x


CASES = ["v_mfma_f32_16x16x16_f16", "v_mfma_f32_4x4x4_16b_f16", "v_mfma_f32_32x32x8_bf16",
         "v_mfma_f32_16x16x4_4b_bf16", "v_mfma_f32_16x16x8_xf32", "v_mfma_f32_16x16x32_fp8_bf8",
         "v_mfma_f32_32x32x16_bf8_fp8", "v_mfma_f32_16x16x4_f32", "v_mfma_f64_4x4x4_4b_f64"]


@pytest.mark.parametrize("name", CASES)
def test_random_data_bit_exact_against_the_cdna3_model(name: str, one_instruction: Run,
                                                       make_wave: Callable[..., Wave]) -> None:
    rng = np.random.default_rng(sum(map(ord, name)))
    m, k, blocks, _, kind_a, kind_b, out = dims(name)
    a = random_values(rng, kind_a, (blocks, m, k))
    b = random_values(rng, kind_b, (blocks, k, m))
    c = random_values(rng, "f64" if out == "f64" else "f32", (blocks, m, m))
    got = run_mfma(one_instruction, make_wave, name, a, b, c, agpr=True)
    expected = reference(name, a, b, c)
    dtype = np.float64 if out == "f64" else np.float32
    np.testing.assert_array_equal(got.astype(dtype).view(np.uint64 if out == "f64" else np.uint32),
                                  expected.astype(dtype).view(np.uint64 if out == "f64" else np.uint32))


def _one_block(name: str, row: list[float], col: list[float], c: float, one_instruction: Run,
               make_wave: Callable[..., Wave]) -> float:
    """D[0][0][0] of ``name`` with A[0][0][:] = row, B[0][:][0] = col, C[0][0][0] = c, else zeros."""
    m, k, blocks, *_ = dims(name)
    a, b, cc = np.zeros((blocks, m, k)), np.zeros((blocks, k, m)), np.zeros((blocks, m, m))
    a[0, 0, :len(row)], b[0, :len(col), 0], cc[0, 0, 0] = row, col, c
    return float(run_mfma(one_instruction, make_wave, name, a, b, cc, agpr=False)[0, 0, 0])


def test_products_are_truncated_below_the_largest(one_instruction: Run, make_wave: Callable[..., Wave]) -> None:
    # 1 + 2^-24 + 2^-25 is nearer 1 + 2^-23 than 1, but the 2^-25 product lies below the 24 bits
    # kept under the largest product, leaving 1 + 2^-24: a tie, rounded to even 1.0.
    got = _one_block("v_mfma_f32_4x4x4_16b_f16", [1, 2**-12, 2**-12], [1, 2**-12, 2**-13], 0.0,
                     one_instruction, make_wave)
    assert got == 1.0


def test_c_is_rounded_down_to_24_bits(one_instruction: Run, make_wave: Callable[..., Wave]) -> None:
    # 1 - 2^-30 rounds to 1.0 exactly, but C = -2^-30 is first rounded down to -2^-24 at the
    # product's exponent: 1 - 2^-24 is an f32 (0x3F7FFFFF).
    got = _one_block("v_mfma_f32_16x16x16_f16", [1.0], [1.0], -(2.0**-30), one_instruction, make_wave)
    assert np.float32(got).view(np.uint32) == 0x3F7FFFFF


def test_f32_forms_chain_rounded_fmas(one_instruction: Run, make_wave: Callable[..., Wave]) -> None:
    # 1 + 2^-24 + 2^-24 = 1 + 2^-23 exactly, but each FMA rounds 1 + 2^-24 back to 1 (tie to even).
    got = _one_block("v_mfma_f32_16x16x4_f32", [2.0**-24, 2.0**-24], [1.0, 1.0], 1.0, one_instruction, make_wave)
    assert got == 1.0


def test_non_finite_inputs(one_instruction: Run, make_wave: Callable[..., Wave]) -> None:
    assert _one_block("v_mfma_f32_16x16x16_bf16", [math.inf, 1.0], [2.0, 1.0], 1.0, one_instruction,
                      make_wave) == math.inf
    assert math.isnan(_one_block("v_mfma_f32_16x16x16_f16", [math.inf], [0.0], 1.0, one_instruction, make_wave))
    # bf16 products beyond the f32 range count as infinities of their sign
    assert _one_block("v_mfma_f32_16x16x16_bf16", [2.0**100], [2.0**100], 1.0, one_instruction,
                      make_wave) == math.inf
