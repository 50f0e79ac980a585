"""``.reg .b32 %r<N>`` ranges: the builder makes a register when it is first named, so a file
declaring ``%r<100000000>`` costs memory and time proportional to the registers it uses, not to N;
the semantics stay PTX's (``%r<N>`` declares ``%r0`` … ``%r(N-1)``, inner scopes shadow outer ones,
``.vN`` ranges declare vector registers)."""

from __future__ import annotations

import time
import tracemalloc

from ptx2gcn.ir.core import Function
from ptx2gcn.ir.types import F32, I32, I64, VectorType
from ptx2gcn.translate.load import module_from_ptx

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"


def build(body: str) -> Function:
    text = f"{HEAD}.visible .entry k(.param .u64 p)\n{{\n{body}\nret;\n}}\n"
    return module_from_ptx(text, "r.ptx").functions[0]


def test_huge_ranges_cost_what_is_used() -> None:
    body = (".reg .b32 %r<100000000>;\n.reg .b64 %rd<4000000000>;\n.reg .v4 .f32 %v<100000000>;\n"
            "ld.param.u64 %rd3999999999, [p];\nmov.u32 %r99999999, 7;\nadd.u32 %r0, %r99999999, %r5;\n"
            "mov.v4.f32 %v99999998, {0f3F800000, 0f3F800000, 0f3F800000, 0f3F800000};\n"
            "st.global.v4.f32 [%rd3999999999], %v99999998;")
    tracemalloc.start()
    start = time.perf_counter()
    try:
        fn = build(body)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    elapsed = time.perf_counter() - start
    # An eager expansion needs gigabytes and minutes; a few registers need a few megabytes.
    assert peak < 64 * 2**20, f"{peak / 2**20:.0f} MiB for a handful of registers"
    assert elapsed < 20, f"{elapsed:.1f} s"
    (store,) = [op for op in fn.ops() if op.name == "st"]
    assert store.operand(1).type == VectorType(F32, 4)


def test_inner_scope_range_shadows_outer_register() -> None:
    fn = build(".reg .b64 %x<4>;\n{\n.reg .b32 %x<4>;\nmov.u32 %x1, 5;\n}\nmov.u64 %x1, 6;")
    consts = [op for op in fn.ops() if op.name == "const"]
    assert [c.results[0].type for c in consts] == [I32, I64]


def test_range_prefix_ending_in_digits() -> None:
    # %a1<12> declares %a10 ... %a111; %a1 + "11" is register 11 of it.
    fn = build(".reg .b32 %a1<12>;\nmov.u32 %a111, 3;\nadd.u32 %a10, %a111, %a111;")
    assert any(op.name == "add" for op in fn.ops())
