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
Forward = Callable[[int, int], tuple[int, int]]
"""(lane, element index) -> (row, col)."""


@dataclass(frozen=True)
class Layout:
    rows: int
    cols: int
    elem_bits: int
    regs: int
    reg_bits: int
    home: Home
    forward: Forward | None = None
    """For a layout that holds some elements in several lanes (ptx2gcn's own wmma layouts,
    ``wmma_mfma``): the full forward map; ``home`` then names one holder of each element."""

    @property
    def per_reg(self) -> int:
        return self.reg_bits // self.elem_bits

    @cached_property
    def owned(self) -> tuple[tuple[tuple[int, int], ...], ...]:
        """``owned[lane][i]`` = (row, col): the forward map, derived from ``home`` (or ``forward``)."""
        count = self.regs * self.per_reg
        if self.forward is not None:
            forward = self.forward
            return tuple(tuple(forward(lane, i) for i in range(count)) for lane in range(32))
        table: dict[tuple[int, int], tuple[int, int]] = {}
        for row in range(self.rows):
            for col in range(self.cols):
                table[self.home(row, col)] = (row, col)
        return tuple(tuple(table[(lane, i)] for i in range(count)) for lane in range(32))


def _acc(row: int, col: int) -> tuple[int, int]:
    """C/D of every mMn8kK shape: lane 4*(row%8) + col/2; element col%2, +2 in rows 8-15."""
    return 4 * (row % 8) + col // 2, (col & 1) + 2 * (row >= 8)


def _multiplicand(chunk: int, rows_of_a: bool) -> Home:
    """A (``rows_of_a``) or B of every mma.mMn8kK shape, by the number of consecutive K elements one
    lane holds (``chunk``: 32 / element bits, 1 for .tf32/.f64). Four lanes in a row of the figure
    cover ``4 * chunk`` consecutive K values (a *block*); A rows 8-15 and further K blocks go to the
    next registers: element ``k % chunk + chunk * (row >= 8) + 2 * chunk * (k // block)`` of lane
    ``4 * (row % 8) + (k % block) // chunk`` (B: lane ``4 * n + ...``, element ``k % chunk + chunk *
    (k // block)``). This reproduces each figure of 9.7.14.5 (e.g. m16n8k16 .f16 A: chunk 2, a4 at
    (g, 2t + 8))."""
    block = 4 * chunk

    def home(row: int, col: int) -> tuple[int, int]:
        if rows_of_a:
            return 4 * (row % 8) + (col % block) // chunk, col % chunk + chunk * (row >= 8) + 2 * chunk * (col // block)
        return 4 * col + (row % block) // chunk, row % chunk + chunk * (row // block)
    return home


def _m8n8_b16(row: int, col: int) -> tuple[int, int]:
    """ldmatrix/stmatrix/movmatrix: four lanes per row, two 16-bit elements per lane."""
    return 4 * row + col // 2, col & 1


ACC_F16 = Layout(16, 8, 16, 2, 32, _acc)
MATRIX_8X8 = Layout(8, 8, 16, 1, 32, _m8n8_b16)


@dataclass(frozen=True)
class MmaLayouts:
    k: int
    a: Layout
    b: Layout
    acc: Layout
    """The f32/s32/f64 accumulator (an .f16 accumulator uses ``ACC_F16``)."""
    acc_f16: Layout = ACC_F16
    quads: bool = False
    """Volta m8n8k4 .f16: four independent products; D row r uses B columns 8 * (r // 8) + n."""


_ELEMENT_BITS = {"f16": 16, "tf32": 32, "i8": 8, "i4": 4, "b1": 1, "f64": 64, "f8": 8}


def _shape(m: int, k: int, kind: str) -> MmaLayouts:
    bits = _ELEMENT_BITS[kind]
    reg_bits = 64 if kind == "f64" else 32
    chunk = max(32 // bits, 1)
    per_lane_a, per_lane_b = m * k // 32, k * 8 // 32

    def layout(rows: int, cols: int, per_lane: int, home: Home) -> Layout:
        return Layout(rows, cols, bits, per_lane * bits // reg_bits, reg_bits, home)
    acc = Layout(m, 8, reg_bits, m * 8 // 32, reg_bits, _acc)
    return MmaLayouts(k, layout(m, k, per_lane_a, _multiplicand(chunk, True)),
                      layout(k, 8, per_lane_b, _multiplicand(chunk, False)), acc)


_SHAPES = {
    "f16": ("m16n8k16", "m16n8k8"), "tf32": ("m16n8k8", "m16n8k4"), "i8": ("m16n8k32", "m16n8k16", "m8n8k16"),
    "i4": ("m16n8k64", "m16n8k32", "m8n8k32"), "b1": ("m16n8k256", "m16n8k128", "m8n8k128"),
    "f64": ("m16n8k16", "m16n8k8", "m16n8k4", "m8n8k4"), "f8": ("m16n8k32", "m16n8k16"),
}
MMA: dict[tuple[str, str], MmaLayouts] = {
    (shape, kind): _shape(int(shape[1:].split("n")[0]), int(shape.split("k")[1]), kind)
    for kind, shapes in _SHAPES.items() for shape in shapes
}
"""(shape, element kind of A/B) -> fragment layouts. Kinds: f16 (also bf16), tf32, i8 (s8/u8), i4
(s4/u4), b1, f64, f8 (e4m3/e5m2)."""

def _quad(row: int) -> tuple[int, int]:
    """Volta: (lane of the product's first low-group thread, row within the 8 x 8 product)."""
    return 4 * (row // 8), row % 8


def _volta_a(row_major: bool) -> Home:
    """A of m8n8k4 .f16 as a 32 x 4 matrix (product q: rows 8q..): rows 0-3 of a product in the low
    lanes 4q + t, rows 4-7 in the high lanes 16 + 4q + t; .row: a lane holds a row, .col: a column."""
    def home(row: int, col: int) -> tuple[int, int]:
        base, r = _quad(row)
        high = 16 * (r >= 4)
        return (base + r % 4 + high, col) if row_major else (base + col + high, r % 4)
    return home


def _volta_b(row_major: bool) -> Home:
    """B as a 4 x 32 matrix (product q: columns 8q..): .col: a lane holds a column, .row: a row."""
    def home(row: int, col: int) -> tuple[int, int]:
        base, n = _quad(col)
        high = 16 * (n >= 4)
        return (base + row + high, n % 4) if row_major else (base + n % 4 + high, row)
    return home


def _volta_f32(row: int, col: int) -> tuple[int, int]:
    """f32 C/D as 32 x 8: a lane holds two rows (r & 1, + 2) and four columns (two pairs)."""
    base, r = _quad(row)
    lane = base + (r & 1) + 2 * (col >> 1 & 1) + 16 * (r >= 4)
    return lane, (col & 1) + 2 * (r >> 1 & 1) + 4 * (col >> 2)


def _volta_f16(row: int, col: int) -> tuple[int, int]:
    base, r = _quad(row)
    return base + r % 4 + 16 * (r >= 4), col


VOLTA: dict[tuple[str, str], MmaLayouts] = {
    (a, b): MmaLayouts(4, Layout(32, 4, 16, 2, 32, _volta_a(a == "row")),
                       Layout(4, 32, 16, 2, 32, _volta_b(b == "row")), Layout(32, 8, 32, 8, 32, _volta_f32),
                       Layout(32, 8, 16, 4, 32, _volta_f16), quads=True)
    for a in ("row", "col") for b in ("row", "col")
}
"""mma.m8n8k4 .f16 (Volta) by (alayout, blayout)."""

KIND = {"f16": "f16", "bf16": "f16", "tf32": "tf32", "s8": "i8", "u8": "i8", "s4": "i4", "u4": "i4", "b1": "b1",
        "f64": "f64", "e4m3": "f8", "e5m2": "f8"}
