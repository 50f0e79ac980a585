"""The expected effect of a warp-matrix fuzz statement (``program.Matrix``), from the reference model
(``ptx2gcn.reference.mma``) only, one 32-thread warp at a time.

A destination register gets exact bits where the model fixes them (integer and ``.b1`` forms,
``.f64``, small-integer float data, canonical NaNs, infinities, every ldmatrix/stmatrix/movmatrix
bit). A float result the model only bounds (random data: ``|d - exact| <= bound``) is *checked*:
the register is poisoned for everything downstream (its bits are not known), and the final
comparison applies the model's acceptance to each of its elements (``Check``).

Invariant: a warp whose source registers hold any poisoned lane gets all its destinations poisoned
(a matrix instruction may read every lane); nothing here guesses a value PTX leaves open.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ptx2gcn.fuzz.matrix import REGION, conditioning
from ptx2gcn.fuzz.program import THREADS, WARP, Bits, Mask, Matrix, Operand
from ptx2gcn.reference.floatformat import F16, F64, FloatFormat
from ptx2gcn.reference.mma import (
    Expected,
    element_format,
    ldmatrix,
    matrix_expected,
    mma_expected,
    mma_form,
    movmatrix,
    stmatrix,
)

Key = tuple[str, int]
Part = tuple[int, int, "FloatFormat | None", Expected]
"""(bit offset, width, element format (None: integer), what the element may be) of one element."""
Check = tuple[Part, ...]
Write = Callable[[Key, Bits, Mask, dict[int, Check]], None]
"""Set a register in every thread: bits, poison, and the per-thread checks of bounded results."""
WMMA_BASE = {"f16": "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
             "f64": "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"}
"""The arithmetic of a fuzz wmma sequence: the mma with the same K and types."""


def check_accepts(check: Check, got: int) -> bool:
    return all(e.accepts(fmt, got >> off & ((1 << width) - 1)) for off, width, fmt, e in check)


def _fixed(e: Expected, fmt: FloatFormat | None) -> int | None:
    """The only bits ``e`` accepts, when there is one."""
    if e.bits is not None:
        return e.bits
    if fmt is not None and e.nan and fmt.width < 64:
        return fmt.canonical_nan
    if fmt is not None and e.infinity is not None:
        return fmt.infinity(e.infinity < 0)
    return None


def _to_float_bits(values: Bits, etype: str) -> Bits:
    v = values.astype(np.int64)
    if etype == "f16":
        return v.astype(np.float16).view(np.uint16).astype(np.uint64)
    if etype == "bf16":
        return (v.astype(np.float32).view(np.uint32) >> 16).astype(np.uint64)
    if etype == "f64":
        return v.astype(np.float64).view(np.uint64)
    return v.astype(np.float32).view(np.uint32).astype(np.uint64)


def condition_bits(bits: Bits, etype: str, nbits: int) -> Bits:
    """``fuzz.matrix._condition_text`` in numpy: small integers ``(x & mask) - bias`` per element."""
    mask, bias = np.uint64((1 << nbits) - 1), np.int64(1 << (nbits - 1))
    if etype in ("f16", "bf16"):
        lo = _to_float_bits((bits & mask).astype(np.int64) - bias, etype)
        hi = _to_float_bits(((bits >> np.uint64(16)) & mask).astype(np.int64) - bias, etype)
        return lo | (hi << np.uint64(16))
    return _to_float_bits((bits & mask).astype(np.int64) - bias, etype)


class _Warps:
    """Per-thread results of one statement, assembled warp by warp."""

    def __init__(self, dests: Sequence[Operand]) -> None:
        self.dests = dests
        self.bits = np.zeros((len(dests), THREADS), dtype=np.uint64)
        self.poison = np.zeros((len(dests), THREADS), dtype=np.bool_)
        self.checks: list[dict[int, Check]] = [{} for _ in dests]

    def taint(self, start: int) -> None:
        self.poison[:, start:start + WARP] = True

    def set_parts(self, k: int, thread: int, parts: list[Part]) -> None:
        fixed = [_fixed(e, fmt) for _, _, fmt, e in parts]
        if all(f is not None for f in fixed):
            self.bits[k, thread] = sum(int(f) << off for f, (off, _, _, _) in zip(fixed, parts))  # type: ignore[arg-type]
            return
        self.poison[k, thread] = True
        self.checks[k][thread] = tuple(parts)

    def write(self, write: Write) -> None:
        for k, op in enumerate(self.dests):
            write((op.cls, op.index), self.bits[k], self.poison[k], self.checks[k])


def _lanes(values: dict[Key, Bits], poison: dict[Key, Mask], ops: Sequence[Operand], start: int
           ) -> tuple[list[list[int]], bool]:
    regs = [[int(values[(o.cls, o.index)][start + lane]) for o in ops] for lane in range(WARP)]
    tainted = any(bool(poison[(o.cls, o.index)][start:start + WARP].any()) for o in ops)
    return regs, tainted


def apply_matrix(st: Matrix, values: dict[Key, Bits], poison: dict[Key, Mask], write: Write) -> None:
    for op, etype, nbits in conditioning(st):
        key = (op.cls, op.index)
        write(key, condition_bits(values[key], etype, nbits), poison[key].copy(), {})
    out = _Warps(st.dests)
    for start in range(0, THREADS, WARP):
        groups = [_lanes(values, poison, g, start) for g in st.sources]
        if any(t for _, t in groups):
            out.taint(start)
            continue
        regs = [r for r, _ in groups]
        {"mma": _mma, "movmatrix": _movmatrix, "ldmatrix": _ldst, "stmatrix": _ldst, "wmma": _wmma}[st.kind](
            st, regs, out, start)
    out.write(write)


def _mma(st: Matrix, regs: list[list[list[int]]], out: _Warps, start: int) -> None:
    form = mma_form(st.spelling)
    frag, fmt = form.d_frag, element_format(form.dtype)
    expected = mma_expected(st.spelling, *regs)
    for lane in range(WARP):
        for k in range(frag.regs):
            parts = [(j * frag.elem_bits, frag.elem_bits, fmt, expected[lane][k * frag.per_reg + j])
                     for j in range(frag.per_reg)]
            out.set_parts(k, start + lane, parts)


def _exact_regs(out: _Warps, start: int, regs: list[list[int]]) -> None:
    for lane in range(WARP):
        for k, bits in enumerate(regs[lane]):
            out.bits[k, start + lane] = bits


def _movmatrix(st: Matrix, regs: list[list[list[int]]], out: _Warps, start: int) -> None:
    _exact_regs(out, start, [[r] for r in movmatrix([lane[0] for lane in regs[0]])])


def _rows(fill: list[list[int]]) -> np.ndarray:
    """The 16-bit halves of the 32 rows of 16 bytes each lane stored (lane l: row l)."""
    halves = np.zeros(WARP * 8, dtype=np.int64)
    for lane, words in enumerate(fill):
        for j, word in enumerate(words):
            halves[lane * 8 + 2 * j] = word & 0xFFFF
            halves[lane * 8 + 2 * j + 1] = word >> 16 & 0xFFFF
    return halves


def _ldst(st: Matrix, regs: list[list[list[int]]], out: _Warps, start: int) -> None:
    halves = _rows(regs[0])
    mul, add = st.perm
    addresses = [16 * ((lane * mul + add) % WARP) for lane in range(WARP)]
    num, trans = int(st.spelling.split(".x")[1][0]), ".trans" in st.spelling
    if st.kind == "ldmatrix":
        _exact_regs(out, start, ldmatrix(num, trans, addresses, lambda a: int(halves[a // 2])))
        return

    def write16(address: int, value: int) -> None:
        halves[address // 2] = value

    stmatrix(num, trans, addresses, regs[1], write16)
    _exact_regs(out, start, [[int(halves[8 * lane + 2 * j]) | int(halves[8 * lane + 2 * j + 1]) << 16
                              for j in range(4)] for lane in range(WARP)])


def _wmma(st: Matrix, regs: list[list[list[int]]], out: _Warps, start: int) -> None:
    f64 = ".f64" in st.spelling
    es, n, k = (8, 8, 4) if f64 else (2, 16, 16)
    memory = np.zeros(REGION // es, dtype=np.uint64)  # elements
    offsets = (0, 256, 512) if f64 else (0, 512, 1024)
    mask = (1 << (8 * es)) - 1
    for group, offset in zip(regs, offsets):
        per_lane = len(group[0]) * (1 if f64 else 2)
        for lane, words in enumerate(group):
            for j in range(per_lane):
                word = words[j] if f64 else words[j // 2] >> (16 * (j % 2))
                memory[offset // es + lane * per_lane + j] = word & mask
    layout = dict(zip("abcd", st.layouts))

    def index(which: str, r: int, c: int, rows: int, cols: int) -> int:
        return r * cols + c if layout[which] == "row" else c * rows + r

    dims = {"a": (n, k), "b": (k, n), "c": (n, n)}
    mats = []
    for which, offset in zip("abc", offsets):
        rows, cols = dims[which]
        mats.append([[int(memory[offset // es + index(which, r, c, rows, cols)]) for c in range(cols)]
                     for r in range(rows)])
    expected = matrix_expected(WMMA_BASE["f64" if f64 else "f16"], *mats)
    fmt = F64 if f64 else F16
    per_reg = 1 if f64 else 2
    for lane in range(WARP):
        for reg in range(len(st.dests)):
            parts: list[Part] = []
            for j in range(per_reg):
                i = (16 * lane) // es + reg * per_reg + j
                r, c = (i // n, i % n) if layout["d"] == "row" else (i % n, i // n)
                parts.append((j * 8 * es, 8 * es, fmt, expected[r][c]))
            out.set_parts(reg, start + lane, parts)
