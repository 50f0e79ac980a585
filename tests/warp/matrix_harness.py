"""Kernels for warp-level matrix tests: every thread loads ``n_in`` words into ``%i0..``, the body
runs, every thread stores ``%o0..`` (preset to ``SENTINEL``) to its ``n_out`` output words.

``matrix_kernel(body, n_in, n_out, decls, prologue, epilogue)`` builds ``k(out, in)``; a thread
whose input word ``n_in - 1`` (the *skip* word) is nonzero jumps over the body (not over the
prologue and epilogue, which every thread runs), so a test can leave one warp of a wave
inactive. Before the body, odd and even lanes take different paths and reconverge (the body runs
after divergence). ``%lane`` is the lane in the warp, ``%gid`` the thread's global index.
``run_matrix(ptx, threads, inputs, n_out)`` returns the outputs as (threads, n_out) uint32.
"""

from __future__ import annotations

import struct

import numpy as np
import numpy.typing as npt

from ptx2gcn.runtime.emulator.launch import LaunchStats, launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory
from tests.warp.conftest import SENTINEL, compiled

_HEAD = """.version 8.7
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{
.reg .b32 %t<8>; .reg .b32 %lane; .reg .b32 %gid; .reg .pred %p<8>;
.reg .b64 %outp; .reg .b64 %inp; .reg .b64 %addr;
"""


def matrix_kernel(body: str, n_in: int, n_out: int, decls: str = "", prologue: str = "", epilogue: str = "") -> str:
    lines = [_HEAD, decls, "".join(f".reg .b32 %i{i};" for i in range(n_in)),
             "".join(f".reg .b32 %o{i};" for i in range(n_out)),
             "mov.u32 %t0, %tid.x;", "mov.u32 %t1, %ctaid.x;", "mov.u32 %t2, %ntid.x;",
             "mad.lo.u32 %gid, %t1, %t2, %t0;", "and.b32 %lane, %t0, 31;",
             "ld.param.u64 %outp, [out];", "ld.param.u64 %inp, [in];",
             f"mul.wide.u32 %addr, %gid, {4 * n_in};", "add.u64 %addr, %addr, %inp;"]
    lines += [f"ld.global.u32 %i{i}, [%addr+{4 * i}];" for i in range(n_in)]
    lines += [f"mov.u32 %o{i}, {SENTINEL};" for i in range(n_out)]
    lines += [prologue, "and.b32 %t3, %lane, 1;", "setp.eq.u32 %p7, %t3, 1;", "@%p7 bra ODD;", "add.u32 %t4, %lane, 7;",
              "bra.uni JOIN;", "ODD:", "mul.lo.u32 %t4, %lane, 3;", "JOIN:",
              f"setp.ne.u32 %p6, %i{n_in - 1}, 0;", "@%p6 bra DONE;", body, "DONE:", epilogue,
              f"mul.wide.u32 %addr, %gid, {4 * n_out};", "add.u64 %addr, %addr, %outp;"]
    lines += [f"st.global.u32 [%addr+{4 * i}], %o{i};" for i in range(n_out)]
    lines += ["ret;", "}"]
    return "\n".join(lines) + "\n"


def run_matrix(ptx: str, threads: int, inputs: npt.ArrayLike, n_out: int,
               block: int | None = None) -> npt.NDArray[np.uint32]:
    return run_matrix_stats(ptx, threads, inputs, n_out, block)[0]


def run_matrix_stats(ptx: str, threads: int, inputs: npt.ArrayLike, n_out: int, block: int | None = None,
                     mma: str = "auto") -> tuple[npt.NDArray[np.uint32], LaunchStats]:
    """``run_matrix`` compiled with ``--mma mma``, and the launch's counts."""
    data = np.ascontiguousarray(np.asarray(inputs, dtype=np.int64).astype(np.uint32))
    assert data.shape[0] == threads
    program = load(compiled(ptx, mma), "matrix.hsaco")
    memory = DeviceMemory()
    out_addr = memory.alloc(4 * n_out * threads)
    memory.write(out_addr, np.full(n_out * threads, SENTINEL, dtype=np.uint32).tobytes())
    in_addr = memory.alloc(data.nbytes)
    memory.write(in_addr, data.tobytes())
    per_block = block or threads
    stats = launch(program, "k", grid=(threads // per_block, 1, 1), block=(per_block, 1, 1),
           kernarg=struct.pack("<QQ", out_addr, in_addr), memory=memory, step_budget=5_000_000)
    out = np.frombuffer(memory.read(out_addr, 4 * n_out * threads), dtype=np.uint32).reshape(threads, n_out)
    return out, stats
