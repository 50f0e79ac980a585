"""``prefetch``/``prefetchu``, ``nanosleep``, ``pmevent``, ``trap`` and ``brkpt`` compiled and run once on
the emulator: the hints change nothing a program can observe (PTX: prefetches and pmevent have no
visible effect; nanosleep sleeps some time in [0, 2t] ns), ``trap`` aborts the launch, ``brkpt`` is
LLVM's debug trap (``s_trap 3``)."""

from __future__ import annotations

import re
import struct

import numpy as np
import pytest

from ptx2gcn.compiler import compile, compile_assembly
from ptx2gcn.runtime.emulator.errors import EmulatorFault
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"

HINTS = """
.visible .entry hints(.param .u64 data)
{
  .reg .b32 %r<4>; .reg .b64 %rd<6>;
  .local .align 4 .b32 scratch[4];
  .shared .align 4 .b32 tile[64];
  ld.param.u64 %rd1, [data];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  prefetch.global.L1 [%rd3];
  prefetch.global.L2 [%rd3];
  prefetch.global.L2::evict_last [%rd3];
  prefetchu.L1 [%rd3];
  prefetch.L1 [%rd3];
  mov.u64 %rd4, scratch;
  prefetch.local.L2 [%rd4];
  nanosleep.u32 %r1;
  nanosleep.u32 1000;
  pmevent 3;
  pmevent.mask 0x0c;
  ld.global.u32 %r2, [%rd3];
  mad.lo.u32 %r2, %r2, 3, %r1;
  st.global.u32 [%rd3], %r2;
  ret;
}
"""


def test_hints_sleep_and_pmevent_run_without_visible_effect() -> None:
    memory = DeviceMemory()
    n = 96
    data = memory.alloc(4 * n)
    values = np.arange(n, dtype=np.uint32) * 7 + 5
    memory.write(data, values.tobytes())
    program = load(compile(HEADER + HINTS).data, "hints")
    launch(program, "hints", grid=(1, 1, 1), block=(n, 1, 1), kernarg=struct.pack("<Q", data), memory=memory)
    got = np.frombuffer(memory.read(data, 4 * n), np.uint32)
    assert np.array_equal(got, values * 3 + np.arange(n, dtype=np.uint32))


TRAPS = """
.visible .entry traps(.param .u64 data, .param .u32 which)
{
  .reg .b32 %r<4>; .reg .b64 %rd<2>; .reg .pred %p<3>;
  ld.param.u64 %rd1, [data];
  ld.param.u32 %r1, [which];
  setp.eq.u32 %p1, %r1, 1;
  setp.eq.u32 %p2, %r1, 2;
  @%p1 trap;
  @%p2 brkpt;
  st.global.u32 [%rd1], 77;
  ret;
}
"""


def _traps(which: int) -> bytes:
    memory = DeviceMemory()
    data = memory.alloc(4)
    memory.write(data, bytes(4))
    program = load(compile(HEADER + TRAPS).data, "traps")
    launch(program, "traps", grid=(1, 1, 1), block=(64, 1, 1), kernarg=struct.pack("<QI", data, which),
           memory=memory)
    return memory.read(data, 4)


def test_trap_aborts_the_launch_and_brkpt_is_the_debug_trap() -> None:
    assert _traps(0) == struct.pack("<I", 77)
    with pytest.raises(EmulatorFault, match="s_trap 2"):
        _traps(1)
    # AMDGPUUsage trap handler ABI: llvm.trap is s_trap 2, llvm.debugtrap s_trap 3
    traps = re.findall(r"s_trap (\d+)", compile_assembly(HEADER + TRAPS))
    assert sorted(traps) == ["2", "3"]


def test_brkpt_without_a_debugger_continues() -> None:
    assert _traps(2) == struct.pack("<I", 77)
