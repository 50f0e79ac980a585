"""gfx942 decoder and disassembler throughput.

Usage: ``.venv/bin/python benchmarks/decoder.py [--repeat N]``

Two code streams, both built here without LLVM tools:

* ``llvm kernel`` — the ``.text`` of a relocatable object that LLVM 22 (llvmlite) compiles from a
  PTX-like kernel (f32/f64 division, integer division, a loop, LDS, atomics, DPP), padding included;
* ``all opcodes`` — one encoding of every (encoding, opcode) row of the table with register operands
  (a worst case for the decode cache: almost no repeated words).

Scenarios: ``cold`` = the decode cache is cleared before every pass (what the emulator pays the first
time it sees a program), ``warm`` = the cache is kept (a program loaded again), ``disassemble`` = text
for every decoded instruction (only needed for traces and errors).  Figures are instructions per
second of this process's CPU time (``time.process_time``, so other load on a shared machine
inflates them less than wall time would), medians over ``--repeat`` passes.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from ptx2gcn.emit.target import emit_object, optimise
from ptx2gcn.link.elf import ElfFile
from ptx2gcn.options import CompileOptions
from ptx2gcn.runtime.emulator import decoder, encodings, opcodes
from ptx2gcn.runtime.emulator.decoder import Instruction, decode_all
from ptx2gcn.runtime.emulator.disasm import disassemble

KERNEL_LL = """
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32, i32, i32, i1)
declare void @llvm.amdgcn.s.barrier()
@lds = internal addrspace(3) global [256 x float] undef, align 4

define amdgpu_kernel void @bench(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n, double %d) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %loop
loop:
  %i = phi i32 [ %tid, %entry ], [ %i.next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  %p = getelementptr float, ptr addrspace(1) %in, i32 %i
  %v = load float, ptr addrspace(1) %p
  %q = fdiv float %v, %acc
  %acc.next = fadd float %acc, %q
  %i.next = add i32 %i, 64
  %c = icmp ult i32 %i.next, %n
  br i1 %c, label %loop, label %done
done:
  %slot = getelementptr [256 x float], ptr addrspace(3) @lds, i32 0, i32 %tid
  store float %acc.next, ptr addrspace(3) %slot
  call void @llvm.amdgcn.s.barrier()
  %o = xor i32 %tid, 1
  %other = getelementptr [256 x float], ptr addrspace(3) @lds, i32 0, i32 %o
  %w = load float, ptr addrspace(3) %other
  %wi = fptosi float %w to i32
  %x = call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %wi, i32 273, i32 15, i32 15, i1 true)
  %y = udiv i32 %x, %n
  %yd = sitofp i32 %y to double
  %z = fdiv double %yd, %d
  %r = getelementptr double, ptr addrspace(1) %out, i32 %tid
  store double %z, ptr addrspace(1) %r
  %old = atomicrmw add ptr addrspace(1) %out, i32 %y syncscope("agent") seq_cst
  ret void
}
"""

_PREFIX = {"SOP2": 0b10 << 30, "SOPK": 0b1011 << 28, "SOP1": 0x17D << 23, "SOPC": 0x17E << 23,
           "SOPP": 0x17F << 23, "SMEM": 0b110000 << 26, "VOP2": 0, "VOP1": 0x3F << 25, "VOPC": 0x3E << 25,
           "VOP3": 0b110100 << 26, "VOP3P": 0x1A7 << 23, "DS": 0b110110 << 26, "FLAT": 0b110111 << 26,
           "SCRATCH": (0b110111 << 26) | (1 << 14), "GLOBAL": (0b110111 << 26) | (2 << 14),
           "MUBUF": 0b111000 << 26}
_VALUES = {"vdst": 8, "src0": 258, "src1": 260, "src2": 262, "vsrc1": 4, "ssrc0": 2, "ssrc1": 4, "sdst": 8,
           "addr": 2, "data0": 4, "vaddr": 2, "vdata": 4, "saddr": 0x7F, "sbase": 1, "sdata": 4, "imm": 1}


def llvm_kernel() -> bytes:
    options = CompileOptions()
    elf = ElfFile(emit_object(optimise(KERNEL_LL, options), options))
    text = elf.section(".text")
    assert text is not None
    return elf.section_data(text)


def all_opcodes() -> bytes:
    """One encoding per opcode row (literal dword appended where the instruction reads one)."""
    out = bytearray()
    for info in opcodes.all_opcodes():
        if info.encoding == "VOP3":
            fmt = encodings.VOP3B if info.vop3b else encodings.VOP3A
        elif info.encoding == "VOP3P":
            fmt = encodings.VOP3P_MAI if info.mai else encodings.VOP3P
        else:
            fmt = getattr(encodings, info.encoding)
        words = [_PREFIX[info.encoding], 0][: fmt.size // 4]
        for field in fmt.fields:
            value = info.op if field.name == "op" else _VALUES.get(field.name)
            if value is not None:
                words[field.word] |= (value & ((1 << field.width) - 1)) << field.lo
        blob = b"".join(word.to_bytes(4, "little") for word in words)
        size = decoder.decode(blob + b"\0" * 4, 0).size
        out += (blob + b"\0" * 4)[:size]
    return bytes(out)


def rate(passes: int, count: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(passes):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return count / statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    for label, code in (("llvm kernel", llvm_kernel()), ("all opcodes", all_opcodes())):
        insts: list[Instruction] = decode_all(code, 0, len(code))

        def cold(code: bytes = code) -> None:
            decoder._shape.cache_clear()  # noqa: SLF001 - the benchmark measures the cold path on purpose
            decode_all(code, 0, len(code))

        figures = {
            "cold": rate(args.repeat, len(insts), cold),
            "warm": rate(args.repeat, len(insts), lambda code=code: decode_all(code, 0, len(code))),
            "disassemble": rate(args.repeat, len(insts), lambda insts=insts: [disassemble(i) for i in insts]),
        }
        shown = ", ".join(f"{name} {value:,.0f}/s" for name, value in figures.items())
        print(f"{label:12} {len(insts):5} instructions ({len(code)} bytes): {shown}")


if __name__ == "__main__":
    main()
