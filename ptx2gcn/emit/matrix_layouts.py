"""The compiler's copy of the PTX warp-level matrix fragment layouts, written as *inverse* maps.

Invariant: ``Layout.home(row, col)`` is the (``%laneid``, element index) that holds matrix element
(row, col) in the PTX ISA fragment figures (9.7.14.5 "Matrix Fragments for mma.mMnNkK";
ldmatrix/stmatrix/movmatrix 9.7.14.5.15-17), inverted by hand from the manual's formulas
(``groupID = %laneid >> 2``, ``threadID_in_group = %laneid % 4``). Element ``i`` sits in register
``i // per_reg`` at bit ``(i % per_reg) * elem_bits``. This is deliberately a second, independent
transcription: the test oracle (``ptx2gcn.reference.mma_layouts``) writes the forward maps, and the
emulator tests compare the two through compiled code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

Home = Callable[[int, int], tuple[int, int]]
"""(row, col) -> (lane, element index)."""


@dataclass(frozen=True)
class Layout:
    rows: int
    cols: int
    elem_bits: int
    regs: int
    reg_bits: int
    home: Home

    @property
    def per_reg(self) -> int:
        return self.reg_bits // self.elem_bits

    @cached_property
    def owned(self) -> tuple[tuple[tuple[int, int], ...], ...]:
        """``owned[lane][i]`` = (row, col): the forward map, derived from ``home``."""
        table: dict[tuple[int, int], tuple[int, int]] = {}
        for row in range(self.rows):
            for col in range(self.cols):
                table[self.home(row, col)] = (row, col)
        count = self.regs * self.per_reg
        return tuple(tuple(table[(lane, i)] for i in range(count)) for lane in range(32))


def _acc(row: int, col: int) -> tuple[int, int]:
    """C/D of the m16n8kK shapes: lane 4*(row%8) + col/2; element col%2, +2 in the lower half."""
    return 4 * (row % 8) + col // 2, (col & 1) + 2 * (row >= 8)


def _a16816_f16(row: int, col: int) -> tuple[int, int]:
    return 4 * (row % 8) + (col % 8) // 2, (col & 1) + 2 * (row >= 8) + 4 * (col >= 8)


def _b16816_f16(row: int, col: int) -> tuple[int, int]:
    return 4 * col + (row % 8) // 2, (row & 1) + 2 * (row >= 8)


def _b1688_f16(row: int, col: int) -> tuple[int, int]:
    return 4 * col + row // 2, row & 1


def _a1688_tf32(row: int, col: int) -> tuple[int, int]:
    return 4 * (row % 8) + col % 4, (row >= 8) + 2 * (col >= 4)


def _b1688_tf32(row: int, col: int) -> tuple[int, int]:
    return 4 * col + row % 4, int(row >= 4)


def _a1684_tf32(row: int, col: int) -> tuple[int, int]:
    return 4 * (row % 8) + col, int(row >= 8)


def _b_col_major(row: int, col: int) -> tuple[int, int]:
    """B of m16n8k4 tf32 and m8n8k4 f64: one element per lane, lane 4*col + row."""
    return 4 * col + row, 0


def _a16816_i8(row: int, col: int) -> tuple[int, int]:
    return 4 * (row % 8) + col // 4, (col & 3) + 4 * (row >= 8)


def _b16816_i8(row: int, col: int) -> tuple[int, int]:
    return 4 * col + row // 4, row & 3


def _a16832_i8(row: int, col: int) -> tuple[int, int]:
    return 4 * (row % 8) + (col % 16) // 4, (col & 3) + 4 * (row >= 8) + 8 * (col >= 16)


def _b16832_i8(row: int, col: int) -> tuple[int, int]:
    return 4 * col + (row % 16) // 4, (row & 3) + 4 * (row >= 16)


def _a884_f64(row: int, col: int) -> tuple[int, int]:
    return 4 * row + col, 0


def _c884_f64(row: int, col: int) -> tuple[int, int]:
    return 4 * row + col // 2, col & 1


def _m8n8_b16(row: int, col: int) -> tuple[int, int]:
    """ldmatrix/stmatrix/movmatrix: four lanes per row, two 16-bit elements per lane."""
    return 4 * row + col // 2, col & 1


ACC_F32 = Layout(16, 8, 32, 4, 32, _acc)
ACC_F16 = Layout(16, 8, 16, 2, 32, _acc)
ACC_S32 = ACC_F32
MATRIX_8X8 = Layout(8, 8, 16, 1, 32, _m8n8_b16)


@dataclass(frozen=True)
class MmaLayouts:
    k: int
    a: Layout
    b: Layout
    acc: Layout
    """The f32/s32/f64 accumulator (an .f16 accumulator uses ``ACC_F16``)."""


MMA: dict[tuple[str, str], MmaLayouts] = {
    ("m16n8k16", "f16"): MmaLayouts(16, Layout(16, 16, 16, 4, 32, _a16816_f16), Layout(16, 8, 16, 2, 32, _b16816_f16),
                                    ACC_F32),
    ("m16n8k8", "f16"): MmaLayouts(8, Layout(16, 8, 16, 2, 32, _acc), Layout(8, 8, 16, 1, 32, _b1688_f16), ACC_F32),
    ("m16n8k8", "tf32"): MmaLayouts(8, Layout(16, 8, 32, 4, 32, _a1688_tf32), Layout(8, 8, 32, 2, 32, _b1688_tf32),
                                    ACC_F32),
    ("m16n8k4", "tf32"): MmaLayouts(4, Layout(16, 4, 32, 2, 32, _a1684_tf32), Layout(4, 8, 32, 1, 32, _b_col_major),
                                    ACC_F32),
    ("m16n8k16", "i8"): MmaLayouts(16, Layout(16, 16, 8, 2, 32, _a16816_i8), Layout(16, 8, 8, 1, 32, _b16816_i8),
                                   ACC_S32),
    ("m16n8k32", "i8"): MmaLayouts(32, Layout(16, 32, 8, 4, 32, _a16832_i8), Layout(32, 8, 8, 2, 32, _b16832_i8),
                                   ACC_S32),
    ("m8n8k4", "f64"): MmaLayouts(4, Layout(8, 4, 64, 1, 64, _a884_f64), Layout(4, 8, 64, 1, 64, _b_col_major),
                                  Layout(8, 8, 64, 2, 64, _c884_f64)),
}
"""(shape, element kind of A/B: f16 (also bf16), tf32, i8 (s8/u8), f64) -> fragment layouts."""

KIND = {"f16": "f16", "bf16": "f16", "tf32": "tf32", "s8": "i8", "u8": "i8", "f64": "f64"}
