"""Special registers beyond the thread geometry, run on the emulator: %smid/%nsmid (hardware ids),
%dynamic_smem_size/%total_smem_size (hidden argument + LDS layout), %gridid, the one-CTA cluster
registers, %envregN and %pmN. Expected values are computed by hand from PTX's definitions and the
AMDGPU register layouts (AMDGPUUsage; ROCm's HW_ID field table), never read from the compiler."""

from __future__ import annotations

import re
import struct

import numpy as np
import pytest

from ptx2gcn.compiler import compile, compile_assembly, compile_llvm
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

HEADER = ".version 8.1\n.target sm_90\n.address_size 64\n"


def _run(ptx: str, kernel: str, words: int, grid: tuple[int, int, int] = (1, 1, 1),
         block: tuple[int, int, int] = (1, 1, 1), dynamic_lds: int = 0, opt: int = 3) -> np.ndarray:
    """Launch ``kernel(out)``; ``out`` holds ``words`` u32 per thread of the whole grid."""
    threads = int(np.prod(grid) * np.prod(block))
    memory = DeviceMemory()
    out = memory.alloc(4 * words * threads)
    memory.write(out, bytes(4 * words * threads))
    program = load(compile(HEADER + ptx, opt=opt).data, kernel)
    launch(program, kernel, grid=grid, block=block, kernarg=struct.pack("<Q", out), memory=memory,
           dynamic_lds=dynamic_lds)
    return np.frombuffer(memory.read(out, 4 * words * threads), np.uint32).reshape(threads, words)


FLAT_OUT = """
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;
  mov.u32 %r4, %ctaid.y; mov.u32 %r5, %nctaid.x;
  mad.lo.u32 %r1, %r4, %r5, %r1;
  mad.lo.u32 %r1, %r1, %r2, %r3;
  mul.wide.u32 %rd2, %r1, {stride};
  add.u64 %rd1, %rd1, %rd2;
"""

SMID = """
.visible .entry smid(.param .u64 out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<4>;
""" + FLAT_OUT.format(stride=8) + """
  mov.u32 %r6, %smid;
  mov.u32 %r7, %nsmid;
  st.global.v2.u32 [%rd1], {%r6, %r7};
  ret;
}
"""


def test_smid_is_below_nsmid_on_every_wave() -> None:
    got = _run(SMID, "smid", 2, grid=(3, 2, 1), block=(96, 1, 1))
    # %nsmid on gfx942: XCC_ID (4 bits) above HW_ID[15:8] (SE 3 + SH 1 + CU 4 bits) = 2**12 codes.
    assert set(got[:, 1]) == {4096}
    assert (got[:, 0] < got[:, 1]).all()
    # Work-groups are placed round-robin over MI300X's 8 XCCs (runtime/emulator/placement.py):
    # work-group n (x fastest; 6 here) runs on XCC n, CU 0, so %smid = n << 8 on both of its waves.
    assert got[:, 0].tolist() == [(t // 96) << 8 for t in range(len(got))]


@pytest.mark.parametrize(("arch", "registers", "bound"), [
    ("gfx942", ["hwreg(HW_REG_HW_ID, 8, 8)", "hwreg(HW_REG_XCC_ID, 0, 4)"], 4096),
    ("gfx950", ["hwreg(HW_REG_HW_ID, 8, 8)", "hwreg(HW_REG_XCC_ID, 0, 4)"], 4096),
    ("gfx90a", ["hwreg(HW_REG_HW_ID, 8, 8)"], 256),
])
def test_smid_reads_the_compute_unit_fields(arch: str, registers: list[str], bound: int) -> None:
    """CU_ID is HW_ID[11:8], SH_ID [12], SE_ID [15:13]; XCC_ID[3:0] exists from gfx940 on."""
    asm = compile_assembly(HEADER + SMID, arch=arch)
    reads = re.findall(r"s_getreg_b32 s\d+, (hwreg\([^)]*\))", asm)
    assert sorted(reads) == sorted(registers)
    assert f"0x{bound:x}" in asm or f", {bound}\n" in asm


SMEM = """
.extern .shared .align 16 .b8 dyn[];
.visible .entry smem(.param .u64 out)
{{
  .reg .b32 %r<12>; .reg .b64 %rd<4>;
  .shared .align 4 .b8 fixed[{static}];
""" + FLAT_OUT.format(stride=16) + """
  mov.u32 %r6, %dynamic_smem_size;
  mov.u32 %r7, %total_smem_size;
  mov.u32 %r8, %aggr_smem_size;
  mov.u32 %r9, dyn;
  st.volatile.shared.u32 [fixed], %r3;
  st.global.v4.u32 [%rd1], {{%r6, %r7, %r8, %r9}};
  ret;
}}
"""


def _align(value: int, to: int) -> int:
    return (value + to - 1) // to * to


@pytest.mark.parametrize(("static", "dynamic"), [(100, 0), (700, 400), (8, 4096), (1024, 3)])
def test_shared_memory_sizes(static: int, dynamic: int) -> None:
    got = _run(SMEM.format(static=static), "smem", 4, grid=(2, 1, 1), block=(64, 1, 1), dynamic_lds=dynamic)
    base = _align(static, 16)  # dynamic LDS starts after the static part, at its own alignment
    total = _align(base + dynamic, 512)  # PTX: in multiples of the allocation unit (512 B on gfx9)
    assert (got == np.array([dynamic, total, total, base], np.uint32)).all()


@pytest.mark.parametrize(("arch", "granule"), [("gfx942", 512), ("gfx90a", 512), ("gfx950", 1280)])
def test_total_smem_size_granule_follows_the_target(arch: str, granule: int) -> None:
    """AMDGPUUsage COMPUTE_PGM_RSRC2.LDS_SIZE: 128-dword granules up to gfx942, 320 on gfx950."""
    llvm = compile_llvm(HEADER + SMEM.format(static=8), arch=arch, optimised=False)
    assert re.search(rf"udiv i32 %\S+, {granule}\b", llvm)
    assert re.search(rf"add i32 %\S+, {granule - 1}\b", llvm)


SMEM_NO_EXTERN = """
.func (.reg .b32 r) size()
{
  mov.u32 r, %dynamic_smem_size;
  ret;
}
.visible .entry smem_call(.param .u64 out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  call (%r1), size, ();
  mov.u32 %r2, %total_smem_size;
  st.global.v2.u32 [%rd1], {%r1, %r2};
  ret;
}
"""


@pytest.mark.parametrize("opt", [0, 3])  # -O0 keeps the call: LLVM's LDS lowering for functions
def test_dynamic_smem_size_without_extern_shared_and_in_a_function(opt: int) -> None:
    """A launch may pass dynamic shared memory to a kernel that declares no extern .shared array;
    the size must still arrive (LLVM only passes it to kernels that use dynamic LDS)."""
    code = compile(HEADER + SMEM_NO_EXTERN, opt=opt)
    assert code.kernels["smem_call"].lds_size == 0
    got = _run(SMEM_NO_EXTERN, "smem_call", 2, dynamic_lds=1000, opt=opt)
    assert got[0].tolist() == [1000, 1024]


CLUSTER = """
.visible .entry cluster(.param .u64 out)
{
  .reg .b32 %r<32>; .reg .b64 %rd<4>; .reg .pred %p1;
""" + FLAT_OUT.format(stride=64) + """
  mov.u32 %r6, %clusterid.x; mov.u32 %r7, %clusterid.y; mov.u32 %r8, %clusterid.z;
  mov.u32 %r9, %nclusterid.x; mov.u32 %r10, %nclusterid.y; mov.u32 %r11, %nclusterid.z;
  mov.u32 %r12, %cluster_ctaid.x; mov.u32 %r13, %cluster_ctaid.y; mov.u32 %r14, %cluster_ctaid.z;
  mov.u32 %r15, %cluster_nctaid.x; mov.u32 %r16, %cluster_nctaid.y; mov.u32 %r17, %cluster_nctaid.z;
  mov.u32 %r18, %cluster_ctarank; mov.u32 %r19, %cluster_nctarank;
  mov.pred %p1, %is_explicit_cluster; selp.u32 %r20, 1, 0, %p1;
  mov.u32 %r21, %envreg0;
  st.global.v4.u32 [%rd1], {%r6, %r7, %r8, %r9};
  st.global.v4.u32 [%rd1+16], {%r10, %r11, %r12, %r13};
  st.global.v4.u32 [%rd1+32], {%r14, %r15, %r16, %r17};
  st.global.v4.u32 [%rd1+48], {%r18, %r19, %r20, %r21};
  ret;
}
"""


def test_a_cluster_is_one_cta() -> None:
    grid, block = (3, 2, 1), (32, 1, 1)
    got = _run(CLUSTER, "cluster", 16, grid=grid, block=block)
    rows = [[x, y, 0, *grid, 0, 0, 0, 1, 1, 1, 0, 1, 0, 0]
            for y in range(grid[1]) for x in range(grid[0]) for _ in range(block[0])]
    assert np.array_equal(got, np.array(rows, np.uint32))


MISC = """
.visible .entry misc(.param .u64 out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u64 %rd2, %gridid;
  mov.u64 %rd3, %pm3_64;
  mov.u32 %r1, %pm7;
  mov.u32 %r2, %envreg31;
  st.global.u64 [%rd1], %rd2;
  st.global.u64 [%rd1+8], %rd3;
  st.global.v2.u32 [%rd1+16], {%r1, %r2};
  ret;
}
"""


def test_gridid_is_the_dispatch_id_and_the_driver_registers_read_zero() -> None:
    # The emulator's AQL dispatch id is 0 for every launch; %pm* (undefined in PTX) and %envreg*
    # (this driver defines none) read 0.
    got = _run(MISC, "misc", 6)
    assert got[0].tolist() == [0, 0, 0, 0, 0, 0]
    asm = compile_assembly(HEADER + MISC)
    assert ".amdhsa_user_sgpr_dispatch_id 1" in asm
