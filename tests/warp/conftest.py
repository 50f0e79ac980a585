"""Fixtures for the Mode P warp tests: build a kernel around a PTX body, run it on the emulator.

``warp_kernel(body, outputs)`` wraps ``body`` into ``k(out, in, n)``: every thread gets its flat
CTA index in ``%f`` (and ``%lane`` = ``%f & 31``, ``%w`` = ``%f >> 5`` computed *without* the
special registers under test), its inputs ``%a0..%a3`` = ``in[i*n + gid]``, and stores ``%o0..``
(preset to ``SENTINEL``, so lanes that skip an assignment are visible) to ``out[k*n + gid]``
(``gid`` = CTA index * CTA size + ``%f``). Threads that ``exit`` store nothing: the output buffer
starts as ``SENTINEL`` too. ``run(ptx, block, inputs, outputs, grid)`` returns the outputs as a
``(outputs, n)`` uint32 array.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from ptx2gcn.compiler import compile
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

SENTINEL = 0xDEADBEEF
INPUTS = 4

_HEAD = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in, .param .u32 n)
{
.reg .b32 %r<64>; .reg .b64 %rd<32>; .reg .pred %p<16>;
.reg .b32 %f; .reg .b32 %lane; .reg .b32 %w; .reg .b32 %gid; .reg .b32 %n; .reg .b32 %t<4>;
.reg .b64 %outp; .reg .b64 %inp; .reg .b64 %addr;
"""


def warp_kernel(body: str, outputs: int, shared: str = "") -> str:
    """The PTX text of a test kernel running ``body`` with ``outputs`` result registers."""
    lines = [_HEAD, shared]
    lines.append("".join(f".reg .b32 %a{i};" for i in range(INPUTS)))
    lines.append("".join(f".reg .b32 %o{i};" for i in range(outputs)))
    lines += ["mov.u32 %t0, %tid.y;", "mov.u32 %t1, %ntid.x;", "mov.u32 %t2, %tid.z;", "mov.u32 %t3, %ntid.y;",
              "mad.lo.u32 %t2, %t2, %t3, %t0;", "mov.u32 %t0, %tid.x;", "mad.lo.u32 %f, %t2, %t1, %t0;",
              "and.b32 %lane, %f, 31;", "shr.u32 %w, %f, 5;",
              "mul.lo.u32 %t1, %t1, %t3;", "mov.u32 %t3, %ntid.z;", "mul.lo.u32 %t1, %t1, %t3;",
              "mov.u32 %t0, %ctaid.x;", "mad.lo.u32 %gid, %t0, %t1, %f;",
              "ld.param.u32 %n, [n];", "ld.param.u64 %outp, [out];", "ld.param.u64 %inp, [in];"]
    for i in range(INPUTS):
        lines += [f"mad.wide.u32 %addr, %n, {4 * i}, %inp;", "mad.wide.u32 %addr, %gid, 4, %addr;",
                  f"ld.global.u32 %a{i}, [%addr];"]
    lines += [f"mov.u32 %o{i}, {SENTINEL};" for i in range(outputs)]
    lines.append(body)
    for i in range(outputs):
        lines += [f"mad.wide.u32 %addr, %n, {4 * i}, %outp;", "mad.wide.u32 %addr, %gid, 4, %addr;",
                  f"st.global.u32 [%addr], %o{i};"]
    lines += ["ret;", "}"]
    return "\n".join(lines) + "\n"


_cache: dict[tuple[str, str], bytes] = {}


def compiled(ptx: str, mma: str = "auto") -> bytes:
    if (ptx, mma) not in _cache:
        _cache[(ptx, mma)] = compile(ptx, mma=mma).data
    return _cache[(ptx, mma)]


def run(ptx: str, block: tuple[int, int, int], inputs: Sequence[npt.ArrayLike], outputs: int,
        grid: int = 1, step_budget: int = 5_000_000) -> npt.NDArray[np.uint32]:
    """Run kernel ``k`` of ``ptx``; returns ``out`` as a (outputs, n) uint32 array."""
    n = grid * block[0] * block[1] * block[2]
    data = np.zeros((INPUTS, n), dtype=np.uint32)
    for i, values in enumerate(inputs):
        data[i] = np.asarray(values, dtype=np.int64).astype(np.uint32)
    program = load(compiled(ptx), "warp.hsaco")
    memory = DeviceMemory()
    out_addr = memory.alloc(4 * outputs * n)
    memory.write(out_addr, np.full(outputs * n, SENTINEL, dtype=np.uint32).tobytes())
    in_addr = memory.alloc(data.nbytes)
    memory.write(in_addr, data.tobytes())
    launch(program, "k", grid=(grid, 1, 1), block=block, kernarg=struct.pack("<QQI", out_addr, in_addr, n),
           memory=memory, step_budget=step_budget)
    return np.frombuffer(memory.read(out_addr, 4 * outputs * n), dtype=np.uint32).reshape(outputs, n)


@pytest.fixture(scope="session")
def rng() -> np.random.Generator:
    return np.random.default_rng(20261130)
