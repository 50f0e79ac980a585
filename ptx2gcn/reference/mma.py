"""Warp-level matrix instructions: mma.sync.aligned (exact result and accepted error), ldmatrix,
stmatrix, movmatrix, on the 32 lanes of one warp.

Invariant: fragments go to matrices and back only through ``mma_layouts`` (the PTX ISA figures);
registers are raw bits, ``regs[lane][r]``. The model computes the *exact* ``A*B + C`` with
rationals and says which results it accepts, because tensor-core arithmetic is not sequential IEEE
on either vendor (NVIDIA aligns the terms of one fused dot product and truncates; CDNA3 fuses
groups of 8; microsoft/MMA-Sim, arXiv 2511.10909):

- ``.s8/.u8/.s4/.u4``: the exact sum, wrapped to 32 bits, or clamped to the s32 range with
  ``.satfinite`` (PTX ISA 9.7.14.5.14 "mma": "saturate ... to MIN_INT32/MAX_INT32"): bit exact.
- ``.b1`` with ``.and.popc`` / ``.xor.popc``: ``c`` plus the number of set bits of the AND / XOR of
  a row of A with a column of B, wrapped: bit exact.
- ``.f64``: an FMA chain ``d = fma(a[K-1], b[K-1], ... fma(a0, b0, c))`` in k order, each step
  rounded to nearest even: bit exact (both vendors run f64 mma as an FMA chain).
- ``.f16/.bf16/.tf32/.e4m3/.e5m2`` into ``.f32``: ``|d - exact| <= (K+2) * 2^-23 * (|c| + sum |a_k b_k|)``, plus
  ``K * 2^-149`` for results near the subnormal range; a result whose exact value is an integer
  below 2^24 in magnitude with all partial sums exact (small-integer data) must be bit exact,
  which is what proves the layouts. ``.tf32`` operands use only their top 19 bits (the low 13
  mantissa bits of the .b32 register are ignored, as NVIDIA's tensor cores do: MMA-Sim).
- ``.f16`` results: the f32 bound, then one rounding to f16 (``+ 2^-11 |y| + 2^-25``).
- NaN: any NaN input, ``0 * inf`` or ``inf - inf`` gives the canonical NaN NVIDIA GPUs produce
  (``0x7fffffff`` f32, ``0x7fff`` f16); f64 accepts any NaN. Infinite terms of one sign give that
  infinity. Subnormal inputs are exact values (no flushing: PTX mma has no ``.ftz``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ptx2gcn.reference.errors import ReferenceInputError
from ptx2gcn.reference.floatformat import BF16, E4M3, E5M2, F16, F32, F64, FloatFormat
from ptx2gcn.reference.fparith import fma
from ptx2gcn.reference.mma_layouts import (
    C_F16,
    MATRIX_8X8_B16,
    MMA_SHAPES,
    VOLTA_C_F16,
    VOLTA_C_F32,
    Fragment,
    MmaShape,
    element_kind,
    volta_shape,
)
from ptx2gcn.reference.rounding import round_fraction
from ptx2gcn.reference.spelling import AnyNaN, Either

WARP = 32
Regs = Sequence[Sequence[int]]
"""``regs[lane][r]``: raw register bits of one fragment, 32 lanes."""


def to_matrix(frag: Fragment, regs: Regs) -> list[list[int]]:
    """The matrix (raw element bits) that the warp's fragment registers hold."""
    matrix = [[-1] * frag.cols for _ in range(frag.rows)]
    mask = (1 << frag.elem_bits) - 1
    for lane in range(WARP):
        for i in range(frag.count):
            row, col = frag.where(lane, i)
            word = regs[lane][i // frag.per_reg]
            matrix[row][col] = word >> (i % frag.per_reg * frag.elem_bits) & mask
    return matrix


def from_matrix(frag: Fragment, matrix: Sequence[Sequence[int]]) -> list[list[int]]:
    """The fragment registers of every lane holding ``matrix`` (raw element bits)."""
    regs = [[0] * frag.regs for _ in range(WARP)]
    mask = (1 << frag.elem_bits) - 1
    for lane in range(WARP):
        for i in range(frag.count):
            row, col = frag.where(lane, i)
            regs[lane][i // frag.per_reg] |= (matrix[row][col] & mask) << (i % frag.per_reg * frag.elem_bits)
    return regs


@dataclass(frozen=True)
class MmaForm:
    """A parsed ``mma.sync.aligned.shape.row.col[.satfinite].dtype.atype.btype.ctype`` spelling."""

    shape: MmaShape
    dtype: str
    atype: str
    btype: str
    ctype: str
    satfinite: bool
    bitop: str = ""
    """``and`` or ``xor`` for the single-bit forms (``.and.popc`` / ``.xor.popc``)."""

    @property
    def c_frag(self) -> Fragment:
        return self._accumulator(self.ctype)

    @property
    def d_frag(self) -> Fragment:
        return self._accumulator(self.dtype)

    def _accumulator(self, ptx_type: str) -> Fragment:
        if self.shape.quads:
            return VOLTA_C_F16 if ptx_type == "f16" else VOLTA_C_F32
        return C_F16 if ptx_type == "f16" else self.shape.c


def mma_form(spelling: str) -> MmaForm:
    """Parse an mma spelling; ``ReferenceInputError`` for forms the model does not know."""
    words = spelling.split(".")
    layouts = tuple(words[4:6])
    volta = words[3:4] == ["m8n8k4"] and "f16" in words[6:]
    if words[:3] != ["mma", "sync", "aligned"] or (layouts != ("row", "col") and not volta) or \
            not set(layouts) <= {"row", "col"}:
        raise ReferenceInputError(f"{spelling}: expected mma.sync.aligned.<shape>.row.col...")
    rest = words[6:]
    satfinite = "satfinite" in rest
    bitops = [w for w in rest if w in ("and", "xor")]
    if bitops and rest[-1] != "popc":
        raise ReferenceInputError(f"{spelling}: single-bit mma ends in .and.popc or .xor.popc")
    types = [w for w in rest if w not in ("satfinite", "and", "xor", "popc")]
    if len(types) == 2:  # f16 forms spell only dtype.ctype
        types = [types[0], "f16", "f16", types[1]]
    mixed = types[1] != types[2] and element_kind(types[1]) not in ("i8", "i4", "f8")  # only these may differ
    if len(types) != 4 or element_kind(types[1]) != element_kind(types[2]) or mixed:
        raise ReferenceInputError(f"{spelling}: expected dtype.atype.btype.ctype")
    shape = MMA_SHAPES.get((words[3], element_kind(types[1])))
    if volta and types[1] == "f16":
        shape = volta_shape(layouts[0], layouts[1], False)
    if shape is None:
        raise ReferenceInputError(f"{spelling}: shape/type not modelled")
    if (types[1] == "b1") != bool(bitops):
        raise ReferenceInputError(f"{spelling}: .and.popc / .xor.popc go with .b1, and .b1 needs one")
    return MmaForm(shape, types[0], types[1], types[2], types[3], satfinite, bitops[0] if bitops else "")


_FORMATS: dict[str, FloatFormat] = {"f16": F16, "bf16": BF16, "tf32": F32, "f32": F32, "f64": F64, "e4m3": E4M3,
                                    "e5m2": E5M2}
_INTEGER_BITS = {"s8": 8, "u8": 8, "s4": 4, "u4": 4, "b1": 1}


def _value(ptx_type: str, bits: int) -> Fraction | float:
    """An element's exact value; NaN and infinities as Python floats."""
    width = _INTEGER_BITS.get(ptx_type)
    if width is not None:
        signed = ptx_type.startswith("s") and bits >> (width - 1)
        return Fraction(bits - (1 << width) if signed else bits)
    if ptx_type == "s32":
        return Fraction(bits - (1 << 32) if bits >> 31 else bits)
    if ptx_type == "tf32":
        bits &= 0xFFFFE000
    fmt = _FORMATS[ptx_type]
    if fmt.is_nan(bits):
        return math.nan
    if fmt.is_inf(bits):
        return -math.inf if fmt.is_negative(bits) else math.inf
    return fmt.exact(bits)


@dataclass(frozen=True)
class Expected:
    """What one D element may be: exact bits, a NaN, or a value within ``bound`` of ``exact``."""

    bits: int | None = None
    nan: bool = False
    exact: Fraction | None = None
    bound: Fraction = Fraction(0)
    infinity: float | None = None

    def accepts(self, fmt: FloatFormat | None, got: int) -> bool:
        if self.bits is not None:
            return got == self.bits
        assert fmt is not None
        if self.nan:
            return fmt.is_nan(got) if fmt.width == 64 else got == fmt.canonical_nan
        if self.infinity is not None:
            return fmt.is_inf(got) and fmt.is_negative(got) == (self.infinity < 0)
        if fmt.is_nan(got):
            return False
        if fmt.is_inf(got):  # an exact value at the edge of the range may round to infinity
            return self.exact is not None and abs(self.exact) + self.bound >= fmt.exact(fmt.max_finite)
        assert self.exact is not None
        return abs(fmt.exact(got) - self.exact) <= self.bound


def _terms(form: MmaForm, a: list[list[int]], b: list[list[int]], row: int, col: int
           ) -> list[tuple[Fraction | float, Fraction | float]]:
    col += 8 * (row // 8) if form.shape.quads else 0  # Volta: product q's B is columns 8q..8q+7
    return [(_value(form.atype, a[row][k]), _value(form.btype, b[k][col])) for k in range(form.shape.k)]


def _special(terms: list[tuple[Fraction | float, Fraction | float]], c: Fraction | float) -> Expected | None:
    """NaN/infinity rules for a float element (None: every operand is finite)."""
    values = [x for pair in terms for x in pair] + [c]
    if not any(isinstance(x, float) for x in values):
        return None
    if any(isinstance(x, float) and math.isnan(x) for x in values):
        return Expected(nan=True)
    signs: set[bool] = set()
    for x, y in terms:
        if isinstance(x, float) or isinstance(y, float):
            if x == 0 or y == 0:
                return Expected(nan=True)
            signs.add((x < 0) != (y < 0))
    if isinstance(c, float):
        signs.add(c < 0)
    if len(signs) == 2:
        return Expected(nan=True)
    return Expected(infinity=-math.inf if signs.pop() else math.inf)


def _f64_chain(a_bits: list[int], b_bits: list[int], c_bits: int) -> Expected:
    acc: int | AnyNaN | Either = c_bits
    for x, y in zip(a_bits, b_bits):
        if not isinstance(acc, int):
            return Expected(nan=True)
        acc = fma(F64, x, y, acc, "rn")
    if isinstance(acc, int) and not F64.is_nan(acc):
        return Expected(bits=acc)
    return Expected(nan=True)


def _float_element(form: MmaForm, terms: list[tuple[Fraction | float, Fraction | float]],
                   c: Fraction | float) -> Expected:
    special = _special(terms, c)
    if special is not None:
        return special
    exact = sum((Fraction(x) * Fraction(y) for x, y in terms), Fraction(c))
    k = form.shape.k
    bound = Fraction(k + 2, 1 << 23) * (abs(Fraction(c)) + sum(abs(Fraction(x) * Fraction(y)) for x, y in terms))
    bound += Fraction(k, 1 << 149)
    if form.dtype == "f16":
        bound += (abs(exact) + bound) / (1 << 11) + Fraction(1, 1 << 25)
    if _small_integer(exact, terms, c):
        fmt = F16 if form.dtype == "f16" else F32
        return Expected(bits=round_fraction(fmt, exact, "rn"))
    return Expected(exact=exact, bound=bound)


def _small_integer(exact: Fraction, terms: list[tuple[Fraction | float, Fraction | float]], c: Fraction | float
                   ) -> bool:
    """Integer data whose every partial sum (in any order) is exact in f32: the result is unique."""
    values = [Fraction(x) * Fraction(y) for x, y in terms] + [Fraction(c)]
    if exact == 0 or any(v.denominator != 1 for v in values):
        return False  # an exact zero may carry either sign: the bound check accepts both
    return sum(abs(v) for v in values) < 1 << 24


def _int_element(form: MmaForm, terms: list[tuple[Fraction | float, Fraction | float]], c: Fraction | float
                 ) -> Expected:
    if form.bitop:  # popc of the AND / XOR of a row of A and a column of B, added to c
        ones = sum((int(x) & int(y)) if form.bitop == "and" else (int(x) ^ int(y)) for x, y in terms)
        return Expected(bits=(ones + int(c)) & 0xFFFFFFFF)
    total = int(sum((Fraction(x) * Fraction(y) for x, y in terms), Fraction(c)))
    if form.satfinite:
        total = max(-(1 << 31), min((1 << 31) - 1, total))
    return Expected(bits=total & 0xFFFFFFFF)


def mma_expected(spelling: str, a: Regs, b: Regs, c: Regs) -> list[list[Expected]]:
    """Per lane, per D element: what ``mma`` must produce for fragment registers ``a``, ``b``, ``c``."""
    form = mma_form(spelling)
    am, bm = to_matrix(form.shape.a, a), to_matrix(form.shape.b, b)
    cm = to_matrix(form.c_frag, c)
    out: list[list[Expected]] = []
    for lane in range(WARP):
        row_out: list[Expected] = []
        for i in range(form.d_frag.count):
            row, col = form.d_frag.where(lane, i)
            row_out.append(_element(form, am, bm, row, col, cm[row][col]))
        out.append(row_out)
    return out


def _element(form: MmaForm, am: list[list[int]], bm: list[list[int]], row: int, col: int, c_bits: int) -> Expected:
    if form.atype == "f64":
        return _f64_chain([am[row][k] for k in range(form.shape.k)], [bm[k][col] for k in range(form.shape.k)],
                          c_bits)
    terms = _terms(form, am, bm, row, col)
    c = _value(form.ctype, c_bits)
    if form.dtype == "s32":
        return _int_element(form, terms, c)
    return _float_element(form, terms, c)


def matrix_expected(spelling: str, a: Sequence[Sequence[int]], b: Sequence[Sequence[int]],
                    c: Sequence[Sequence[int]]) -> list[list[Expected]]:
    """What ``A*B + C`` must be per element for whole matrices of raw element bits (any M and N; K
    is the spelling's): the arithmetic of ``mma_expected`` without fragments, for ``wmma.mma``,
    whose fragment layout PTX leaves to the implementation."""
    form = mma_form(spelling)
    am, bm = [list(r) for r in a], [list(r) for r in b]
    return [[_element(form, am, bm, row, col, c[row][col]) for col in range(len(c[0]))] for row in range(len(c))]


def chain_expected(spelling: str, steps: Sequence[tuple[Sequence[Sequence[int]], Sequence[Sequence[int]]]],
                   c: Sequence[Sequence[int]]) -> list[list[Expected]]:
    """What D is after the chain ``D_1 = A_1 B_1 + C``, ``D_i = A_i B_i + D_(i-1)`` (a kernel's loop
    over K), for whole matrices of raw element bits and finite float data. Integers and f64 are
    followed step by step (bit exact); floats accumulate the per-step bound, each step's error
    growing by what came before: ``b_i = b_(i-1) + (K+2) 2^-23 (|x_(i-1)| + b_(i-1) + sum |a b|_i)``
    (``x`` exact; plus ``K 2^-149`` and, for .f16 D, one f16 rounding per step). Small-integer chains
    whose every partial sum is exact in the D format must be bit exact."""
    form = mma_form(spelling)
    if form.ctype != form.dtype:
        raise ReferenceInputError(f"{spelling}: a chain feeds D back as C: ctype must equal dtype")
    rows, cols = len(c), len(c[0])
    out: list[list[Expected]] = []
    for row in range(rows):
        out.append([_chain_element(form, steps, row, col, c[row][col]) for col in range(cols)])
    return out


def _chain_element(form: MmaForm, steps: Sequence[tuple[Sequence[Sequence[int]], Sequence[Sequence[int]]]],
                   row: int, col: int, c_bits: int) -> Expected:
    if form.dtype == "s32" or form.atype == "f64":
        bits = c_bits
        for a, b in steps:
            step = _element(form, [list(r) for r in a], [list(r) for r in b], row, col, bits)
            if step.bits is None:
                return step
            bits = step.bits
        return Expected(bits=bits)
    exact, bound = Fraction(_value(form.ctype, c_bits)), Fraction(0)
    total_abs, integral = abs(exact), exact.denominator == 1
    for a, b in steps:
        terms = _terms(form, [list(r) for r in a], [list(r) for r in b], row, col)
        if any(isinstance(x, float) for pair in terms for x in pair):
            raise ReferenceInputError("chain_expected models finite data only")
        products = [Fraction(x) * Fraction(y) for x, y in terms]
        magnitude = sum(abs(p) for p in products)
        bound += Fraction(form.shape.k + 2, 1 << 23) * (abs(exact) + bound + magnitude)
        bound += Fraction(form.shape.k, 1 << 149)
        exact += sum(products)
        total_abs += magnitude
        integral = integral and all(p.denominator == 1 for p in products)
        if form.dtype == "f16":
            bound += (abs(exact) + bound) / (1 << 11) + Fraction(1, 1 << 25)
    if integral and exact != 0 and total_abs < 1 << (11 if form.dtype == "f16" else 24):
        return Expected(bits=round_fraction(F16 if form.dtype == "f16" else F32, exact, "rn"))
    return Expected(exact=exact, bound=bound)


def element_format(ptx_type: str) -> FloatFormat | None:
    """The float format of a D element type (None for .s32)."""
    return _FORMATS.get(ptx_type)


def mma_disagreements(spelling: str, a: Regs, b: Regs, c: Regs, d: Regs) -> list[str]:
    """Readable list of the D elements (lane, element) that ``d`` gets wrong; empty when all accepted."""
    form = mma_form(spelling)
    fmt = None if form.dtype == "s32" else _FORMATS[form.dtype]
    frag = form.d_frag
    mask = (1 << frag.elem_bits) - 1
    wrong: list[str] = []
    for lane, expected in enumerate(mma_expected(spelling, a, b, c)):
        for i, want in enumerate(expected):
            got = d[lane][i // frag.per_reg] >> (i % frag.per_reg * frag.elem_bits) & mask
            if not want.accepts(fmt, got):
                wrong.append(f"lane {lane} d{i} {frag.where(lane, i)}: got {got:#x}, expected {want}")
    return wrong


Read16 = Callable[[int], int]
Write16 = Callable[[int, int], None]


def ldmatrix(num: int, trans: bool, addresses: Sequence[int], read16: Read16) -> list[list[int]]:
    """``ldmatrix.sync.aligned.m8n8.x{num}[.trans].b16``: lanes 8m..8m+7 give the row addresses of
    matrix m; each lane receives one register per matrix (PTX ISA 9.7.14.5.15). ``.trans`` delivers
    the transpose: fragment element (row, col) is memory row ``col``, column ``row``."""
    regs = [[0] * num for _ in range(WARP)]
    for m in range(num):
        for lane in range(WARP):
            for i in range(2):
                row, col = MATRIX_8X8_B16.where(lane, i)
                mem_row, mem_col = (col, row) if trans else (row, col)
                regs[lane][m] |= (read16(addresses[8 * m + mem_row] + 2 * mem_col) & 0xFFFF) << (16 * i)
    return regs


def stmatrix(num: int, trans: bool, addresses: Sequence[int], regs: Regs, write16: Write16) -> None:
    """``stmatrix.sync.aligned.m8n8.x{num}[.trans].b16``: the inverse of ``ldmatrix``."""
    for m in range(num):
        for lane in range(WARP):
            for i in range(2):
                row, col = MATRIX_8X8_B16.where(lane, i)
                mem_row, mem_col = (col, row) if trans else (row, col)
                write16(addresses[8 * m + mem_row] + 2 * mem_col, regs[lane][m] >> (16 * i) & 0xFFFF)


def movmatrix(regs: Sequence[int]) -> list[int]:
    """``movmatrix.sync.aligned.m8n8.trans.b16``: the fragment of the transposed matrix."""
    matrix = to_matrix(MATRIX_8X8_B16, [[r] for r in regs])
    transposed = [[matrix[c][r] for c in range(8)] for r in range(8)]
    return [lane[0] for lane in from_matrix(MATRIX_8X8_B16, transposed)]
