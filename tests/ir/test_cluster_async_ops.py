"""IR ops for thread-block clusters, the asynchronous proxy and cvt.pack: what the builder makes of
each PTX form (facts from the PTX ISA sections named in ``ptx2gcn.ir.opcodes``), their text round trip, the
verifier rules that the opcode table's columns cannot express, and the forms still refused with a
located ``unsupported``.
"""

from __future__ import annotations

import pytest

from ptx2gcn.diagnostics import Ptx2GcnError, UnsupportedError
from ptx2gcn.ir.core import Function, Op
from ptx2gcn.ir.parser import parse_module
from ptx2gcn.ir.printer import print_module
from ptx2gcn.ir.types import I32, I64, PRED, AddrSpace, PtrType
from ptx2gcn.ir.verify import verify
from ptx2gcn.translate.load import module_from_ptx

REGS = (".reg .b32 %r<40>; .reg .b64 %rd<8>; .reg .pred %p<4>; .reg .f32 %f<40>;\n"
        ".shared .align 8 .b8 smem[4096];")


def build(body: str) -> Function:
    text = (".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
            f"{REGS}\n{body}\nret;\n}}\n")
    module = module_from_ptx(text, "t.ptx")
    printed = print_module(module)
    again = parse_module(printed, "t.ir")
    verify(again)
    assert print_module(again) == printed
    return module.functions[0]


def only(fn: Function, name: str) -> Op:
    (op,) = [op for op in fn.ops() if op.name == name]
    return op


@pytest.mark.parametrize(("line", "attrs"), [
    ("barrier.cluster.arrive;", {"mode": "arrive", "sem": "release"}),
    ("barrier.cluster.arrive.relaxed.aligned;", {"mode": "arrive", "sem": "relaxed", "aligned": True}),
    ("barrier.cluster.wait;", {"mode": "wait", "sem": "acquire"}),
    ("barrier.cluster.wait.acquire.aligned;", {"mode": "wait", "sem": "acquire", "aligned": True}),
])
def test_cluster_barrier(line: str, attrs: dict[str, object]) -> None:
    op = only(build(line), "barrier_cluster")
    assert op.attrs == attrs and not op.operands and not op.results


def test_mapa_getctarank_and_the_cluster_window() -> None:
    fn = build("mov.u32 %r1, smem;\nmapa.shared::cluster.u32 %r2, %r1, 1;\nmapa.u64 %rd2, %rd1, %r3;\n"
               "getctarank.shared::cluster.u32 %r4, %r2;\nld.shared::cluster.u32 %r5, [%r2+8];\n"
               "st.shared::cluster.u32 [%r2], %r5;")
    mapas = [op for op in fn.ops() if op.name == "mapa"]
    spaces = [(m.attrs["space"], m.results[0].type) for m in mapas]
    assert spaces == [("shared_cluster", I32), ("generic", I64)]
    assert only(fn, "getctarank").results[0].type == I32
    # Both accesses go through cvta.shared::cluster to a generic pointer.
    cvtas = [op for op in fn.ops() if op.name == "cvta_cluster"]
    assert len(cvtas) == 2 and all(op.results[0].type == I64 for op in cvtas)
    load = only(fn, "ld")
    assert load.operand(0).type == PtrType(AddrSpace.GENERIC)


def test_fence_proxy_forms() -> None:
    fn = build("fence.proxy.alias;\nfence.proxy.async;\nfence.proxy.async.shared::cta;\n"
               "fence.proxy.async.global;\nfence.proxy.async.shared::cluster;")
    got = [(op.attrs["kind"], op.attrs.get("space")) for op in fn.ops() if op.name == "fence_proxy"]
    assert got == [("alias", None), ("async", None), ("async", "shared"), ("async", "global"),
                   ("async", "shared_cluster")]


def test_bulk_copy_with_mbarrier_completion() -> None:
    fn = build("mov.u32 %r1, smem;\nadd.u32 %r2, %r1, 1024;\n"
               "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
               "[%r2], [%rd1], 512, [%r1];\n"
               "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r2], 256;\n"
               "cp.async.bulk.commit_group;\ncp.async.bulk.wait_group.read 0;")
    first, second = [op for op in fn.ops() if op.name == "cp_async_bulk"]
    assert first.attrs == {"dst": "shared_cluster", "src": "global", "completion": "mbarrier"}
    generic, global_ = PtrType(AddrSpace.GENERIC), PtrType(AddrSpace.GLOBAL)
    assert [v.type for v in first.operand_values] == [generic, global_, I32, generic]
    assert second.attrs == {"dst": "global", "src": "shared", "completion": "bulk_group"}
    groups = [op.attrs for op in fn.ops() if op.name == "cp_async_bulk_group"]
    assert groups == [{"mode": "commit"}, {"mode": "wait", "n": 0, "read": True}]


def test_wgmma_family() -> None:
    d = ",".join(f"%f{i}" for i in range(32))
    fn = build("wgmma.fence.sync.aligned;\n"
               f"wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{{d}}}, %rd1, %rd2, %p1, 1, -1, 0, 1;\n"
               f"wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{{d}}}, {{%r1,%r2,%r3,%r4}}, %rd2, 1, "
               "1, 1, 0;\n"
               "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 1;")
    modes = [op.attrs for op in fn.ops() if op.name == "wgmma"]
    assert modes == [{"mode": "fence"}, {"mode": "commit_group"}, {"mode": "wait_group", "n": 1}]
    desc, regs = [op for op in fn.ops() if op.name == "wgmma_mma"]
    assert desc.attrs["adesc"] and desc.attrs["a"] == 1 and desc.attrs["d"] == 32
    immediates = [desc.attrs[k] for k in ("scale_a", "scale_b", "trans_a", "trans_b")]
    assert immediates == [1, -1, 0, 1]
    assert len(desc.results) == 32 and desc.operand(34).type == PRED
    assert regs.attrs["a"] == 4 and "adesc" not in regs.attrs and "trans_a" not in regs.attrs
    assert len(regs.operand_values) == 32 + 4 + 2


def test_mbarrier_pending_count_reads_the_token() -> None:
    """PTX ISA 9.7.13.15.17: ``mbarrier.pending_count.b64 count, state`` reads the state token, not the
    barrier: one pure op from the i64 token to an i32 count."""
    op = only(build("mbarrier.pending_count.b64 %r1, %rd1;"), "mbarrier_pending_count")
    assert op.attrs == {} and op.operand(0).type == I64 and op.results[0].type == I32


@pytest.mark.parametrize(("line", "dtype", "count"), [
    ("cvt.pack.sat.u16.s32 %r1, %r2, %r3;", "u16", 2),
    ("cvt.pack.sat.s8.s32.b32 %r1, %r2, %r3, %r4;", "s8", 3),
    ("cvt.pack.sat.u2.s32.b32 %r1, %r2, %r3, %r4;", "u2", 3),
])
def test_cvt_pack(line: str, dtype: str, count: int) -> None:
    op = only(build(line), "cvt_pack")
    assert op.attrs == {"dtype": dtype} and len(op.operands) == count and op.results[0].type == I32


@pytest.mark.parametrize(("line", "message"), [
    ("cvt.pack.u8.s32.b32 %r1, %r2, %r3, %r4;", ".sat modifier required"),
    ("cvt.pack.sat.u8.s32 %r1, %r2, %r3;", "unexpected instruction types"),
    ("cvt.pack.sat.u16.s32.b32 %r1, %r2, %r3, %r4;", "unexpected instruction types"),
    ("barrier.cluster.wait.release;", "takes .acquire"),
    ("barrier.cluster.arrive.acquire;", "takes .release or .relaxed"),
    ("mapa.shared::cluster.u64 %rd1, %rd2, 0;", "are .u32"),
    ("fence.proxy.alias.global;", "takes no state space"),
    ("wgmma.fence;", ".sync.aligned"),
    ("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%f1}, %rd1, %rd2, %p1, 1, 1;", "takes 8 operands"),
    ("mbarrier.pending_count.shared.b64 %r1, %rd1;", "takes no state space"),
    ("mbarrier.pending_count.b64 %r1, [%rd1];", "a .b64 state register"),
    ("mbarrier.pending_count.u64 %r1, %rd1;", "is .b64"),
    ("mbarrier.pending_count.release.cta.b64 %r1, %rd1;", "takes no .sem"),
])
def test_invalid_forms_are_located_errors(line: str, message: str) -> None:
    with pytest.raises(Ptx2GcnError) as caught:
        build(line)
    assert not isinstance(caught.value, UnsupportedError)
    (diagnostic,) = caught.value.diagnostics
    assert message in diagnostic.message and diagnostic.span is not None and diagnostic.span.line == 8


@pytest.mark.parametrize("line", [
    "isspacep.shared::cluster %p1, %rd1;",
    "cp.async.bulk.prefetch.L2.global [%rd1], 256;",
])
def test_forms_not_modelled_are_located_unsupported(line: str) -> None:
    with pytest.raises(UnsupportedError) as caught:
        build(line)
    assert caught.value.span is not None and caught.value.span.line == 8


HEAD = 'module "t.ptx" version "8.0" target "sm_90" address_size 64\n'


@pytest.mark.parametrize(("body", "message"), [
    ("  barrier_cluster {mode = wait, sem = release}\n", "mode wait takes sem acquire"),
    ("  %a = const {value = 1} : i32\n  %b = mapa %a, %a {space = shared_cluster, type = u64} : i32\n",
     "'mapa' operand 0 is i32, expected i64"),
    ("  %a = const {value = 1} : i64\n  %r = const {value = 0} : i32\n"
     "  %b = mapa %a, %r {space = shared_cluster, type = u64} : i64\n", "window addresses are u32"),
    ("  %a = const {value = 1} : i32\n  %b = cvt_pack %a, %a {dtype = u8} : i32\n",
     "dtype u8 takes 3 operands"),
    ("  wgmma {mode = fence, n = 2}\n", "only wait_group takes n"),
])
def test_verifier_rules(body: str, message: str) -> None:
    text = HEAD + "kernel @k () {\n^entry:\n" + body + "  ret\n}\n"
    with pytest.raises(Ptx2GcnError) as caught:
        verify(parse_module(text, "t.ir"))
    assert message in caught.value.render()
