"""Scalar kernel parameters travel as LLVM values (``ptx2gcn.emit.kernel_abi.value_params``).

A naturally aligned 1/2/4/8-byte parameter that the kernel only reads whole becomes an ``iN`` kernel
argument at the same kernarg offset, so the back end loads all of them at the entry, merged into wide
``s_load``s (as for clang's kernels), instead of one load per parameter wherever LLVM sank it. A
parameter read in parts, or at an alignment other than its size, keeps the ``byref`` pointer. The
kernel below mixes both; its results must match numpy and its kernarg layout must stay CUDA's.
"""

from __future__ import annotations

import re
import struct

import numpy as np

from ptx2gcn.compiler import compile as compile_ptx
from ptx2gcn.compiler import compile_assembly, compile_llvm
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

PTX = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry mix(
    .param .u64 mix_out,
    .param .u8 mix_small,
    .param .align 4 .b8 mix_pair[8],
    .param .f32 mix_scale,
    .param .u32 mix_n
)
{
    .reg .pred %p<2>;
    .reg .b16 %h<2>;
    .reg .b32 %r<12>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<6>;
    mov.u32 %r1, %tid.x;
    ld.param.u32 %r2, [mix_n];
    setp.ge.u32 %p1, %r1, %r2;
    @%p1 bra DONE;
    ld.param.u64 %rd1, [mix_out];
    ld.param.u8 %h1, [mix_small];
    cvt.u32.u16 %r3, %h1;
    ld.param.u32 %r4, [mix_pair];
    ld.param.u32 %r5, [mix_pair+4];
    ld.param.f32 %f1, [mix_scale];
    cvt.rn.f32.u32 %f2, %r1;
    mul.rn.f32 %f3, %f2, %f1;
    cvt.rzi.u32.f32 %r6, %f3;
    mad.lo.u32 %r7, %r1, %r4, %r5;
    add.u32 %r8, %r7, %r3;
    add.u32 %r9, %r8, %r6;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r9;
DONE:
    ret;
}
"""
N, SMALL, PAIR, SCALE, THREADS = 50, 200, (7, 1000), 2.5, 64


def test_signature_and_layout() -> None:
    llvm = compile_llvm(PTX, optimised=False)
    define = next(line for line in llvm.splitlines() if line.startswith("define amdgpu_kernel"))
    args = re.findall(r'(i64|i32|i8|ptr addrspace\(4\) byref\(\[8 x i8\]\) align 4) %"p\d"', define)
    assert args == ["i64", "i8", "ptr addrspace(4) byref([8 x i8]) align 4", "i32", "i32"], define
    asm = compile_assembly(PTX)
    offsets = [int(m) for m in re.findall(r"\.offset:\s+(\d+)", asm)][:5]
    assert offsets == [0, 8, 12, 20, 24]  # CUDA's parameter-buffer layout, unchanged


def test_results_match_numpy() -> None:
    program = load(compile_ptx(PTX).data, "mix.hsaco")
    memory = DeviceMemory()
    out = memory.alloc(4 * THREADS)
    memory.write(out, np.zeros(THREADS, np.uint32).tobytes())
    kernarg = struct.pack("<QB3xIIfI", out, SMALL, *PAIR, SCALE, N)
    launch(program, "mix", grid=(1, 1, 1), block=(THREADS, 1, 1), kernarg=kernarg, memory=memory)
    got = np.frombuffer(memory.read(out, 4 * THREADS), np.uint32)
    t = np.arange(THREADS, dtype=np.int64)
    want = np.where(t < N, t * PAIR[0] + PAIR[1] + SMALL + np.floor(t * SCALE).astype(np.int64), 0)
    np.testing.assert_array_equal(got, want.astype(np.uint32))
