"""Thread-block-cluster instructions on gfx942 under the one-CTA-cluster invariant
(``ptx2gcn/emit/lower_cluster.py``): compiled, run on the emulator, results checked against what
PTX defines for a cluster of one CTA (rank 0, the ``.shared::cluster`` window = the CTA's shared
memory).

The kernels are valid PTX (ptxas 13.0 accepts them for sm_90); the expected values are computed
here from the kernel's definition, independently of the compiler.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest

from ptx2gcn.compiler import compile as compile_ptx
from ptx2gcn.compiler import compile_llvm
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

THREADS = 256  # four 64-lane waves: the exchange below crosses waves, so it needs a real barrier

EXCHANGE = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{{
  .reg .b32 %r<20>; .reg .b64 %rd<10>;
  .shared .align 4 .b32 buf[256];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  mad.lo.u32 %r5, %r1, 7, 3;
  st.shared.u32 [%r4], %r5;
  barrier.cluster.arrive{arrive};
  barrier.cluster.wait{wait};
  sub.u32 %r6, 255, %r1;
  shl.b32 %r6, %r6, 2;
  add.u32 %r7, %r2, %r6;
  mov.u32 %r8, %cluster_ctarank;
  mapa.shared::cluster.u32 %r9, %r7, %r8;
  ld.shared::cluster.u32 %r10, [%r9];
  getctarank.shared::cluster.u32 %r11, %r9;
  cvt.u64.u32 %rd1, %r9;
  cvta.shared::cluster.u64 %rd2, %rd1;
  ld.u32 %r12, [%rd2];
  cvta.to.shared::cluster.u64 %rd6, %rd2;
  cvt.u32.u64 %r13, %rd6;
  sub.u32 %r13, %r13, %r9;
  ld.param.u64 %rd3, [out];
  mul.wide.u32 %rd4, %r1, 16;
  add.u64 %rd5, %rd3, %rd4;
  st.global.v4.u32 [%rd5], {{%r10, %r11, %r12, %r13}};
  ret;
}}
"""


def _run(ptx: str) -> np.ndarray:
    program = load(compile_ptx(ptx).data, "cluster.hsaco")
    memory = DeviceMemory()
    out = memory.alloc(THREADS * 16)
    launch(program, "k", grid=(2, 1, 1), block=(THREADS, 1, 1), kernarg=struct.pack("<Q", out),
           memory=memory)
    return np.frombuffer(memory.read(out, THREADS * 16), dtype=np.uint32).reshape(THREADS, 4)


@pytest.mark.parametrize(("arrive", "wait"), [
    ("", ""), (".release", ".acquire"), (".relaxed", ""), (".aligned", ".aligned"),
    (".release.aligned", ".acquire.aligned"),
])
def test_cluster_barrier_exchanges_shared_memory(arrive: str, wait: str) -> None:
    got = _run(EXCHANGE.format(arrive=arrive, wait=wait))
    tid = np.arange(THREADS, dtype=np.uint32)
    partner = (THREADS - 1) - tid
    expected_value = partner * 7 + 3  # what thread 255 - tid stored before the barrier
    assert (got[:, 0] == expected_value).all(), "ld.shared::cluster after barrier.cluster read a stale value"
    assert (got[:, 1] == 0).all(), "getctarank of the only CTA's memory is 0"
    assert (got[:, 2] == expected_value).all(), "cvta.shared::cluster: a generic address of the same word"
    assert (got[:, 3] == 0).all(), "cvta.to.shared::cluster inverts cvta.shared::cluster"


def _llvm(arrive: str) -> str:
    return compile_llvm(EXCHANGE.format(arrive=arrive, wait=""), optimised=False)


def test_arrive_releases_unless_relaxed() -> None:
    """PTX: barrier.cluster.arrive has release semantics by default, none with .relaxed."""
    def release_fences(text: str) -> int:
        return text.count('fence syncscope("workgroup") release')

    assert release_fences(_llvm("")) == release_fences(_llvm(".relaxed")) + 1
