"""The compile-time lane patterns of constant shuffles (``ptx2gcn/ir/wave64_patterns.py``), checked
against independent models: the lanes against the warp model's ``shfl`` (``tests/warp/model.py``),
each chosen DPP control and swizzle offset against the emulator's own tables of what those
instructions read (``semantics_dpp.dpp_source_lanes``, ``semantics_ds.swizzle_source_lanes``), over
every constant ``b`` and a set of clamp/segment values ``c``, for all 64 lanes of a wave (so no
permute reads the other warp's half)."""

from __future__ import annotations

import pytest

from ptx2gcn.ir.wave64_patterns import dpp_control, lane_mask, shfl_lanes, swizzle_offset
from ptx2gcn.runtime.emulator.semantics_dpp import dpp_source_lanes
from ptx2gcn.runtime.emulator.semantics_ds import swizzle_source_lanes
from tests.warp import model

CLAMPS = (0x1F, 0x0, 0x101F, 0x181F, 0x1C1F, 0x1E1F, 0x1000, 0x1800, 0x7, 0x10, 0x1F1F)
MODES = ("up", "down", "bfly", "idx")


def _wave_reads(table: list[int] | tuple[int, ...], lane: int) -> int:
    """The wave lane a permute's lane ``lane`` (0..63) reads; an invalid DPP source keeps its own."""
    return lane if table[lane] < 0 else int(table[lane])


@pytest.mark.parametrize("mode", MODES)
def test_lanes_match_the_warp_model(mode: str) -> None:
    values = list(range(100, 132))
    for c in CLAMPS:
        for b in range(32):
            sources, valid = shfl_lanes(mode, b, c)
            expected = model.shfl(mode, values, [b] * 32, [c] * 32)
            got = [(values[s], p) for s, p in zip(sources, valid, strict=True)]
            assert got == expected, (mode, b, hex(c))


@pytest.mark.parametrize("mode", MODES)
def test_chosen_permutes_read_the_pattern_inside_the_own_half(mode: str) -> None:
    found = 0
    for c in CLAMPS:
        for b in range(32):
            sources, valid = shfl_lanes(mode, b, c)
            for care in ((True,) * 32, valid):
                ctrl = dpp_control(sources, care)
                offset = swizzle_offset(sources, care)
                for table in ([] if ctrl is None else [list(dpp_source_lanes(ctrl))],
                              [] if offset is None else [list(swizzle_source_lanes(offset))]):
                    for reads in table:
                        found += 1
                        for lane in range(64):
                            if care[lane & 31]:
                                assert _wave_reads(reads, lane) == (lane & 32) + sources[lane & 31], \
                                    (mode, b, hex(c), lane)
    assert found > 0


def test_known_patterns() -> None:
    """Spot checks written from the CDNA3 ISA encodings."""
    every = (True,) * 32
    assert dpp_control(shfl_lanes("bfly", 1, 0x1F)[0], every) == 0b10_11_00_01  # quad_perm [1,0,3,2]
    assert dpp_control(shfl_lanes("down", 3, 0x101F)[0], every) == 0x103  # row_shl:3
    assert dpp_control(shfl_lanes("up", 5, 0x1000)[0], every) == 0x115  # row_shr:5
    assert dpp_control(shfl_lanes("bfly", 15, 0x1F)[0], every) == 0x140  # row_mirror
    assert dpp_control(shfl_lanes("down", 1, 0x1F)[0], every) is None  # crosses rows of 16
    assert swizzle_offset(shfl_lanes("bfly", 16, 0x1F)[0], every) == 16 << 10 | 0x1F
    assert swizzle_offset(shfl_lanes("idx", 7, 0x1F)[0], every) == 7 << 5
    assert swizzle_offset(shfl_lanes("down", 16, 0x1F)[0], every) == 16 << 5 | 0xF
    assert swizzle_offset(shfl_lanes("down", 1, 0x1F)[0], every) is None
    assert lane_mask(shfl_lanes("down", 1, 0x1F)[1]) == 0x7FFFFFFF_7FFFFFFF
