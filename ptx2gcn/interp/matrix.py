"""Warp-matrix instructions: ``mma.sync.aligned``, ``ldmatrix``, ``stmatrix``, ``movmatrix``, on the
32 lanes of a warp, with the fragments and arithmetic of ``ptx2gcn.reference.mma``.

Invariant: these are ``.aligned`` instructions, so all 32 lanes of the warp execute them together
(``sync.fire_collective`` waits for the whole warp; fewer lanes is a located error). A ``D``
register is fixed only where the model fixes every element it holds (``Expected.bits``: integer and
``.f64`` forms, and float forms whose data make the result exact); elsewhere tensor-core rounding is
left open by PTX and the register is unspecified. A fragment register that is unspecified makes the
whole result unspecified (any lane's element can reach any other lane). ``wmma`` is not modelled:
its fragment layout is the implementation's.
"""

from __future__ import annotations

from ptx2gcn.diagnostics import Ptx2GcnError, UnsupportedError
from ptx2gcn.frontend import ast
from ptx2gcn.interp.alu import spelling
from ptx2gcn.interp.memops import addresses_of, region_of, space_of
from ptx2gcn.interp.state import WARP, Cta, Value, Warp
from ptx2gcn.reference import ReferenceInputError
from ptx2gcn.reference.mma import ldmatrix as model_ldmatrix
from ptx2gcn.reference.mma import mma_expected, mma_form
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
               ) -> tuple[list[list[int]], bool]:
    """``regs[lane][r]`` of a fragment operand, and whether any of them is unspecified."""
    elements = _elements(op)
    if len(elements) != count:
        raise Ptx2GcnError.at(op.span, f"reference interpreter: {ins.opcode} expects {count} registers here")
    lanes = list(range(WARP))
    columns = [cta.read(warp, e, f"b{bits}", lanes) for e in elements]
    unknown = any(v is None for column in columns for v in column)
    return [[int(column[lane] or 0) for column in columns] for lane in lanes], unknown


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
    expected = mma_expected(text, *(regs for regs, _ in inputs))
    unknown = any(u for _, u in inputs)
    d = form.d_frag
    out: list[list[Value]] = []
    for lane in range(WARP):
        words: list[Value] = [0] * d.regs
        for i, want in enumerate(expected[lane]):
            r, shift = i // d.per_reg, i % d.per_reg * d.elem_bits
            word = words[r]
            words[r] = None if unknown or want.bits is None or word is None else \
                word | (want.bits & ((1 << d.elem_bits) - 1)) << shift
        out.append(words)
    _write(cta, warp, d_op, d.reg_bits, out)


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
    regs, unknown = _registers(cta, warp, ins.operands[1], num, 32, ins)

    def write16(address: int, value: int) -> None:
        region, offset = region_of(cta, ins, space, address, 2, thread)
        region.put(offset, 2, None if unknown else value)

    model_stmatrix(num, trans, addresses_of(cta, warp, ins, ins.operands[0], lanes), regs, write16)


def movmatrix(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    _whole_warp(ins, lanes)
    if set(ins.modifiers) != {".sync", ".aligned", ".m8n8", ".trans", ".b16"}:
        raise UnsupportedError.feature(ins.span, spelling(ins), "expected movmatrix.sync.aligned.m8n8.trans.b16")
    regs, unknown = _registers(cta, warp, ins.operands[1], 1, 32, ins)
    moved = model_movmatrix([lane[0] for lane in regs])
    _write(cta, warp, ins.operands[0], 32, [[None if unknown else v] for v in moved])
