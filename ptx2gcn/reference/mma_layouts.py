"""Where each element of a warp-level matrix fragment lives: the PTX ISA fragment figures, literally.

Invariant: a ``Fragment`` maps (``%laneid``, element index ``i``) to (row, col) of its matrix with
the formula printed under the PTX ISA figure (section 9.7.14.5 "Matrix Fragments for mma.mMnNkK",
9.7.14.5.x per shape; ldmatrix/stmatrix/movmatrix: 9.7.14.5.15-17), written forward exactly as the
manual writes it, with ``groupID = %laneid >> 2`` and ``threadID_in_group = %laneid % 4``. Element
``i`` sits in register ``i // per_reg`` at bit offset ``(i % per_reg) * elem_bits`` (the manual lists
each register's elements "low to high"). Every (row, col) of the matrix is held by exactly one
(lane, i); ``tests/reference/test_mma_model.py`` checks that for every fragment here.
This module is the oracle's copy; the compiler transcribes the inverse maps independently
(``ptx2gcn/emit/matrix_layouts.py``), so a transcription slip in either shows up as a test failure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Fragment:
    """One operand's distribution over the 32 lanes of a warp."""

    rows: int
    cols: int
    elem_bits: int
    regs: int
    """Registers per lane."""
    reg_bits: int
    where: Callable[[int, int], tuple[int, int]]
    """(lane, i) -> (row, col)."""

    @property
    def per_reg(self) -> int:
        return self.reg_bits // self.elem_bits

    @property
    def count(self) -> int:
        """Elements per lane."""
        return self.regs * self.per_reg


def _gt(lane: int) -> tuple[int, int]:
    return lane >> 2, lane % 4


# m16n8k16, f16/bf16 (Figures 79, 81, 82).
def _a_16816_f16(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    row = g if i < 2 or 4 <= i < 6 else g + 8
    col = t * 2 + (i & 1) + (8 if i >= 4 else 0)
    return row, col


def _b_16816_f16(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return t * 2 + (i & 1) + (8 if i >= 2 else 0), g


def _c_m16n8(lane: int, i: int) -> tuple[int, int]:
    """C/D of every m16n8kK shape (f32, f16 and s32 accumulators): c0..c3."""
    g, t = _gt(lane)
    return (g if i < 2 else g + 8), t * 2 + (i & 1)


# m16n8k8: f16/bf16 (Figures 71, 74), tf32 (Figures 72, 75).
def _a_1688_f16(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return (g if i < 2 else g + 8), t * 2 + (i & 1)


def _b_1688_f16(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return t * 2 + i, g


def _a_1688_tf32(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return (g if i in (0, 2) else g + 8), (t if i < 2 else t + 4)


def _b_1688_tf32(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return (t if i == 0 else t + 4), g


# m16n8k4 tf32 (Figures 67, 68).
def _a_1684_tf32(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return (g if i == 0 else g + 8), t


def _b_1684_tf32(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return t, g


# m16n8k16 .s8/.u8 (Figures 83, 84) and m16n8k32 .s8/.u8 (Figures 88, 89).
def _a_16816_i8(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return (g if i < 4 else g + 8), t * 4 + (i & 3)


def _b_16816_i8(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return t * 4 + i, g


def _a_16832_i8(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    row = g if i < 4 or 8 <= i < 12 else g + 8
    return row, t * 4 + (i & 3) + (16 if i >= 8 else 0)


def _b_16832_i8(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return t * 4 + (i & 3) + (16 if i >= 4 else 0), g


# m8n8k4 .f64 (Figures 53-55).
def _a_884_f64(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return g, t


def _b_884_f64(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return t, g


def _c_884_f64(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return g, t * 2 + i


# sm_90 f64 m16n8k4 / m16n8k8 / m16n8k16 (Figures 73, 76, 80 and the B/C figures next to them; the
# B formulas cross-checked with CUTLASS CuTe's SM90_16x8xK_F64F64F64F64_TN traits).
def _a_1684_f64(lane: int, i: int) -> tuple[int, int]:
    return _a_1684_tf32(lane, i)


def _a_16816_f64(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    row = g if i % 2 == 0 else g + 8
    col = i * 2 + t if i % 2 == 0 else i * 2 - 2 + t
    return row, col


def _b_f64(lane: int, i: int) -> tuple[int, int]:
    """B of m16n8k{4,8,16} .f64: b_i at row threadID_in_group + 4 * i, column groupID."""
    g, t = _gt(lane)
    return t + 4 * i, g


# m8n8k16 .s8/.u8 (Figures 56-58), m8n8k32 .s4/.u4 (Figures 59-61), m8n8k128 .b1 (Figures 62-64): C/D
# of all three is ``_c_884_f64``'s formula on .s32 registers.
def _a_m8n8(per_lane: int) -> Callable[[int, int], tuple[int, int]]:
    def where(lane: int, i: int) -> tuple[int, int]:
        g, t = _gt(lane)
        return g, t * per_lane + i
    return where


def _b_m8n8(per_lane: int) -> Callable[[int, int], tuple[int, int]]:
    def where(lane: int, i: int) -> tuple[int, int]:
        g, t = _gt(lane)
        return t * per_lane + i, g
    return where


# m16n8k32 .s4/.u4 (Figures 90-92) and m16n8k64 (Figures 93-95).
def _a_16832_i4(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return (g if i < 8 else g + 8), t * 8 + (i & 7)


def _a_16864_i4(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    row = g if i < 8 or 16 <= i < 24 else g + 8
    return row, t * 8 + (i & 7) + (32 if i >= 16 else 0)


def _b_16864_i4(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return t * 8 + (i & 7) + (32 if i >= 8 else 0), g


# m16n8k128 .b1 (Figures 97-99) and m16n8k256 (Figures 100-103).
def _a_168128_b1(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return (g if i < 32 else g + 8), t * 32 + (i & 0x1F)


def _a_168256_b1(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    row = g if i < 32 or 64 <= i < 96 else g + 8
    return row, t * 32 + (i & 0x1F) + (128 if i >= 64 else 0)


def _b_168256_b1(lane: int, i: int) -> tuple[int, int]:
    g, t = _gt(lane)
    return t * 32 + (i & 0x1F) + (128 if i >= 32 else 0), g


def _m8n8_b16(lane: int, i: int) -> tuple[int, int]:
    """One 8x8 .b16 matrix as ldmatrix delivers it, stmatrix stores it and movmatrix reads/writes it:
    "a group of four threads loads an entire row", thread l holding row l/4, columns 2(l%4) + i."""
    return lane >> 2, (lane % 4) * 2 + i


# m8n8k4 .f16 (Volta; 9.7.14.5.1, Figures 46-52): MMA computation q = (%laneid >> 2) % 4 runs on
# lanes 4q..4q+3 ("low group") and 16+4q..16+4q+3 ("high group"); t = %laneid % 4, hi = %laneid >= 16.
# The C/D figures (f32: two rows x four columns per lane) are cross-checked with CUTLASS CuTe's
# SM70_8x8_32b / SM70_8x8_16b layouts.
def _volta(lane: int) -> tuple[int, int, int]:
    return (lane >> 2) % 4, lane % 4, int(lane >= 16)


def _a_884_row(lane: int, i: int) -> tuple[int, int]:
    q, t, hi = _volta(lane)
    return 8 * q + t + 4 * hi, i


def _a_884_col(lane: int, i: int) -> tuple[int, int]:
    q, t, hi = _volta(lane)
    return 8 * q + i + 4 * hi, t


def _b_884_col(lane: int, i: int) -> tuple[int, int]:
    q, t, hi = _volta(lane)
    return i, 8 * q + t + 4 * hi


def _b_884_row(lane: int, i: int) -> tuple[int, int]:
    q, t, hi = _volta(lane)
    return t, 8 * q + i + 4 * hi


def _c_884_f32(lane: int, i: int) -> tuple[int, int]:
    q, _, hi = _volta(lane)
    return 8 * q + (lane & 1) + 2 * (i >> 1 & 1) + 4 * hi, 2 * (lane >> 1 & 1) + (i & 1) + 4 * (i >> 2)


def _c_884_f16(lane: int, i: int) -> tuple[int, int]:
    q, t, hi = _volta(lane)
    return 8 * q + t + 4 * hi, i


@dataclass(frozen=True)
class MmaShape:
    """One ``mma.sync.aligned`` form: its three fragments and the element kind of A/B."""

    m: int
    n: int
    k: int
    a: Fragment
    b: Fragment
    c: Fragment
    quads: bool = False
    """Volta m8n8k4: four independent 8x8x4 products. Product q's A is rows 8q..8q+7 of a 32 x 4 A,
    its B columns 8q..8q+7 of a 4 x 32 B, its C/D rows 8q..8q+7 of a 32 x 8 C/D."""


def _frag(rows: int, cols: int, elem_bits: int, regs: int, where: Callable[[int, int], tuple[int, int]],
          reg_bits: int = 32) -> Fragment:
    return Fragment(rows, cols, elem_bits, regs, reg_bits, where)


C_F32 = _frag(16, 8, 32, 4, _c_m16n8)
C_F64 = _frag(16, 8, 64, 4, _c_m16n8, 64)
C_M8N8_S32 = _frag(8, 8, 32, 2, _c_884_f64)
C_F16 = _frag(16, 8, 16, 2, _c_m16n8)
MATRIX_8X8_B16 = _frag(8, 8, 16, 1, _m8n8_b16)

MMA_SHAPES: dict[tuple[str, str], MmaShape] = {
    ("m16n8k16", "f16"): MmaShape(16, 8, 16, _frag(16, 16, 16, 4, _a_16816_f16), _frag(16, 8, 16, 2, _b_16816_f16),
                                  C_F32),
    ("m16n8k8", "f16"): MmaShape(16, 8, 8, _frag(16, 8, 16, 2, _a_1688_f16), _frag(8, 8, 16, 1, _b_1688_f16), C_F32),
    ("m16n8k8", "tf32"): MmaShape(16, 8, 8, _frag(16, 8, 32, 4, _a_1688_tf32), _frag(8, 8, 32, 2, _b_1688_tf32),
                                  C_F32),
    ("m16n8k4", "tf32"): MmaShape(16, 8, 4, _frag(16, 4, 32, 2, _a_1684_tf32), _frag(4, 8, 32, 1, _b_1684_tf32),
                                  C_F32),
    ("m16n8k16", "i8"): MmaShape(16, 8, 16, _frag(16, 16, 8, 2, _a_16816_i8), _frag(16, 8, 8, 1, _b_16816_i8), C_F32),
    ("m16n8k32", "i8"): MmaShape(16, 8, 32, _frag(16, 32, 8, 4, _a_16832_i8), _frag(32, 8, 8, 2, _b_16832_i8), C_F32),
    ("m8n8k4", "f64"): MmaShape(8, 8, 4, _frag(8, 4, 64, 1, _a_884_f64, 64), _frag(4, 8, 64, 1, _b_884_f64, 64),
                                _frag(8, 8, 64, 2, _c_884_f64, 64)),
    ("m16n8k4", "f64"): MmaShape(16, 8, 4, _frag(16, 4, 64, 2, _a_1684_f64, 64), _frag(4, 8, 64, 1, _b_f64, 64),
                                 C_F64),
    ("m16n8k8", "f64"): MmaShape(16, 8, 8, _frag(16, 8, 64, 4, _a_1688_tf32, 64), _frag(8, 8, 64, 2, _b_f64, 64),
                                 C_F64),
    ("m16n8k16", "f64"): MmaShape(16, 8, 16, _frag(16, 16, 64, 8, _a_16816_f64, 64),
                                  _frag(16, 8, 64, 4, _b_f64, 64), C_F64),
    ("m8n8k16", "i8"): MmaShape(8, 8, 16, _frag(8, 16, 8, 1, _a_m8n8(4)), _frag(16, 8, 8, 1, _b_m8n8(4)), C_M8N8_S32),
    ("m8n8k32", "i4"): MmaShape(8, 8, 32, _frag(8, 32, 4, 1, _a_m8n8(8)), _frag(32, 8, 4, 1, _b_m8n8(8)), C_M8N8_S32),
    ("m8n8k128", "b1"): MmaShape(8, 8, 128, _frag(8, 128, 1, 1, _a_m8n8(32)), _frag(128, 8, 1, 1, _b_m8n8(32)),
                                 C_M8N8_S32),
    ("m16n8k32", "i4"): MmaShape(16, 8, 32, _frag(16, 32, 4, 2, _a_16832_i4), _frag(32, 8, 4, 1, _b_m8n8(8)), C_F32),
    ("m16n8k64", "i4"): MmaShape(16, 8, 64, _frag(16, 64, 4, 4, _a_16864_i4), _frag(64, 8, 4, 2, _b_16864_i4), C_F32),
    ("m16n8k128", "b1"): MmaShape(16, 8, 128, _frag(16, 128, 1, 2, _a_168128_b1), _frag(128, 8, 1, 1, _b_m8n8(32)),
                                  C_F32),
    ("m16n8k256", "b1"): MmaShape(16, 8, 256, _frag(16, 256, 1, 4, _a_168256_b1),
                                  _frag(256, 8, 1, 2, _b_168256_b1), C_F32),
    ("m16n8k32", "f8"): MmaShape(16, 8, 32, _frag(16, 32, 8, 4, _a_16832_i8), _frag(32, 8, 8, 2, _b_16832_i8), C_F32),
    ("m16n8k16", "f8"): MmaShape(16, 8, 16, _frag(16, 16, 8, 2, _a_16816_i8), _frag(16, 8, 8, 1, _b_16816_i8), C_F32),
}
"""(shape, element kind of A and B) -> fragments; kinds: f16 (also bf16), tf32, i8 (s8/u8), i4 (s4/u4),
b1, f64, f8 (e4m3/e5m2: the .s8 figures, "each register containing four .e4m3/.e5m2 elements").
An f16 accumulator (``.f16`` ctype/dtype) uses ``C_F16``: the same element positions, two per register."""


def element_kind(ptx_type: str) -> str:
    """The ``MMA_SHAPES`` kind of an A/B element type."""
    kinds = {"f16": "f16", "bf16": "f16", "tf32": "tf32", "s8": "i8", "u8": "i8", "s4": "i4", "u4": "i4", "b1": "b1",
             "f64": "f64", "e4m3": "f8", "e5m2": "f8"}
    return kinds.get(ptx_type, ptx_type)


def volta_shape(alayout: str, blayout: str, f16_accumulator: bool) -> MmaShape:
    """``mma.sync.aligned.m8n8k4.alayout.blayout`` with .f16 A/B (C by accumulator type)."""
    a = _frag(32, 4, 16, 2, _a_884_row if alayout == "row" else _a_884_col)
    b = _frag(4, 32, 16, 2, _b_884_row if blayout == "row" else _b_884_col)
    c = _frag(32, 8, 16, 4, _c_884_f16) if f16_accumulator else _frag(32, 8, 32, 8, _c_884_f32)
    return MmaShape(8, 8, 4, a, b, c, quads=True)


VOLTA_C_F16 = _frag(32, 8, 16, 4, _c_884_f16)
VOLTA_C_F32 = _frag(32, 8, 32, 8, _c_884_f32)
