"""The PTX → IR builder makes PTX's implicit behaviours explicit, exactly.

Each test builds a small kernel and checks the IR's structure against what the PTX ISA says
(expected facts are written from the ISA, not copied from builder output).
"""

from __future__ import annotations

import pytest

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.frontend import parse_ptx
from ptx2gcn.ir.core import Block, Function, Module, Op
from ptx2gcn.ir.types import F32, I8, I16, I32, I64, PRED, AddrSpace, PtrType, VectorType
from ptx2gcn.translate.builder import build_module
from ptx2gcn.translate.load import module_from_ptx
from tests.ir.test_call_semantics import CASES

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"
REGS = """
    .reg .pred %p<4>;
    .reg .b16 %rs<4>;
    .reg .b32 %r<10>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<6>;
"""


def build(body: str, params: str = ".param .u64 k_p") -> Module:
    return module_from_ptx(f"{HEADER}.visible .entry k({params})\n{{\n{REGS}{body}\n}}\n", "t.ptx")


def kernel(module: Module) -> Function:
    fn = module.function("k")
    assert fn is not None
    return fn


def ops(fn: Function, name: str) -> list[Op]:
    return [op for op in fn.ops() if op.name == name]


def block_of(op: Op) -> Block:
    assert op.parent is not None
    return op.parent


def test_guarded_store_runs_only_when_the_guard_holds() -> None:
    fn = kernel(build("""
    ld.param.u64 %rd1, [k_p];
    setp.eq.u32 %p1, %r1, 0;
    @%p1 st.global.u32 [%rd1], %r1;
    ret;"""))
    (store,) = ops(fn, "st")
    (branch,) = ops(fn, "cbr")
    assert branch.operand(0) is ops(fn, "setp")[0].result
    then, join = (s.block for s in branch.successors)
    assert block_of(store) is then, "the store must sit in the block taken when %p1 is true"
    assert then.successors() == [join]


def test_negated_guard_swaps_the_targets() -> None:
    fn = kernel(build("""
    ld.param.u64 %rd1, [k_p];
    setp.eq.u32 %p1, %r1, 0;
    @!%p1 st.global.u32 [%rd1], %r1;
    ret;"""))
    (store,) = ops(fn, "st")
    (branch,) = ops(fn, "cbr")
    assert block_of(store) is branch.successors[1].block


def test_guarded_pure_instruction_becomes_a_select_of_new_and_old() -> None:
    fn = kernel(build("""
    ld.param.u64 %rd1, [k_p];
    ld.global.u32 %r1, [%rd1];
    setp.eq.u32 %p1, %r1, 0;
    mov.u32 %r2, 7;
    @%p1 add.u32 %r2, %r1, 1;
    @!%p1 add.u32 %r2, %r2, 2;
    st.global.u32 [%rd1], %r2;
    ret;"""))
    assert not ops(fn, "cbr"), "pure guarded instructions need no branches"
    first, second = ops(fn, "selp")
    adds = ops(fn, "add")
    assert first.operand(0) is adds[0].result and first.operand(2) is ops(fn, "setp")[0].result
    assert first.operand(1).op.attrs["value"] == 7  # type: ignore[attr-defined]
    # @!p: keeps the new value when p is false: selp(old, new, p).
    assert second.operand(0) is first.result and second.operand(1) is adds[1].result
    assert ops(fn, "st")[0].operand(1) is second.result


def test_guarded_branch_is_a_conditional_branch() -> None:
    fn = kernel(build("""
    setp.eq.u32 %p1, %r1, 0;
    @%p1 bra $L_done;
    mov.u32 %r2, 1;
$L_done:
    ret;"""))
    (branch,) = ops(fn, "cbr")
    assert branch.successors[0].block.label == "$L_done"


def test_setp_pair_and_boolean_operator() -> None:
    fn = kernel(build("""
    setp.lt.and.s32 %p1|%p2, %r1, %r2, %p3;
    selp.u32 %r3, 1, 0, %p1;
    selp.u32 %r4, 1, 0, %p2;
    add.u32 %r5, %r3, %r4;
    ld.param.u64 %rd1, [k_p];
    st.u32 [%rd1], %r5;
    ret;"""))
    (compare,) = ops(fn, "setp")
    assert compare.attrs["cmp"] == "lt" and compare.attrs["type"] == "s32"
    (inverse,) = ops(fn, "not")
    assert inverse.operand(0) is compare.result
    ands = ops(fn, "and")
    # p = cmp AND c; q = !cmp AND c.
    assert [a.operand(0) for a in ands] == [compare.result, inverse.result]


def test_mov_braces_pack_and_unpack() -> None:
    fn = kernel(build("""
    mov.b64 {%r1, %r2}, %rd1;
    mov.b64 %rd2, {%r2, %r1};
    ld.param.u64 %rd3, [k_p];
    st.u64 [%rd3], %rd2;
    ret;"""))
    (unpack,) = ops(fn, "unpack")
    assert [r.type for r in unpack.results] == [I32, I32]
    (pack,) = ops(fn, "pack")
    assert pack.operand_values == [unpack.results[1], unpack.results[0]]
    assert pack.result.type == I64


def test_carry_chain_is_explicit() -> None:
    fn = kernel(build("""
    add.cc.u32 %r1, %r2, %r3;
    addc.cc.u32 %r4, %r5, %r6;
    addc.u32 %r7, 0, 0;
    ret;"""))
    first, second, third = ops(fn, "addc")
    assert first.operand(2).op.name == "const"  # type: ignore[attr-defined]
    assert second.operand(2) is first.results[1]
    assert third.operand(2) is second.results[1]
    assert [r.type for r in first.results] == [I32, PRED]


def test_narrow_loads_extend_by_signedness() -> None:
    fn = kernel(build("""
    ld.param.u64 %rd1, [k_p];
    ld.global.s8 %r1, [%rd1];
    ld.global.u8 %r2, [%rd1+1];
    add.u32 %r3, %r1, %r2;
    st.global.u32 [%rd1], %r3;
    ret;"""))
    loads = [op for op in ops(fn, "ld") if op.result.type == I8]
    assert len(loads) == 2
    assert loads[0].result.uses and next(iter(loads[0].result.users())).name == "sext"
    assert next(iter(loads[1].result.users())).name == "zext"


def test_reading_a_never_written_register_is_undef() -> None:
    fn = kernel(build("""
    ld.param.u64 %rd1, [k_p];
    st.global.u32 [%rd1], %r9;
    ret;"""))
    (store,) = ops(fn, "st")
    assert store.operand(1).op.name == "undef"  # type: ignore[attr-defined]


def test_special_registers_are_ops_and_b32_reads_as_f32() -> None:
    fn = kernel(build("""
    mov.u32 %r1, %laneid;
    mov.u32 %r2, %tid.y;
    add.f32 %f1, %r1, %r2;
    ld.param.u64 %rd1, [k_p];
    st.f32 [%rd1], %f1;
    ret;"""))
    assert [op.attrs["reg"] for op in ops(fn, "special_reg")] == ["laneid", "tid.y"]
    (add,) = ops(fn, "add")
    assert all(v.op.name == "bitcast" and v.type == F32 for v in add.operand_values)  # type: ignore[attr-defined]


def test_mul_wide_and_vector_load() -> None:
    fn = kernel(build("""
    mul.wide.s32 %rd1, %r1, %r2;
    ld.param.u64 %rd2, [k_p];
    ld.global.v4.f32 {%f0, %f1, %f2, _}, [%rd2+16];
    ret;"""))
    (mul,) = ops(fn, "mul")
    assert mul.attrs["mode"] == "wide" and mul.result.type == I64
    load = [op for op in ops(fn, "ld") if op.attrs.get("vec") == 4][0]
    assert load.result.type == VectorType(F32, 4)
    assert load.operand(0).type == PtrType(AddrSpace.GLOBAL)
    assert load.operand(0).op.name == "ptradd"  # type: ignore[attr-defined]


def test_loop_merges_through_block_arguments() -> None:
    fn = kernel(build("""
    mov.u32 %r1, 0;
$L_loop:
    add.u32 %r1, %r1, 1;
    setp.lt.u32 %p1, %r1, 10;
    @%p1 bra $L_loop;
    ld.param.u64 %rd1, [k_p];
    st.u32 [%rd1], %r1;
    ret;"""))
    loop = next(b for b in fn.blocks if b.label == "$L_loop")
    assert [a.type for a in loop.args] == [I32]
    (add,) = ops(fn, "add")
    assert add.operand(0) is loop.args[0]


def test_calls_pass_param_memory() -> None:
    module = module_from_ptx(HEADER + CASES["param call"][0], "t.ptx")
    fn = kernel(module)
    (call,) = ops(fn, "call")
    assert call.attrs["callee"] == "twice"
    assert [v.op.name for v in call.operand_values] == ["alloca", "alloca"]  # type: ignore[attr-defined]
    assert all(v.type == PtrType(AddrSpace.PARAM) for v in call.operand_values)
    callee = module.function("twice")
    assert callee is not None and [a.type for a in callee.entry.args] == [PtrType(AddrSpace.PARAM)] * 2


def test_packed_half_comparison_compares_each_half() -> None:
    fn = kernel(build("""
    setp.lt.f16x2 %p1|%p2, %r1, %r2;
    ret;""".replace("%p3", "%p3")))
    compares = ops(fn, "setp")
    assert len(compares) == 2 and all(c.attrs["type"] == "f16" for c in compares)


def test_b16_register_reads_and_writes() -> None:
    fn = kernel(build("""
    cvt.u32.u16 %r1, %rs1;
    cvt.u16.u32 %rs2, %r1;
    ret;"""))
    cvts = ops(fn, "cvt")
    assert cvts[0].operand(0).type == I16 and cvts[1].result.type == I16


@pytest.mark.parametrize(("body", "line", "message"), [
    ("    bra $L_nowhere;", 12, "undefined label $L_nowhere"),
    ("    ld.param.u64 %rd1, [k_p];\n    ld.global.v4.f32 {%f0, %f1}, [%rd1];", 13, ".v4 load needs 4"),
    ("    add.u32 %r1, %r2;", 12, "takes 3 operands"),
    ("    mov.u32 %r1, no_such_symbol;", 12, "undefined symbol no_such_symbol"),
    ("    add.u32 %r1, %r2, %r99;", 12, "undefined register %r99"),
    ("    add.u32.f32 %r1, %r2, %r3;", 12, "one type"),
    ("    shfl.sync.sideways.b32 %r1, %r2, 1, 31, -1;", 12, "sideways"),
    ("    mul.wide.u32 %r1, %r2, %r3;", 12, "too narrow"),
    ("    st.param.u64 [k_p], %rd1;", 12, "read-only"),
    ("    isspacep.shared::cluster %p1, %rd1;", 12, "unsupported: isspacep.shared::cluster"),
])
def test_semantic_errors_are_located(body: str, line: int, message: str) -> None:
    """Builder diagnostics (the front end's checker is bypassed to reach them)."""
    text = f"{HEADER}.visible .entry k(.param .u64 k_p)\n{{\n{REGS}{body}\n}}\n"
    with pytest.raises(Ptx2GcnError) as caught:
        build_module(parse_ptx(text, "t.ptx"))
    rendered = caught.value.render()
    assert rendered.startswith(f"t.ptx:{line}:"), rendered
    assert message in rendered
    assert "^" in rendered


def test_vector_registers_are_component_variables() -> None:
    module = module_from_ptx(HEADER + """
.func (.reg .v2 .u32 out) swap(.reg .v2 .u32 in)
{
    mov.u32 out.x, in.y;
    mov.u32 out.y, in.x;
    ret;
}
.visible .entry k(.param .u64 k_p)
{
    .reg .v2 .u32 %v;
    .reg .v2 .u32 %w;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [k_p];
    ld.global.v2.u32 %v, [%rd1];
    call (%w), swap, (%v);
    st.global.v2.u32 [%rd1], %w;
    ret;
}
""", "t.ptx")
    swap = module.function("swap")
    assert swap is not None and swap.entry.args[0].type == VectorType(I32, 2)
    (ret,) = ops(swap, "ret")
    (pack,) = [op for op in ops(swap, "pack")]
    (unpack,) = ops(swap, "unpack")
    assert ret.operand(0) is pack.result
    assert pack.operand_values == [unpack.results[1], unpack.results[0]]
    fn = kernel(module)
    (call,) = ops(fn, "call")
    assert call.result.type == VectorType(I32, 2)
    (store,) = ops(fn, "st")
    assert store.operand(1).type == VectorType(I32, 2)


def test_address_initializers_and_indirect_calls() -> None:
    module = module_from_ptx(HEADER + """
.func (.param .b32 r) inc(.param .b32 x)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [x];
    add.u32 %r2, %r1, 1;
    st.param.b32 [r], %r2;
    ret;
}
.global .align 4 .u32 slot = 7;
.global .align 8 .u64 table[2] = {inc, generic(slot)+4};
.visible .entry k(.param .u64 k_p)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;
    mov.u64 %rd1, table;
    ld.global.u64 %rd2, [%rd1];
    {
    .param .b32 p0;
    st.param.b32 [p0], 41;
    .param .b32 rv;
    proto : .callprototype (.param .b32 _) _ (.param .b32 _);
    call (rv), %rd2, (p0), proto;
    ld.param.b32 %r1, [rv];
    }
    ret;
}
""", "t.ptx")
    table = module.global_("table")
    assert table is not None and table.init is not None
    assert [str(item) for item in table.init] == ["@inc", "generic(@slot)+4"]
    (call,) = ops(kernel(module), "call_indirect")
    assert call.attrs["proto"] == "proto" and call.operand(0).type == I64
    assert [v.type for v in call.operand_values[1:]] == [PtrType(AddrSpace.PARAM)] * 2


def test_dot_products() -> None:
    fn = kernel(build("""
    dp4a.s32.u32 %r1, %r2, %r3, %r4;
    dp2a.hi.u32.u32 %r5, %r2, %r3, %r4;
    ret;"""))
    (dp4a,) = ops(fn, "dp4a")
    assert (dp4a.attrs["atype"], dp4a.attrs["btype"]) == ("s32", "u32")
    assert ops(fn, "dp2a")[0].attrs["mode"] == "hi"


def test_cp_async_is_a_synchronous_zero_filling_copy() -> None:
    fn = kernel(build("""
    .shared .align 16 .b8 tile[64];
    ld.param.u64 %rd1, [k_p];
    mov.u32 %r1, tile;
    cp.async.cg.shared.global [%r1], [%rd1], 16;
    cp.async.ca.shared.global [%r1+16], [%rd1+16], 8, %r2;
    setp.eq.u32 %p1, %r2, 0;
    cp.async.ca.shared.global [%r1+32], [%rd1+32], 4, %p1;
    cp.async.commit_group;
    cp.async.wait_group 0;
    ret;"""))
    copies = ops(fn, "cp_async")
    assert [c.attrs["size"] for c in copies] == [16, 8, 4]
    assert [c.operand(0).type for c in copies] == [PtrType(AddrSpace.SHARED)] * 3
    assert copies[0].operand(2).op.attrs["value"] == 16  # type: ignore[attr-defined]
    # ignore-src p: src_size = p ? 0 : 4.
    select = copies[2].operand(2).op  # type: ignore[attr-defined]
    assert select.name == "selp" and select.operand(0).op.attrs["value"] == 0
    assert select.operand(1).op.attrs["value"] == 4 and select.operand(2).type == PRED


def test_mma_and_ldmatrix_carry_fragments_as_registers() -> None:
    fn = kernel(build("""
    .shared .align 16 .b8 tile[512];
    mov.u32 %r9, tile;
    ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r0, %r1, %r2, %r3}, [%r9];
    mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3},
        {%r4, %r5}, {%f0, %f1, %f2, %f3};
    ret;""".replace("%f<4>", "%f<4>")))
    (load,) = ops(fn, "ldmatrix")
    assert load.attrs["num"] == "x4" and load.attrs.get("trans") is True and len(load.results) == 4
    (mma,) = ops(fn, "mma")
    assert (mma.attrs["a"], mma.attrs["b"], mma.attrs["c"]) == (4, 2, 4)
    assert [mma.attrs[k] for k in ("dtype", "atype", "btype", "ctype")] == ["f32", "f16", "f16", "f32"]
    assert mma.operand_values[:4] == load.results and [r.type for r in mma.results] == [F32] * 4


def test_textures_and_surfaces_take_64_bit_handles() -> None:
    module = module_from_ptx(HEADER + """
.global .texref tex;
.visible .entry k(.param .u64 k_surf)
{
    .reg .f32 %f<6>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [tex, {%f4, %f5}];
    ld.param.u64 %rd1, [k_surf];
    suld.b.2d.b32.clamp {%r0}, [%rd1, {%r1, %r2}];
    sust.b.2d.b32.zero [%rd1, {%r1, %r2}], {%r0};
    txq.width.b32 %r3, [tex];
    ret;
}
""", "t.ptx")
    texref = module.global_("tex")
    assert texref is not None and texref.ptx_type == "texref"
    fn = kernel(module)
    (tex,) = ops(fn, "tex")
    assert tex.operand(0).type == I64 and tex.operand(0).op.name == "ptrtoint"  # type: ignore[attr-defined]
    assert (tex.attrs["geom"], tex.attrs["coords"], len(tex.results)) == ("2d", 2, 4)
    (suld,) = ops(fn, "suld")
    assert suld.attrs["clamp"] == "clamp" and suld.operand(0).op.name == "ld"  # type: ignore[attr-defined]
    (sust,) = ops(fn, "sust")
    assert sust.attrs["coords"] == 2 and len(sust.operands) == 4
    assert ops(fn, "txq")[0].attrs["query"] == "width"


def test_brx_idx_is_a_switch_over_the_target_list() -> None:
    fn = kernel(build("""
    ts: .branchtargets L0, L1, L0;
    mov.u32 %r1, 7;
    brx.idx %r2, ts;
L0:
    mov.u32 %r1, 1;
L1:
    ld.param.u64 %rd1, [k_p];
    st.u32 [%rd1], %r1;
    ret;"""))
    (switch,) = ops(fn, "switch")
    assert [s.block.label for s in switch.successors] == ["L0", "L1", "L0"]
    l1 = next(b for b in fn.blocks if b.label == "L1")
    assert [a.type for a in l1.args] == [I32]  # %r1 merges 7 (from the switch) and 1 (from L0)


def test_dynamic_alloca_and_vector_atomics() -> None:
    fn = kernel(build("""
    alloca.u64 %rd2, %rd1, 16;
    stacksave.u64 %rd3;
    stackrestore.u64 %rd3;
    ld.param.u64 %rd4, [k_p];
    atom.global.add.v2.f32 {%f0, %f1}, [%rd4], {%f2, %f3};
    ret;"""))
    (alloc,) = ops(fn, "stack_alloc")
    assert alloc.attrs["align"] == 16 and alloc.result.type == PtrType(AddrSpace.LOCAL)
    assert ops(fn, "stackrestore")[0].operand(0) is ops(fn, "stacksave")[0].result
    (atom,) = ops(fn, "atom")
    assert atom.attrs["vec"] == 2 and atom.result.type == VectorType(F32, 2)
    assert atom.operand(1).type == VectorType(F32, 2)


def test_mbarrier_operations() -> None:
    fn = kernel(build("""
    .shared .align 8 .b64 bar;
    mov.u32 %r1, bar;
    mbarrier.init.shared.b64 [%r1], 32;
    mbarrier.arrive.shared.b64 %rd1, [%r1];
    mbarrier.test_wait.shared.b64 %p1, [%r1], %rd1;
    ret;"""))
    init, arrive, wait = ops(fn, "mbarrier")
    assert [o.attrs["op"] for o in (init, arrive, wait)] == ["init", "arrive", "test_wait"]
    assert arrive.result.type == I64 and wait.operand(1) is arrive.result and wait.result.type == PRED


def test_narrower_source_registers_are_rejected() -> None:
    with pytest.raises(Ptx2GcnError, match="register %rs1 has 16 bits, too narrow for a 32-bit operand"):
        build("    add.u32 %r1, %rs1, 1;\n    ret;")


def test_kernel_parameters_read_through_a_register() -> None:
    fn = kernel(build("""
    mov.u64 %rd1, k_p;
    ld.param.u64 %rd2, [%rd1];
    ret;"""))
    (load,) = ops(fn, "ld")
    assert load.operand(0).type == PtrType(AddrSpace.KPARAM)
    assert load.operand(0).op.operand(0).op.name == "ptrtoint"  # type: ignore[attr-defined]


def test_two_source_cvt_packs_a_high_and_b_low() -> None:
    fn = kernel(build("""
    cvt.rn.f16x2.f32 %r1, %f1, %f2;
    cvt.rn.satfinite.e4m3x2.f32 %rs1, %f1, %f2;
    ret;"""))
    first, second = ops(fn, "pack")
    # PTX: the value converted from a goes to the upper half, from b to the lower half.
    for pack in (first, second):
        lo, hi = (v.op for v in pack.operand_values)  # type: ignore[attr-defined]
        assert (lo.operand(0).name, hi.operand(0).name) == ("f2", "f1")
    assert [c.attrs["dtype"] for c in ops(fn, "cvt")] == ["f16", "f16", "e4m3", "e4m3"]
    assert second.result.type == I16


def test_video_instructions_keep_their_form() -> None:
    fn = kernel(build("""
    vabsdiff4.u32.u32.u32.add %r1, %r2, %r3, %r4;
    vshr.u32.u32.u32.clamp.add %r5, %r2, 3, %r4;
    ret;"""))
    first, second = ops(fn, "video")
    assert (first.attrs["inst"], first.attrs["types"], first.attrs["secondary"]) == ("vabsdiff4", "u32.u32.u32", "add")
    assert second.attrs["shift"] == "clamp" and second.operand(1).op.attrs["value"] == 3  # type: ignore[attr-defined]
