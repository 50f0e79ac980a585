"""``ld.volatile``/``st.volatile`` stay volatile in the LLVM IR (llvmlite's plain load/store drop the
flag): two volatile loads of one address are two loads, two volatile stores are two stores, even after
LLVM's -O3, as PTX requires (volatile accesses are not merged or removed)."""

from __future__ import annotations

import re

from ptx2gcn.compiler import compile_llvm

PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<4>; .reg .b64 %rd<2>;
  .shared .align 4 .b32 flag;
  ld.param.u64 %rd1, [p];
  ld.volatile.global.u32 %r1, [%rd1];
  ld.volatile.global.u32 %r2, [%rd1];
  add.u32 %r3, %r1, %r2;
  st.volatile.shared.u32 [flag], %r3;
  st.volatile.shared.u32 [flag], %r3;
  st.volatile.global.v2.u32 [%rd1+8], {%r3, %r3};
  ret;
}
"""


def test_volatile_accesses_survive_optimisation() -> None:
    llvm = compile_llvm(PTX, opt=3)
    assert len(re.findall(r"load volatile i32, ptr addrspace\(1\)", llvm)) == 2
    assert len(re.findall(r"store volatile i32 %\S+, ptr addrspace\(3\)", llvm)) == 2
    assert len(re.findall(r"store volatile <2 x i32>", llvm)) == 1
