"""Directed MODE rounding beyond f32 add/mul/fma: f64 arithmetic, packed math, v_fma_mix, v_div_fmas,
ldexp, exact zero sums, rounding-free ops, and the ops that must refuse a directed mode.

Expected values come from an exact model: the operation on ``fractions.Fraction`` values, rounded
by picking the neighbouring representable values around it (never from the emulator's helpers).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest

from ptx2gcn.runtime.emulator.errors import WaveFault
from ptx2gcn.runtime.emulator.wave import VCC_LO, Wave

Run = Callable[[str, Wave], Wave]
MODES = [1, 2, 3]


def directed(exact: Fraction, mode: int, dtype: type) -> np.floating:
    """``exact`` rounded to ``dtype``: 1 toward +inf, 2 toward -inf, 3 toward zero (model)."""
    info = np.finfo(dtype)
    if exact > Fraction(float(info.max)):
        return dtype(np.inf) if mode == 1 else info.max
    if exact < -Fraction(float(info.max)):
        return dtype(-np.inf) if mode == 2 else -info.max
    # float(Fraction) is correctly rounded to f64; for narrow dtypes the candidates around it cover
    # the two neighbours of the exact value.
    seed = dtype(float(exact))
    candidates = {seed, np.nextafter(seed, dtype(np.inf)), np.nextafter(seed, dtype(-np.inf))}
    finite = [c for c in candidates if np.isfinite(c)]
    below = max((c for c in finite if Fraction(float(c)) <= exact), key=float)
    above = min((c for c in finite if Fraction(float(c)) >= exact), key=float)
    if mode == 1:
        return above
    if mode == 2:
        return below
    return below if exact >= 0 else above


def set_round(one_instruction: Run, w: Wave, mode: int, field: str) -> None:
    offset = 0 if field == "32" else 2  # FP_ROUND[1:0] f32, FP_ROUND[3:2] f16/f64
    one_instruction(f"s_setreg_imm32_b32 hwreg(HW_REG_MODE, {offset}, 2), {mode}", w)


def f64_rows(values: np.ndarray) -> dict[str, np.ndarray]:
    bits = values.astype(np.float64).view(np.uint64)
    return {"lo": (bits & np.uint64(0xFFFFFFFF)).astype(np.uint32), "hi": (bits >> np.uint64(32)).astype(np.uint32)}


def load_f64(w: Wave, row: int, values: np.ndarray) -> None:
    parts = f64_rows(values)
    w.v[row], w.v[row + 1] = parts["lo"], parts["hi"]


def read_f64(w: Wave, row: int) -> np.ndarray:
    return (w.v[row].astype(np.uint64) | (w.v[row + 1].astype(np.uint64) << np.uint64(32))).view(np.float64)


@pytest.mark.parametrize("mode", MODES)
def test_f64_add_mul_fma_round_in_the_mode_direction(
    one_instruction: Run, make_wave: Callable[..., Wave], mode: int
) -> None:
    rng = np.random.default_rng(40 + mode)
    a = rng.standard_normal(64) * 10.0 ** rng.integers(-300, 300, 64)
    b = rng.standard_normal(64) * 10.0 ** rng.integers(-300, 300, 64)
    a[:4] = [np.finfo(np.float64).max, 1e-310, 3.0, 1.0]  # overflow, subnormals, a sub-ulp addend
    b[:4] = [np.finfo(np.float64).max, -3e-310, 1e-300, -(2.0**-80)]
    w = make_wave()
    load_f64(w, 0, a)
    load_f64(w, 2, b)
    set_round(one_instruction, w, mode, "64")
    one_instruction("v_add_f64 v[4:5], v[0:1], v[2:3]", w)
    one_instruction("v_mul_f64 v[6:7], v[0:1], v[2:3]", w)
    one_instruction("v_fma_f64 v[8:9], v[0:1], v[2:3], v[0:1]", w)
    add, mul, fma = read_f64(w, 4), read_f64(w, 6), read_f64(w, 8)
    for i in range(64):
        x, y = Fraction(float(a[i])), Fraction(float(b[i]))
        assert add[i] == directed(x + y, mode, np.float64), (i, a[i], b[i])
        assert mul[i] == directed(x * y, mode, np.float64), (i, a[i], b[i])
        assert fma[i] == directed(x * y + x, mode, np.float64), (i, a[i], b[i])


def test_exact_zero_sum_is_negative_only_toward_minus_infinity(
    one_instruction: Run, make_wave: Callable[..., Wave]
) -> None:
    x = np.full(64, 1.5, np.float32)
    w = make_wave(v0=x.view(np.uint32), v1=(-x).view(np.uint32))
    for mode, sign in ((1, 0), (2, 0x80000000), (3, 0)):
        set_round(one_instruction, w, mode, "32")
        one_instruction("v_add_f32_e32 v2, v0, v1", w)
        one_instruction("v_fma_f32 v3, v0, 1.0, v1", w)
        assert (w.v[2] == sign).all() and (w.v[3] == sign).all(), mode
    load_f64(w, 4, np.full(64, 2.5))
    load_f64(w, 6, np.full(64, -2.5))
    set_round(one_instruction, w, 2, "64")
    one_instruction("v_add_f64 v[8:9], v[4:5], v[6:7]", w)
    assert (read_f64(w, 8).view(np.uint64) == 0x8000000000000000).all()


@pytest.mark.parametrize("mode", MODES)
def test_packed_f16_and_f32_math_rounds_in_the_mode_direction(
    one_instruction: Run, make_wave: Callable[..., Wave], mode: int
) -> None:
    rng = np.random.default_rng(50 + mode)
    h = rng.standard_normal((3, 128)).astype(np.float16)
    f = rng.standard_normal((3, 128)).astype(np.float32)
    w = make_wave(
        v0=h[0].view(np.uint32), v1=h[1].view(np.uint32), v2=h[2].view(np.uint32),
    )
    for k in range(3):  # f32 pairs in v[10:11], v[12:13], v[14:15]
        w.v[10 + 2 * k], w.v[11 + 2 * k] = f[k, 0::2].view(np.uint32), f[k, 1::2].view(np.uint32)
    set_round(one_instruction, w, mode, "64")  # f16 rounding field
    set_round(one_instruction, w, mode, "32")
    one_instruction("v_pk_add_f16 v3, v0, v1", w)
    one_instruction("v_pk_fma_f16 v4, v0, v1, v2", w)
    one_instruction("v_pk_mul_f32 v[16:17], v[10:11], v[12:13]", w)
    one_instruction("v_pk_fma_f32 v[18:19], v[10:11], v[12:13], v[14:15]", w)
    add16, fma16 = w.v[3].view(np.float16), w.v[4].view(np.float16)
    mul32 = np.stack([w.v[16].view(np.float32), w.v[17].view(np.float32)], axis=1).ravel()
    fma32 = np.stack([w.v[18].view(np.float32), w.v[19].view(np.float32)], axis=1).ravel()
    for i in range(128):
        x, y, z = (Fraction(float(h[k, i])) for k in range(3))
        assert add16[i] == directed(x + y, mode, np.float16), i
        assert fma16[i] == directed(x * y + z, mode, np.float16), i
        p, q, r = (Fraction(float(f[k, i])) for k in range(3))
        assert mul32[i] == directed(p * q, mode, np.float32), i
        assert fma32[i] == directed(p * q + r, mode, np.float32), i


@pytest.mark.parametrize("mode", MODES)
def test_fma_mix_div_fmas_and_ldexp_round_in_the_mode_direction(
    one_instruction: Run, make_wave: Callable[..., Wave], mode: int
) -> None:
    rng = np.random.default_rng(60 + mode)
    a, b, c = rng.standard_normal((3, 64)).astype(np.float32)
    w = make_wave(v0=a.view(np.uint32), v1=b.view(np.uint32), v2=c.view(np.uint32))
    w.v[3] = np.full(64, -140, np.int32).view(np.uint32)  # ldexp into the subnormal range
    w.set_sreg64(VCC_LO, 0)  # div_fmas without post-scaling is a plain fma
    set_round(one_instruction, w, mode, "32")
    one_instruction("v_fma_mix_f32 v4, v0, v1, v2", w)
    one_instruction("v_div_fmas_f32 v5, v0, v1, v2", w)
    one_instruction("v_ldexp_f32 v6, v0, v3", w)
    one_instruction("v_fmaak_f32 v8, v0, v1, 0x3e800000", w)  # a * b + 0.25 (K form)
    w.set_sreg64(VCC_LO, (1 << 64) - 1)  # post-scaling by 2^-64 (|S2| < 2 in most lanes) or 2^64, one rounding
    one_instruction("v_div_fmas_f32 v7, v0, v1, v2", w)
    for i in range(64):
        x, y, z = (Fraction(float(v[i])) for v in (a, b, c))
        assert w.v[4, i].view(np.float32) == directed(x * y + z, mode, np.float32), i
        assert w.v[5, i].view(np.float32) == directed(x * y + z, mode, np.float32), i
        assert w.v[6, i].view(np.float32) == directed(x * Fraction(1, 2**140), mode, np.float32), i
        assert w.v[8, i].view(np.float32) == directed(x * y + Fraction(1, 4), mode, np.float32), i
        scale = Fraction(2) ** (64 if abs(c[i]) >= 2 else -64)
        assert w.v[7, i].view(np.float32) == directed((x * y + z) * scale, mode, np.float32), i


def test_rounding_free_ops_run_under_a_directed_mode(one_instruction: Run, make_wave: Callable[..., Wave]) -> None:
    a = np.linspace(-3.3, 3.3, 64).astype(np.float32)
    w = make_wave(v0=a.view(np.uint32), v1=(-a).view(np.uint32))
    h = np.linspace(-3.3, 3.3, 128).astype(np.float16)
    w.v[5], w.v[6] = h.view(np.uint32), (-h).view(np.uint32)
    set_round(one_instruction, w, 1, "32")
    set_round(one_instruction, w, 2, "64")
    one_instruction("v_max_f32_e32 v2, v0, v1", w)
    one_instruction("v_floor_f32_e32 v3, v0", w)
    one_instruction("v_pk_max_f16 v4, v5, v6", w)
    assert (w.v[2].view(np.float32) == np.abs(a)).all()
    assert (w.v[3].view(np.float32) == np.floor(a)).all()
    assert (w.v[4].view(np.float16) == np.abs(h)).all()


@pytest.mark.parametrize(
    ("text", "field"),
    [("v_sqrt_f64_e32 v[2:3], v[0:1]", "64"), ("v_dot2_f32_f16 v2, v0, v1, v0", "32"),
     ("v_rcp_f32_e32 v2, v0", "32"), ("v_fract_f32_e32 v2, v0", "32")],
)
def test_ops_without_directed_rounding_are_refused(
    one_instruction: Run, make_wave: Callable[..., Wave], text: str, field: str
) -> None:
    w = make_wave(v0=np.full(64, 0x40000000, np.uint32), v1=np.full(64, 0x3C003C00, np.uint32))
    set_round(one_instruction, w, 3, field)
    with pytest.raises(WaveFault, match=r"MODE rounding toward zero is not implemented"):
        one_instruction(text, w)


@pytest.mark.parametrize("mode", MODES)
def test_div_fmas_f64_scales_before_its_directed_rounding(
    one_instruction: Run, make_wave: Callable[..., Wave], mode: int
) -> None:
    rng = np.random.default_rng(70 + mode)
    a, b = rng.standard_normal((2, 64))
    c = rng.standard_normal(64) * np.where(np.arange(64) % 2 == 0, 1.0, 1e3)  # both scale directions
    w = make_wave()
    load_f64(w, 0, a)
    load_f64(w, 2, b)
    load_f64(w, 4, c)
    w.set_sreg64(VCC_LO, 0x5555_5555_5555_5555 | 1 << 63)  # scale even lanes and lane 63
    set_round(one_instruction, w, mode, "64")
    one_instruction("v_div_fmas_f64 v[6:7], v[0:1], v[2:3], v[4:5]", w)
    got = read_f64(w, 6)
    for i in range(64):
        exact = Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i]))
        if i % 2 == 0 or i == 63:
            exact *= Fraction(2) ** (128 if abs(c[i]) >= 2 else -128)
        assert got[i] == directed(exact, mode, np.float64), i
