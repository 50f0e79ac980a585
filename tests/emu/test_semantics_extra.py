"""Less common VALU/DS instructions (llvm-mc vectors) against models written from the CDNA3 ISA text:
v_trig_preop_f64, dot products, v_fma_mix*, SAD variants, packed normalised conversions, DS float
atomics and d16 reads."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from ptx2gcn.runtime.emulator.wave import Wave

Run = Callable[[str, Wave], Wave]
Make = Callable[..., Wave]
# 2/pi in hexadecimal, as published with fdlibm's __kernel_rem_pio2 (ipio2 table, 24 bits per entry).
TWO_OVER_PI_HEX = (
    "A2F9836E4E441529FC2757D1F534DDC0DB6295993C439041FE5163ABDEBBC561B7246E3A424DD2E006492EEA09D1921C"
    "FE1DEB1CB129A73EE88235F52EBB4484E99C7026B45F7E413991D639835339F49C845F8BBDF9283B1FF897FFDE05980F"
)


def set_f64(w: Wave, row: int, values: np.ndarray) -> None:
    raw = np.asarray(values, dtype=np.float64).view(np.uint64)
    w.v[row], w.v[row + 1] = (raw & 0xFFFFFFFF).astype(np.uint32), (raw >> 32).astype(np.uint32)


def get_f64(w: Wave, row: int) -> np.ndarray:
    return (w.v[row].astype(np.uint64) | w.v[row + 1].astype(np.uint64) << 32).view(np.float64)


def test_trig_preop_segments_of_two_over_pi(one_instruction: Run, make_wave: Make) -> None:
    table = int(TWO_OVER_PI_HEX, 16)
    bits = len(TWO_OVER_PI_HEX) * 4
    xs = np.array([1.0, 3.0, 2.0**100, -(2.0**200), 0.5] * 13)[:64]
    w = make_wave(v2=np.tile([0, 1, 2, 3], 16))
    set_f64(w, 0, xs)
    one_instruction("v_trig_preop_f64 v[4:5], v[0:1], v2", w)
    got = get_f64(w, 4)
    for lane in range(64):
        exponent = (int(np.float64(xs[lane]).view(np.uint64)) >> 52) & 0x7FF
        shift = int(w.v[2, lane]) * 53 + max(exponent - 1077, 0)
        window = (table >> (bits - shift - 53)) & ((1 << 53) - 1)
        assert got[lane] == math.ldexp(window, -53 - shift), lane


def test_integer_dot_products(one_instruction: Run, make_wave: Make) -> None:
    rng = np.random.default_rng(30)
    a, b, c = (rng.integers(0, 2**32, 64, dtype=np.uint64) for _ in range(3))
    w = make_wave(v0=a, v1=b, v2=c)
    one_instruction("v_dot4_i32_i8 v3, v0, v1, v2", w)
    one_instruction("v_dot2_u32_u16 v4, v0, v1, v2", w)
    one_instruction("v_dot8_i32_i4 v5, v0, v1, v2", w)

    def elements(x: int, width: int, signed: bool) -> list[int]:
        out = [(x >> (width * i)) & ((1 << width) - 1) for i in range(32 // width)]
        return [e - (1 << width) if signed and e >> (width - 1) else e for e in out]

    for lane in range(64):
        x, y, z = int(a[lane]), int(b[lane]), int(c[lane])
        zs = z - (1 << 32) if z >> 31 else z
        for row, width, signed, base in ((3, 8, True, zs), (4, 16, False, z), (5, 4, True, zs)):
            total = base + sum(p * q for p, q in zip(elements(x, width, signed), elements(y, width, signed)))
            assert w.v[row, lane] == total & 0xFFFFFFFF, (row, lane)


def test_fma_mix_selects_f16_halves_and_f32(one_instruction: Run, make_wave: Make) -> None:
    rng = np.random.default_rng(31)
    halves = rng.standard_normal((64, 2)).astype(np.float16)
    packed = halves.view(np.uint32).ravel()
    f32 = rng.standard_normal(64).astype(np.float32)
    w = make_wave(v0=packed, v1=f32.view(np.uint32), v2=f32.view(np.uint32))
    # src0 = high f16 half of v0, src1 = f32 v1, src2 = -(f32 v2)
    one_instruction("v_fma_mix_f32 v3, v0, v1, -v2 op_sel:[1,0,0] op_sel_hi:[1,0,0]", w)
    w.v[4] = 0xABCD0000
    one_instruction("v_fma_mixlo_f16 v4, v0, v1, v2 op_sel_hi:[1,0,0]", w)
    for lane in range(64):
        hi, lo = Fraction(float(halves[lane, 1])), Fraction(float(halves[lane, 0]))
        y = Fraction(float(f32[lane]))
        exact = hi * y - y  # at most 35 significant bits here: exact in float64, so one rounding to f32
        assert float(exact) == exact
        assert w.v[3, lane].view(np.float32) == np.float32(float(exact))
        low16 = np.uint16(w.v[4, lane] & 0xFFFF).view(np.float16)
        assert low16 == np.float16(float(lo * y + y)) and w.v[4, lane] >> 16 == 0xABCD


def test_sad_variants(one_instruction: Run, make_wave: Make) -> None:
    rng = np.random.default_rng(32)
    a, b, c = (rng.integers(0, 2**32, 64, dtype=np.uint64) for _ in range(3))
    b[::4] &= 0xFFFF00FF  # some zero reference bytes for msad
    w = make_wave(v0=a, v1=b, v2=c)
    one_instruction("v_sad_hi_u8 v3, v0, v1, v2", w)
    one_instruction("v_msad_u8 v4, v0, v1, v2", w)
    for lane in range(64):
        xs = [(int(a[lane]) >> (8 * i)) & 0xFF for i in range(4)]
        ys = [(int(b[lane]) >> (8 * i)) & 0xFF for i in range(4)]
        sad = sum(abs(x - y) for x, y in zip(xs, ys))
        msad = sum(abs(x - y) for x, y in zip(xs, ys) if y)
        assert w.v[3, lane] == ((sad << 16) + int(c[lane])) & 0xFFFFFFFF
        assert w.v[4, lane] == (msad + int(c[lane])) & 0xFFFFFFFF


def test_packed_normalised_and_u8_conversions(one_instruction: Run, make_wave: Make) -> None:
    x = np.array([-2.0, -1.0, -0.5, 0.0, 0.25, 1.0, 3.0, np.nan] * 8, np.float32)
    y = np.array([0.75, 0.1, 1.5, -0.3, np.inf, 0.5, 0.0, 0.9] * 8, np.float32)
    w = make_wave(v0=x.view(np.uint32), v1=y.view(np.uint32), v2=np.full(64, 0x11223344))
    one_instruction("v_cvt_pknorm_i16_f32 v3, v0, v1", w)
    one_instruction("v_cvt_pknorm_u16_f32 v4, v0, v1", w)
    w.s[0] = 2
    one_instruction("v_cvt_pk_u8_f32 v5, v1, s0, v2", w)
    for lane in range(8):

        def snorm(v: float) -> int:
            return 0 if math.isnan(v) else round(max(-1.0, min(1.0, v)) * 32767) & 0xFFFF

        def unorm(v: float) -> int:
            return 0 if math.isnan(v) else round(max(0.0, min(1.0, v)) * 65535)

        assert w.v[3, lane] == snorm(float(x[lane])) | snorm(float(y[lane])) << 16
        assert w.v[4, lane] == unorm(float(x[lane])) | unorm(float(y[lane])) << 16
        byte = (
            0
            if math.isnan(y[lane])
            else int(np.clip(round(float(y[lane])), 0, 255))
            if np.isfinite(y[lane])
            else 255
        )
        assert w.v[5, lane] == (0x11223344 & ~(0xFF << 16)) | byte << 16


def test_ds_float_atomics_and_d16_reads(one_instruction: Run, make_wave: Make) -> None:
    values = np.random.default_rng(33).standard_normal(64).astype(np.float32)
    w = make_wave(v1=np.zeros(64), v2=values.view(np.uint32))
    w.group.lds.data[:4] = np.frombuffer(np.float32(0.0).tobytes(), np.uint8)
    one_instruction("ds_max_rtn_f32 v3, v1, v2", w)
    assert w.group.lds.data[:4].view(np.float32)[0] == max(0.0, values.max())
    running = np.maximum.accumulate(np.concatenate([[np.float32(0.0)], values]))[:-1]
    np.testing.assert_array_equal(w.v[3].view(np.float32), running)
    w.group.lds.data[8:10] = np.frombuffer(np.float16(1.5).tobytes(), np.uint8)
    w.v[4] = 0xDEAD0000
    one_instruction("ds_read_u16_d16 v4, v1 offset:8", w)
    assert (w.v[4] == 0xDEAD0000 | int(np.float16(1.5).view(np.uint16))).all()
    w.v[5] = 0x0000BEEF
    one_instruction("ds_read_u16_d16_hi v5, v1 offset:8", w)
    assert (w.v[5] == 0x0000BEEF | int(np.float16(1.5).view(np.uint16)) << 16).all()


def test_qsad_and_mqsad_windows(one_instruction: Run, make_wave: Make) -> None:
    rng = np.random.default_rng(34)
    a = rng.integers(0, 2**63, 64, dtype=np.uint64)
    b = rng.integers(0, 2**32, 64, dtype=np.uint64)
    b[::3] &= 0xFF00FFFF  # zero reference bytes matter for mqsad
    c = rng.integers(0, 2**63, 64, dtype=np.uint64)
    w = make_wave(v0=a & 0xFFFFFFFF, v1=a >> 32, v2=b, v6=c & 0xFFFFFFFF, v7=c >> 32)
    one_instruction("v_qsad_pk_u16_u8 v[4:5], v[0:1], v2, v[6:7]", w)
    one_instruction("v_mqsad_pk_u16_u8 v[8:9], v[0:1], v2, v[6:7]", w)
    for lane in range(64):
        x, y, z = int(a[lane]), int(b[lane]), int(c[lane])
        ref = [(y >> (8 * k)) & 0xFF for k in range(4)]
        for row, masked in ((4, False), (8, True)):
            got = int(w.v[row, lane]) | int(w.v[row + 1, lane]) << 32
            for i in range(4):
                window = [(x >> (8 * (i + k))) & 0xFF for k in range(4)]
                total = sum(abs(p - q) for p, q in zip(window, ref) if not masked or q) + (
                    z >> (16 * i) & 0xFFFF
                )
                assert (got >> (16 * i)) & 0xFFFF == total & 0xFFFF, (row, lane, i)


def test_cvt_norm_i16_u16_from_f16(one_instruction: Run, make_wave: Make) -> None:
    x = np.resize(np.array([-2.0, -1.0, -0.5, 0.0, 0.25, 1.0, 3.0, np.nan], np.float16), 64)
    w = make_wave(v0=x.view(np.uint16).astype(np.uint32) | 0xABCD0000)
    one_instruction("v_cvt_norm_i16_f16_e32 v3, v0", w)
    one_instruction("v_cvt_norm_u16_f16_e32 v4, v0", w)
    for lane in range(8):
        v = float(x[lane])
        snorm = 0 if math.isnan(v) else round(max(-1.0, min(1.0, v)) * 32767) & 0xFFFF
        unorm = 0 if math.isnan(v) else round(max(0.0, min(1.0, v)) * 65535)
        assert w.v[3, lane] == snorm and w.v[4, lane] == unorm
