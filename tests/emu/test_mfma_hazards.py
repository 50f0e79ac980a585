"""MFMA dependency rules: a dependent instruction issued before its required wait states faults.

Each case is a kernel whose body is one inline-asm block (LLVM emits it verbatim, without adding
wait states inside it; compiled with ``llc-22``, since llvmlite has no AMDGPU asm parser): an MFMA,
``s_nop`` padding, then the dependent instruction.  With the
number of wait states the CDNA3 table requires (as LLVM 22 applies it to gfx942, see
``runtime/emulator/hazards.py``; the numbers here are written from that table) the kernel runs;
with one fewer it raises ``HazardFault`` naming the register and the requirement.  A kernel LLVM
compiled from the MFMA intrinsics (LLVM inserts the wait states itself) runs clean, gives the
numpy result, and is counted in the launch statistics.
"""

from __future__ import annotations

import struct
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from ptx2gcn.runtime.emulator.errors import HazardFault
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import Program, load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

Kernel = Callable[[str], Program]
_CLOBBERS = ",".join([f"~{{v{i}}}" for i in range(1, 32)] + [f"~{{a{i}}}" for i in range(16)])


def asm_kernel(lines: list[str]) -> str:
    body = "\\0A".join(["v_mov_b32 v7, 0", "s_nop 7", "s_nop 7", *lines])
    return f"""
@lds = internal addrspace(3) global [64 x i32] poison, align 4
define amdgpu_kernel void @k() {{
  store volatile i32 0, ptr addrspace(3) @lds
  call void asm sideeffect "{body}", "{_CLOBBERS}"()
  ret void
}}
"""


def nops(count: int) -> list[str]:
    return [f"s_nop {min(16, count - done) - 1}" for done in range(0, count, 16)]


@pytest.fixture(scope="module")
def asm(llvm_tool: Callable[[str], str]) -> Kernel:
    """LLVM IR with inline asm -> a loaded program, through llc-22 and ld.lld-22."""
    llc, lld = llvm_tool("llc-22"), llvm_tool("ld.lld-22")

    def build(ir: str) -> Program:
        with tempfile.TemporaryDirectory() as tmp:
            source, obj, out = Path(tmp) / "k.ll", Path(tmp) / "k.o", Path(tmp) / "k.hsaco"
            source.write_text(ir)
            subprocess.run([llc, "-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-filetype=obj", str(source),
                            "-o", str(obj)], check=True, capture_output=True)
            subprocess.run([lld, "-shared", str(obj), "-o", str(out)], check=True, capture_output=True)
            return load(out.read_bytes(), "k.hsaco")

    return build


def run(kernel: Kernel, lines: list[str]) -> None:
    launch(kernel(asm_kernel(lines)), "k", 1, 64, b"")


# (producer, consumer, required wait states between them)
CASES = [
    ("v_mfma_f32_4x4x4_16b_f16 a[0:3], v[2:3], v[4:5], a[0:3]", "v_accvgpr_read_b32 v6, a1", 5),  # XDL 2 pass
    ("v_mfma_f32_4x4x1_16b_f32 v[8:11], v2, v3, v[8:11]", "v_add_f32 v6, v9, v9", 4),  # f32 MFMA, 2 pass
    ("v_mfma_f32_16x16x16_f16 v[8:11], v[2:3], v[4:5], v[8:11]", "ds_write_b32 v7, v9", 7),  # XDL 4 pass
    ("v_mfma_f32_32x32x8_f16 v[8:23], v[2:3], v[4:5], v[8:23]",
     "v_mfma_f32_4x4x4_16b_f16 v[24:27], v[20:21], v[4:5], v[24:27]", 11),  # SrcA after 8 pass XDL
    ("v_mfma_f32_16x16x16_f16 v[8:11], v[2:3], v[4:5], v[8:11]",
     "v_mfma_f32_4x4x4_16b_f16 v[24:27], v[2:3], v[4:5], v[10:13]", 5),  # overlapping SrcC: P + 1
    ("v_mfma_f32_4x4x4_16b_f16 v[8:11], v[2:3], v[4:5], v[8:11]",
     "v_mfma_f32_4x4x4_16b_f16 v[8:11], v[2:3], v[4:5], v[8:11]", 2),  # same SrcC after 2 passes
    ("v_mfma_f32_16x16x4_f32 v[8:11], v2, v3, v[8:11]",
     "v_mfma_f32_4x4x4_16b_f16 v[24:27], v[2:3], v[4:5], v[8:11]", 0),  # f32 MFMA -> XDL SrcC
    ("v_mfma_f32_16x16x16_f16 v[12:15], v[2:3], v[4:5], v[8:11]", "v_mov_b32 v9, 0", 3),  # SrcC WAR
    ("v_mfma_f32_4x4x4_16b_f16 v[8:11], v[2:3], v[4:5], v[8:11]", "v_mov_b32 v9, 0", 5),  # WAW
    ("v_mfma_f64_16x16x4_f64 v[8:15], v[2:3], v[4:5], v[8:15]", "v_mov_b32 v20, v9", 11),
    ("v_mfma_f64_4x4x4_4b_f64 v[8:9], v[2:3], v[4:5], v[8:9]", "ds_write_b32 v7, v9", 9),
    ("v_mfma_f64_4x4x4_4b_f64 v[8:9], v[2:3], v[4:5], v[8:9]", "v_fma_f64 v[20:21], v[2:3], v[4:5], v[2:3]", 2),
    ("v_mov_b32 v2, 0", "v_mfma_f32_4x4x1_16b_f32 v[8:11], v2, v3, v[8:11]", 2),  # VALU -> MFMA
    ("v_cmpx_le_u32_e64 s[10:11], 0, v0", "v_mfma_f32_4x4x1_16b_f32 v[8:11], v2, v3, v[8:11]", 4),  # EXEC
]


@pytest.mark.parametrize(("producer", "consumer", "required"), CASES)
def test_required_wait_states(producer: str, consumer: str, required: int, asm: Kernel) -> None:
    run(asm, [producer, *nops(required), consumer])
    if required == 0:
        return
    with pytest.raises(HazardFault, match=f"CDNA3 requires {required} "):
        run(asm, [producer, *nops(required - 1), consumer])


def test_independent_instructions_count_as_wait_states(asm: Kernel) -> None:
    independent = ["v_mov_b32 v30, 1", "s_mov_b32 s12, 0", "v_add_u32 v31, v30, v30"]
    mfma = "v_mfma_f32_4x4x1_16b_f32 v[8:11], v2, v3, v[8:11]"
    run(asm, [mfma, *independent, "s_nop 0", "v_add_f32 v6, v9, v9"])
    with pytest.raises(HazardFault, match=r"read v9 3 wait state\(s\) after v_mfma_f32_4x4x1_16b_f32"):
        run(asm, [mfma, *independent, "v_add_f32 v6, v9, v9"])


IR = """
declare i32 @llvm.amdgcn.workitem.id.x()
declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x16f16(<4 x half>, <4 x half>, <4 x float>, i32, i32, i32)
declare <4 x float> @llvm.amdgcn.mfma.f32.4x4x1f32(float, float, <4 x float>, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c,
                             ptr addrspace(1) %d, ptr addrspace(1) %e) {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %pa = getelementptr <4 x half>, ptr addrspace(1) %a, i32 %t
  %pb = getelementptr <4 x half>, ptr addrspace(1) %b, i32 %t
  %pc = getelementptr <4 x float>, ptr addrspace(1) %c, i32 %t
  %pd = getelementptr <4 x float>, ptr addrspace(1) %d, i32 %t
  %pe = getelementptr <4 x float>, ptr addrspace(1) %e, i32 %t
  %va = load <4 x half>, ptr addrspace(1) %pa
  %vb = load <4 x half>, ptr addrspace(1) %pb
  %vc = load <4 x float>, ptr addrspace(1) %pc
  %d1 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16f16(<4 x half> %va, <4 x half> %vb, <4 x float> %vc,
                                                           i32 0, i32 0, i32 0)
  %d2 = call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16f16(<4 x half> %vb, <4 x half> %va, <4 x float> %d1,
                                                           i32 0, i32 0, i32 0)
  store <4 x float> %d2, ptr addrspace(1) %pd
  %x = extractelement <4 x float> %d2, i32 0
  %y = extractelement <4 x float> %d2, i32 3
  %e1 = call <4 x float> @llvm.amdgcn.mfma.f32.4x4x1f32(float %x, float %y, <4 x float> %vc, i32 0, i32 0, i32 0)
  store <4 x float> %e1, ptr addrspace(1) %pe
  ret void
}
"""


def test_llvm_compiled_mfma_chain_runs_clean_and_is_counted(kernel: Kernel) -> None:
    rng = np.random.default_rng(7)
    a = rng.integers(-3, 4, (64, 4)).astype(np.float16)
    b = rng.integers(-3, 4, (64, 4)).astype(np.float16)
    c = rng.integers(-3, 4, (64, 4)).astype(np.float32)
    memory = DeviceMemory()
    addresses = []
    for array in (a, b, c, np.zeros((64, 4), np.float32), np.zeros((64, 4), np.float32)):
        addresses.append(memory.alloc(array.nbytes))
        memory.write(addresses[-1], array.tobytes())
    stats = launch(kernel(IR), "k", 1, 64, struct.pack("<5Q", *addresses), memory=memory)
    assert (stats.mfma_instructions, stats.mfma_busy_cycles) == (3, 16 + 16 + 8)

    def matrix(lanes: np.ndarray, transpose: bool) -> np.ndarray:  # 16x16x16 A/B: lane 16*(k//4)+r, element k%4
        m = np.array([[lanes[16 * (k // 4) + r, k % 4] for k in range(16)] for r in range(16)], dtype=np.float64)
        return m.T if transpose else m

    def accumulator(lanes: np.ndarray) -> np.ndarray:  # 16x16 C/D: lane 16*(i//4)+j, register i%4
        return np.array([[lanes[16 * (i // 4) + j, i % 4] for j in range(16)] for i in range(16)], dtype=np.float64)

    d1 = matrix(a, False) @ matrix(b, True) + accumulator(c)
    d2 = matrix(b, False) @ matrix(a, True) + d1
    got = np.frombuffer(memory.read(addresses[3], 64 * 16), dtype=np.float32).reshape(64, 4)
    np.testing.assert_array_equal(accumulator(got), d2)
    # 4x4x1 f32, 16 blocks: A[b][i] in lane 4b+i, B[b][j] in lane 4b+j, D[b][i][j] in lane 4b+j, register i
    x, y = got[:, 0].astype(np.float64), got[:, 3].astype(np.float64)
    e = np.frombuffer(memory.read(addresses[4], 64 * 16), dtype=np.float32).reshape(64, 4)
    for lane in range(64):
        block, j = divmod(lane, 4)
        for i in range(4):
            assert e[lane, i] == x[4 * block + i] * y[4 * block + j] + c[lane, i]
