"""Warp-matrix instructions: ``mma.sync.aligned``, ``ldmatrix``, ``stmatrix``, ``movmatrix``, on the
32 lanes of a warp, with the fragments and arithmetic of ``ptx2gcn.reference.mma``.

Invariant: these are ``.aligned`` instructions, so all 32 lanes of the warp execute them together
(``sync.fire_collective`` waits for the whole warp; fewer lanes is a located error). A ``D``
register is fixed only where the model fixes every element it holds (``Expected.bits``: integer and
``.f64`` forms, and float forms whose data make the result exact) and every input it depends on is
specified; elsewhere the register is unspecified. ``wmma`` is in ``interp.wmma``.
"""

from __future__ import annotations

from ptx2gcn.diagnostics import Ptx2GcnError, UnsupportedError
from ptx2gcn.frontend import ast
from ptx2gcn.interp.alu import spelling
from ptx2gcn.interp.memops import addresses_of, region_of, space_of
from ptx2gcn.interp.state import WARP, Cta, Value, Warp
from ptx2gcn.interp.wmma import unknown_products
from ptx2gcn.reference import ReferenceInputError
from ptx2gcn.reference.mma import Expected, MmaForm, matrix_expected, mma_form, to_matrix
from ptx2gcn.reference.mma import ldmatrix as model_ldmatrix
from ptx2gcn.reference.mma import movmatrix as model_movmatrix
from ptx2gcn.reference.mma import stmatrix as model_stmatrix
from ptx2gcn.reference.mma_layouts import Fragment

MATRIX = frozenset({"mma", "ldmatrix", "stmatrix", "movmatrix"})


def _whole_warp(ins: ast.Instruction, lanes: list[int]) -> None:
    if len(lanes) != WARP:
        raise Ptx2GcnError.at(ins.span, f"reference interpreter: {ins.opcode}.sync.aligned needs all 32 lanes of "
                              f"the warp, {len(lanes)} execute it")


def _elements(op: ast.Operand) -> tuple[ast.Operand, ...]:
    return op.elements if isinstance(op, ast.Vector) else (op,)


def _registers(cta: Cta, warp: Warp, op: ast.Operand, count: int, bits: int, ins: ast.Instruction
               ) -> tuple[list[list[int]], list[list[bool]]]:
    """``regs[lane][r]`` of a fragment operand (0 where unspecified), and ``unknown[lane][r]``."""
    elements = _elements(op)
    if len(elements) != count:
        raise Ptx2GcnError.at(op.span, f"reference interpreter: {ins.opcode} expects {count} registers here")
    lanes = list(range(WARP))
    columns = [cta.read(warp, e, f"b{bits}", lanes) for e in elements]
    return ([[int(column[lane] or 0) for column in columns] for lane in lanes],
            [[column[lane] is None for column in columns] for lane in lanes])


def _write(cta: Cta, warp: Warp, op: ast.Operand, bits: int, regs: list[list[Value]]) -> None:
    lanes = list(range(WARP))
    for r, element in enumerate(_elements(op)):
        cta.write(warp, element, f"b{bits}", lanes, [regs[lane][r] for lane in lanes])


def _unsupported(ins: ast.Instruction, error: ReferenceInputError) -> UnsupportedError:
    return UnsupportedError.feature(ins.span, spelling(ins), f"the reference model: {error}")


def mma(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    _whole_warp(ins, lanes)
    text = spelling(ins)
    try:
        form = mma_form(text)
    except ReferenceInputError as error:
        raise _unsupported(ins, error) from None
    if len(ins.operands) != 4:
        raise UnsupportedError.feature(ins.span, text, "only d, a, b, c operands are modelled by the reference "
                                       "interpreter")
    d_op, a_op, b_op, c_op = ins.operands
    frags: list[tuple[ast.Operand, Fragment]] = [(a_op, form.shape.a), (b_op, form.shape.b), (c_op, form.c_frag)]
    inputs = [_registers(cta, warp, op, frag.regs, frag.reg_bits, ins) for op, frag in frags]
    expected = matrix_expected_of(text, form, [regs for regs, _ in inputs])
    # which A/B/C elements are unspecified: the same layouts applied to an all-ones mask per register
    a, b, c = (to_matrix(frag, [[(1 << frag.reg_bits) - 1 if u else 0 for u in lane] for lane in unknown])
               for (_, frag), (_, unknown) in zip(frags, inputs))
    fixed = unknown_products(expected, *(_as_values(m) for m in (a, b, c)))
    d = form.d_frag
    out: list[list[Value]] = []
    for lane in range(WARP):
        words: list[Value] = [0] * d.regs
        for i in range(d.count):
            row, col = d.where(lane, i)
            r, shift = i // d.per_reg, i % d.per_reg * d.elem_bits
            word, bits = words[r], fixed[row][col]
            words[r] = None if word is None or bits is None else word | (bits & ((1 << d.elem_bits) - 1)) << shift
        out.append(words)
    _write(cta, warp, d_op, d.reg_bits, out)


def _as_values(mask_matrix: list[list[int]]) -> list[list[Value]]:
    return [[None if m else 0 for m in row] for row in mask_matrix]


def matrix_expected_of(text: str, form: MmaForm, regs: list[list[list[int]]]) -> list[list[Expected]]:
    """What the model expects for each element of D, as a matrix."""
    a, b, c = (to_matrix(frag, r) for frag, r in zip((form.shape.a, form.shape.b, form.c_frag), regs))
    return matrix_expected(text, a, b, c)


def _count(ins: ast.Instruction) -> tuple[int, bool]:
    """``.x1/.x2/.x4`` and ``.trans`` of an ``m8n8.b16`` ldmatrix/stmatrix (other shapes unsupported)."""
    mods = set(ins.modifiers)
    if not {".m8n8", ".b16"} <= mods:
        raise UnsupportedError.feature(ins.span, spelling(ins), "only .m8n8 .b16 is modelled by the reference "
                                       "interpreter")
    num = next((int(m[2:]) for m in ins.modifiers if m in (".x1", ".x2", ".x4")), 0)
    if not num:
        raise UnsupportedError.feature(ins.span, spelling(ins), "needs .x1, .x2 or .x4")
    return num, ".trans" in mods


def ldmatrix(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    _whole_warp(ins, lanes)
    num, trans = _count(ins)
    space, thread = space_of(ins), warp.threads[0]
    unknown = False

    def read16(address: int) -> int:
        nonlocal unknown
        region, offset = region_of(cta, ins, space, address, 2, thread)
        value = region.fetch(offset, 2)
        unknown |= value is None
        return value or 0

    regs = model_ldmatrix(num, trans, addresses_of(cta, warp, ins, ins.operands[1], lanes), read16)
    _write(cta, warp, ins.operands[0], 32, [[None if unknown else v for v in lane] for lane in regs])


def stmatrix(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    _whole_warp(ins, lanes)
    num, trans = _count(ins)
    space, thread = space_of(ins), warp.threads[0]
    regs, unknown_regs = _registers(cta, warp, ins.operands[1], num, 32, ins)
    unknown = any(any(lane) for lane in unknown_regs)  # a lane's element may land anywhere: all or nothing

    def write16(address: int, value: int) -> None:
        region, offset = region_of(cta, ins, space, address, 2, thread)
        region.put(offset, 2, None if unknown else value)

    model_stmatrix(num, trans, addresses_of(cta, warp, ins, ins.operands[0], lanes), regs, write16)


def movmatrix(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    _whole_warp(ins, lanes)
    if set(ins.modifiers) != {".sync", ".aligned", ".m8n8", ".trans", ".b16"}:
        raise UnsupportedError.feature(ins.span, spelling(ins), "expected movmatrix.sync.aligned.m8n8.trans.b16")
    regs, unknown_regs = _registers(cta, warp, ins.operands[1], 1, 32, ins)
    unknown = any(lane[0] for lane in unknown_regs)
    moved = model_movmatrix([lane[0] for lane in regs])
    _write(cta, warp, ins.operands[0], 32, [[None if unknown else v] for v in moved])
