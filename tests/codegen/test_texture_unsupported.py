"""What ptx2gcn's texture lowering (``ptx2gcn/emit/lower_texture.py``) refuses, each a located
``unsupported`` naming the instruction and why: cube maps, independent samplers, half results,
queries of facts its descriptors do not keep. The sampling itself is tested against numpy in
``tests/driver/test_textures.py``; here also a trapping surface access on the emulator."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from ptx2gcn.compiler import compile
from ptx2gcn.diagnostics import UnsupportedError

HEADER = ".version 7.8\n.target sm_80\n.address_size 64\n"
BODY = """.visible .entry k(.param .u64 t)
{{
  .reg .f32 %f<8>;
  .reg .b32 %r<4>;
  .reg .b16 %h<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [t];
  {line}
  st.global.f32 [%rd1], %f0;
  st.global.b32 [%rd1+4], %r0;
  st.global.b16 [%rd1+8], %h0;
  ret;
}}
"""


@pytest.mark.parametrize(("line", "why"), [
    ("tex.cube.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f4, %f5, %f6, %f7}];", "cube maps"),
    ("tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, %rd1, {%f4, %f5}];", "independent texture and sampler"),
    ("tex.2d.v4.f16.f32 {%h0, %h1, %h2, %h3}, [%rd1, {%f4, %f5}];", "result type .f16"),
    ("txq.channel_order.b32 %r0, [%rd1];", "query .channel_order"),
    ("tld4.r.3d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f4, %f5, %f6, %f7}];", ".2d textures only"),
])  # fmt: skip
def test_refused_forms_are_located(line: str, why: str) -> None:
    with pytest.raises(UnsupportedError) as caught:
        compile(HEADER + BODY.format(line=line), name="tex.ptx")
    text = str(caught.value)
    assert text.startswith("tex.ptx:11:") and "unsupported:" in text and why in text, text


def test_out_of_range_surface_access_with_trap_stops_the_kernel() -> None:
    from ptx2gcn.emit.texture_descriptor import Descriptor
    from ptx2gcn.runtime.emulator.errors import EmulatorFault
    from ptx2gcn.runtime.emulator.launch import launch
    from ptx2gcn.runtime.emulator.loader import load
    from ptx2gcn.runtime.emulator.memory import DeviceMemory

    ptx = HEADER + """.visible .entry k(.param .u64 s, .param .u32 x)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [s];
  ld.param.u32 %r1, [x];
  suld.b.1d.b32.trap {%r2}, [%rd1, {%r1}];
  sust.b.1d.b32.trap [%rd1, {%r1}], {%r2};
  ret;
}
"""
    memory = DeviceMemory()
    data = memory.alloc(16, 256)
    memory.write(data, np.arange(4, dtype=np.int32).tobytes())
    desc = memory.alloc(96, 256)
    memory.write(desc, Descriptor(data, 4, 1, 1, 16, 16, 0, 4, 1).pack())
    program = load(compile(ptx, name="s.ptx").data, "k")

    def run(x: int) -> None:
        launch(program, "k", grid=(1, 1, 1), block=(1, 1, 1), kernarg=struct.pack("<QI", desc, x), memory=memory)

    run(12)  # x is in bytes: the last element, inside, no trap
    with pytest.raises(EmulatorFault, match="s_trap"):
        run(16)
