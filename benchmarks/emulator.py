"""Speed of the gfx942 emulator in wave-instructions per second, on an ALU-heavy and a memory-heavy
kernel (LLVM IR compiled by LLVM 22 through llvmlite, linked with ``ptx2gcn.link.linker``).

Usage: ``.venv/bin/python benchmarks/emulator.py [--groups G] [--iterations N] [--profile]``

Each kernel runs once to warm up (decode and bind the code object), then ``--repeat`` times; the
figure is the best wave-instructions/s of those runs (the machine is shared, so the best run is the
least disturbed), by wall-clock time and by process CPU time (which excludes time spent waiting for
a core on a loaded machine, i.e. the single-core rate). ``--profile`` prints the top of a cProfile
of one run of each kernel.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import struct
import time

import numpy as np

from ptx2gcn.emit.target import emit_object, optimise
from ptx2gcn.link.linker import link_hsaco
from ptx2gcn.options import CompileOptions
from ptx2gcn.runtime.emulator.launch import LaunchStats, launch
from ptx2gcn.runtime.emulator.loader import Program, load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

ALU = """
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
define amdgpu_kernel void @alu(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %bid = call i32 @llvm.amdgcn.workgroup.id.x()
  %b = shl i32 %bid, 8
  %gid = add i32 %b, %tid
  %f0 = uitofp i32 %gid to float
  br label %loop
loop:
  %i = phi i32 [0, %entry], [%i1, %loop]
  %x = phi float [%f0, %entry], [%x2, %loop]
  %h = phi i32 [%gid, %entry], [%h3, %loop]
  %x1 = call float @llvm.fma.f32(float %x, float 0x3FEFF7CEE0000000, float 0.5)
  %x2 = fmul float %x1, 0x3FF0006800000000
  %h1 = mul i32 %h, 1664525
  %h2 = add i32 %h1, 1013904223
  %hs = lshr i32 %h2, 7
  %h3 = xor i32 %h2, %hs
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %n
  br i1 %more, label %loop, label %done
done:
  %hf = uitofp i32 %h3 to float
  %r = fadd float %x2, %hf
  %p = getelementptr float, ptr addrspace(1) %out, i32 %gid
  store float %r, ptr addrspace(1) %p
  ret void
}
declare float @llvm.fma.f32(float, float, float)
"""

MEMORY = """
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
define amdgpu_kernel void @mem(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %n, i32 %stride) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %bid = call i32 @llvm.amdgcn.workgroup.id.x()
  %b = shl i32 %bid, 8
  %gid = add i32 %b, %tid
  br label %loop
loop:
  %i = phi i32 [0, %entry], [%i1, %loop]
  %acc = phi float [0.0, %entry], [%acc1, %loop]
  %k = mul i32 %i, %stride
  %idx = add i32 %k, %gid
  %p = getelementptr float, ptr addrspace(1) %in, i32 %idx
  %v = load volatile float, ptr addrspace(1) %p
  %acc1 = fadd float %acc, %v
  %q = getelementptr float, ptr addrspace(1) %out, i32 %idx
  store volatile float %acc1, ptr addrspace(1) %q
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}
"""


def build(ir: str, name: str) -> Program:
    options = CompileOptions()
    return load(link_hsaco([emit_object(optimise(ir, options), options)]), name)


def run_alu(program: Program, groups: int, iterations: int) -> LaunchStats:
    memory = DeviceMemory()
    out = memory.alloc(groups * 256 * 4)
    return launch(program, "alu", (groups,), (256,), struct.pack("<QI", out, iterations), memory=memory)


def run_memory(program: Program, groups: int, iterations: int) -> LaunchStats:
    memory = DeviceMemory()
    threads = groups * 256
    size = threads * iterations
    data = np.arange(size, dtype=np.float32)
    src, dst = memory.alloc(size * 4), memory.alloc(size * 4)
    memory.write(src, data.tobytes())
    return launch(
        program, "mem", (groups,), (256,), struct.pack("<QQII", src, dst, iterations, threads), memory=memory
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    cases = [("alu", build(ALU, "alu"), run_alu), ("memory", build(MEMORY, "mem"), run_memory)]
    for name, program, runner in cases:
        runner(program, 1, 2)  # warm-up: decode and bind once
        runs = []
        for _ in range(args.repeat):
            cpu = time.process_time()
            stats = runner(program, args.groups, args.iterations)
            runs.append((stats, time.process_time() - cpu))
        best, cpu_seconds = max(runs, key=lambda run: run[0].wave_instructions_per_second)
        print(
            f"{name:7s} {best.wave_instructions:9d} wave-instructions: wall {best.seconds:6.3f} s "
            f"({best.wave_instructions_per_second:8.0f}/s), CPU {cpu_seconds:6.3f} s "
            f"({best.wave_instructions / max(cpu_seconds, 1e-9):8.0f}/s)"
        )
        if args.profile:
            profiler = cProfile.Profile()
            profiler.runcall(runner, program, args.groups, args.iterations)
            pstats.Stats(profiler).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
