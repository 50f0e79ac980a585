"""gfx942 FP8/BF8 conversions (FNUZ formats) and ds_append/ds_consume, one instruction at a time.

Instructions are assembled by llvm-mc-22 (so their encodings are LLVM's); expected values are
hand-computed from the format definitions: E4M3FNUZ (bias 8, max 240 = 0x7f, smallest subnormal
2^-10), E5M2FNUZ (bias 16, max 57344 = 0x7f, smallest subnormal 2^-17), 0x80 the only NaN, no
negative zero; round to nearest even, or stochastic (the low 20/21 random bits added below the kept
bits, then truncated).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from ptx2gcn.runtime.emulator.decoder import decode
from ptx2gcn.runtime.emulator.errors import UnknownInstruction
from ptx2gcn.runtime.emulator.semantics import bind
from ptx2gcn.runtime.emulator.wave import M0, Wave

Run = Callable[[str, Wave], Wave]
Make = Callable[..., Wave]


def f32(*values: float) -> np.ndarray:
    return np.array(values, dtype=np.float32).view(np.uint32)


def lanes(values: np.ndarray) -> np.ndarray:
    return np.resize(values, 64)


FP8_DECODE = [(0x00, 0x00000000), (0x01, 0x3A800000), (0x08, 0x3C000000), (0x38, 0x3F000000),
              (0x40, 0x3F800000), (0x47, 0x3FF00000), (0x7F, 0x43700000), (0xC0, 0xBF800000),
              (0x80, 0x7FC00000), (0x87, 0xBBE00000)]
BF8_DECODE = [(0x00, 0x00000000), (0x01, 0x37000000), (0x04, 0x38000000), (0x40, 0x3F800000),
              (0x7F, 0x47600000), (0xBF, 0xBF600000), (0x80, 0x7FC00000)]


@pytest.mark.parametrize(("mnemonic", "table"), [("v_cvt_f32_fp8", FP8_DECODE), ("v_cvt_f32_bf8", BF8_DECODE)])
def test_fp8_and_bf8_decode_exactly(one_instruction: Run, make_wave: Make, mnemonic: str,
                                    table: list[tuple[int, int]]) -> None:
    codes = np.array([code for code, _ in table], dtype=np.uint32)
    w = make_wave(v0=lanes(codes | np.uint32(0xABCDEF00)))  # only byte 0 is read
    one_instruction(f"{mnemonic} v1, v0", w)
    one_instruction(f"{mnemonic}_e64 v2, v0", w)
    want = lanes(np.array([bits for _, bits in table], dtype=np.uint32))
    assert w.v[1].tolist() == want.tolist() and w.v[2].tolist() == want.tolist()


def test_sdwa_byte_and_word_selects(one_instruction: Run, make_wave: Make) -> None:
    w = make_wave(v0=np.full(64, 0x00470000, np.uint32), v1=np.full(64, 0xC0400000, np.uint32))
    one_instruction("v_cvt_f32_fp8_sdwa v2, v0 src0_sel:BYTE_2", w)
    one_instruction("v_cvt_pk_f32_fp8_sdwa v[4:5], v1 src0_sel:WORD_1", w)
    assert (w.v[2] == 0x3FF00000).all()  # 0x47 -> 1.875
    assert (w.v[4] == 0x3F800000).all() and (w.v[5] == 0xBF800000).all()  # 0x40 -> 1, 0xc0 -> -1


def test_packed_bf8_to_f32(one_instruction: Run, make_wave: Make) -> None:
    w = make_wave(v0=np.full(64, 0x12347F01, np.uint32))
    one_instruction("v_cvt_pk_f32_bf8 v[2:3], v0", w)
    assert (w.v[2] == 0x37000000).all() and (w.v[3] == 0x47600000).all()  # 2^-17, 57344


FP8_NEAREST = [(1.0, 0x40), (-1.0, 0xC0), (240.0, 0x7F), (241.0, 0x80), (248.0, 0x80), (np.inf, 0x80),
               (-np.inf, 0x80), (np.nan, 0x80), (-0.0, 0x00), (2.0**-11, 0x00), (3 * 2.0**-11, 0x02),
               (1.0625, 0x40), (1.1875, 0x42), (232.0, 0x7E), (1e-30, 0x00), (-1e-30, 0x00),
               (-(2.0**-10), 0x81), (0.3, 0x32)]
BF8_NEAREST = [(1.0, 0x40), (1.125, 0x40), (1.375, 0x42), (57344.0, 0x7F), (57345.0, 0x80),
               (2.0**-17, 0x01), (-(2.0**-18), 0x00), (-3.0, 0xC6)]


@pytest.mark.parametrize(("mnemonic", "cases"), [("v_cvt_pk_fp8_f32", FP8_NEAREST),
                                                 ("v_cvt_pk_bf8_f32", BF8_NEAREST)])
def test_round_to_nearest_even_overflow_nan_and_unsigned_zero(
    one_instruction: Run, make_wave: Make, mnemonic: str, cases: list[tuple[float, int]]
) -> None:
    values = lanes(f32(*(v for v, _ in cases)))
    w = make_wave(v0=values, v1=np.roll(values, 1), v2=np.full(64, 0xAABBCCDD, np.uint32))
    one_instruction(f"{mnemonic} v2, v0, v1", w)
    want = lanes(np.array([code for _, code in cases], dtype=np.uint32))
    assert ((w.v[2] & 0xFF) == want).all()  # S0 -> byte 0
    assert (((w.v[2] >> 8) & 0xFF) == np.roll(want, 1)).all()  # S1 -> byte 1
    assert ((w.v[2] >> 16) == 0xAABB).all()  # the other word is kept


def test_packed_encode_word_select_and_modifiers(one_instruction: Run, make_wave: Make) -> None:
    w = make_wave(v0=lanes(f32(1.0)), v1=lanes(f32(-1.0)), v2=np.full(64, 0xAABBCCDD, np.uint32),
                  v3=np.full(64, 0xAABBCCDD, np.uint32))
    one_instruction("v_cvt_pk_fp8_f32 v2, v0, v1 op_sel:[0,0,1]", w)
    one_instruction("v_cvt_pk_fp8_f32 v3, -v0, |v1|", w)
    assert (w.v[2] == 0xC040CCDD).all()
    assert (w.v[3] == 0xAABB40C0).all()


@pytest.mark.parametrize(
    ("mnemonic", "value", "random", "code"),
    [("v_cvt_sr_fp8_f32", 1.0625, 0x00080000, 0x41), ("v_cvt_sr_fp8_f32", 1.0625, 0x0007FFFF, 0x40),
     ("v_cvt_sr_fp8_f32", 1.0625, 0xFFF00000, 0x40), ("v_cvt_sr_fp8_f32", -1.0625, 0x000FFFFF, 0xC1),
     ("v_cvt_sr_fp8_f32", 300.0, 0, 0x80), ("v_cvt_sr_bf8_f32", 1.125, 0x00100000, 0x41),
     ("v_cvt_sr_bf8_f32", 1.125, 0x000FFFFF, 0x40), ("v_cvt_sr_bf8_f32", 2.0**-18, 0x001FFFFF, 0x01)],
)
def test_stochastic_rounding_and_byte_select(
    one_instruction: Run, make_wave: Make, mnemonic: str, value: float, random: int, code: int
) -> None:
    w = make_wave(v0=lanes(f32(value)), v1=np.full(64, random, np.uint32), v2=np.full(64, 0xAABBCCDD, np.uint32))
    one_instruction(f"{mnemonic} v2, v0, v1 op_sel:[0,0,1,1]", w)  # byte 3
    assert (w.v[2] == (0x00BBCCDD | code << 24)).all()


def test_ds_append_and_consume_count_active_lanes_once_per_wave(one_instruction: Run, make_wave: Make) -> None:
    w = make_wave()
    w.group.lds.data[0x14:0x18] = np.frombuffer(np.uint32(100).tobytes(), np.uint8)
    w.s[M0] = 0x10
    w.set_exec(0xFF)
    one_instruction("ds_append v1 offset:4", w)
    assert w.v[1, :8].tolist() == [100] * 8 and (w.v[1, 8:] == 0).all()
    w.set_exec(0b10101)
    one_instruction("ds_consume v2 offset:4", w)
    assert w.v[2, [0, 2, 4]].tolist() == [108] * 3 and w.v[2, 1] == 0
    counter = int(np.frombuffer(w.group.lds.data[0x14:0x18].tobytes(), np.uint32)[0])
    assert counter == 105
    w.set_exec((1 << 64) - 1)
    w.group.lds.data[0x14:0x18] = np.frombuffer(np.uint32(1).tobytes(), np.uint8)
    one_instruction("ds_consume v3 offset:4", w)
    assert int(np.frombuffer(w.group.lds.data[0x14:0x18].tobytes(), np.uint32)[0]) == (1 - 64) % 2**32


def test_gds_forms_fail_loudly(make_wave: Make) -> None:
    """gfx942 has no GDS/GWS (llvm-mc rejects ``gds`` and ``ds_gws_*``); a hand-set gds bit faults."""
    inst = decode(bytes([0x00, 0x00, 0x7D, 0xD9, 0x00, 0x00, 0x00, 0x01]), 0)  # ds_append v1 gds
    assert inst.opcode == "ds_append" and inst.fields["gds"] == 1
    with pytest.raises(UnknownInstruction, match="GDS"):
        bind(inst, 0x100)(make_wave())


@pytest.mark.parametrize(
    "text",
    ["buffer_load_dword v0, v1, s[4:7], 0 offen", "v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10"],
)
def test_unimplemented_families_fail_loudly_when_executed(
    one_instruction: Run, make_wave: Make, text: str
) -> None:
    with pytest.raises(UnknownInstruction, match=text.split()[0]):
        one_instruction(text, make_wave())
