"""v_accvgpr_write/read/mov_b32 (CDNA3 ISA: VALU moves between VGPRs and AGPRs, EXEC applies)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ptx2gcn.runtime.emulator.wave import Wave

Run = Callable[[str, Wave], Wave]


def test_write_read_and_mov_respect_exec(one_instruction: Run, make_wave: Callable[..., Wave]) -> None:
    values = np.arange(64, dtype=np.uint64) * 0x01010101
    wave = make_wave(v4=values)
    wave.v[256 + 3] = 7  # a3 before: 7 everywhere
    wave.set_exec(0x0000FFFF0000FFFF)
    one_instruction("v_accvgpr_write_b32 a3, v4", wave)
    active = np.array([(0x0000FFFF0000FFFF >> lane) & 1 for lane in range(64)], dtype=bool)
    np.testing.assert_array_equal(wave.v[256 + 3], np.where(active, values.astype(np.uint32), 7))
    wave.set_exec((1 << 64) - 1)
    one_instruction("v_accvgpr_mov_b32 a200, a3", wave)
    one_instruction("v_accvgpr_read_b32 v9, a200", wave)
    np.testing.assert_array_equal(wave.v[9], wave.v[256 + 3])
    one_instruction("v_accvgpr_write_b32 a255, -1.0", wave)
    assert set(wave.v[511].tolist()) == {0xBF800000}
    wave.s[20] = 0x12345678
    one_instruction("v_accvgpr_write_b32 a0, s20", wave)
    assert set(wave.v[256].tolist()) == {0x12345678}
