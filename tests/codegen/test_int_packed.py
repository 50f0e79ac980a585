"""Packed 16-bit integer arithmetic (PTX 8.0, sm_90): ``add/min/max`` on ``.u16x2``/``.s16x2`` and
``min/max.relu.s16x2``, run on the emulator vs a per-half Python model written from the PTX ISA.

PTX ISA 9.7.1.1 (add), 9.7.1.10/11 (min/max): for ``.u16x2``/``.s16x2`` the operation is applied to
each 16-bit half independently (no carry between halves, wrapping in 16 bits); min/max compare the
halves as unsigned or signed 16-bit values; ``.relu`` clamps a negative result to 0. There is no
packed ``sub`` (ptxas: "Unexpected instruction types specified for 'sub'").
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

HALVES = [0x0000, 0x0001, 0x0002, 0x7FFE, 0x7FFF, 0x8000, 0x8001, 0xFFFE, 0xFFFF, 0x00FF, 0x1234, 0xEDCB]


def _s16(x: int) -> int:
    return x - 0x10000 if x & 0x8000 else x


def _half_op(name: str, signed: bool, relu: bool, x: int, y: int) -> int:
    if name == "add":
        r = x + y
    else:
        xs, ys = (_s16(x), _s16(y)) if signed else (x, y)
        r = min(xs, ys) if name == "min" else max(xs, ys)
        if relu:
            r = max(r, 0)
    return r & 0xFFFF


def model(spelling: str, a: int, b: int) -> int:
    parts = spelling.split(".")
    name, relu, signed = parts[0], "relu" in parts, parts[-1] == "s16x2"
    low = _half_op(name, signed, relu, a & 0xFFFF, b & 0xFFFF)
    high = _half_op(name, signed, relu, a >> 16, b >> 16)
    return low | (high << 16)


def _operands() -> tuple[np.ndarray, np.ndarray]:
    words = [lo | (hi << 16) for lo, hi in itertools.product(HALVES, HALVES[::3])]
    a, b = zip(*itertools.product(words, words[::2]))
    return np.array(a, np.uint64), np.array(b, np.uint64)


@pytest.mark.parametrize("spelling", ["add.u16x2", "add.s16x2", "min.u16x2", "min.s16x2", "max.u16x2",
                                      "max.s16x2", "min.relu.s16x2", "max.relu.s16x2"])
def test_packed_16x2(run_op, spelling: str) -> None:
    a, b = _operands()
    got = run_op(f"{spelling} %d, %a0, %a1", ["b32", "b32"], "b32", a, b)
    expected = np.array([model(spelling, int(x), int(y)) for x, y in zip(a, b)], np.uint32)
    bad = np.flatnonzero(got != expected)
    assert not bad.size, (f"{spelling}: {bad.size} lanes differ, first a={int(a[bad[0]]):#x} "
                          f"b={int(b[bad[0]]):#x}: got {int(got[bad[0]]):#x}, "
                          f"expected {int(expected[bad[0]]):#x}")
