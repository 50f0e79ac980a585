"""Safety: bad accesses, traps, unknown instructions, hangs and bad launches give located errors."""

from __future__ import annotations

import struct
from collections.abc import Callable

import numpy as np
import pytest

from ptx2gcn.runtime.emulator.errors import (
    AccessFault,
    EmulatorFault,
    KernelHang,
    LaunchError,
    UnknownInstruction,
)
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import Program
from ptx2gcn.runtime.emulator.memory import DeviceMemory

Kernel = Callable[[str], Program]

STORE = """
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @store(ptr addrspace(1) %out) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %tid, ptr addrspace(1) %p
  ret void
}
"""

SPIN = """
define amdgpu_kernel void @spin(ptr addrspace(1) %out) {
entry:
  br label %loop
loop:
  %i = phi i32 [0, %entry], [%j, %loop]
  store volatile i32 %i, ptr addrspace(1) %out
  %j = add i32 %i, 1
  br label %loop
}
"""

TRAP = """
declare void @llvm.trap()
define amdgpu_kernel void @boom() {
  call void @llvm.trap()
  unreachable
}
"""

CUBE = """
declare float @llvm.amdgcn.cubeid(float, float, float)
define amdgpu_kernel void @cube(ptr addrspace(1) %out, float %x) {
  %r = call float @llvm.amdgcn.cubeid(float %x, float %x, float %x)
  store float %r, ptr addrspace(1) %out
  ret void
}
"""


def test_out_of_bounds_store_names_kernel_lane_pc_instruction_and_address(kernel: Kernel) -> None:
    program = kernel(STORE)
    memory = DeviceMemory()
    out = memory.alloc(4 * 40, align=32)  # a 32-byte granule: the allocation ends at byte 160
    with pytest.raises(EmulatorFault) as info:
        launch(program, "store", grid=(1,), block=(64,), kernarg=struct.pack("<Q", out), memory=memory)
    fault = info.value
    message = str(fault)
    assert fault.lane == 40 and fault.address == out + 160
    assert "kernel 'store'" in message and "work-group (0,0,0)" in message and "wave 0" in message
    assert "global_store_dword" in message and f"0x{out + 160:x}" in message and "lane 40" in message
    assert f"pc 0x{fault.site.pc:x}" in message
    # Nothing was written by the faulting instruction: all-or-nothing.
    assert memory.read(out, 160) == bytes(160)


def test_accesses_within_the_256_byte_granule_are_legal_and_keep_their_values(kernel: Kernel) -> None:
    """cudaMalloc/hipMalloc round allocations up to 256 bytes: lanes 1..63 store past the requested
    4 bytes but inside the granule, and read back what they wrote; the next wave's first lane is past
    the granule and faults, naming the requested size."""
    program = kernel(STORE)
    memory = DeviceMemory()
    out = memory.alloc(4)
    launch(program, "store", grid=(1,), block=(64,), kernarg=struct.pack("<Q", out), memory=memory)
    assert memory.read(out, 256) == np.arange(64, dtype=np.uint32).tobytes()
    with pytest.raises(EmulatorFault) as info:
        launch(program, "store", grid=(1,), block=(65,), kernarg=struct.pack("<Q", out), memory=memory)
    assert info.value.lane == 0 and info.value.address == out + 256  # lane 0 of the second wave
    assert f"unmapped (0 bytes past the end of the allocation 0x{out:x}+0x4 (accessible to 0x{out + 256:x}))" in str(
        info.value
    )
    with pytest.raises(AccessFault, match=r"runs past the end of the allocation 0x[0-9a-f]+\+0x4 \(accessible"):
        memory.load(np.array([out + 254], dtype=np.uint64), 4, np.array([0]))


def test_null_pointer_store_faults(kernel: Kernel) -> None:
    program = kernel(STORE)
    with pytest.raises(EmulatorFault, match=r"lane 0: global access of 4 bytes at 0x0: unmapped"):
        launch(program, "store", grid=(1,), block=(1,), kernarg=struct.pack("<Q", 0), memory=DeviceMemory())


def test_endless_loop_hits_the_step_budget(kernel: Kernel) -> None:
    program = kernel(SPIN)
    memory = DeviceMemory()
    out = memory.alloc(4)
    with pytest.raises(
        KernelHang,
        match=r"did not finish after 5000 wave-instructions: waves waiting at "
        r"work-group \(0, 0, 0\) wave 0 running at pc 0x",
    ):
        launch(
            program,
            "spin",
            grid=(1,),
            block=(64,),
            kernarg=struct.pack("<Q", out),
            memory=memory,
            step_budget=5000,
        )
    assert np.frombuffer(memory.read(out, 4), np.uint32)[0] > 100


def test_trap_is_a_located_fault(kernel: Kernel) -> None:
    with pytest.raises(EmulatorFault, match=r"kernel 'boom'.*s_trap 2.*the kernel trapped"):
        launch(kernel(TRAP), "boom", grid=(1,), block=(1,), kernarg=b"", memory=DeviceMemory())


def test_instruction_without_semantics_names_encoding_and_pc(kernel: Kernel) -> None:
    # v_cubeid_f32 (graphics cube-map ids) has no semantics in the emulator.
    program = kernel(CUBE)
    memory = DeviceMemory()
    with pytest.raises(UnknownInstruction, match=r"pc 0x[0-9a-f]+: unknown VOP3 instruction: v_cubeid_f32"):
        launch(
            program,
            "cube",
            grid=(1,),
            block=(1,),
            kernarg=struct.pack("<Qf", memory.alloc(8), 1.0),
            memory=memory,
        )


@pytest.mark.parametrize(
    "grid, block, kernarg, message",
    [
        ((1,), (2048,), b"\0" * 8, "at most 1024 allowed"),
        ((0,), (64,), b"\0" * 8, "grid must be 1 to 3 positive integers"),
        ((1,), (64,), b"\0" * 4, "kernarg has 4 bytes; its explicit arguments need 8"),
    ],
)
def test_bad_launches_are_rejected_before_running(
    kernel: Kernel, grid: tuple[int, ...], block: tuple[int, ...], kernarg: bytes, message: str
) -> None:
    with pytest.raises(LaunchError, match=message):
        launch(kernel(STORE), "store", grid=grid, block=block, kernarg=kernarg, memory=DeviceMemory())


def test_unknown_kernel_name(kernel: Kernel) -> None:
    with pytest.raises(LaunchError, match=r"no kernel named 'nope' \(kernels: store\)"):
        launch(kernel(STORE), "nope", grid=(1,), block=(1,), kernarg=b"")


def test_trace_prints_instructions_and_register_changes(kernel: Kernel) -> None:
    memory = DeviceMemory()
    out = memory.alloc(4 * 64)
    lines: list[str] = []
    launch(
        kernel(STORE),
        "store",
        grid=(1,),
        block=(64,),
        kernarg=struct.pack("<Q", out),
        memory=memory,
        trace=True,
        trace_sink=lines.append,
    )
    assert lines[0].startswith("wg(0,0,0) w0 0x") and "s_load_dwordx2 s[0:1], s[0:1], 0x0" in lines[0]
    assert any(line.strip().startswith("s0: ") for line in lines[1:3])
    assert any("global_store_dword" in line for line in lines)
    assert lines[-1].endswith("s_endpgm")


def test_undecodable_machine_code_faults_only_when_executed(kernel: Kernel) -> None:
    """Patch the first instruction of the kernel into an SMEM opcode that gfx942 does not have."""
    import dataclasses

    program = kernel(STORE)
    entry = program.kernels["store"].entry_address
    image = bytearray(program.image)
    image[entry : entry + 8] = bytes([0x00, 0x00, 0xFC, 0xC3, 0, 0, 0, 0])  # SMEM opcode 0xFF: none
    patched = dataclasses.replace(program, image=bytes(image))
    with pytest.raises(UnknownInstruction, match=r"pc 0x[0-9a-f]+: unknown SMEM instruction: \[C3FC0000\] "):
        launch(patched, "store", grid=(1,), block=(1,), kernarg=struct.pack("<Q", 0), memory=DeviceMemory())
