"""``CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES`` counts every static ``.shared`` variable a kernel
references, as ptxas allocates them, even one that is only stored to (whose stores LLVM would
otherwise delete, with the variable); a variable no instruction names is not counted (ptxas drops
it too). ptxas's own ``smem`` figure is the independent reference where it is installed."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ptx2gcn import cuda
from tests.driver.conftest import ok

F = cuda.CUfunction_attribute
PTXAS = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"

PTX = """
.version 7.0
.target sm_70
.address_size 64
.visible .shared .align 4 .b8 scratch[40];
.shared .align 8 .b8 table[64];
.shared .align 4 .b8 unused[400];

// one thread stores ten values to `scratch` and copies them out: LLVM forwards the stores to the
// loads, leaving `scratch` stored to and never loaded
.visible .entry store_only(.param .u64 out)
{
  .reg .b32 %r<3>; .reg .b64 %rd<3>; .reg .pred %p;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, 0;
LOOP:
  mul.wide.u32 %rd2, %r1, 4;
  st.shared.u32 [scratch], %r1;
  ld.shared.u32 %r2, [scratch];
  add.s64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2], %r2;
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p, %r1, 10;
  @%p bra LOOP;
  ret;
}

// `table` through a device function: counted for the kernel that calls it
.func poke(.param .b32 v)
{
  .reg .b32 %v;
  ld.param.u32 %v, [v];
  st.shared.u32 [table+8], %v;
  ret;
}
.visible .entry through_call(.param .u64 out)
{
  .reg .b64 %rd1;
  { .param .b32 a; st.param.b32 [a], 7; call poke, (a); }
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  st.global.u32 [%rd1], 1;
  ret;
}
"""
EXPECTED = {"store_only": 40, "through_call": 64}


def test_static_shared_size_counts_every_referenced_variable(context: cuda.CUcontext) -> None:
    module = ok(cuda.cuModuleLoadData(PTX.encode()))
    out = ok(cuda.cuMemAlloc(40))
    for name, size in EXPECTED.items():
        function = ok(cuda.cuModuleGetFunction(module, name.encode()))
        assert ok(cuda.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function)) == size, name
        ok(cuda.cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, 0, ((out,), (None,)), 0))
    result = np.zeros(10, np.uint32)
    ok(cuda.cuMemcpyDtoH(result, out, 40))
    assert result.tolist() == [1, *range(1, 10)]  # through_call's 1 over store_only's 0..9


@pytest.mark.skipif(not Path(PTXAS).exists(), reason="needs NVIDIA's ptxas as the reference")
def test_the_expected_sizes_are_ptxas_figures(tmp_path: Path) -> None:
    source = tmp_path / "shared.ptx"
    source.write_text(PTX)
    done = subprocess.run([PTXAS, "-arch=sm_80", "-v", str(source), "-o", str(tmp_path / "x.cubin")],
                          capture_output=True, text=True, check=True)  # fmt: skip
    found = dict(re.findall(r"Compiling entry function '(\w+)'.*?(\d+) bytes smem", done.stderr, re.DOTALL))
    assert {name: int(size) for name, size in found.items() if name in EXPECTED} == EXPECTED
