"""IR-level checks of the Mode P lowering (docs/mode-p.md): every ds_bpermute address is
``(j | (lane64 & 32)) << 2`` with ``j`` the clamped in-half lane (or ``(lane64 + d) << 2`` for a constant
lane pattern), no DPP control that crosses the
32-lane halves in the gfx942 code, ds_swizzle only in 32-lane bit mode, every cross-lane intrinsic
declared ``convergent``."""

from __future__ import annotations

import re

import pytest

from ptx2gcn.compiler import compile_assembly, compile_llvm
from tests.warp.conftest import warp_kernel

ALL_OPS = warp_kernel("""
setp.ne.u32 %p1, %a0, 0; mov.b64 %rd1, {%a0, %a1};
shfl.sync.up.b32 %o0|%p2, %a0, %a1, %a2, -1;
shfl.sync.down.b32 %o1, %a0, 3, 0x1f, -1;
shfl.sync.bfly.b32 %o2, %a0, 4, 0x1f, -1;
shfl.sync.idx.b32 %o3, %a0, 7, 0x1f, -1;
shfl.sync.idx.b32 %o4, %a0, %a1, 0x181f, -1;
vote.sync.ballot.b32 %o5, %p1, -1;
activemask.b32 %o6;
match.any.sync.b64 %o7, %rd1, -1;
match.all.sync.b32 %o8|%p3, %a0, -1;
redux.sync.max.s32 %o9, %a0, -1;
redux.sync.add.u32 %o10, %a1, %a2;
bar.warp.sync -1;
mov.u32 %o11, %laneid;
""", 12)

CROSS_LANE = ("ds.bpermute", "ds.swizzle", "ballot", "readlane", "set.inactive", "strict.wwm", "s.barrier",
              "wave.barrier", "update.dpp")


@pytest.fixture(scope="module")
def llvm_ir() -> str:
    return compile_llvm(ALL_OPS, optimised=False)


def _definitions(text: str) -> dict[str, str]:
    return {m.group(1): " ".join(m.group(2).split()) for m in re.finditer(r'^\s*(%"?[\w.]+"?) = (.*)$', text, re.M)}


def _operand(defn: str, index: int) -> str:
    """Operand ``index`` of an instruction's text (``op ty a, b`` / ``select i1 c, ty a, ty b`` /
    ``call ty @f(ty a, ty b)``), without its type."""
    if defn.startswith("call"):
        args = defn[defn.index("(") + 1:defn.rindex(")")].split(", ")
        return args[index].split(" ")[-1]
    args = defn.split(" ", 2)[2].split(", ")
    return args[index].split(" ")[-1]


def test_bpermute_addresses_stay_in_the_own_half(llvm_ir: str) -> None:
    defs = _definitions(llvm_ir)
    calls = [d for d in defs.values() if "@\"llvm.amdgcn.ds.bpermute\"" in d or "@llvm.amdgcn.ds.bpermute" in d]
    assert len(calls) >= 2
    for call in calls:
        address = defs[_operand(call, 0)]
        assert address.startswith("shl i32") and address.endswith(", 2"), address
        index = defs[_operand(address, 0)]
        if index.startswith("add i32"):
            # a constant lane pattern: lane64 + d[l], d[l] a constant offset chosen by a constant lane
            # mask (the pattern keeps lane + d[l] in the own half: tests/warp/test_shfl_patterns.py)
            assert "mbcnt.hi" in defs[_operand(index, 0)], index
            delta = _operand(index, 1)
            assert re.fullmatch(r"-?\d+", delta) or defs[delta].startswith("select i1"), delta
            continue
        assert index.startswith("or i32"), index
        lane, base = (defs[_operand(index, i)] for i in range(2))
        # the shuffle's clamped lane (own lane when out of range), or a lane index masked to 0..31
        assert lane.startswith("select i1") or (lane.startswith("and i32") and lane.endswith(", 31")), lane
        assert base.startswith("and i32") and base.endswith(", 32"), base
        assert "mbcnt.hi" in defs[_operand(base, 0)]


def test_cross_lane_intrinsics_are_convergent(llvm_ir: str) -> None:
    declared = re.findall(r'^declare (.*)$', llvm_ir, re.M)
    seen = set()
    for line in declared:
        for name in CROSS_LANE:
            if f"llvm.amdgcn.{name}" in line:
                seen.add(name)
                assert "convergent" in line, line
    assert {"ds.bpermute", "ds.swizzle", "ballot", "readlane", "set.inactive", "strict.wwm"} <= seen


def test_no_half_crossing_dpp_or_swizzle_in_the_code() -> None:
    asm = compile_assembly(ALL_OPS)
    assert "ds_bpermute_b32" in asm and "ds_swizzle_b32" in asm and "v_readlane_b32" in asm
    for banned in ("row_bcast:31", "wave_shl", "wave_shr", "wave_rol", "wave_ror", "v_readfirstlane"):
        assert banned not in asm, banned
    for line in asm.splitlines():
        if "row_bcast:15" in line:
            assert "row_mask:0xa" in line, line
        if "ds_swizzle_b32" in line:
            offset = re.search(r"offset:(\S+)", line)
            # bit mode, in LLVM's spellings: BITMASK_PERM, or SWAP / REVERSE / BROADCAST with a group of
            # at most 32 lanes
            assert offset is not None and ("BITMASK_PERM" in offset.group(1)
                                           or re.fullmatch(r"swizzle\((SWAP|REVERSE|BROADCAST),(\d+)[,)].*",
                                                           offset.group(1))
                                           or re.fullmatch(r"\d+", offset.group(1))), line
            group = re.fullmatch(r"swizzle\((?:SWAP|REVERSE|BROADCAST),(\d+)[,)].*", offset.group(1))
            assert group is None or int(group.group(1)) <= 32, line
            if re.fullmatch(r"\d+", offset.group(1)):
                assert int(offset.group(1)) < 0x8000  # bit mode: offset[15] = 0


CALLS = """.version 8.0
.target sm_90
.address_size 64
.func (.reg .b32 r) leaf(.reg .b32 x)
{
    shfl.sync.bfly.b32 r, x, 1, 31, -1;
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>; .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    call (%r2), leaf, (%r1);
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"""


def test_functions_and_calls_are_convergent() -> None:
    """Design pitfall 8: a device function holding a shuffle must not be called under more control
    dependences than the PTX gave it, so every function and every call is ``convergent``."""
    text = compile_llvm(CALLS, optimised=False)
    defines = re.findall(r"^define .*?@\"?(\w+)\"?\(.*$", text, re.M)
    assert set(defines) >= {"leaf", "k"}
    groups = dict(re.findall(r"^attributes (#\d+) = \{(.*)\}$", text, re.M))
    for line in re.findall(r"^define .*$", text, re.M):
        attrs = " ".join(groups.get(ref, "") for ref in re.findall(r"#\d+", line)) + line
        assert "convergent" in attrs, line
    calls = [line for line in text.splitlines() if re.search(r"call .*@\"?leaf\"?\(", line)]
    assert calls and all("convergent" in line or re.search(r"#\d+", line) for line in calls)
    for line in calls:
        attrs = " ".join(groups.get(ref, "") for ref in re.findall(r"#\d+", line)) + line
        assert "convergent" in attrs, line
