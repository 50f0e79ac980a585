"""The Python API of issue #4: ``ptx2gcn.compile(ptx_text_or_path, arch="gfx942", opt=3) -> CodeObject``,
with ``name=`` naming the source in diagnostics, and located errors for bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import ptx2gcn
from ptx2gcn.diagnostics import Ptx2GcnError

PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry scale(.param .u64 p, .param .f32 k)
{
  .reg .b32 %r<3>; .reg .b64 %rd<4>; .reg .f32 %f<3>;
  ld.param.u64 %rd1, [p];
  ld.param.f32 %f1, [k];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  ld.global.f32 %f2, [%rd3];
  mul.f32 %f2, %f2, %f1;
  st.global.f32 [%rd3], %f2;
  ret;
}
"""


def test_compile_is_exported_at_package_level_and_lazy() -> None:
    script = ("import sys, ptx2gcn; heavy = {'llvmlite', 'lark', 'numpy'} & set(sys.modules); "
              "assert not heavy, heavy; assert callable(ptx2gcn.compile); assert 'llvmlite' in sys.modules")
    subprocess.run([sys.executable, "-c", script], check=True)


def test_compile_text_path_and_pathlike(tmp_path: Path) -> None:
    file = tmp_path / "scale.ptx"
    file.write_text(PTX)
    codes = [ptx2gcn.compile(PTX), ptx2gcn.compile(str(file)), ptx2gcn.compile(file, arch="gfx942", opt=3)]
    for code in codes:
        assert isinstance(code, ptx2gcn.CodeObject)
        assert code.arch == "gfx942" and code.data[:4] == b"\x7fELF"
        info = code.kernels["scale"]
        assert info.params == ((0, 8), (8, 4))  # CUDA's parameter buffer: u64 at 0, f32 at 8
        assert info.kernarg_size >= 12 and info.vgpr_count > 0 and info.lds_size == 0
    assert codes[0].data == codes[1].data == codes[2].data


def test_name_is_used_in_diagnostics(tmp_path: Path) -> None:
    bad = PTX.replace("mul.f32 %f2, %f2, %f1;", "mul.f32 %f2, %f2, %nothing;")
    line = bad.splitlines().index("  mul.f32 %f2, %f2, %nothing;") + 1
    with pytest.raises(Ptx2GcnError) as caught:
        ptx2gcn.compile(bad, name="kernels/scale.ptx")
    assert str(caught.value).startswith(f"kernels/scale.ptx:{line}:")
    file = tmp_path / "on_disk.ptx"
    file.write_text(bad)
    with pytest.raises(Ptx2GcnError) as caught:
        ptx2gcn.compile(file)
    assert str(caught.value).startswith(f"{file}:{line}:")
    with pytest.raises(Ptx2GcnError) as caught:
        ptx2gcn.compile(file, name="shown.ptx")
    assert str(caught.value).startswith(f"shown.ptx:{line}:")


def test_missing_file_bad_arch_bad_level() -> None:
    with pytest.raises(Ptx2GcnError, match="cannot read no_such_kernel.ptx"):
        ptx2gcn.compile("no_such_kernel.ptx")
    with pytest.raises(Ptx2GcnError, match="unsupported --arch 'gfx1100'"):
        ptx2gcn.compile(PTX, arch="gfx1100")
    with pytest.raises(ValueError, match="0..3"):
        ptx2gcn.compile(PTX, opt=4)


def test_one_options_value_whole_or_by_field(tmp_path: Path) -> None:
    """``compile(ptx, CompileOptions(...))`` and ``compile(ptx, **fields)`` build the same one value;
    the code object records it, and a different level changes the code (LLVM -O0 vs -O3)."""
    whole = ptx2gcn.compile(PTX, ptx2gcn.CompileOptions(arch="gfx90a", opt=0))
    by_field = ptx2gcn.compile(PTX, arch="gfx90a", opt=0)
    on_top = ptx2gcn.compile(PTX, ptx2gcn.CompileOptions(arch="gfx90a"), opt=0)
    assert whole.options == by_field.options == on_top.options == ptx2gcn.CompileOptions(arch="gfx90a", opt=0)
    assert whole.data == by_field.data == on_top.data
    assert whole.arch == "gfx90a"
    assert ptx2gcn.compile(PTX, arch="gfx90a", opt=3).data != whole.data
    with pytest.raises(TypeError):
        ptx2gcn.compile(PTX, no_such_option=1)
