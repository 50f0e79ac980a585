"""Constant folding agrees with the independent PTX reference model (``ptx2gcn.reference``).

Each PTX instruction is built into IR by the builder (so its modifiers become attributes the way
real code's do); the evaluator then computes the op on random operands, and the reference model
computes the same instruction from the PTX ISA; the bit patterns must agree on every lane the
reference defines.
"""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.ir.core import Op
from ptx2gcn.ir.evaluate import evaluate
from ptx2gcn.reference import run
from ptx2gcn.translate.load import module_from_ptx

LANES = 64
INSTRUCTIONS = [
    "add.u32", "add.s32", "add.sat.s32", "sub.u32", "sub.sat.s32", "mul.lo.u32", "mul.lo.s32",
    "mul.hi.u32", "mul.hi.s32", "mul.wide.u32", "mul.wide.s32", "min.s32", "min.u32", "max.s32",
    "max.u32", "and.b32", "or.b32", "xor.b32", "not.b32", "cnot.b32", "shl.b32", "shr.u32", "shr.s32",
    "shr.b32", "popc.b32", "clz.b32", "brev.b32", "bfe.u32", "bfe.s32", "bfi.b32", "prmt.b32",
    "setp.lt.s32", "setp.lt.u32", "setp.ge.u32", "setp.hi.u32", "setp.ne.b32", "add.u64", "mul.hi.s64",
    "shl.b64", "shr.s64", "bfe.s64", "popc.b64", "clz.b64", "mad.lo.u32", "mad.lo.s32", "mad.hi.u32",
    "mad.hi.s32", "mad.wide.u32", "mad.wide.s32", "mad.lo.u64", "min.relu.s32", "max.relu.s32",
    # packed 16-bit halves of a .b32 register (PTX 8.0, sm_90)
    *(f"{op}.{t}" for op in ("add", "min", "max") for t in ("u16x2", "s16x2")),
    "min.relu.s16x2", "max.relu.s16x2",
]


def _shape(instruction: str) -> tuple[int, int, int]:
    """(number of sources, source width, destination width) of an instruction."""
    opcode = instruction.split(".")[0]
    width = 32 if instruction.endswith("16x2") else int(instruction[-2:])
    sources = {"not": 1, "cnot": 1, "popc": 1, "clz": 1, "brev": 1, "bfe": 3, "bfi": 4, "prmt": 3,
               "mad": 3}.get(opcode, 2)
    dest = 2 * width if ".wide." in instruction else (32 if opcode in ("popc", "clz") else width)
    return sources, width, dest


def _built_op(instruction: str) -> Op:
    sources, width, dest = _shape(instruction)
    kinds = {32: "b32", 64: "b64"}
    if instruction.startswith("setp"):
        dest_reg, dest_decl = "%p1", ".reg .pred %p1;"
    else:
        dest_reg, dest_decl = f"%d{dest}", f".reg .b{dest} %d{dest};"
    names = []
    for i in range(sources):
        # bfe/bfi positions and lengths and shift amounts are .u32 operands whatever the width.
        bits = 32 if (instruction.startswith(("bfe", "bfi")) and i >= sources - 2) else width
        if instruction.startswith(("shl", "shr")) and i == 1:
            bits = 32
        if ".wide." in instruction and i == 2:
            bits = 2 * width  # mad.wide adds a double-width c
        names.append(f"%s{bits}_{i}")
    decls = " ".join(f".reg .{kinds[int(n[2:4])]} {n};" for n in names)
    text = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
            f"{decls} {dest_decl}\n{instruction} {dest_reg}, {', '.join(names)};\nret;\n}}\n")
    fn = module_from_ptx(text, "t.ptx").functions[0]
    opcode = instruction.split(".")[0]
    name = {"setp": "setp"}.get(opcode, opcode)
    return next(op for op in fn.ops() if op.name == name)


@pytest.mark.parametrize("instruction", INSTRUCTIONS)
def test_evaluator_matches_reference(instruction: str) -> None:
    op = _built_op(instruction)
    rng = np.random.default_rng(abs(hash(instruction)) % 2**32)
    sources, width, _ = _shape(instruction)
    dtype = np.uint32 if width == 32 else np.uint64
    arrays = []
    for i, value in enumerate(op.operand_values):
        bits = value.type.bits
        kind = np.uint32 if bits <= 32 else np.uint64
        raw = rng.integers(0, 2**bits, size=LANES, dtype=np.uint64).astype(kind)
        if instruction.startswith(("shl", "shr")) and i == 1:
            raw = rng.integers(0, 2 * width + 2, size=LANES, dtype=np.uint64).astype(np.uint32)
        if instruction.startswith(("bfe", "bfi")) and i >= sources - 2:
            raw = rng.integers(0, 80, size=LANES, dtype=np.uint64).astype(np.uint32)
        arrays.append(raw)
    del dtype
    expected = run(instruction, *arrays).outputs[0]
    for lane in range(LANES):
        if not expected.defined[lane]:
            continue
        got = evaluate(op, [int(a[lane]) for a in arrays])
        assert got is not None, f"{instruction} was not evaluated"
        assert got[0] == int(expected.bits[lane]), (
            f"{instruction} {[hex(int(a[lane])) for a in arrays]}: folded {got[0]:#x}, "
            f"reference {int(expected.bits[lane]):#x}")
