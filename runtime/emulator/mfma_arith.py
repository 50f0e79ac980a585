"""CDNA3 MFMA arithmetic on whole blocks: D[b] = A[b] @ B[b] + C[b] the way the matrix core computes it.

Invariant: every function takes A as [blocks, M, K], B as [blocks, K, N] and C as [blocks, M, N]
(float64 values of the input elements, f32/f64/int C) and returns D with the exact bits the CDNA3
model below gives; nothing depends on host FMA, host rounding modes or on the order numpy sums in.

The model (evidence and discussion: docs/emulator-mfma.md), measured on MI300 by microsoft/MMA-Sim
(arXiv 2511.10909) and re-derived here independently:

* f32 inputs: a sequential chain of correctly rounded f32 FMAs over k = 0..K-1, starting from C.
* f64 inputs: the same chain in f64.
* i8 inputs: exact integer dot products plus C, wrapped to 32 bits.
* f16 / bf16 (groups of min(8, K) products), xf32 (inputs truncated to tf32, groups of 4) and
  fp8/bf8 (groups of 16): per group a fused dot-add.  Every product is exact; each is aligned to
  the largest product exponent (the sum of the two inputs' exponents) and truncated toward zero to
  24 fractional bits; the exact sum of these is aligned to max(its exponent, C's) and rounded down
  (toward -inf) to 31 fractional bits, C likewise to 24 fractional bits; the sum of the two is
  rounded to nearest even into f32 and becomes C of the next group.  For fp8 the even and odd
  products of a group are first summed separately (24 bits each, then both rounded down to 24 bits
  at their common exponent), and C is dropped when its exponent is more than 25 below the sum's.
  A NaN or infinite input or C gives the float64 sum of products and C; a product of magnitude
  2^128 or more (bf16, xf32) counts as an infinity of its sign.  A zero result is +0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ptx2gcn.runtime.emulator.semantics_fp import fma64, fma_narrow

A = Any
F32, F64, I64 = np.float32, np.float64, np.int64
_ZERO_EXPONENT = -(1 << 20)
"""Exponent given to zero operands: below every real exponent, so zeros never set an alignment."""


@dataclass(frozen=True)
class Format:
    """An MFMA input element format: fractional bits of its significand, smallest normal exponent."""

    fraction_bits: int
    min_exponent: int


FORMATS = {"f16": Format(10, -14), "bf16": Format(7, -126), "xf32": Format(10, -126),
           "fp8": Format(3, -7), "bf8": Format(2, -15)}


def f32_chain(a: A, b: A, c: A) -> npt.NDArray[np.float32]:
    acc = np.asarray(c, dtype=F32)
    for k in range(a.shape[2]):
        acc = fma_narrow(a[:, :, k, None], b[:, None, k, :], acc, F32)
    return acc


def f64_chain(a: A, b: A, c: A) -> npt.NDArray[np.float64]:
    acc = np.asarray(c, dtype=F64)
    for k in range(a.shape[2]):
        acc = fma64(a[:, :, k, None], b[:, None, k, :], acc)
    return acc


def int_dot(a: A, b: A, c: A) -> npt.NDArray[np.uint32]:
    """Exact Σ a*b + c over int64 (|a|, |b| <= 128, K <= 32 cannot overflow), wrapped to u32."""
    total = np.einsum("bik,bkj->bij", a.astype(I64), b.astype(I64)) + c.astype(I64)
    return (total & 0xFFFFFFFF).astype(np.uint32)


def _decompose(x: A, fmt: Format) -> tuple[A, A, A]:
    """(|significand| as an integer with ``fmt.fraction_bits`` fractional bits, exponent, negative)
    of finite values; subnormals take the smallest normal exponent, zeros ``_ZERO_EXPONENT``."""
    _, e = np.frexp(x)
    exponent = np.maximum(e.astype(I64) - 1, fmt.min_exponent)
    magnitude = np.ldexp(np.abs(x), (fmt.fraction_bits - exponent).astype(np.int32)).astype(I64)
    exponent = np.where(x == 0, _ZERO_EXPONENT, exponent)
    return magnitude, exponent, np.signbit(x)


def _shift(x: A, amount: A) -> A:
    """x * 2**amount rounded toward -inf (an arithmetic shift; ``amount`` is small when positive)."""
    left = np.clip(amount, 0, 62)
    right = np.clip(-amount, 0, 63)
    return np.where(amount >= 0, x << left, x >> right)


def _truncated_sum(magnitude: A, exponent: A, negative: A) -> tuple[A, A]:
    """Σ over the last axis of the products, each aligned to the largest exponent and truncated
    toward zero to 24 fractional bits: (integer sum in units of 2^(emax-24), emax)."""
    top = exponent.max(axis=-1)
    aligned = _shift(magnitude, exponent - top[..., None])  # magnitudes: floor == toward zero
    return np.where(negative, -aligned, aligned).sum(axis=-1), top


def _fused_group(magnitude: A, exponent: A, negative: A, c: A, interleaved: bool) -> A:
    """One fused dot-add with c of the products given along the last axis as (|significand
    product| with 24 fractional bits relative to 2^exponent, exponent, sign); finite values only."""
    if interleaved:  # fp8: even and odd products summed apart, then joined at 24 bits
        s0, e0 = _truncated_sum(magnitude[..., 0::2], exponent[..., 0::2], negative[..., 0::2])
        s1, e1 = _truncated_sum(magnitude[..., 1::2], exponent[..., 1::2], negative[..., 1::2])
        top = np.maximum(e0, e1)
        total = _shift(s0, e0 - top) + _shift(s1, e1 - top)
    else:
        total, top = _truncated_sum(magnitude, exponent, negative)
    c = np.where(np.isfinite(c), c, 0.0)  # non-finite C: replaced by the caller's special path
    mc, ec, nc = _decompose(c.astype(F64), Format(23, -126))
    mc = np.where(nc, -mc, mc)
    joint = np.maximum(top, ec)
    if interleaved:
        mc = np.where(ec < joint - 25, 0, mc)
    units = _shift(total, 7 + top - joint) + (_shift(mc, 1 + ec - joint) << 7)  # 2^(joint-31)
    return np.ldexp(units.astype(F64), (joint - 31).clip(-1100, 1100).astype(np.int32)).astype(F32)


def fused_dot(a: A, b: A, c: A, kind_a: str, kind_b: str, group: int) -> npt.NDArray[np.float32]:
    """f16/bf16/xf32/fp8 MFMA: groups of ``group`` products, each a fused dot-add into C.

    Inputs are decomposed once; a group's products are integer significand products (exact in
    int64) shifted to 24 fractional bits, with exponent the sum of the inputs' exponents."""
    fa, fb = FORMATS[kind_a], FORMATS[kind_b]
    acc = np.asarray(c, dtype=F32)
    bt = np.swapaxes(b, 1, 2)  # [blocks, N, K]
    finite_inputs = bool(np.isfinite(a).all() and np.isfinite(bt).all())
    ma, ea, na = _decompose(np.where(np.isfinite(a), a, 0.0), fa)
    mb, eb, nb = _decompose(np.where(np.isfinite(bt), bt, 0.0), fb)
    scale = 24 - fa.fraction_bits - fb.fraction_bits  # >= 0 for every format pair
    interleaved = kind_a in ("fp8", "bf8")
    for start in range(0, a.shape[2], group):
        k = slice(start, start + group)
        magnitude = (ma[:, :, None, k] * mb[:, None, :, k]) << scale  # [blocks, M, N, n]
        exponent = ea[:, :, None, k] + eb[:, None, :, k]
        negative = na[:, :, None, k] ^ nb[:, None, :, k]
        result = _fused_group(magnitude, exponent, negative, acc, interleaved)
        if not (finite_inputs and np.isfinite(acc).all() and exponent.max() < 127):
            products = a[:, :, None, k] * bt[:, None, :, k]  # exact in float64
            huge = np.abs(products) >= 2.0 ** 128
            odd = ~np.isfinite(products.sum(axis=-1) + acc.astype(F64)) | huge.any(axis=-1)
            result[odd] = _special(products[odd], acc[odd], huge[odd])
        acc = result
    return acc


def _special(products: A, c: A, huge: A) -> A:
    """Outputs with a NaN/infinite input or a product beyond the f32 range: the float64 sum where
    it is not finite, else the infinity (or NaN, when both signs occur) of the huge products."""
    total = products.sum(axis=-1) + c.astype(F64)
    positive = (huge & (products > 0)).any(axis=-1)
    negative = (huge & (products < 0)).any(axis=-1)
    overflow = np.where(positive & negative, np.nan, np.where(positive, np.inf, -np.inf))
    return np.where(np.isfinite(total), overflow, total).astype(F32)
