"""cvt against numpy casts (rn), hand-computed saturation/NaN rules, tf32/fp8/pack layouts."""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.reference import run


def F(value: object) -> np.ndarray:
    """A float32 array (scalar or list): the operand form the model takes for .f32."""
    return np.asarray(value, dtype=np.float32)


def test_float_to_int_rounding_saturation_nan() -> None:
    a = F([1.5, 2.5, -1.5, -0.5, 3e9, -3e9, np.nan, np.inf, -np.inf])
    assert run("cvt.rni.s32.f32", a).value.view(np.int32).tolist() == [
        2, 2, -2, 0, 2 ** 31 - 1, -2 ** 31, 0, 2 ** 31 - 1, -2 ** 31]
    assert run("cvt.rzi.s32.f32", a).value.view(np.int32)[:4].tolist() == [1, 2, -1, 0]
    assert run("cvt.rmi.s32.f32", a).value.view(np.int32)[:4].tolist() == [1, 2, -2, -1]
    assert run("cvt.rpi.s32.f32", a).value.view(np.int32)[:4].tolist() == [2, 3, -1, 0]
    assert run("cvt.rzi.u32.f32", F([-5, 5e9])).value.tolist() == [0, 2 ** 32 - 1]
    assert run("cvt.rzi.u8.f32", F([300, -1])).value.tolist() == [255, 0]
    # NaN: 0, except from .f64 or into 64-bit types: 1 << (width - 1)
    assert int(run("cvt.rzi.s32.f64", np.float64(np.nan)).value) == 0x80000000
    assert int(run("cvt.rzi.u32.f64", np.float64(np.nan)).value) == 0x80000000
    assert int(run("cvt.rni.s64.f32", F(np.nan)).value) == 1 << 63
    assert int(run("cvt.rni.u16.f16", np.float16(np.nan)).value) == 0


def test_ftz_matters_for_rpi() -> None:
    tiny = np.uint32(1).view(np.float32)
    assert int(run("cvt.rpi.s32.f32", tiny).value) == 1
    assert int(run("cvt.rpi.ftz.s32.f32", tiny).value) == 0


def test_rni_matches_numpy_rint() -> None:
    rng = np.random.default_rng(4)
    a = (rng.standard_normal(2000) * 1000).astype(np.float32)
    assert (run("cvt.rni.s32.f32", a).value.view(np.int32) == np.rint(a).astype(np.int32)).all()
    assert (run("cvt.rni.f32.f32", a).value.view(np.float32) == np.rint(a)).all()
    assert (run("cvt.rmi.f64.f64", a.astype(np.float64)).value.view(np.float64) == np.floor(a)).all()
    assert int(run("cvt.rni.f32.f32", F(-0.25)).value) == 0x80000000


def test_int_to_float_matches_numpy_rn() -> None:
    rng = np.random.default_rng(6)
    a = rng.integers(-2 ** 63, 2 ** 63 - 1, 3000, dtype=np.int64)
    assert (run("cvt.rn.f32.s64", a).value.view(np.float32) == a.astype(np.float32)).all()
    u = rng.integers(0, 2 ** 32, 3000, dtype=np.uint64).astype(np.uint32)
    assert (run("cvt.rn.f32.u32", u).value.view(np.float32) == u.astype(np.float32)).all()
    assert (run("cvt.rn.f16.s32", u.view(np.int32) >> 18).value.view(np.float16) ==
            (u.view(np.int32) >> 18).astype(np.float16)).all()


def test_int_to_int_extension_and_sat() -> None:
    assert int(run("cvt.s32.s8", 0x80).value) == 0xFFFFFF80
    assert int(run("cvt.u32.u8", 0x80).value) == 0x80
    assert int(run("cvt.u16.u32", 0x12345).value) == 0x2345
    assert int(run("cvt.sat.s8.s32", 1000).value) == 127
    assert int(run("cvt.sat.u32.s32", -1).value) == 0
    assert int(run("cvt.s64.s32", 0xFFFFFFFF).value) == 2 ** 64 - 1


def test_float_widening_and_narrowing() -> None:
    rng = np.random.default_rng(12)
    d = rng.standard_normal(2000) * 2.0 ** rng.integers(-160, 160, 2000)
    with np.errstate(over="ignore"):
        f = d.astype(np.float32)
    assert run("cvt.rn.f32.f64", d).matches(f).all()
    assert (run("cvt.f64.f32", f).value.view(np.float64) == f.astype(np.float64)).all()
    assert int(run("cvt.rn.satfinite.f16.f32", F(1e6)).value) == 0x7BFF
    assert int(run("cvt.rn.satfinite.f16.f32", F(-np.inf)).value) == 0xFBFF
    assert int(run("cvt.rn.relu.f16.f32", F(-3)).value) == 0
    assert int(run("cvt.rn.relu.f16.f32", F(np.nan)).value) == 0x7FFF
    assert int(run("cvt.sat.f32.f32", F(7)).value) == 0x3F800000
    assert int(run("cvt.ftz.f32.f32", np.uint32(5).view(np.float32)).value) == 0


def test_packed_and_small_formats() -> None:
    # a lands in the upper half
    assert int(run("cvt.rn.f16x2.f32", F(1), F(2)).value) == 0x3C004000
    assert int(run("cvt.rn.bf16x2.f32", F(1), F(-2)).value) == 0x3F80C000
    # e4m3: 1.0 = 0x38, 448 = 0x7e (max), satfinite clamps; e5m2: 1.0 = 0x3c
    assert int(run("cvt.rn.satfinite.e4m3x2.f32", F(1), F(1e9)).value) == 0x387E
    assert int(run("cvt.rn.satfinite.e5m2x2.f32", F(-1), F(0.5)).value) == 0xBC38
    assert int(run("cvt.rn.f16x2.e4m3x2", 0x38B8).value) == 0x3C00BC00
    # tf32: 10 explicit mantissa bits kept, low 13 bits zero; rna rounds the tie away
    assert int(run("cvt.rna.tf32.f32", np.uint32(0x3F801000).view(np.float32)).value) == 0x3F802000
    assert int(run("cvt.rn.tf32.f32", np.uint32(0x3F801000).view(np.float32)).value) == 0x3F800000
    assert int(run("cvt.rz.tf32.f32", np.uint32(0x3F803FFF).view(np.float32)).value) == 0x3F802000


def test_cvt_pack() -> None:
    assert int(run("cvt.pack.sat.u16.s32", 70000, -3).value) == 0xFFFF0000
    assert int(run("cvt.pack.sat.s16.s32", -70000, 5).value) == 0x80000005
    assert int(run("cvt.pack.sat.u8.s32.b32", 300, 7, 0x1234).value) == 0x1234FF07
    assert int(run("cvt.pack.sat.s4.s32.b32", -9, 3, 0xABCDEF).value) == 0xABCDEF83  # -9 sat -8 = 0x8
    assert int(run("cvt.pack.sat.u2.s32.b32", 5, 1, 0x1).value) == 0x1D  # c << 4 | 3 << 2 | 1


def test_bf16_widening_is_a_shift() -> None:
    """Every bf16 pattern widens to f32 by appending 16 zero bits (NaNs: any NaN)."""
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    assert run("cvt.f32.bf16", every).matches(every.astype(np.uint32) << 16).all()


def test_fp8_values_from_the_ocp_definition() -> None:
    """E4M3 (bias 7, no infinity, S.1111.111 is NaN, max 448) and E5M2 (IEEE-like, bias 15):
    hand-computed values widened through cvt.rn.f16x2.<fp8>x2 (low byte -> low half)."""
    def widen(spelling: str, byte: int) -> float:
        out = int(run(spelling, byte).value) & 0xFFFF
        return float(np.uint16(out).view(np.float16))

    e4m3 = {0x38: 1.0, 0x7E: 448.0, 0x08: 2.0 ** -6, 0x01: 2.0 ** -9, 0xC0: -2.0, 0x77: 240.0}
    for byte, want in e4m3.items():
        assert widen("cvt.rn.f16x2.e4m3x2", byte) == want, hex(byte)
    assert np.isnan(widen("cvt.rn.f16x2.e4m3x2", 0x7F))
    e5m2 = {0x3C: 1.0, 0x7B: 57344.0, 0x01: 2.0 ** -16, 0x04: 2.0 ** -14, 0xC0: -2.0}
    for byte, want in e5m2.items():
        assert widen("cvt.rn.f16x2.e5m2x2", byte) == want, hex(byte)
    assert widen("cvt.rn.f16x2.e5m2x2", 0x7C) == np.inf


@pytest.mark.slow
def test_every_f16_rounds_to_integral_like_numpy() -> None:
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    for mode, fn in (("rni", np.rint), ("rzi", np.trunc), ("rmi", np.floor), ("rpi", np.ceil)):
        with np.errstate(invalid="ignore"):
            expected = fn(every)
        assert run(f"cvt.{mode}.f16.f16", every).matches(expected).all(), mode


def test_tf32_nan_is_recognised() -> None:
    res = run("cvt.rn.satfinite.tf32.f32", F([np.nan, 1.0]))
    assert res.matches(np.array([0x7FC00000, 0x3F800000], dtype=np.uint32)).all()
