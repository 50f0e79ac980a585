"""``ptx2gcn.link.codeobject`` against LLVM's own view of the same code objects: the ``.amdhsa_*`` directives
``llvm-objdump -D --disassemble-symbols=<k>.kd`` prints, and the metadata ``llvm-readelf --notes`` prints."""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from ptx2gcn.link.codeobject import CodeObjectError, KernelDescriptor, read_code_object
from ptx2gcn.link.elf import ElfFile
from ptx2gcn.runtime.emulator.loader import load

KERNELS = """
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workitem.id.z()
declare i32 @llvm.amdgcn.workgroup.id.y()
declare ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
@lds = internal addrspace(3) global [100 x i32] poison, align 4

define amdgpu_kernel void @plain(ptr addrspace(1) %out, i32 %n, i16 %h, double %d) {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %t
  store i32 %n, ptr addrspace(1) %p
  ret void
}

define amdgpu_kernel void @fancy(ptr addrspace(1) %out) {
  %z = call i32 @llvm.amdgcn.workitem.id.z()
  %y = call i32 @llvm.amdgcn.workgroup.id.y()
  %dp = call ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
  %v = load i32, ptr addrspace(4) %dp
  %arr = alloca [8 x i32], align 4, addrspace(5)
  %q = getelementptr [8 x i32], ptr addrspace(5) %arr, i32 0, i32 %z
  store volatile i32 %v, ptr addrspace(5) %q
  %l = getelementptr [100 x i32], ptr addrspace(3) @lds, i32 0, i32 %y
  store volatile i32 %z, ptr addrspace(3) %l
  %r = load volatile i32, ptr addrspace(5) %q
  store i32 %r, ptr addrspace(1) %out
  ret void
}
"""

# .amdhsa directive -> how to read the same value from a KernelDescriptor
DIRECTIVES: dict[str, Callable[[KernelDescriptor], int]] = {
    "group_segment_fixed_size": lambda kd: kd.group_segment_fixed_size,
    "private_segment_fixed_size": lambda kd: kd.private_segment_fixed_size,
    "kernarg_size": lambda kd: kd.kernarg_size,
    "accum_offset": lambda kd: kd.rsrc3.accum_offset,
    "tg_split": lambda kd: int(kd.rsrc3.tg_split),
    "float_round_mode_32": lambda kd: kd.rsrc1.float_round_mode_32,
    "float_round_mode_16_64": lambda kd: kd.rsrc1.float_round_mode_16_64,
    "float_denorm_mode_32": lambda kd: kd.rsrc1.float_denorm_mode_32,
    "float_denorm_mode_16_64": lambda kd: kd.rsrc1.float_denorm_mode_16_64,
    "dx10_clamp": lambda kd: int(kd.rsrc1.enable_dx10_clamp),
    "ieee_mode": lambda kd: int(kd.rsrc1.enable_ieee_mode),
    "fp16_overflow": lambda kd: int(kd.rsrc1.fp16_ovfl),
    "enable_private_segment": lambda kd: int(kd.rsrc2.enable_private_segment),
    "system_sgpr_workgroup_id_x": lambda kd: int(kd.rsrc2.enable_sgpr_workgroup_id_x),
    "system_sgpr_workgroup_id_y": lambda kd: int(kd.rsrc2.enable_sgpr_workgroup_id_y),
    "system_sgpr_workgroup_id_z": lambda kd: int(kd.rsrc2.enable_sgpr_workgroup_id_z),
    "system_sgpr_workgroup_info": lambda kd: int(kd.rsrc2.enable_sgpr_workgroup_info),
    "system_vgpr_workitem_id": lambda kd: kd.rsrc2.enable_vgpr_workitem_id,
    "user_sgpr_dispatch_ptr": lambda kd: int(kd.enable_sgpr_dispatch_ptr),
    "user_sgpr_queue_ptr": lambda kd: int(kd.enable_sgpr_queue_ptr),
    "user_sgpr_kernarg_segment_ptr": lambda kd: int(kd.enable_sgpr_kernarg_segment_ptr),
    "user_sgpr_dispatch_id": lambda kd: int(kd.enable_sgpr_dispatch_id),
    "user_sgpr_private_segment_size": lambda kd: int(kd.enable_sgpr_private_segment_size),
    "uses_dynamic_stack": lambda kd: int(kd.uses_dynamic_stack),
}


def objdump_directives(objdump: str, path: Path, kernel: str) -> dict[str, int]:
    text = subprocess.run(
        [objdump, "-D", "--mcpu=gfx942", f"--disassemble-symbols={kernel}.kd", str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {
        m.group(1): int(m.group(2), 0) for m in re.finditer(r"\.amdhsa_(\w+) (0x[0-9a-f]+|\d+)$", text, re.M)
    }


@pytest.mark.parametrize("name", ["plain", "fancy"])
def test_descriptor_fields_match_llvm_objdump(
    hsaco: Callable[[str], bytes], llvm_tool: Callable[[str], str], name: str
) -> None:
    data = hsaco(KERNELS)
    code = read_code_object(data)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "k.hsaco"
        path.write_bytes(data)
        expected = objdump_directives(llvm_tool("llvm-objdump-22"), path, name)
    kd = code.kernels[name].descriptor
    checked = 0
    for directive, read in DIRECTIVES.items():
        if directive in expected:
            assert read(kd) == expected[directive], directive
            checked += 1
    assert checked >= 20
    if name == "fancy":  # the kernel really exercises the non-default fields
        assert kd.enable_sgpr_dispatch_ptr and kd.rsrc2.enable_vgpr_workitem_id == 2
        assert kd.rsrc2.enable_sgpr_workgroup_id_y and kd.private_segment_fixed_size >= 32
        assert kd.group_segment_fixed_size == 400


def test_metadata_matches_llvm_readelf(
    hsaco: Callable[[str], bytes], llvm_tool: Callable[[str], str]
) -> None:
    data = hsaco(KERNELS)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "k.hsaco"
        path.write_bytes(data)
        notes = subprocess.run(
            [llvm_tool("llvm-readelf-22"), "--notes", str(path)], capture_output=True, text=True, check=True
        ).stdout
    code = read_code_object(data)
    plain = code.kernels["plain"].meta
    # llvm-readelf prints the msgpack note as YAML: ".offset: N / .size: N / .value_kind: K" per argument.
    yaml_args = re.findall(r"\.offset:\s+(\d+)\s+\.size:\s+(\d+)\s+\.value_kind:\s+(\w+)", notes)
    ours = {(str(a.offset), str(a.size), a.value_kind) for k in code.kernels.values() for a in k.meta.args}
    assert set(yaml_args) == ours
    assert [(a.name, a.offset, a.size, a.value_kind) for a in plain.explicit_args] == [
        ("out", 0, 8, "global_buffer"),
        ("n", 8, 4, "by_value"),
        ("h", 12, 2, "by_value"),
        ("d", 16, 8, "by_value"),
    ]
    assert plain.wavefront_size == 64 and all(a.hidden for a in plain.args[4:])
    assert code.target == "amdgcn-amd-amdhsa--gfx942" and code.version == (1, 2)
    assert code.kernels["plain"].entry_address % 256 == 0
    symbols = {s.name: s.value for s in ElfFile(data).symtab}
    assert code.kernels["plain"].entry_address == symbols["plain"]


def test_bad_code_objects_are_located_errors() -> None:
    with pytest.raises(CodeObjectError, match=r"^x\.hsaco: error: not an ELF file"):
        read_code_object(b"not an elf at all", "x.hsaco")
    with pytest.raises(CodeObjectError, match="not an AMDGPU code object"):
        read_code_object(Path("/bin/true").read_bytes() if Path("/bin/true").exists() else b"\x7fELF", "true")


def test_truncated_code_object(hsaco: Callable[[str], bytes]) -> None:
    data = hsaco(KERNELS)
    with pytest.raises(CodeObjectError, match="error: "):
        load(data[: len(data) // 3], "cut.hsaco")
