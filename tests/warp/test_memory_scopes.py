"""PTX fences and the .cta/.gpu/.sys scopes of loads, stores and atomics map to the LLVM sync scopes
of docs/mode-p.md, "Memory scopes" (AMDGPUUsage "Memory Model GFX942"): cta → "workgroup", gpu → "agent",
sys → system (no syncscope), always the cross-address-space scopes (never ``-one-as``)."""

from __future__ import annotations

import re

import pytest

from ptx2gcn.compiler import compile_llvm

KERNEL = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{{
.reg .b32 %r<4>; .reg .b64 %rd<2>;
ld.param.u64 %rd1, [p];
{body}
ret;
}}
"""


@pytest.mark.parametrize(("ptx", "llvm"), [
    ("membar.cta;", 'fence syncscope("workgroup") seq_cst'),
    ("fence.sc.cta;", 'fence syncscope("workgroup") seq_cst'),
    ("fence.acq_rel.cta;", 'fence syncscope("workgroup") acq_rel'),
    ("membar.gl;", 'fence syncscope("agent") seq_cst'),
    ("fence.sc.gpu;", 'fence syncscope("agent") seq_cst'),
    ("fence.acq_rel.gpu;", 'fence syncscope("agent") acq_rel'),
    ("membar.sys;", "fence seq_cst"),
    ("fence.acq_rel.sys;", "fence acq_rel"),
    ("ld.acquire.gpu.global.u32 %r1, [%rd1];", 'syncscope("agent") acquire'),
    ("ld.relaxed.cta.global.u32 %r1, [%rd1];", 'syncscope("workgroup") monotonic'),
    ("st.release.sys.global.u32 [%rd1], 1;", "store atomic i32 1, ptr addrspace(1)"),
    ("st.release.cta.global.u32 [%rd1], 1;", 'syncscope("workgroup") release'),
    ("atom.acq_rel.gpu.global.add.u32 %r1, [%rd1], 1;", 'syncscope("agent") acq_rel'),
    ("atom.relaxed.cta.global.add.u32 %r1, [%rd1], 1;", 'syncscope("workgroup") monotonic'),
    ("atom.global.add.u32 %r1, [%rd1], 1;", 'syncscope("agent") monotonic'),
])
def test_scope_mapping(ptx: str, llvm: str) -> None:
    body = ptx if not ptx.startswith(("ld", "atom")) else ptx + " st.global.u32 [%rd1], %r1;"
    text = compile_llvm(KERNEL.format(body=body), optimised=False)
    assert llvm in text, text
    assert "one-as" not in text
    if ptx.startswith(("membar.sys", "fence.acq_rel.sys", "st.release.sys")):
        line = next(line for line in text.splitlines() if llvm in line)
        assert "syncscope" not in line


def test_bar_warp_sync_and_bar_sync_fences() -> None:
    text = compile_llvm(KERNEL.format(body="bar.warp.sync -1; bar.sync 0;"), optimised=False)
    ops = re.findall(r'fence syncscope\("(\w+)"\) (\w+)|call void @"?llvm\.amdgcn\.(s\.barrier|wave\.barrier)', text)
    flat = [x for op in ops for x in op if x]
    assert flat == ["wavefront", "acq_rel", "wave.barrier", "workgroup", "release", "s.barrier",
                    "workgroup", "acquire"]
