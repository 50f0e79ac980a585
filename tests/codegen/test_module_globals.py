"""Module-scope ``.global``/``.const`` variables are host-visible, as in CUDA: every named one is kept
and exported (``cuModuleGetGlobal``), loads never fold to the initializer (the host may have written a
``__constant__`` array), stores nobody reads stay; ``.extern`` variables get a located error."""

from __future__ import annotations

import re
import struct
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from ptx2gcn.compiler import compile
from ptx2gcn.diagnostics import UnsupportedError
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

PTX = """.version 8.0
.target sm_90
.address_size 64
.const .align 4 .b8 coeffs[16];
.const .align 4 .u32 bias = 7;
.global .align 4 .u32 counter;
.global .align 8 .u64 unused_table[4] = {1, 2, 3, 4};
.visible .global .align 4 .u32 exported;
.global .align 1 .u8 done;

.visible .entry apply(.param .u64 out)
{
  .reg .b32 %r<12>; .reg .b64 %rd<4>; .reg .b16 %h;
  ld.param.u64 %rd1, [out];
  ld.const.v4.u32 {%r1, %r2, %r3, %r4}, [coeffs];
  ld.const.u32 %r5, [bias];
  ld.global.u32 %r6, [counter];
  add.u32 %r1, %r1, %r5;
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
  st.global.u32 [%rd1+16], %r6;
  add.u32 %r6, %r6, 1;
  st.global.u32 [counter], %r6;
  mov.u16 %h, 1;
  st.global.u8 [done], %h;
  ret;
}
"""


def test_host_written_constants_and_globals_reach_the_kernel() -> None:
    program = load(compile(PTX).data, "globals")
    memory = DeviceMemory()
    out = memory.alloc(20)
    # the host sets the __constant__ data, the bias and the counter (cudaMemcpyToSymbol)
    memory.write(program.symbol_address(memory, "coeffs"), np.array([10, 20, 30, 40], np.uint32).tobytes())
    memory.write(program.symbol_address(memory, "bias"), struct.pack("<I", 1000))
    memory.write(program.symbol_address(memory, "counter"), struct.pack("<I", 41))
    launch(program, "apply", grid=(1, 1, 1), block=(1, 1, 1), kernarg=struct.pack("<Q", out), memory=memory)
    assert struct.unpack("<5I", memory.read(out, 20)) == (1010, 20, 30, 40, 41)
    assert struct.unpack("<I", memory.read(program.symbol_address(memory, "counter"), 4)) == (42,)
    assert memory.read(program.symbol_address(memory, "done"), 1) == b"\x01"


def test_initialised_and_unused_globals_are_kept_with_their_sizes() -> None:
    program = load(compile(PTX).data, "globals")
    memory = DeviceMemory()
    sizes = {name: program.symbol_size(name)
             for name in ("coeffs", "bias", "counter", "unused_table", "exported", "done")}
    assert sizes == {"coeffs": 16, "bias": 4, "counter": 4, "unused_table": 32, "exported": 4, "done": 1}
    table = program.symbol_address(memory, "unused_table")
    assert struct.unpack("<4Q", memory.read(table, 32)) == (1, 2, 3, 4)
    assert struct.unpack("<I", memory.read(program.symbol_address(memory, "bias"), 4)) == (7,)


def test_globals_are_exported_dynamic_symbols(llvm_tool: Callable[[str], str], tmp_path: Path) -> None:
    """The HIP runtime finds a global through the code object's dynamic symbols (``.dynsym``)."""
    path = tmp_path / "globals.hsaco"
    path.write_bytes(compile(PTX).data)
    listing = subprocess.run([llvm_tool("llvm-readelf-22"), "--dyn-symbols", "-W", str(path)],
                             capture_output=True, text=True, check=True).stdout
    exported = {m.group(2): m.group(1) for m in re.finditer(r"OBJECT\s+GLOBAL\s+(\w+)\s+\S+\s+(\w+)$", listing, re.M)}
    assert exported == dict.fromkeys(("coeffs", "bias", "counter", "unused_table", "exported", "done"),
                                     "PROTECTED")


def test_extern_variable_is_a_located_error() -> None:
    ptx = PTX.replace(".global .align 4 .u32 counter;", ".extern .global .align 4 .u32 counter;")
    with pytest.raises(UnsupportedError) as caught:
        compile(ptx, name="two_units.ptx")
    text = str(caught.value)
    assert "two_units.ptx:6:" in text and ".extern variable counter" in text
    assert "defined in another PTX unit" in text and "link the other unit first" in text


def test_unused_extern_variable_needs_no_definition() -> None:
    ptx = PTX.replace(".visible .entry apply", ".extern .global .align 4 .u32 elsewhere[8];\n.visible .entry apply")
    code = compile(ptx)
    assert "apply" in code.kernels
