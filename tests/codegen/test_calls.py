"""Calls on the emulator: ``exit`` inside device functions (direct, nested, through a pointer; exited
threads release later barriers), calls through ``.callprototype``/``.calltargets``, CUDA's
``__assertfail`` (record + trap) and the located errors for ``vprintf`` and other external functions.
Expected values come from PTX's definitions, computed by hand in numpy."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from ptx2gcn.compiler import compile
from ptx2gcn.diagnostics import UnsupportedError
from ptx2gcn.link.codeobject import ASSERT_RECORD_SIZE, ASSERT_RECORD_SYMBOL, read_assertion
from ptx2gcn.runtime.emulator.errors import EmulatorFault
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"
CORPUS = Path(__file__).resolve().parents[2] / "corpora"
SENTINEL = 0xDEADBEEF


def _run(ptx: str, kernel: str, threads: int, block: int | None = None, extra: bytes = b"",
         opt: int = 3) -> np.ndarray:
    """Launch ``kernel(out, ...)`` over ``threads`` threads; ``out`` (u32 each) starts as SENTINEL."""
    memory = DeviceMemory()
    out = memory.alloc(4 * threads)
    memory.write(out, np.full(threads, SENTINEL, np.uint32).tobytes())
    block = block or threads
    program = load(compile(HEADER + ptx, opt=opt).data, kernel)
    launch(program, kernel, grid=(threads // block, 1, 1), block=(block, 1, 1),
           kernarg=struct.pack("<Q", out) + extra, memory=memory)
    return np.frombuffer(memory.read(out, 4 * threads), np.uint32)


STORE_AT_TID = """
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
"""

EXIT_IN_FUNCTION = """
.func (.reg .b32 r) leaf(.reg .b32 x)
{
  .reg .pred %p; .reg .b32 %m;
  rem.u32 %m, x, 5;
  setp.eq.u32 %p, %m, 3;
  @%p exit;
  add.u32 r, x, 100;
  ret;
}
.func (.reg .b32 r) middle(.reg .b32 x)
{
  .reg .b32 %t;
  call (%t), leaf, (x);
  mul.lo.u32 r, %t, 2;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
""" + STORE_AT_TID + """
  call (%r2), middle, (%r1);
  st.global.u32 [%rd3], %r2;
  ret;
}
"""


@pytest.mark.parametrize("opt", [0, 3])  # -O0: real calls returning the exit flag; -O3: inlined
def test_exit_in_a_nested_device_function_ends_only_that_thread(opt: int) -> None:
    got = _run(EXIT_IN_FUNCTION, "k", 96, opt=opt)  # a full wave and a half-full one
    tid = np.arange(96, dtype=np.uint32)
    expected = np.where(tid % 5 == 3, np.uint32(SENTINEL), (tid + 100) * 2)
    assert np.array_equal(got, expected)


EXIT_THEN_BARRIER = """
.func quit_if(.reg .b32 x, .reg .b32 limit)
{
  .reg .pred %p;
  setp.ge.u32 %p, x, limit;
  @%p exit;
  ret;
}
.visible .entry k(.param .u64 out, .param .u32 limit)
{
  .reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .pred %odd;
  .shared .align 4 .b32 slots[256];
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r7, [limit];
""" + STORE_AT_TID + """
  // odd threads of the first wave leave, and every thread from `limit` on (whole waves)
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %odd, %r2, 1;
  setp.lt.and.u32 %odd, %r1, 64, %odd;
  @%odd call quit_if, (%r1, 0);
  call quit_if, (%r1, %r7);
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, slots;
  add.u32 %r4, %r4, %r3;
  st.shared.u32 [%r4], %r1;
  bar.sync 0;
  xor.b32 %r5, %r1, 2;
  shl.b32 %r5, %r5, 2;
  mov.u32 %r6, slots;
  add.u32 %r6, %r6, %r5;
  ld.shared.u32 %r5, [%r6];
  st.global.u32 [%rd3], %r5;
  bar.sync 0;
  ret;
}
"""


@pytest.mark.parametrize("opt", [0, 3])
@pytest.mark.parametrize("limit", [256, 128, 70])
def test_threads_exited_in_a_function_release_later_barriers(limit: int, opt: int) -> None:
    """Waves whose threads all exited inside ``quit_if`` must not hold the two ``bar.sync`` up
    (a hang is a KernelHang), and the threads still running see the stores before the barrier."""
    got = _run(EXIT_THEN_BARRIER, "k", 256, extra=struct.pack("<I", limit), opt=opt)
    tid = np.arange(256, dtype=np.uint32)
    alive = (tid < limit) & ~((tid < 64) & (tid % 2 == 1))
    defined = alive & alive[tid ^ 2]  # a thread whose partner exited reads a slot nobody wrote
    assert np.array_equal(got[defined], (tid ^ 2)[defined])
    assert (got[~alive] == SENTINEL).all()


INDIRECT = """
.func (.param .b32 r) twice(.param .b32 x)
{
  .reg .b32 %a;
  ld.param.b32 %a, [x];
  shl.b32 %a, %a, 1;
  st.param.b32 [r], %a;
  ret;
}
.func (.param .b32 r) leave_on_seven(.param .b32 x)
{
  .reg .b32 %a; .reg .pred %p;
  ld.param.b32 %a, [x];
  setp.eq.u32 %p, %a, 7;
  @%p exit;
  add.u32 %a, %a, 1000;
  st.param.b32 [r], %a;
  ret;
}
.global .align 8 .u64 table[2] = {twice, leave_on_seven};
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
""" + STORE_AT_TID + """
  and.b32 %r2, %r1, 1;
  mul.wide.u32 %rd4, %r2, 8;
  mov.u64 %rd5, table;
  add.u64 %rd5, %rd5, %rd4;
  ld.global.u64 %rd6, [%rd5];
  {
  .param .b32 p0;
  st.param.b32 [p0], %r1;
  .param .b32 rv;
  targets : .calltargets twice, leave_on_seven;
  call (rv), %rd6, (p0), targets;
  ld.param.b32 %r3, [rv];
  }
  st.global.u32 [%rd3], %r3;
  ret;
}
"""


@pytest.mark.parametrize("opt", [0, 3])
def test_call_through_calltargets_with_an_exiting_target(opt: int) -> None:
    got = _run(INDIRECT, "k", 64, opt=opt)
    tid = np.arange(64, dtype=np.uint32)
    expected = np.where(tid % 2 == 0, tid * 2, tid + 1000)
    expected[7] = SENTINEL
    assert np.array_equal(got, expected)


def test_call_through_callprototype() -> None:
    ptx = INDIRECT.replace("targets : .calltargets twice, leave_on_seven;",
                           "proto : .callprototype (.param .b32 _) _ (.param .b32 _);")
    got = _run(ptx.replace("(p0), targets;", "(p0), proto;"), "k", 64)
    tid = np.arange(64, dtype=np.uint32)
    expected = np.where(tid % 2 == 0, tid * 2, tid + 1000)
    expected[7] = SENTINEL
    assert np.array_equal(got, expected)


def _cu_line(text: str) -> int:
    source = (CORPUS / "src/cuda/printf_assert.cu").read_text().splitlines()
    return next(i for i, line in enumerate(source, 1) if text in line)


def test_assertfail_records_the_first_failing_thread_and_traps() -> None:
    """nvcc's PTX for ``assert(b[i] != 0)`` (corpus printf_assert.cu, checked_divide)."""
    code = compile(CORPUS / "nvcc/sm_90/printf_assert.ptx", kernels=["checked_divide"])
    program = load(code.data, "printf_assert")
    memory = DeviceMemory()
    n = 64
    a = np.arange(n, dtype=np.int32) * 10
    b = np.ones(n, dtype=np.int32)
    b[[9, 40]] = 0
    pa, pb, pout = memory.alloc(4 * n), memory.alloc(4 * n), memory.alloc(4 * n)
    memory.write(pa, a.tobytes())
    memory.write(pb, b.tobytes())
    with pytest.raises(EmulatorFault, match="s_trap"):
        launch(program, "checked_divide", grid=(2, 1, 1), block=(32, 1, 1),
               kernarg=struct.pack("<QQQi", pa, pb, pout, n), memory=memory)
    record = memory.read(program.symbol_address(memory, ASSERT_RECORD_SYMBOL), ASSERT_RECORD_SIZE)
    failure = read_assertion(record, memory.read)
    assert failure is not None
    assert failure.message == "b[i] != 0" and failure.line == _cu_line("assert(b[i] != 0)")
    assert failure.file.endswith("src/cuda/printf_assert.cu")
    assert failure.function == "void checked_divide(const int *, const int *, int *, int)"
    # thread 9 of block 0 or thread 8 of block 1 (global index 40): whichever failed first
    assert (failure.block, failure.thread) in (((0, 0, 0), (9, 0, 0)), ((1, 0, 0), (8, 0, 0)))
    assert str(failure).endswith(f"thread: [{failure.thread[0]},0,0] Assertion `b[i] != 0` failed.")


def test_no_assertion_record_when_every_check_passes() -> None:
    code = compile(CORPUS / "nvcc/sm_90/printf_assert.ptx", kernels=["checked_divide"])
    program = load(code.data, "printf_assert")
    memory = DeviceMemory()
    n = 32
    pa, pb, pout = memory.alloc(4 * n), memory.alloc(4 * n), memory.alloc(4 * n)
    memory.write(pa, (np.arange(n, dtype=np.int32) * 6).tobytes())
    memory.write(pb, np.full(n, 3, np.int32).tobytes())
    launch(program, "checked_divide", grid=(1, 1, 1), block=(32, 1, 1),
           kernarg=struct.pack("<QQQi", pa, pb, pout, n), memory=memory)
    assert np.array_equal(np.frombuffer(memory.read(pout, 4 * n), np.int32), np.arange(n) * 2)
    record = memory.read(program.symbol_address(memory, ASSERT_RECORD_SYMBOL), ASSERT_RECORD_SIZE)
    assert read_assertion(record, memory.read) is None


def test_undefined_function_says_link_the_other_unit_first() -> None:
    ptx = """
.extern .func (.param .b32 r) helper(.param .b32 x);
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<2>;
  {
  .param .b32 p0;
  st.param.b32 [p0], 1;
  .param .b32 rv;
  call (rv), helper, (p0);
  ld.param.b32 %r1, [rv];
  }
  ret;
}
"""
    with pytest.raises(UnsupportedError) as caught:
        compile(HEADER + ptx, name="main_unit.ptx")
    text = str(caught.value)
    assert text.startswith("main_unit.ptx:13:")
    assert "call helper" in text and "defined in another PTX unit" in text
    assert "link the other unit first" in text


EXTERN_ADDRESS = """.extern .func (.param .b32 r) helper(.param .b32 x);
.visible .entry k(.param .u64 out)
{
  .reg .b64 %rd<3>;
  ld.param.u64 %rd2, [out];
  mov.u64 %rd1, helper;
  st.global.u64 [%rd2], %rd1;
  ret;
}
"""
EXTERN_TABLE = """.extern .func (.param .b32 r) helper(.param .b32 x);
.global .align 8 .u64 table[1] = {helper};
.visible .entry k(.param .u64 out)
{
  ret;
}
"""


@pytest.mark.parametrize(("ptx", "line", "what"), [(EXTERN_ADDRESS, 6, "address of helper"),
                                                   (EXTERN_TABLE, 2, "initializer of table")])
def test_address_of_an_undefined_function_is_located(ptx: str, line: int, what: str) -> None:
    with pytest.raises(UnsupportedError) as caught:
        compile(HEADER + ptx, name="unit.ptx")
    text = str(caught.value)
    assert text.startswith(f"unit.ptx:{line + 3}:") and what in text and "link the other unit first" in text


def test_assertfail_with_another_signature_is_located() -> None:
    ptx = """
.extern .func __assertfail(.param .b64 message);
.visible .entry k(.param .u64 out)
{
  .reg .b64 %rd<2>;
  {
  .param .b64 p0;
  st.param.b64 [p0], 0;
  call __assertfail, (p0);
  }
  ret;
}
"""
    with pytest.raises(UnsupportedError) as caught:
        compile(HEADER + ptx, name="odd.ptx")
    assert str(caught.value).startswith("odd.ptx:12:") and "expected CUDA's signature" in str(caught.value)


EXIT_THEN_ACTIVEMASK = """
.func quit_if_one(.reg .b32 x)
{
  .reg .pred %p; .reg .b32 %m;
  and.b32 %m, x, 3;
  setp.eq.u32 %p, %m, 1;
  @%p exit;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
""" + STORE_AT_TID + """
  call quit_if_one, (%r1);
  activemask.b32 %r2;
  st.global.u32 [%rd3], %r2;
  ret;
}
"""


@pytest.mark.parametrize("opt", [0, 3])
def test_threads_exited_in_a_function_leave_the_active_mask(opt: int) -> None:
    """PTX activemask: exited threads are not active; every lane with tid % 4 == 1 has exited, in
    both CUDA warps of each wave (bits 1, 5, 9, ... clear: 0xdddddddd)."""
    got = _run(EXIT_THEN_ACTIVEMASK, "k", 128, opt=opt)
    tid = np.arange(128)
    assert (got[tid % 4 != 1] == 0xDDDDDDDD).all()
    assert (got[tid % 4 == 1] == SENTINEL).all()
