"""Regression tests for the emulator pitfalls listed in ``gfx942-launch-abi.md`` §10 that are not
already pinned by the per-family tests (1, 2, 4, 5, 6, 8, 9 live in test_semantics_* / test_kernels)."""

from __future__ import annotations

import struct
from collections.abc import Callable

import numpy as np

from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import Program
from ptx2gcn.runtime.emulator.memory import DeviceMemory
from ptx2gcn.runtime.emulator.wave import Wave


def test_3_flat_has_no_sgpr_base(
    one_instruction: Callable[[str, Wave], Wave], make_wave: Callable[..., Wave]
) -> None:
    """FLAT-segment instructions have no SADDR: s[0:1] holding garbage must not move the address."""
    wave = make_wave()
    buffer = wave.memory.alloc(256)
    wave.memory.write(buffer, np.arange(64, dtype=np.uint32).tobytes())
    addresses = np.uint64(buffer) + 4 * np.arange(64, dtype=np.uint64)
    wave.v[0], wave.v[1] = (addresses & 0xFFFFFFFF).astype(np.uint32), (addresses >> 32).astype(np.uint32)
    wave.s[0], wave.s[1] = 0xDEADBEEF, 0x12345
    one_instruction("flat_load_dword v2, v[0:1]", wave)
    assert wave.v[2].tolist() == list(range(64))


PRIVATE = """
declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.s.barrier()
define amdgpu_kernel void @private(ptr addrspace(1) %out, i32 %k) {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %arr = alloca [8 x i32], align 4, addrspace(5)
  %i = and i32 %t, 7
  %p = getelementptr [8 x i32], ptr addrspace(5) %arr, i32 0, i32 %i
  store volatile i32 %t, ptr addrspace(5) %p
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %q = getelementptr [8 x i32], ptr addrspace(5) %arr, i32 0, i32 %i
  %v = load volatile i32, ptr addrspace(5) %q
  %o = getelementptr i32, ptr addrspace(1) %out, i32 %t
  store i32 %v, ptr addrspace(1) %o
  ret void
}
"""


def test_7_private_memory_is_per_lane_per_wave(kernel: Callable[[str], Program]) -> None:
    """Four waves write the same private offsets, meet at a barrier, and must read their own values."""
    program = kernel(PRIVATE)
    memory = DeviceMemory()
    out = memory.alloc(256 * 4)
    launch(program, "private", grid=(1,), block=(256,), kernarg=struct.pack("<Qi", out, 3), memory=memory)
    assert np.frombuffer(memory.read(out, 256 * 4), np.int32).tolist() == list(range(256))
