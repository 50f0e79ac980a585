"""Calls, parameter memory and local memory mean what the PTX says (hand-computed results).

A small IR interpreter with byte-addressed little-endian memory runs the kernels after the whole
pipeline: kernel parameters live in memory, ``alloca`` hands out fresh addresses, ``call`` runs
the callee with its arguments bound to the entry block. Expected values are computed by hand
from the PTX source of each case.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from ptx2gcn.ir.core import Block, Function, Module, Op, Value
from ptx2gcn.ir.evaluate import evaluate
from ptx2gcn.ir.types import VectorType
from ptx2gcn.options import CompileOptions
from ptx2gcn.pipeline import run_passes
from ptx2gcn.translate.load import module_from_ptx

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"
OUT, KPARAM = 0x1000, 0x100


@dataclass
class Machine:
    module: Module
    memory: dict[int, int] = field(default_factory=lambda: {})
    next_alloc: int = 0x8000

    def load(self, address: int, size: int) -> int:
        return sum(self.memory.get(address + i, 0) << (8 * i) for i in range(size))

    def store(self, address: int, size: int, value: int) -> None:
        for i in range(size):
            self.memory[address + i] = (value >> (8 * i)) & 0xFF

    def call(self, fn: Function, args: list[object]) -> list[object]:
        values: dict[Value, object] = dict(zip(fn.entry.args, args))
        block: Block = fn.entry
        while True:
            for op in block.ops:
                outcome = self.step(op, values)
                if isinstance(outcome, Block):
                    block = outcome
                    break
                if isinstance(outcome, list):
                    return outcome
            else:
                raise AssertionError("fell off a block")

    def step(self, op: Op, values: dict[Value, object]) -> Block | list[object] | None:
        get = values.__getitem__
        if op.name in ("br", "cbr"):
            succ = op.successors[0 if op.name == "br" or get(op.operand(0)) else 1]
            incoming = [get(v) for v in succ.arg_values]
            values.update(zip(succ.block.args, incoming))
            return succ.block
        if op.name == "ret":
            return [get(v) for v in op.operand_values]
        results = self.compute(op, [get(v) for v in op.operand_values])
        values.update(zip(op.results, results))
        return None

    def compute(self, op: Op, inputs: list[object]) -> list[object]:
        name = op.name
        if name == "const":
            return [op.attrs["value"]]
        if name in ("inttoptr", "ptrtoint", "cvta"):
            return inputs
        if name == "ptradd":
            return [int(inputs[0]) + _signed(int(inputs[1]), op.operand(1).type.bits)]  # type: ignore[arg-type]
        if name == "alloca":
            self.next_alloc += 0x100
            return [self.next_alloc]
        if name == "ld":
            return [self._ld(op, int(inputs[0]))]  # type: ignore[arg-type]
        if name == "st":
            self._st(op, int(inputs[0]), inputs[1])  # type: ignore[arg-type]
            return []
        if name == "call":
            callee = self.module.function(str(op.attrs["callee"]))
            assert callee is not None
            return self.call(callee, inputs)
        if isinstance(op.results[0].type if op.results else None, VectorType) and name == "pack":
            return [tuple(inputs)]
        if name == "unpack" and isinstance(inputs[0], tuple):
            return list(inputs[0])
        out = evaluate(op, [int(i) for i in inputs])  # type: ignore[arg-type]
        assert out is not None, f"cannot run {name} {op.attrs}"
        return list(out)

    def _ld(self, op: Op, address: int) -> object:
        t = op.results[0].type
        if isinstance(t, VectorType):
            size = t.elem.bits // 8
            return tuple(self.load(address + i * size, size) for i in range(t.count))
        return self.load(address, max(t.bits // 8, 1))

    def _st(self, op: Op, address: int, value: object) -> None:
        t = op.operand(1).type
        if isinstance(t, VectorType):
            size = t.elem.bits // 8
            for i, element in enumerate(value):  # type: ignore[arg-type]
                self.store(address + i * size, size, int(element))
            return
        self.store(address, max(t.bits // 8, 1), int(value))  # type: ignore[call-overload]


def _signed(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) & 1 else value


def run_kernel(text: str, passes: tuple[str, ...] | None) -> Machine:
    module = module_from_ptx(HEADER + text, "calls.ptx")
    run_passes(module, CompileOptions(passes=passes, verify_each=True))
    machine = Machine(module)
    kernel = module.function("k")
    assert kernel is not None
    machine.store(KPARAM, 8, OUT)
    machine.call(kernel, [KPARAM])
    return machine


# A device function with a .param argument and a .param return value.
TWICE = """
.func (.param .b32 ret) twice(.param .b32 x)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [x];
    add.u32 %r2, %r1, %r1;
    st.param.b32 [ret], %r2;
    ret;
}
"""

CASES = {
    "param call": (TWICE + """.visible .entry k(.param .u64 k_p)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [k_p];
    {
    .param .b32 arg;
    .param .b32 res;
    st.param.b32 [arg], 21;
    call.uni (res), twice, (arg);
    ld.param.b32 %r1, [res];
    }
    st.global.u32 [%rd1], %r1;
    ret;
}""", {OUT: 42}),
    "reg call": ("""
.func (.reg .b32 r) addmul(.reg .b32 a, .reg .b32 b)
{
    mad.lo.u32 r, a, b, a;
    ret;
}
.visible .entry k(.param .u64 k_p)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [k_p];
    mov.u32 %r1, 3;
    call (%r2), addmul, (%r1, 5);
    st.global.u32 [%rd1], %r2;
    ret;
}""", {OUT: 18}),
    "byval struct": ("""
.func (.param .b64 ret) sum(.param .align 8 .b8 s[16])
{
    .reg .b64 %rd<4>;
    ld.param.v2.u64 {%rd1, %rd2}, [s];
    add.u64 %rd3, %rd1, %rd2;
    st.param.b64 [ret], %rd3;
    ret;
}
.visible .entry k(.param .u64 k_p)
{
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [k_p];
    {
    .param .align 8 .b8 s[16];
    st.param.u64 [s], 7;
    st.param.u64 [s+8], 9;
    .param .b64 res;
    call.uni (res), sum, (s);
    ld.param.b64 %rd2, [res];
    }
    st.global.u64 [%rd1], %rd2;
    ret;
}""", {OUT: 16}),
    "local array and guarded call": (TWICE + """.visible .entry k(.param .u64 k_p)
{
    .local .align 4 .b32 arr[4];
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [k_p];
    mov.u64 %rd2, arr;
    st.local.u32 [%rd2], 1;
    st.local.u32 [%rd2+4], 2;
    st.local.u32 [%rd2+8], 4;
    ld.local.v2.u32 {%r1, %r2}, [%rd2+4];
    add.u32 %r3, %r1, %r2;
    mov.u32 %r4, 100;
    setp.gt.u32 %p1, %r3, 10;
    {
    .param .b32 arg;
    .param .b32 res;
    st.param.b32 [arg], %r3;
    @%p1 call.uni (res), twice, (arg);
    @%p1 ld.param.b32 %r4, [res];
    }
    @!%p1 add.u32 %r4, %r4, %r3;
    st.global.u32 [%rd1], %r4;
    ret;
}""", {OUT: 106}),
}


@pytest.mark.parametrize("passes", [(), None], ids=["built", "pipeline"])
@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_calls_and_memory(case: str, passes: tuple[str, ...] | None) -> None:
    text, expected = CASES[case]
    machine = run_kernel(text, passes)
    for address, value in expected.items():
        assert machine.load(address, 4) == value, case
