"""``cvt.pack.sat`` (PTX ISA 9.7.9.22) compiled for gfx942 and run on the emulator, against a Python
model written from the ISA's pseudocode:

    ta = clamp(a, MIN, MAX); tb = clamp(b, MIN, MAX)        (a, b signed 32-bit; MIN/MAX of the type)
    d[0, w) = tb; d[w, 2w) = ta; for w < 16: d[i] = c[i - 2w] for i in [2w, 32)

over edge values (type limits and their neighbours, 0, +-1, INT32 limits) crossed with each other.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

EDGES = [0, 1, -1, 2, -2, 3, 4, 7, 8, -8, -9, 15, 16, 127, 128, -128, -129, 255, 256, 32767, 32768,
         -32768, -32769, 65535, 65536, 0x7FFFFFFF, -0x80000000, 0x12345678, -0x12345678]
C_VALUES = [0, 0xFFFFFFFF, 0x12345678, 0x80000001]


def _limits(dtype: str) -> tuple[int, int, int]:
    width = int(dtype[1:])
    if dtype.startswith("s"):
        return width, -(1 << (width - 1)), (1 << (width - 1)) - 1
    return width, 0, (1 << width) - 1


def model(dtype: str, a: int, b: int, c: int) -> int:
    width, low, high = _limits(dtype)
    mask = (1 << width) - 1
    ta, tb = (min(max(x, low), high) & mask for x in (a, b))
    d = tb | ta << width
    if width < 16:
        d |= (c << 2 * width) & 0xFFFFFFFF
    return d


def test_model_against_hand_computed_examples() -> None:
    # Hand-computed from the ISA text, independent of the model's code.
    assert model("u8", 300, -5, 0) == 0x00_00_FF_00
    assert model("s8", -200, 100, 0xABCD) == 0xABCD_80_64
    assert model("u16", 70000, 5, 0) == 0xFFFF_0005
    assert model("s16", -40000, 40000, 0) == 0x8000_7FFF
    assert model("u4", 3, 20, 0xFFFFFFFF) == 0xFFFFFF_3F


@pytest.mark.parametrize("dtype", ["u8", "s8", "u4", "s4", "u2", "s2"])
def test_three_source_forms(run_op, dtype: str) -> None:
    triples = list(itertools.product(EDGES, EDGES[::3], C_VALUES))
    a, b, c = (np.array([t[i] for t in triples], dtype=np.int64) for i in range(3))
    got = run_op(f"cvt.pack.sat.{dtype}.s32.b32 %d, %a0, %a1, %a2", ["s32", "s32", "b32"], "b32",
                 a, b, c & 0xFFFFFFFF)
    expected = [model(dtype, int(x), int(y), int(z) & 0xFFFFFFFF) for x, y, z in zip(a, b, c)]
    bad = [i for i, (g, e) in enumerate(zip(got, expected)) if int(g) != e]
    assert not bad, (f"{dtype}: {len(bad)} wrong, first a={a[bad[0]]} b={b[bad[0]]} c={c[bad[0]]:#x}: "
                     f"got {int(got[bad[0]]):#x}, expected {expected[bad[0]]:#x}")


@pytest.mark.parametrize("dtype", ["u16", "s16"])
def test_two_source_forms(run_op, dtype: str) -> None:
    pairs = list(itertools.product(EDGES, EDGES))
    a, b = (np.array([p[i] for p in pairs], dtype=np.int64) for i in range(2))
    got = run_op(f"cvt.pack.sat.{dtype}.s32 %d, %a0, %a1", ["s32", "s32"], "b32", a, b)
    expected = [model(dtype, int(x), int(y), 0) for x, y in zip(a, b)]
    bad = [i for i, (g, e) in enumerate(zip(got, expected)) if int(g) != e]
    assert not bad, (f"{dtype}: {len(bad)} wrong, first a={a[bad[0]]} b={b[bad[0]]}: "
                     f"got {int(got[bad[0]]):#x}, expected {expected[bad[0]]:#x}")
