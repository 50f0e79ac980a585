"""Floating-point VALU operations: f16/f32/f64 arithmetic, conversions, rounding, transcendentals.

Invariant: each entry follows the CDNA3 ISA definition of its opcode over typed numpy lanes. Basic
arithmetic and conversions are correctly rounded (numpy IEEE, round to nearest even), FMA is exact
(``semantics_fp``); the approximate instructions (rcp, rsq, sqrt, exp, log, sin, cos and their
legacy/iflag variants) go through ``ptx2gcn.runtime.emulator.approx`` under the wave's policy,
which keeps them within their documented bounds. ``v_sin/cos`` take revolutions
(``sin(2*pi*x)``). Float-to-int conversions truncate toward zero, saturate, and turn NaN into 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ptx2gcn.runtime.emulator import approx
from ptx2gcn.runtime.emulator.semantics_common import F16, F32, F64, I16, I32, U16, U32
from ptx2gcn.runtime.emulator.semantics_fp import fma64, fma_narrow, ieee_min_max, trig_preop
from ptx2gcn.runtime.emulator.semantics_valu import VOp
from ptx2gcn.runtime.emulator.wave import Wave

A = Any
TWO_PI = 2.0 * np.pi


def _to_int(x: A, lo: int, hi: int, dtype: Any) -> A:
    x = np.asarray(x, dtype=F64)
    clipped = np.clip(np.trunc(np.nan_to_num(x, nan=0.0)), lo, hi)
    return clipped.astype(dtype)


def _fract(x: A) -> A:
    dtype = np.asarray(x).dtype.type
    largest_below_one = np.nextafter(dtype(1), dtype(0))
    return np.where(np.isinf(x), dtype(np.nan), np.minimum(x - np.floor(x), largest_below_one)).astype(dtype)


def _ldexp(x: A, n: A) -> A:
    dtype = np.asarray(x).dtype.type
    return (
        np.ldexp(np.asarray(x, dtype=F64), np.clip(np.asarray(n, dtype=np.int64), -2000, 2000)).astype(dtype)
        if dtype != F64
        else _ldexp64(x, n)
    )


def _ldexp64(x: A, n: A) -> A:
    n = np.clip(np.asarray(n, dtype=np.int64), -2200, 2200)
    half = n // 2  # two steps keep intermediate scale factors representable
    return np.ldexp(np.ldexp(np.asarray(x, dtype=F64), half.astype(np.int32)), (n - half).astype(np.int32))


def _frexp_mant(x: A) -> A:
    dtype = np.asarray(x).dtype.type
    mant, _ = np.frexp(x)
    return np.asarray(np.where(np.isfinite(x), mant, x)).astype(dtype)


def _frexp_exp(x: A) -> A:
    _, exp = np.frexp(x)
    return np.where(np.isfinite(x), exp, 0).astype(I32)


def _revolutions(x: A) -> A:
    """x minus its nearest integer (exact for f16/f32 inputs held in float64): v_sin/v_cos take
    revolutions, and the guide's examples give sin(-MaxFloat) = +0, the value for an integer, while
    a zero keeps its sign (sin(-0) = -0)."""
    return np.where(x == 0, x, x - np.rint(x))


_EXACT: dict[str, Any] = {
    "rcp": lambda x: 1.0 / x,
    "rcp_iflag": lambda x: 1.0 / x,
    "rsq": lambda x: 1.0 / np.sqrt(x),
    "sqrt": np.sqrt,
    "exp": np.exp2,
    "log": np.log2,
    "exp_legacy": np.exp2,
    "log_legacy": np.log2,
    "sin": lambda x: np.sin(TWO_PI * _revolutions(x)),
    "cos": lambda x: np.cos(TWO_PI * _revolutions(x)),
}
"""float64 in, float64 out: the exact value of each approximate opcode (within 2^-52 relative)."""


def _approximate(opcode: str) -> VOp:
    """An opcode of ``APPROX_BOUNDS``, evaluated under the wave's approximation policy."""
    body, type_name = opcode.removeprefix("v_").rsplit("_", 1)
    exact = _EXACT[body]
    return VOp(lambda w, x: approx.evaluate(w.approx, opcode, x, exact), type_name, (type_name,), needs_wave=True)


APPROXIMATE: dict[str, VOp] = {opcode: _approximate(opcode) for opcode in approx.APPROX_BOUNDS}


def _min(w: Wave, a: A, b: A) -> A:
    return ieee_min_max(a, b, w.mode.ieee, True)


def _max(w: Wave, a: A, b: A) -> A:
    return ieee_min_max(a, b, w.mode.ieee, False)


def _min3(w: Wave, a: A, b: A, c: A) -> A:
    return _min(w, _min(w, a, b), c)


def _max3(w: Wave, a: A, b: A, c: A) -> A:
    return _max(w, _max(w, a, b), c)


def _med3(w: Wave, a: A, b: A, c: A) -> A:
    nan = np.isnan(a) | np.isnan(b) | np.isnan(c)
    med = _max(w, _min(w, a, b), _min(w, _max(w, a, b), c))
    return np.asarray(np.where(nan, _min3(w, a, b, c), med)).astype(np.asarray(a).dtype)


def _mul_legacy(a: A, b: A) -> A:
    """0 * anything (inf and NaN included) is +0 (DX9 rules)."""
    return np.where((a == 0) | (b == 0), F32(0), a * b).astype(F32)


def _rndne(x: A) -> A:
    return np.rint(x)


def _cvt_rpi(x: A) -> A:
    return _to_int(np.floor(np.asarray(x, dtype=F64) + 0.5), -(2**31), 2**31 - 1, I32)


def _cvt_flr(x: A) -> A:
    return _to_int(np.floor(np.asarray(x, dtype=F64)), -(2**31), 2**31 - 1, I32)


def _ubyte(n: int) -> Any:
    return lambda x: ((x >> U32(8 * n)) & U32(0xFF)).astype(F32)


def _pkrtz(a: A, b: A) -> A:
    """Pack two f32 as f16 rounded toward zero."""

    def rtz(x: A) -> A:
        x = np.asarray(x, dtype=F32)
        rounded = x.astype(F16)
        too_far = np.abs(rounded.astype(F32)) > np.abs(x)
        toward_zero = np.nextafter(rounded, F16(0))
        finite_x = np.isfinite(x)
        result = np.where(too_far & finite_x, toward_zero, rounded)
        return np.where(np.isnan(x), F16(np.nan), result).astype(F16)

    return rtz(a).view(U16).astype(U32) | (rtz(b).view(U16).astype(U32) << U32(16))


def _pack_f16(a: A, b: A) -> A:
    return a.view(U16).astype(U32) | (b.view(U16).astype(U32) << U32(16))


def _dot2_f16(a: A, b: A, c: A) -> A:
    """c + a.lo*b.lo + a.hi*b.hi with f16 halves; products exact in float64, one final rounding."""

    def half(x: A, shift: int) -> A:
        return ((np.asarray(x, U32) >> U32(shift)) & U32(0xFFFF)).astype(U16).view(F16).astype(F64)

    total = np.asarray(c, F32).astype(F64) + half(a, 0) * half(b, 0) + half(a, 16) * half(b, 16)
    return total.astype(F32)


def _cvt_pk_u8(a: A, b: A, c: A) -> A:
    """Convert f32 to u8 (round to nearest even, saturate) into byte S1[1:0] of S2."""
    byte = np.clip(np.rint(np.nan_to_num(np.asarray(a, F64), nan=0.0)), 0, 255).astype(U32)
    shift = (b & U32(3)) * U32(8)
    return (c & ~(U32(0xFF) << shift)) | (byte << shift)


def _pknorm(signed: bool) -> Any:
    def convert(x: A) -> A:
        x = np.nan_to_num(np.asarray(x, F64), nan=0.0)
        if signed:
            return (np.rint(np.clip(x, -1, 1) * 32767).astype(np.int64) & 0xFFFF).astype(U32)
        return np.rint(np.clip(x, 0, 1) * 65535).astype(U32)

    return lambda a, b: convert(a) | (convert(b) << U32(16))


def _unary(fn: Any, t: str) -> VOp:
    return VOp(fn, t, (t,))


def _binary(fn: Any, t: str) -> VOp:
    return VOp(fn, t, (t, t))


def _family(
    name: str, fn: Any, arity: int, types: tuple[str, ...] = ("f16", "f32", "f64"), needs_wave: bool = False
) -> dict[str, VOp]:
    return {f"{name}_{t}": VOp(fn, t, (t,) * arity, needs_wave=needs_wave) for t in types}


OPS: dict[str, VOp] = {
    **_family("v_add", np.add, 2),
    **_family("v_mul", np.multiply, 2),
    **_family("v_sub", np.subtract, 2, ("f16", "f32")),
    **_family("v_subrev", lambda a, b: b - a, 2, ("f16", "f32")),
    "v_fma_f16": VOp(lambda a, b, c: fma_narrow(a, b, c, F16), "f16", ("f16",) * 3),
    "v_fma_f32": VOp(lambda a, b, c: fma_narrow(a, b, c, F32), "f32", ("f32",) * 3),
    "v_fma_f64": VOp(fma64, "f64", ("f64",) * 3),
    **_family("v_min", _min, 2, needs_wave=True),
    **_family("v_max", _max, 2, needs_wave=True),
    **_family("v_min3", _min3, 3, ("f16", "f32"), needs_wave=True),
    **_family("v_max3", _max3, 3, ("f16", "f32"), needs_wave=True),
    **_family("v_med3", _med3, 3, ("f16", "f32"), needs_wave=True),
    **_family("v_floor", np.floor, 1),
    **_family("v_ceil", np.ceil, 1),
    **_family("v_trunc", np.trunc, 1),
    **_family("v_rndne", _rndne, 1),
    **_family("v_fract", _fract, 1),
    **APPROXIMATE,
    "v_ldexp_f32": VOp(_ldexp, "f32", ("f32", "i32")),
    "v_ldexp_f64": VOp(_ldexp, "f64", ("f64", "i32")),
    "v_ldexp_f16": VOp(_ldexp, "f16", ("f16", "i16")),
    **_family("v_frexp_mant", _frexp_mant, 1),
    "v_frexp_exp_i32_f32": VOp(_frexp_exp, "i32", ("f32",)),
    "v_frexp_exp_i32_f64": VOp(_frexp_exp, "i32", ("f64",)),
    "v_frexp_exp_i16_f16": VOp(lambda x: _frexp_exp(x).astype(I16), "i16", ("f16",)),
    "v_mul_legacy_f32": _binary(_mul_legacy, "f32"),
    "v_fmac_f32": VOp(lambda a, b, c: fma_narrow(a, b, c, F32), "f32", ("f32",) * 3),
    "v_fmac_f64": VOp(fma64, "f64", ("f64",) * 3),
    "v_mac_f16": VOp(lambda a, b, c: a * b + c, "f16", ("f16",) * 3),
    "v_mad_f16": VOp(lambda a, b, c: a * b + c, "f16", ("f16",) * 3),
    # conversions
    "v_cvt_f32_i32": VOp(lambda x: x.astype(F32), "f32", ("i32",)),
    "v_cvt_f32_u32": VOp(lambda x: x.astype(F32), "f32", ("u32",)),
    "v_cvt_i32_f32": VOp(lambda x: _to_int(x, -(2**31), 2**31 - 1, I32), "i32", ("f32",)),
    "v_cvt_u32_f32": VOp(lambda x: _to_int(x, 0, 2**32 - 1, U32), "u32", ("f32",)),
    "v_cvt_i32_f64": VOp(lambda x: _to_int(x, -(2**31), 2**31 - 1, I32), "i32", ("f64",)),
    "v_cvt_u32_f64": VOp(lambda x: _to_int(x, 0, 2**32 - 1, U32), "u32", ("f64",)),
    "v_cvt_f64_i32": VOp(lambda x: x.astype(F64), "f64", ("i32",)),
    "v_cvt_f64_u32": VOp(lambda x: x.astype(F64), "f64", ("u32",)),
    "v_cvt_f32_f64": VOp(lambda x: np.asarray(x).astype(F32), "f32", ("f64",)),
    "v_cvt_f64_f32": VOp(lambda x: np.asarray(x).astype(F64), "f64", ("f32",)),
    "v_cvt_f16_f32": VOp(lambda x: np.asarray(x).astype(F16), "f16", ("f32",)),
    "v_cvt_f32_f16": VOp(lambda x: np.asarray(x).astype(F32), "f32", ("f16",)),
    "v_cvt_f16_u16": VOp(lambda x: x.astype(F16), "f16", ("u16",)),
    "v_cvt_f16_i16": VOp(lambda x: x.astype(F16), "f16", ("i16",)),
    "v_cvt_u16_f16": VOp(lambda x: _to_int(x, 0, 0xFFFF, U16), "u16", ("f16",)),
    "v_cvt_i16_f16": VOp(lambda x: _to_int(x, -0x8000, 0x7FFF, I16), "i16", ("f16",)),
    "v_cvt_rpi_i32_f32": VOp(_cvt_rpi, "i32", ("f32",)),
    "v_cvt_flr_i32_f32": VOp(_cvt_flr, "i32", ("f32",)),
    "v_cvt_off_f32_i4": VOp(
        lambda x: (((x & U32(15)) ^ U32(8)).astype(np.int32) - 8).astype(F32) / F32(16), "f32", ("u32",)
    ),
    **{f"v_cvt_f32_ubyte{n}": VOp(_ubyte(n), "f32", ("u32",)) for n in range(4)},
    "v_cvt_pkrtz_f16_f32": VOp(_pkrtz, "u32", ("f32", "f32")),
    "v_pack_b32_f16": VOp(_pack_f16, "u32", ("f16", "f16")),
    "v_trig_preop_f64": VOp(trig_preop, "f64", ("f64", "u32")),
    "v_dot2c_f32_f16": VOp(_dot2_f16, "f32", ("u32", "u32", "f32")),
    "v_cvt_pk_u8_f32": VOp(_cvt_pk_u8, "u32", ("f32", "u32", "u32")),
    "v_cvt_pknorm_i16_f32": VOp(_pknorm(True), "u32", ("f32", "f32")),
    "v_cvt_norm_i16_f16": VOp(lambda x: _pknorm(True)(x, F16(0)) & U32(0xFFFF), "u16", ("f16",)),
    "v_cvt_norm_u16_f16": VOp(lambda x: _pknorm(False)(x, F16(0)) & U32(0xFFFF), "u16", ("f16",)),
    "v_cvt_pknorm_u16_f32": VOp(_pknorm(False), "u32", ("f32", "f32")),
    "v_cvt_pknorm_i16_f16": VOp(_pknorm(True), "u32", ("f16", "f16")),
    "v_cvt_pknorm_u16_f16": VOp(_pknorm(False), "u32", ("f16", "f16")),
    "v_mad_legacy_f16": VOp(lambda a, b, c: a * b + c, "f16", ("f16",) * 3),
    "v_fma_legacy_f16": VOp(lambda a, b, c: fma_narrow(a, b, c, F16), "f16", ("f16",) * 3),
}
