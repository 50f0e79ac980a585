"""atom/red .add.f32: global (and generic-to-global) adds flush subnormal inputs and results to
sign-preserving zero, shared adds keep them (PTX ISA 9.7.13.5); contended adds lose no update.

Expected values come from numpy: f32 addition (round to nearest even) with an explicit flush.
"""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.compiler import compile_assembly
from tests.codegen.conftest import compiled, run_compiled

_HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"

# (memory word, addend) pairs: subnormal old, subnormal addend, subnormal sum, signed zeros, NaN
PAIRS = np.array([[0x00800000, 0x807FFFFF], [0x00800000, 0x007FFFFF], [0x007FFFFF, 0x3F800000],
                  [0x80000001, 0x00000000], [0x00000001, 0x80000000], [0x00C00000, 0x80800000],
                  [0x3F800000, 0x33800000], [0x80000000, 0x80000000], [0x7FC00000, 0x3F800000],
                  [0x00400000, 0x00400000], [0xFF800000, 0x7F800000], [0x80800001, 0x00800000]],
                 dtype=np.uint32)


def _flush(x: np.ndarray) -> np.ndarray:
    bits = x.view(np.uint32)
    return np.where((bits & 0x7F800000) == 0, bits & 0x80000000, bits).astype(np.uint32).view(np.float32)


def _expected_new(old: np.ndarray, b: np.ndarray, flushes: bool) -> np.ndarray:
    x, y = old.view(np.float32), b.view(np.float32)
    with np.errstate(all="ignore"):
        total = _flush(_flush(x) + _flush(y)) if flushes else x + y
    return total.view(np.uint32)


def _same(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    nan = np.isnan(got.view(np.float32)) & np.isnan(want.view(np.float32))
    return (got == want) | nan


def _kernel(space: str, generic: bool) -> str:
    """k(out_old, out_new, in_old, in_b, n): thread i adds in_b[i] to word i (global or shared)."""
    if space == "global":
        setup = ("ld.param.u64 %rd9, [out_new];\ncvta.to.global.u64 %rd9, %rd9;\nadd.u64 %rd9, %rd9, %rd1;\n"
                 "st.global.b32 [%rd9], %r5;\n")
        target = "%rd9"
        if generic:
            setup += "cvta.global.u64 %rd8, %rd9;\n"
            target = "%rd8"
        finish = ""
    else:
        setup = "mov.u64 %rd9, sh;\nadd.u64 %rd9, %rd9, %rd1;\nst.shared.b32 [%rd9], %r5;\n"
        target = "%rd9"
        if generic:
            setup += "cvta.shared.u64 %rd8, %rd9;\n"
            target = "%rd8"
        finish = ("ld.shared.b32 %r7, [%rd9];\nld.param.u64 %rd7, [out_new];\n"
                  "cvta.to.global.u64 %rd7, %rd7;\nadd.u64 %rd7, %rd7, %rd1;\nst.global.b32 [%rd7], %r7;\n")
    qualifier = "" if generic else f".{space}"
    return _HEADER + f"""
.visible .entry k(.param .u64 out_old, .param .u64 out_new, .param .u64 in_old, .param .u64 in_b,
                  .param .u32 n)
{{
.reg .b32 %r<8>;
.reg .f32 %f<4>;
.reg .b64 %rd<12>;
.reg .pred %p1;
.shared .align 4 .b32 sh[64];
mov.u32 %r1, %tid.x;
ld.param.u32 %r6, [n];
setp.ge.u32 %p1, %r1, %r6;
@%p1 ret;
mul.wide.u32 %rd1, %r1, 4;
ld.param.u64 %rd2, [in_old];
cvta.to.global.u64 %rd2, %rd2;
add.u64 %rd2, %rd2, %rd1;
ld.global.b32 %r5, [%rd2];
ld.param.u64 %rd3, [in_b];
cvta.to.global.u64 %rd3, %rd3;
add.u64 %rd3, %rd3, %rd1;
ld.global.f32 %f1, [%rd3];
{setup}atom{qualifier}.add.f32 %f2, [{target}], %f1;
{finish}ld.param.u64 %rd4, [out_old];
cvta.to.global.u64 %rd4, %rd4;
add.u64 %rd4, %rd4, %rd1;
st.global.f32 [%rd4], %f2;
ret;
}}
"""


@pytest.mark.parametrize(("space", "generic", "flushes"), [
    ("global", False, True), ("global", True, True), ("shared", False, False), ("shared", True, False)])
def test_atom_add_f32_flush_rule(space: str, generic: bool, flushes: bool) -> None:
    old, b = PAIRS[:, 0].copy(), PAIRS[:, 1].copy()
    n = len(old)
    raw_old, raw_new = run_compiled(compiled(_kernel(space, generic)), "k", [4 * n, 4 * n],
                                    [old.tobytes(), b.tobytes()], n)
    got_old, got_new = np.frombuffer(raw_old, np.uint32), np.frombuffer(raw_new, np.uint32)
    assert (got_old == old).all(), "atom returns the replaced word unchanged"
    want = _expected_new(old, b, flushes)
    ok = _same(got_new, want)
    assert ok.all(), [(f"{o:#010x}", f"{x:#010x}", f"got {g:#010x}", f"want {w:#010x}")
                      for o, x, g, w in zip(old[~ok], b[~ok], got_new[~ok], want[~ok], strict=True)]
    # the rule matters on these inputs: the other behaviour would differ somewhere
    assert not _same(_expected_new(old, b, not flushes), want).all()


def test_red_add_f32_global_flushes() -> None:
    ptx = _kernel("global", False).replace("atom.global.add.f32 %f2,", "red.global.add.f32").replace(
        "st.global.f32 [%rd4], %f2;", "")
    old, b = PAIRS[:, 0].copy(), PAIRS[:, 1].copy()
    n = len(old)
    _, raw_new = run_compiled(compiled(ptx), "k", [4 * n, 4 * n], [old.tobytes(), b.tobytes()], n)
    assert _same(np.frombuffer(raw_new, np.uint32), _expected_new(old, b, True)).all()


def test_contended_global_add_loses_no_update_and_is_not_combined() -> None:
    # 64 threads add 1.0 to one word: every order gives 64.0 and the returned olds 0..63
    ptx = _HEADER + """
.visible .entry k(.param .u64 out_old, .param .u64 word, .param .u32 n)
{
.reg .f32 %f<3>;
.reg .b64 %rd<6>;
.reg .b32 %r1;
ld.param.u64 %rd1, [word];
cvta.to.global.u64 %rd1, %rd1;
atom.global.add.f32 %f1, [%rd1], 0f3F800000;
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd2, %r1, 4;
ld.param.u64 %rd3, [out_old];
cvta.to.global.u64 %rd3, %rd3;
add.u64 %rd3, %rd3, %rd2;
st.global.f32 [%rd3], %f1;
ret;
}
"""
    assert "v_mbcnt" not in compile_assembly(ptx), "the wave's adds must stay separate atomics"
    raw_old, raw_word = run_compiled(compiled(ptx), "k", [4 * 64, 4], [], 64)
    olds = np.frombuffer(raw_old, np.float32)
    assert np.frombuffer(raw_word, np.float32)[0] == 64.0
    assert sorted(olds.tolist()) == [float(i) for i in range(64)]


@pytest.mark.parametrize(("space", "t", "one", "tiny"), [
    ("shared", "f32", "0f3F800000", "0f33800000"),  # 1.0f and 2^-24
    ("shared", "f64", "0d3FF0000000000000", "0d3CA0000000000000"),  # 1.0 and 2^-53
    ("global", "f64", "0d3FF0000000000000", "0d3CA0000000000000")])
def test_contended_float_adds_round_one_by_one(space: str, t: str, one: str, tiny: str) -> None:
    # 64 threads add half an ulp of 1.0 to 1.0: each single add rounds back to 1.0 (ties to even),
    # so every serial order leaves 1.0; one add of the combined sum would leave 1 + 64·tiny.
    dtype = np.float32 if t == "f32" else np.float64
    address = "[sh]" if space == "shared" else "[%rd1]"
    ptx = _HEADER + f"""
.visible .entry k(.param .u64 out, .param .u32 n)
{{
.reg .{t} %v<3>;
.reg .b64 %rd<3>;
.reg .b32 %r1;
.reg .pred %p;
.shared .align 8 .{t} sh;
mov.u32 %r1, %tid.x;
setp.eq.u32 %p, %r1, 0;
ld.param.u64 %rd1, [out];
cvta.to.global.u64 %rd1, %rd1;
@%p st.{space}.{t} {address}, {one};
bar.sync 0;
atom.{space}.add.{t} %v1, {address}, {tiny};
bar.sync 0;
@%p ld.{space}.{t} %v2, {address};
@%p st.global.{t} [%rd1], %v2;
ret;
}}
"""
    assert "v_mbcnt" not in compile_assembly(ptx), "the wave's adds must stay separate atomics"
    (raw,) = run_compiled(compiled(ptx), "k", [8], [], 64)
    assert np.frombuffer(raw, dtype)[0] == 1.0, f"got {np.frombuffer(raw, dtype)[0]!r}, not 1.0"
