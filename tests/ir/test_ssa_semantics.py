"""Random PTX programs mean the same before and after SSA construction and the whole pipeline.

A generator writes single-thread integer kernels with forward branches, counted loops, guarded
arithmetic, guarded stores and guarded branches. Two independent interpreters run them:
- ``PtxMachine`` steps the PTX text itself (a register file, labels, guards), computing every
  ALU instruction with the reference model ``ptx2gcn.reference`` (written from the PTX ISA);
- ``IrMachine`` runs the IR the builder produced, after the default pipeline, on block
  arguments and SSA values, using ``ptx2gcn.ir.evaluate`` for the pure ops.
Both write to a memory dictionary; the final memories must be identical.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np
import pytest

from ptx2gcn.frontend import ast, parse_ptx
from ptx2gcn.ir.core import Block, Function, Op, Value
from ptx2gcn.ir.evaluate import evaluate
from ptx2gcn.options import CompileOptions
from ptx2gcn.pipeline import run_passes
from ptx2gcn.reference import run
from ptx2gcn.translate.load import module_from_ptx

OUT = 0x1000
REGS = 6
OPS = ["add.u32", "sub.u32", "mul.lo.u32", "xor.b32", "and.b32", "shl.b32", "shr.u32", "shr.s32",
       "min.s32", "max.u32", "mul.hi.u32", "sub.sat.s32"]
OPS1 = ["popc.b32", "clz.b32", "brev.b32", "not.b32", "cnot.b32"]
OPS3 = ["mad.lo.u32", "mad.hi.s32", "bfe.u32", "bfe.s32", "prmt.b32"]


def generate(seed: int) -> str:  # noqa: C901
    rng = random.Random(seed)
    lines: list[str] = []
    label = 0

    def reg() -> str:
        return f"%r{rng.randrange(REGS)}"

    def operand() -> str:
        return reg() if rng.random() < 0.7 else str(rng.choice([0, 1, 3, 31, 0x80000000, 0xFFFFFFFF]))

    def straight(count: int) -> None:
        for _ in range(count):
            kind = rng.random()
            guard = rng.choice(["", "", f"@%p{rng.randrange(2)} ", f"@!%p{rng.randrange(2)} "])
            if kind < 0.4:
                lines.append(f"{guard}{rng.choice(OPS)} {reg()}, {reg()}, {operand()};")
            elif kind < 0.47:
                lines.append(f"{guard}{rng.choice(OPS1)} {reg()}, {reg()};")
            elif kind < 0.55:
                lines.append(f"{guard}{rng.choice(OPS3)} {reg()}, {reg()}, {operand()}, {operand()};")
            elif kind < 0.7:
                cmp = rng.choice(["lt.s32", "lt.u32", "eq.u32", "ne.u32", "ge.s32"])
                lines.append(f"{guard}setp.{cmp} %p{rng.randrange(2)}, {reg()}, {operand()};")
            elif kind < 0.8:
                lines.append(f"{guard}selp.b32 {reg()}, {operand()}, {operand()}, %p{rng.randrange(2)};")
            elif kind < 0.9:
                lines.append(f"{guard}st.global.u32 [%rd1+{4 * rng.randrange(16)}], {reg()};")
            else:
                lines.append(f"{guard}mov.u32 {reg()}, {operand()};")

    def region(depth: int) -> None:
        nonlocal label
        for _ in range(rng.randrange(1, 4)):
            choice = rng.random()
            if choice < 0.4 or depth == 0:
                straight(rng.randrange(1, 5))
            elif choice < 0.7:
                label += 1
                skip = label
                lines.append(f"@{'!' if rng.random() < 0.5 else ''}%p{rng.randrange(2)} bra L{skip};")
                region(depth - 1)
                lines.append(f"L{skip}:")
            else:
                label += 1
                top = label
                counter = f"%c{top}"
                lines.append(f"mov.u32 {counter}, {rng.randrange(1, 4)};")
                lines.append(f"L{top}:")
                region(depth - 1)
                lines.append(f"sub.u32 {counter}, {counter}, 1;")
                lines.append(f"setp.ne.u32 %q, {counter}, 0;")
                lines.append(f"@%q bra L{top};")

    region(3)
    counters = "".join(f".reg .b32 %c{i};" for i in range(1, label + 1))
    init = "".join(f"ld.global.u32 %r{i}, [%rd1+{4 * i}];\n" for i in range(REGS))
    preds = "setp.lt.u32 %p0, %r0, %r1;\nsetp.lt.s32 %p1, %r2, %r3;\n"
    tail = "".join(f"st.global.u32 [%rd1+{64 + 4 * i}], %r{i};\n" for i in range(REGS))
    return (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 k_p)\n{\n"
            f".reg .b32 %r<{REGS}>; .reg .pred %p<2>; .reg .pred %q; .reg .b64 %rd<2>; {counters}\n"
            f"ld.param.u64 %rd1, [k_p];\n{init}{preds}" + "\n".join(lines) + f"\n{tail}ret;\n}}\n")


def _memory(seed: int) -> dict[int, int]:
    rng = random.Random(seed * 7 + 1)
    return {OUT + 4 * i: rng.randrange(2**32) for i in range(32)}


@dataclass
class PtxMachine:
    """Steps the PTX instructions of the one kernel in order (the semantics under test)."""

    memory: dict[int, int]
    regs: dict[str, int] = field(default_factory=lambda: {})

    def value(self, operand: ast.Operand) -> int:
        if isinstance(operand, ast.IntImmediate):
            return operand.value & 0xFFFFFFFF
        assert isinstance(operand, ast.Register)
        return self.regs[operand.name]

    def address(self, operand: ast.Operand) -> int:
        assert isinstance(operand, ast.Address) and isinstance(operand.base, ast.Register)
        return self.regs[operand.base.name] + (operand.offset.value if operand.offset else 0)

    def run(self, body: ast.Block) -> None:
        code = [s for s in body.statements if isinstance(s, (ast.Instruction, ast.LabelDecl))]
        labels = {s.name: i for i, s in enumerate(code) if isinstance(s, ast.LabelDecl)}
        pc, steps = 0, 0
        while pc < len(code):
            steps += 1
            assert steps < 100_000, "runaway program"
            stmt = code[pc]
            pc += 1
            if isinstance(stmt, ast.LabelDecl):
                continue
            guard = stmt.guard
            if guard is not None and bool(self.regs[guard.predicate.name]) == guard.negated:
                continue
            name = ".".join([stmt.opcode, *(m.lstrip(".") for m in stmt.modifiers)])
            if stmt.opcode == "bra":
                pc = labels[stmt.operands[0].name]  # type: ignore[union-attr]
            elif stmt.opcode == "ret":
                return
            else:
                self.execute(name, stmt)

    def execute(self, name: str, stmt: ast.Instruction) -> None:
        ops = stmt.operands
        dest = ops[0]
        if name == "ld.param.u64":
            self.regs[dest.name] = OUT  # type: ignore[union-attr]
        elif name == "ld.global.u32":
            self.regs[dest.name] = self.memory[self.address(ops[1])]  # type: ignore[union-attr]
        elif name == "st.global.u32":
            self.memory[self.address(dest)] = self.value(ops[1])
        elif name == "mov.u32":
            self.regs[dest.name] = self.value(ops[1])  # type: ignore[union-attr]
        elif name == "selp.b32":
            a, b = (np.array([self.value(o)], dtype=np.uint32) for o in ops[1:3])
            pred = np.array([bool(self.regs[ops[3].name])])  # type: ignore[union-attr]
            self.regs[dest.name] = int(run(name, a, b, pred).outputs[0].bits[0])  # type: ignore[union-attr]
        else:
            sources = [np.array([self.value(o)], dtype=np.uint32) for o in ops[1:]]
            bits = run(name, *sources).outputs[0].bits[0]
            self.regs[dest.name] = int(bits)  # type: ignore[union-attr]


@dataclass
class IrMachine:
    """Runs IR: SSA values in a dictionary, block arguments bound on each branch."""

    memory: dict[int, int]
    values: dict[Value, int] = field(default_factory=lambda: {})
    pointers: dict[Value, int] = field(default_factory=lambda: {})

    def run(self, fn: Function) -> None:
        block: Block = fn.entry
        self.values[block.args[0]] = 0  # the address of parameter k_p
        steps = 0
        while True:
            for op in block.ops:
                steps += 1
                assert steps < 1_000_000, "runaway IR"
                target = self.step(op)
                if target is not None or op.name == "ret":
                    break
            if op.name == "ret":
                return
            assert target is not None
            block = target

    def step(self, op: Op) -> Block | None:  # noqa: C901
        get = self.values.__getitem__
        if op.name == "br":
            return self.jump(op, 0)
        if op.name == "cbr":
            return self.jump(op, 0 if get(op.operand(0)) else 1)
        if op.name == "ld" and op.attrs["type"] == "u64":
            self.values[op.result] = OUT
        elif op.name == "ld":
            self.values[op.result] = self.memory[get(op.operand(0))]
        elif op.name == "st":
            self.memory[get(op.operand(0))] = get(op.operand(1))
        elif op.name in ("inttoptr", "ptrtoint", "cvta"):
            self.values[op.result] = get(op.operand(0))
        elif op.name == "ptradd":
            self.values[op.result] = get(op.operand(0)) + get(op.operand(1))
        elif op.name == "const":
            self.values[op.result] = int(op.attrs["value"])
        elif op.name != "ret":
            results = evaluate(op, [get(v) for v in op.operand_values])
            assert results is not None, f"cannot evaluate {op.name} {op.attrs}"
            for result, bits in zip(op.results, results):
                self.values[result] = bits
        return None

    def jump(self, op: Op, index: int) -> Block:
        succ = op.successors[index]
        incoming = [self.values[v] for v in succ.arg_values]
        for arg, bits in zip(succ.block.args, incoming):
            self.values[arg] = bits
        return succ.block


@pytest.mark.parametrize("seed", range(40))
def test_random_program_semantics(seed: int) -> None:
    text = generate(seed)
    expected = _memory(seed)
    tree = parse_ptx(text, f"random{seed}.ptx")
    kernel = tree.functions[0]
    assert kernel.body is not None
    PtxMachine(expected).run(kernel.body)
    for passes in ((), None):
        module = module_from_ptx(text, f"random{seed}.ptx")
        run_passes(module, CompileOptions(passes=passes, verify_each=True))
        actual = _memory(seed)
        IrMachine(actual).run(module.functions[0])
        assert actual == expected, f"seed {seed}, passes {passes}:\n{text}"
