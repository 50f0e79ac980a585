"""``wmma.load``, ``wmma.mma``, ``wmma.store`` (PTX ISA 9.7.14.4): whole matrices through fragments
whose layout PTX leaves to the implementation.

Invariant: the interpreter picks one layout, the simplest: element ``e`` of lane ``l`` is element
``(l * E + e) mod (rows * cols)`` of the operand's matrix in row-major order (``E`` elements per
lane; a fragment that holds more than the matrix repeats it, and the first copy is the one read).
Only memory in and memory out is specified by PTX, and that does not depend on the layout, as long
as a kernel treats fragment elements alike (which is all PTX lets it rely on). The arithmetic is the
reference model's ``matrix_expected`` for the ``mma`` with the same K and types; a ``D`` element is
fixed only where the model fixes it and every input it depends on (its row of A, column of B, its
element of C) is specified. Sub-byte and ``.b1`` forms are not modelled.
"""

from __future__ import annotations

from ptx2gcn.diagnostics import Ptx2GcnError, UnsupportedError
from ptx2gcn.frontend import ast
from ptx2gcn.interp.alu import spelling
from ptx2gcn.interp.memops import addresses_of, region_of, space_of
from ptx2gcn.interp.state import WARP, Cta, Value, Warp
from ptx2gcn.reference import ReferenceInputError
from ptx2gcn.reference.mma import Expected, matrix_expected

SHAPES = {"m16n16k16": (16, 16, 16), "m32n8k16": (32, 8, 16), "m8n32k16": (8, 32, 16), "m16n16k8": (16, 16, 8),
          "m8n8k4": (8, 8, 4)}
BITS = {"f16": 16, "bf16": 16, "f32": 32, "s32": 32, "tf32": 32, "f64": 64, "s8": 8, "u8": 8}
TYPES = frozenset(BITS)


def _words(ins: ast.Instruction) -> list[str]:
    return [m.lstrip(".") for m in ins.modifiers]


def _shape(ins: ast.Instruction) -> tuple[int, int, int]:
    found = [SHAPES[w] for w in _words(ins) if w in SHAPES]
    if not found:
        raise UnsupportedError.feature(ins.span, spelling(ins), "this wmma shape is not modelled by the reference "
                                       "interpreter")
    return found[0]


def _dims(ins: ast.Instruction, operand: str) -> tuple[int, int]:
    m, n, k = _shape(ins)
    return {"a": (m, k), "b": (k, n), "c": (m, n), "d": (m, n)}[operand]


def _type(ins: ast.Instruction) -> str:
    types = [w for w in _words(ins) if w in TYPES]
    if not types:
        raise UnsupportedError.feature(ins.span, spelling(ins), "this wmma type is not modelled by the reference "
                                       "interpreter")
    return types[-1]


class _Fragment:
    """A fragment operand's registers in every lane, and its matrix under the chosen layout."""

    def __init__(self, registers: tuple[ast.Operand, ...], rows: int, cols: int, bits: int) -> None:
        self.registers, self.rows, self.cols, self.bits = registers, rows, cols, bits
        self.reg_bits = 64 if bits == 64 else 32
        self.per_reg = self.reg_bits // bits
        self.count = len(registers) * self.per_reg

    def where(self, lane: int, element: int) -> tuple[int, int]:
        return divmod((lane * self.count + element) % (self.rows * self.cols), self.cols)

    def gather(self, cta: Cta, warp: Warp) -> list[list[Value]]:
        """The matrix (element bits; None where unspecified), each element from its first copy."""
        lanes = list(range(WARP))
        columns = [cta.read(warp, r, f"b{self.reg_bits}", lanes) for r in self.registers]
        matrix: list[list[Value]] = [[None] * self.cols for _ in range(self.rows)]
        seen: set[tuple[int, int]] = set()
        mask = (1 << self.bits) - 1
        for lane in lanes:
            for e in range(self.count):
                row, col = self.where(lane, e)
                if (row, col) in seen:
                    continue
                seen.add((row, col))
                word = columns[e // self.per_reg][lane]
                matrix[row][col] = None if word is None else int(word) >> (e % self.per_reg * self.bits) & mask
        return matrix

    def scatter(self, cta: Cta, warp: Warp, matrix: list[list[Value]]) -> None:
        lanes = list(range(WARP))
        for r, register in enumerate(self.registers):
            words: list[Value] = []
            for lane in lanes:
                word: Value = 0
                for e in range(r * self.per_reg, (r + 1) * self.per_reg):
                    row, col = self.where(lane, e)
                    value = matrix[row][col]
                    word = None if word is None or value is None else \
                        int(word) | int(value) << (e % self.per_reg * self.bits)
                words.append(word)
            cta.write(warp, register, f"b{self.reg_bits}", lanes, words)


def _fragment(ins: ast.Instruction, op: ast.Operand, operand: str, typ: str) -> _Fragment:
    registers = op.elements if isinstance(op, ast.Vector) else (op,)
    rows, cols = _dims(ins, operand)
    return _Fragment(registers, rows, cols, BITS[typ])


def _element_addresses(cta: Cta, warp: Warp, ins: ast.Instruction, address: ast.Operand,
                       stride: ast.Operand | None, rows: int, cols: int, bits: int) -> dict[tuple[int, int], int]:
    """The address of every element of a ``.row``/``.col`` matrix in memory (stride in elements;
    without one the matrix is dense)."""
    base = addresses_of(cta, warp, ins, address, [0])[0]
    row_major = ".row" in ins.modifiers
    if stride is None:
        step = cols if row_major else rows
    else:
        values = cta.read(warp, stride, "u32", [0])
        if values[0] is None:
            raise Ptx2GcnError.at(ins.span, "reference interpreter: the stride is a value PTX leaves unspecified")
        step = int(values[0])
    size = bits // 8
    return {(r, c): base + size * ((r * step + c) if row_major else (c * step + r))
            for r in range(rows) for c in range(cols)}


def load(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    operand = next(w for w in _words(ins) if w in ("a", "b", "c"))
    frag = _fragment(ins, ins.operands[0], operand, _type(ins))
    stride = ins.operands[2] if len(ins.operands) > 2 else None
    where = _element_addresses(cta, warp, ins, ins.operands[1], stride, frag.rows, frag.cols, frag.bits)
    space, thread, size = space_of(ins), warp.threads[0], frag.bits // 8
    matrix: list[list[Value]] = [[None] * frag.cols for _ in range(frag.rows)]
    for (r, c), address in where.items():
        region, offset = region_of(cta, ins, space, address, size, thread)
        matrix[r][c] = region.fetch(offset, size)
    frag.scatter(cta, warp, matrix)


def store(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    frag = _fragment(ins, ins.operands[1], "d", _type(ins))
    stride = ins.operands[2] if len(ins.operands) > 2 else None
    where = _element_addresses(cta, warp, ins, ins.operands[0], stride, frag.rows, frag.cols, frag.bits)
    matrix = frag.gather(cta, warp)
    space, thread, size = space_of(ins), warp.threads[0], frag.bits // 8
    for (r, c), address in where.items():
        region, offset = region_of(cta, ins, space, address, size, thread)
        region.put(offset, size, matrix[r][c])


def base_spelling(ins: ast.Instruction) -> tuple[str, list[str]]:
    """The ``mma`` spelling with the same K and types (``ptx2gcn.reference.mma.matrix_expected``),
    and the D, A, B, C types."""
    words = _words(ins)
    types = [w for w in words if w in TYPES]
    if len(types) == 2:  # f16 forms spell only D and C
        types = [types[0], "f16", "f16", types[1]]
    if len(types) != 4:
        raise UnsupportedError.feature(ins.span, spelling(ins), "expected D, A, B, C types")
    base = {"tf32": "m16n8k8", "f64": "m8n8k4"}.get(types[1], "m16n8k16")
    sat = ".satfinite" if "satfinite" in words else ""
    return f"mma.sync.aligned.{base}.row.col{sat}.{'.'.join(types)}", types


def mma(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    text, (dtype, atype, btype, ctype) = base_spelling(ins)
    frags = [_fragment(ins, op, name, t) for op, name, t in zip(ins.operands, "dabc", (dtype, atype, btype, ctype))]
    d, *inputs = frags
    a, b, c = (f.gather(cta, warp) for f in inputs)
    try:
        expected = matrix_expected(text, *(_known(m) for m in (a, b, c)))
    except ReferenceInputError as error:
        raise UnsupportedError.feature(ins.span, spelling(ins), f"the reference model: {error}") from None
    d.scatter(cta, warp, unknown_products(expected, a, b, c))


def _known(matrix: list[list[Value]]) -> list[list[int]]:
    return [[int(v or 0) for v in row] for row in matrix]


def unknown_products(expected: list[list[Expected]], a: list[list[Value]], b: list[list[Value]],
                     c: list[list[Value]]) -> list[list[Value]]:
    """D's bits where the model fixes them and every input D[r][c] depends on (row r of A, column c
    of B, C[r][c]) is specified; None elsewhere."""
    rows = [any(v is None for v in row) for row in a]
    cols = [any(row[k] is None for row in b) for k in range(len(b[0]))]
    return [[None if rows[r] or cols[col] or c[r][col] is None else want.bits for col, want in enumerate(line)]
            for r, line in enumerate(expected)]


HANDLERS = {"load": load, "store": store, "mma": mma}


def wmma(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    if len(lanes) != WARP:
        raise Ptx2GcnError.at(ins.span, f"reference interpreter: wmma needs all 32 lanes of the warp, {len(lanes)} "
                              "execute it")
    kind = ins.modifiers[0].lstrip(".") if ins.modifiers else ""
    if kind not in HANDLERS:
        raise UnsupportedError.feature(ins.span, spelling(ins), "not modelled by the reference interpreter")
    HANDLERS[kind](cta, warp, ins, lanes)
