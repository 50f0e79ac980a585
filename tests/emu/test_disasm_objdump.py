"""Decoding whole code objects gives exactly llvm-objdump's listing.

LLVM IR kernels covering what a PTX front end makes LLVM emit (integer/float/f64/f16 and packed f16
math, LDS with barriers, atomics and ds_bpermute/ds_swizzle, DPP via ``llvm.amdgcn.update.dpp`` and
``mov.dpp``, readlane/ballot/mbcnt/wave.reduce, 8/16-bit code that LLVM turns into SDWA, a loop,
global atomics and agent-scope fences (``buffer_wbl2``/``buffer_inv``), a non-inlined call with a
stack (``s_getpc``/``s_swappc``/``s_setpc``), scratch and generic (flat) pointers) are compiled with
``ptx2gcn.emit.target`` (optimise, emit_object), linked with ``ld.lld-22 -shared``, and every
function symbol is decoded with ``decode_all``.  The independent reference is
``llvm-objdump-22 -d --mcpu=gfx942``: same instruction addresses, sizes and text (whitespace-
normalised; objdump's ``<symbol+offset>`` branch annotations are not part of the instruction).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from ptx2gcn.emit.target import emit_object, optimise
from ptx2gcn.link.elf import STT_FUNC, ElfFile
from ptx2gcn.options import CompileOptions
from ptx2gcn.runtime.emulator.decoder import Instruction, decode_all
from ptx2gcn.runtime.emulator.disasm import disassemble, normalise_whitespace, objdump_line

_LINE = re.compile(r"^\t(.*?)\s*//\s*([0-9A-F]+):\s*([0-9A-F ]+?)\s*(?:<.*)?$")
_NOTE = re.compile(r"/\*.*?\*/")

KERNELS_LL = r"""declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.ctlz.i32(i32, i1)
declare i32 @llvm.cttz.i32(i32, i1)
declare i32 @llvm.ctpop.i32(i32)
declare i32 @llvm.bitreverse.i32(i32)
declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.umax.i32(i32, i32)
declare i32 @llvm.abs.i32(i32, i1)
declare i32 @llvm.fshr.i32(i32, i32, i32)
declare i32 @llvm.amdgcn.ubfe.i32(i32, i32, i32)
declare float @llvm.sqrt.f32(float)
declare float @llvm.exp2.f32(float)
declare float @llvm.log2.f32(float)
declare float @llvm.sin.f32(float)
declare float @llvm.cos.f32(float)
declare float @llvm.fma.f32(float, float, float)
declare float @llvm.floor.f32(float)
declare float @llvm.ceil.f32(float)
declare float @llvm.trunc.f32(float)
declare float @llvm.rint.f32(float)
declare float @llvm.copysign.f32(float, float)
declare float @llvm.minnum.f32(float, float)
declare float @llvm.maxnum.f32(float, float)
declare i1 @llvm.is.fpclass.f32(float, i32)
declare double @llvm.sqrt.f64(double)
declare double @llvm.fma.f64(double, double, double)
declare double @llvm.floor.f64(double)
declare half @llvm.fma.f16(half, half, half)
declare <2 x half> @llvm.fma.v2f16(<2 x half>, <2 x half>, <2 x half>)
declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32, i32, i32, i1)
declare i32 @llvm.amdgcn.mov.dpp.i32(i32, i32, i32, i32, i1)
declare i32 @llvm.amdgcn.readlane.i32(i32, i32)
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare i64 @llvm.amdgcn.ballot.i64(i1)
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)
declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
declare i32 @llvm.amdgcn.ds.swizzle(i32, i32)
declare void @llvm.amdgcn.s.barrier()
declare i32 @llvm.amdgcn.wave.reduce.umin.i32(i32, i32)

define amdgpu_kernel void @int_math(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %tid
  %a = load i32, ptr addrspace(1) %p
  %b = add i32 %a, %n
  %c = udiv i32 %a, %b
  %d = srem i32 %c, %n
  %e = call i32 @llvm.ctlz.i32(i32 %d, i1 false)
  %f = call i32 @llvm.cttz.i32(i32 %e, i1 false)
  %g = call i32 @llvm.ctpop.i32(i32 %f)
  %h = call i32 @llvm.bitreverse.i32(i32 %g)
  %i = call i32 @llvm.smin.i32(i32 %h, i32 %a)
  %j = call i32 @llvm.umax.i32(i32 %i, i32 %b)
  %k = call i32 @llvm.abs.i32(i32 %j, i1 false)
  %l = call i32 @llvm.fshr.i32(i32 %k, i32 %a, i32 %n)
  %m = call i32 @llvm.amdgcn.ubfe.i32(i32 %l, i32 %tid, i32 5)
  %a64 = sext i32 %m to i64
  %b64 = zext i32 %a to i64
  %mul = mul i64 %a64, %b64
  %div = udiv i64 %mul, %b64
  %sh = shl i64 %div, %b64
  %sr = ashr i64 %sh, 3
  %q = getelementptr i64, ptr addrspace(1) %out, i32 %tid
  store i64 %sr, ptr addrspace(1) %q
  ret void
}

define amdgpu_kernel void @float_math(ptr addrspace(1) %out, ptr addrspace(1) %in, float %s) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr float, ptr addrspace(1) %in, i32 %tid
  %a = load float, ptr addrspace(1) %p
  %b = fdiv float %a, %s
  %c = call float @llvm.sqrt.f32(float %b)
  %d = call float @llvm.exp2.f32(float %c)
  %e = call float @llvm.log2.f32(float %d)
  %f = call float @llvm.sin.f32(float %e)
  %g = call float @llvm.cos.f32(float %f)
  %h = call float @llvm.fma.f32(float %g, float %a, float 0.5)
  %i = call float @llvm.floor.f32(float %h)
  %j = call float @llvm.ceil.f32(float %i)
  %k = call float @llvm.trunc.f32(float %j)
  %l = call float @llvm.rint.f32(float %k)
  %m = call float @llvm.copysign.f32(float %l, float %a)
  %n = call float @llvm.minnum.f32(float %m, float %s)
  %o = call float @llvm.maxnum.f32(float %n, float 1.0)
  %fi = fptosi float %o to i32
  %cls = call i1 @llvm.is.fpclass.f32(float %a, i32 516)
  %sel = select i1 %cls, i32 %fi, i32 7
  %fu = uitofp i32 %sel to float
  %r0 = fmul float %fu, 0x3FC45F3060000000
  %r1 = fadd float %r0, %o
  %r2 = fadd float %r1, %e
  %r = fadd float %r2, %c
  %q = getelementptr float, ptr addrspace(1) %out, i32 %tid
  store float %r, ptr addrspace(1) %q
  ret void
}

define amdgpu_kernel void @double_math(ptr addrspace(1) %out, ptr addrspace(1) %in, double %s) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr double, ptr addrspace(1) %in, i32 %tid
  %a = load double, ptr addrspace(1) %p
  %b = fdiv double %a, %s
  %c = call double @llvm.sqrt.f64(double %b)
  %d = call double @llvm.fma.f64(double %c, double %a, double 2.0)
  %e = call double @llvm.floor.f64(double %d)
  %f = fptrunc double %e to float
  %g = fpext float %f to double
  %h = sitofp i32 %tid to double
  %i = fadd double %g, %h
  %j = fptosi double %i to i32
  %k = sitofp i32 %j to double
  %q = getelementptr double, ptr addrspace(1) %out, i32 %tid
  store double %k, ptr addrspace(1) %q
  ret void
}

define amdgpu_kernel void @half_math(ptr addrspace(1) %out, ptr addrspace(1) %in) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr <2 x half>, ptr addrspace(1) %in, i32 %tid
  %v = load <2 x half>, ptr addrspace(1) %p
  %w = fmul <2 x half> %v, <half 0xH3C00, half 0xH4000>
  %x = call <2 x half> @llvm.fma.v2f16(<2 x half> %w, <2 x half> %v, <2 x half> %v)
  %lo = extractelement <2 x half> %x, i32 0
  %hi = extractelement <2 x half> %x, i32 1
  %s = fadd half %lo, %hi
  %t = call half @llvm.fma.f16(half %s, half %lo, half 0xH3800)
  %f = fpext half %t to float
  %g = fadd float %f, 1.0
  %h = fptrunc float %g to half
  %y = insertelement <2 x half> %x, half %h, i32 1
  %q = getelementptr <2 x half>, ptr addrspace(1) %out, i32 %tid
  store <2 x half> %y, ptr addrspace(1) %q
  ret void
}

@lds = internal addrspace(3) global [256 x i32] undef, align 4

define amdgpu_kernel void @lds_reduce(ptr addrspace(1) %out, ptr addrspace(1) %in) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %tid
  %a = load i32, ptr addrspace(1) %p
  %slot = getelementptr [256 x i32], ptr addrspace(3) @lds, i32 0, i32 %tid
  store i32 %a, ptr addrspace(3) %slot
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %o = xor i32 %tid, 1
  %other = getelementptr [256 x i32], ptr addrspace(3) @lds, i32 0, i32 %o
  %b = load i32, ptr addrspace(3) %other
  %o2 = add i32 %tid, 64
  %far = getelementptr [256 x i32], ptr addrspace(3) @lds, i32 0, i32 %o2
  %c = load i32, ptr addrspace(3) %far
  %s = add i32 %b, %c
  %old = atomicrmw add ptr addrspace(3) %slot, i32 %s seq_cst
  %cx = cmpxchg ptr addrspace(3) %other, i32 %old, i32 %s seq_cst seq_cst
  %cv = extractvalue { i32, i1 } %cx, 0
  %addr = shl i32 %o, 2
  %perm = call i32 @llvm.amdgcn.ds.bpermute(i32 %addr, i32 %cv)
  %sw = call i32 @llvm.amdgcn.ds.swizzle(i32 %perm, i32 32799)
  %sw2 = call i32 @llvm.amdgcn.ds.swizzle(i32 %sw, i32 1055)
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %sw2, ptr addrspace(1) %q
  ret void
}

define amdgpu_kernel void @wave_ops(ptr addrspace(1) %out, ptr addrspace(1) %in) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %tid
  %a = load i32, ptr addrspace(1) %p
  %d1 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %a, i32 273, i32 15, i32 15, i1 true)
  %s1 = add i32 %a, %d1
  %d2 = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %s1, i32 322, i32 10, i32 15, i1 false)
  %s2 = add i32 %s1, %d2
  %d3 = call i32 @llvm.amdgcn.mov.dpp.i32(i32 %s2, i32 177, i32 15, i32 15, i1 false)
  %rl = call i32 @llvm.amdgcn.readlane.i32(i32 %d3, i32 63)
  %rf = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %d3)
  %cmp = icmp sgt i32 %d3, %rl
  %bal = call i64 @llvm.amdgcn.ballot.i64(i1 %cmp)
  %lo = trunc i64 %bal to i32
  %hi64 = lshr i64 %bal, 32
  %hi = trunc i64 %hi64 to i32
  %m1 = call i32 @llvm.amdgcn.mbcnt.lo(i32 %lo, i32 0)
  %m2 = call i32 @llvm.amdgcn.mbcnt.hi(i32 %hi, i32 %m1)
  %red = call i32 @llvm.amdgcn.wave.reduce.umin.i32(i32 %m2, i32 1)
  %r = add i32 %red, %rf
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r, ptr addrspace(1) %q
  ret void
}

define amdgpu_kernel void @narrow(ptr addrspace(1) %out, ptr addrspace(1) %in, i16 %k) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i8, ptr addrspace(1) %in, i32 %tid
  %a = load i8, ptr addrspace(1) %p
  %p2 = getelementptr i16, ptr addrspace(1) %in, i32 %tid
  %b = load i16, ptr addrspace(1) %p2
  %a16 = sext i8 %a to i16
  %c = mul i16 %a16, %b
  %d = add i16 %c, %k
  %e = lshr i16 %d, 3
  %f = trunc i16 %e to i8
  %g = add i8 %f, %a
  %q = getelementptr i8, ptr addrspace(1) %out, i32 %tid
  store i8 %g, ptr addrspace(1) %q
  %q2 = getelementptr i16, ptr addrspace(1) %out, i32 %tid
  store i16 %e, ptr addrspace(1) %q2
  %v = load <4 x i8>, ptr addrspace(1) %in
  %w = add <4 x i8> %v, <i8 1, i8 2, i8 3, i8 4>
  %q3 = getelementptr <4 x i8>, ptr addrspace(1) %out, i32 64
  store <4 x i8> %w, ptr addrspace(1) %q3
  ret void
}

define amdgpu_kernel void @loops_atomics(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %loop
loop:
  %i = phi i32 [ %tid, %entry ], [ %i.next, %loop ]
  %acc = phi i64 [ 0, %entry ], [ %acc.next, %loop ]
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %i
  %v = load i32, ptr addrspace(1) %p
  %v64 = zext i32 %v to i64
  %acc.next = add i64 %acc, %v64
  %i.next = add i32 %i, 64
  %c = icmp ult i32 %i.next, %n
  br i1 %c, label %loop, label %done
done:
  %old = atomicrmw add ptr addrspace(1) %out, i64 %acc.next syncscope("agent") seq_cst
  %f = getelementptr float, ptr addrspace(1) %out, i32 4
  %of = atomicrmw fadd ptr addrspace(1) %f, float 1.0 syncscope("agent") monotonic
  %mx = getelementptr i32, ptr addrspace(1) %out, i32 6
  %om = atomicrmw max ptr addrspace(1) %mx, i32 %tid seq_cst
  %x = atomicrmw xchg ptr addrspace(1) %mx, i32 %om syncscope("agent") acq_rel
  %cx = cmpxchg ptr addrspace(1) %mx, i32 %x, i32 %tid seq_cst seq_cst
  fence syncscope("agent") release
  %cv = extractvalue { i32, i1 } %cx, 0
  %r = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %cv, ptr addrspace(1) %r
  fence acquire
  ret void
}

define internal fastcc i32 @helper(ptr addrspace(5) %buf, i32 %i) #0 {
  %p = getelementptr i32, ptr addrspace(5) %buf, i32 %i
  %v = load volatile i32, ptr addrspace(5) %p
  %w = mul i32 %v, 3
  ret i32 %w
}

define amdgpu_kernel void @scratch_call(ptr addrspace(1) %out, ptr %generic, i32 %n) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %buf = alloca [16 x i32], align 4, addrspace(5)
  %idx = and i32 %tid, 15
  %slot = getelementptr [16 x i32], ptr addrspace(5) %buf, i32 0, i32 %idx
  store volatile i32 %tid, ptr addrspace(5) %slot
  %i2 = xor i32 %idx, %n
  %i3 = and i32 %i2, 15
  %r = call fastcc i32 @helper(ptr addrspace(5) %buf, i32 %i3)
  %ldsp = addrspacecast ptr addrspace(3) @lds to ptr
  %c0 = icmp eq i32 %n, 0
  %base = select i1 %c0, ptr %ldsp, ptr %generic
  %g = getelementptr i32, ptr %base, i32 %tid
  %gv = load i32, ptr %g
  %s = add i32 %r, %gv
  store i32 %s, ptr %g
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %s, ptr addrspace(1) %q
  ret void
}

attributes #0 = { noinline }
"""


@pytest.fixture(scope="module")
def code_object(llvm_tool: Callable[[str], str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    options = CompileOptions()
    directory = tmp_path_factory.mktemp("codeobj")
    obj, shared = directory / "kernels.o", directory / "kernels.hsaco"
    obj.write_bytes(emit_object(optimise(KERNELS_LL, options), options))
    subprocess.run([llvm_tool("ld.lld-22"), "-shared", str(obj), "-o", str(shared)], check=True)
    return shared


def objdump_listing(
    llvm_tool: Callable[[str], str], path: Path, drop_notes: bool = False
) -> dict[int, tuple[str, int]]:
    """address -> (text, size) for every instruction line llvm-objdump prints; ``drop_notes`` removes
    LLVM's ``/* ... */`` notes from the text."""
    listing = {}
    for match in _objdump_lines(llvm_tool, path):
        text = _NOTE.sub("", match.group(1)) if drop_notes else match.group(1)
        listing[int(match.group(2), 16)] = (normalise_whitespace(text), 4 * len(match.group(3).split()))
    return listing


def _objdump_lines(llvm_tool: Callable[[str], str], path: Path) -> list[re.Match[str]]:
    """The instruction lines of ``llvm-objdump -d`` (groups: text, address, raw dwords)."""
    out = subprocess.run([llvm_tool("llvm-objdump-22"), "-d", "--mcpu=gfx942", str(path)],
                         capture_output=True, text=True, check=True).stdout
    return [match for match in map(_LINE.match, out.splitlines()) if match]


def _text_section(path: Path) -> tuple[int, bytes]:
    """(virtual address, bytes) of the code object's ``.text``."""
    elf = ElfFile(path.read_bytes())
    text = elf.section(".text")
    assert text is not None
    return text.addr, elf.section_data(text)


def decoded_functions(path: Path) -> dict[str, list[Instruction]]:
    """Every function symbol of the code object, decoded from its file bytes (addresses = vaddr)."""
    base, code = _text_section(path)
    functions = {}
    for symbol in ElfFile(path.read_bytes()).symtab:
        if symbol.type == STT_FUNC and symbol.defined and symbol.size:
            start = symbol.value - base
            functions[symbol.name] = [
                inst for inst in decode_all(code, start, start + symbol.size)]
    return {name: [_rebase(inst, base) for inst in insts] for name, insts in functions.items()}


def _rebase(inst: Instruction, base: int) -> Instruction:
    return Instruction(inst.pc + base, inst.size, inst.encoding, inst.opcode, inst.fields, inst.literal,
                       inst.form, inst.info)


def test_every_function_matches_objdump(llvm_tool: Callable[[str], str], code_object: Path) -> None:
    listing = objdump_listing(llvm_tool, code_object)
    functions = decoded_functions(code_object)
    assert {"int_math", "float_math", "double_math", "half_math", "lds_reduce", "wave_ops", "narrow",
            "loops_atomics", "helper", "scratch_call"} <= set(functions)
    compared, mismatches = 0, []
    for name, insts in functions.items():
        for inst in insts:
            want = listing.get(inst.pc)
            got = (normalise_whitespace(disassemble(inst)), inst.size)
            compared += 1
            if got != want:
                mismatches.append(f"{name} 0x{inst.pc:x}: objdump {want}, ours {got}")
    assert compared > 500
    assert not mismatches, "\n".join(mismatches[:40])


def test_objdump_lines_cover_the_same_boundaries(llvm_tool: Callable[[str], str], code_object: Path) -> None:
    """Inside each function, the set of instruction addresses is exactly objdump's."""
    listing = objdump_listing(llvm_tool, code_object)
    for name, insts in decoded_functions(code_object).items():
        start, end = insts[0].pc, insts[-1].pc + insts[-1].size
        assert [inst.pc for inst in insts] == sorted(a for a in listing if start <= a < end), name


def test_code_object_uses_the_interesting_forms(code_object: Path) -> None:
    """Guard against the IR above being optimised into something trivial."""
    seen = {(inst.opcode, inst.form) for insts in decoded_functions(code_object).values() for inst in insts}
    opcodes = {opcode for opcode, _ in seen}
    forms = {form for _, form in seen}
    assert {"dpp", "sdwa", "e64", "e32"} <= forms
    assert {"v_sin_f32", "v_div_scale_f64", "v_pk_fma_f16", "ds_bpermute_b32", "ds_swizzle_b32",
            "global_atomic_cmpswap", "buffer_wbl2", "buffer_inv", "s_swappc_b64", "scratch_store_dword",
            "flat_load_dword", "v_readlane_b32", "s_cbranch_execnz"} <= opcodes


def test_objdump_lines_equal_llvm_objdump(llvm_tool: Callable[[str], str], code_object: Path) -> None:
    """``objdump_line`` reproduces objdump's whole line: text, address and raw dwords."""
    expected = {
        int(match.group(2), 16): f"{normalise_whitespace(match.group(1))} // {match.group(2)}: {match.group(3)}"
        for match in _objdump_lines(llvm_tool, code_object)
    }
    base, code = _text_section(code_object)
    insts = decode_all(code, 0, len(code))
    assert len(insts) == len(expected)
    for inst in insts:
        assert objdump_line(inst, code, base) == expected[base + inst.pc]
