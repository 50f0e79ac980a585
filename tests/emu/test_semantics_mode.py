"""MODE register: s_getreg/s_setreg, directed rounding and denormal flushing, against exact models."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest

from ptx2gcn.runtime.emulator.errors import WaveFault
from ptx2gcn.runtime.emulator.wave import Wave
from tests.emu.test_semantics_rounding import directed  # the exact model of directed rounding

Run = Callable[[str, Wave], Wave]


@pytest.mark.parametrize("mode", [1, 2, 3])
def test_directed_rounding_of_f32_add_mul_fma(
    one_instruction: Run, make_wave: Callable[..., Wave], mode: int
) -> None:
    rng = np.random.default_rng(20 + mode)
    a = rng.standard_normal(64).astype(np.float32)
    b = (rng.standard_normal(64) * 1e-3).astype(np.float32)
    w = make_wave(v0=a.view(np.uint32), v1=b.view(np.uint32))
    one_instruction(f"s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), {mode}", w)
    assert w.mode.round_32 == mode and not w.mode.is_default
    one_instruction("v_add_f32_e32 v2, v0, v1", w)
    one_instruction("v_mul_f32_e32 v3, v0, v1", w)
    one_instruction("v_fma_f32 v4, v0, v1, v0", w)
    for i in range(64):
        x, y = Fraction(float(a[i])), Fraction(float(b[i]))
        assert w.v[2, i].view(np.float32) == directed(x + y, mode, np.float32)
        assert w.v[3, i].view(np.float32) == directed(x * y, mode, np.float32)
        assert w.v[4, i].view(np.float32) == directed(x * y + x, mode, np.float32)


def test_round_toward_zero_overflow_gives_max(one_instruction: Run, make_wave: Callable[..., Wave]) -> None:
    big = np.full(64, np.finfo(np.float32).max, np.float32)
    w = make_wave(v0=big.view(np.uint32))
    one_instruction("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 3", w)
    one_instruction("v_add_f32_e32 v1, v0, v0", w)
    assert (w.v[1].view(np.float32) == np.finfo(np.float32).max).all()


def test_unsupported_directed_rounding_is_refused(
    one_instruction: Run, make_wave: Callable[..., Wave]
) -> None:
    w = make_wave(v0=np.full(64, 2.0, np.float32).view(np.uint32))
    one_instruction("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 1", w)
    with pytest.raises(WaveFault, match="v_sqrt_f32: MODE rounding toward \\+inf is not implemented"):
        one_instruction("v_sqrt_f32_e32 v1, v0", w)


def test_getreg_reads_mode_and_setreg_flushes_denormals(
    one_instruction: Run, make_wave: Callable[..., Wave]
) -> None:
    tiny = np.full(64, 1e-39, np.float32)
    w = make_wave(v0=tiny.view(np.uint32), v1=np.full(64, 1.0, np.float32).view(np.uint32))
    one_instruction("s_getreg_b32 s1, hwreg(HW_REG_MODE, 0, 10)", w)
    assert w.s[1] == 0x3F0  # denorm 3/3, DX10_CLAMP, IEEE, round 0/0 (the Mode() defaults)
    one_instruction("v_mul_f32_e32 v2, v0, v1", w)
    assert (w.v[2].view(np.float32) == np.float32(1e-39)).all()
    w.s[3] = 0
    one_instruction("s_setreg_b32 hwreg(HW_REG_MODE, 4, 2), s3", w)  # FP_DENORM f32 := 0 (flush in and out)
    assert w.mode.denorm_32 == 0
    one_instruction("v_mul_f32_e32 v3, v0, v1", w)
    assert (w.v[3] == 0).all()
    one_instruction("s_getreg_b32 s4, hwreg(HW_REG_MODE, 4, 4)", w)
    assert w.s[4] == 0b1100


def test_status_and_aperture_hardware_registers(one_instruction: Run, make_wave: Callable[..., Wave]) -> None:
    from ptx2gcn.runtime.emulator.memory import PRIVATE_APERTURE_BASE, SHARED_APERTURE_BASE

    w = make_wave()
    w.scc = 1
    one_instruction("s_getreg_b32 s1, hwreg(HW_REG_STATUS, 0, 1)", w)
    assert w.s[1] == 1
    one_instruction("s_getreg_b32 s2, hwreg(HW_REG_SH_MEM_BASES, 0, 16)", w)
    one_instruction("s_getreg_b32 s3, hwreg(HW_REG_SH_MEM_BASES, 16, 16)", w)
    assert w.s[2] << 48 == PRIVATE_APERTURE_BASE and w.s[3] << 48 == SHARED_APERTURE_BASE


def test_compares_see_flushed_denormals_when_mode_flushes(
    one_instruction: Run, make_wave: Callable[..., Wave]
) -> None:
    tiny = np.full(64, 1e-40, np.float32)
    w = make_wave(v0=tiny.view(np.uint32), v1=np.zeros(64, np.uint32))
    one_instruction("v_cmp_eq_f32_e64 s[0:1], v0, v1", w)
    assert w.sreg64(0) == 0  # denormals kept (the default): 1e-40 != 0
    one_instruction("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0", w)
    one_instruction("v_cmp_eq_f32_e64 s[2:3], v0, v1", w)
    assert w.sreg64(2) == (1 << 64) - 1  # flushed to zero on input: equal
