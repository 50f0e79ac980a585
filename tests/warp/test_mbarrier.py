"""mbarrier.* and cp.async.mbarrier.arrive on the emulator: phases, state tokens and parities, arrive
counts, arrive_drop, noComplete, try_wait, data exchanged across the waves of a block through a
barrier phase; and the Mode P rejection of an mbarrier wait under warp-dependent control flow."""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.compiler import compile
from ptx2gcn.diagnostics import UnsupportedError
from tests.warp.conftest import run, warp_kernel

_SHARED = (".shared .align 8 .b64 bar0; .shared .align 8 .b64 bar1; .shared .align 8 .b64 bar2; "
           ".shared .align 4 .b32 data[256]; .reg .b64 %s<8>; .reg .b32 %ba<4>;")


def _flags(count: int) -> str:
    return "\n".join(f"selp.u32 %o{i}, 1, 0, %p{i + 1};" for i in range(count))


def test_phases_tokens_and_parities() -> None:
    """One wave (64 threads). Barrier 0 expects 64: every thread arrives once, so the phase completes.
    Barrier 1 expects 128: after one arrive each it is still pending; after a second it completes.
    Barrier 2 expects 128, every thread arrive_drops (expected -> 64, pending 64 left), then arrives:
    phase 0 completes and phase 1 expects 64; one more arrive each completes phase 1."""
    body = """
    mov.u32 %ba0, bar0; mov.u32 %ba1, bar1; mov.u32 %ba2, bar2;
    setp.eq.u32 %p7, %f, 0;
    @!%p7 bra INIT_DONE;
    mbarrier.init.shared.b64 [%ba0], 64;
    mbarrier.init.shared.b64 [%ba1], 128;
    mbarrier.init.shared.b64 [%ba2], 128;
    INIT_DONE:
    bar.sync 0;
    mbarrier.arrive.shared.b64 %s0, [%ba0];
    mbarrier.test_wait.shared.b64 %p1, [%ba0], %s0;
    mbarrier.arrive.shared.b64 %s1, [%ba1];
    mbarrier.test_wait.shared.b64 %p2, [%ba1], %s1;
    mbarrier.test_wait.parity.shared.b64 %p3, [%ba1], 0;
    mbarrier.arrive.shared.b64 %s2, [%ba1];
    mbarrier.test_wait.shared.b64 %p4, [%ba1], %s1;
    mbarrier.try_wait.parity.shared.b64 %p5, [%ba1], 0;
    mbarrier.test_wait.parity.shared.b64 %p6, [%ba1], 1;
    mbarrier.arrive_drop.shared.b64 %s3, [%ba2];
    mbarrier.arrive.shared.b64 %s4, [%ba2];
    mbarrier.test_wait.parity.shared.b64 %p8, [%ba2], 0;
    mbarrier.arrive.shared.b64 %s5, [%ba2];
    mbarrier.try_wait.shared.b64 %p9, [%ba2], %s5;
    mbarrier.test_wait.parity.shared.b64 %p10, [%ba2], 1;
    mbarrier.test_wait.parity.shared.b64 %p11, [%ba2], 0;
    """ + _flags(6) + """
    selp.u32 %o6, 1, 0, %p8; selp.u32 %o7, 1, 0, %p9; selp.u32 %o8, 1, 0, %p10; selp.u32 %o9, 1, 0, %p11;
    setp.eq.u64 %p12, %s0, %s1; selp.u32 %o10, 1, 0, %p12;
    setp.eq.u64 %p13, %s1, %s2; selp.u32 %o11, 1, 0, %p13;
    """
    out = run(warp_kernel(body, 12, _SHARED), (64, 1, 1), [], 12)
    # p1 ph0 done; p2 still pending; p3 parity 0 not done; p4 done after 2nd arrive; p5 parity 0 done;
    # p6 parity 1 not done; p8 bar2 phase 0 done; p9 phase 1 done; p10 parity 1 done; p11 parity 0: the
    # current phase is 2 (parity 0), so phase 0's parity reads "not completed" (PTX: only the current
    # and the immediately preceding phase can be named); tokens: s0 == s1 == s2 (all arrived in phase 0).
    expected = [1, 0, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1]
    assert (out == np.array(expected, dtype=np.uint32)[:, None]).all(), out[:, :4]


def test_exchange_across_waves_and_arrive_counts() -> None:
    """Four waves: every thread stores data[t], arrives with count 2 (the sm_90 form) and spins on
    try_wait; then it reads another wave's slot."""
    body = """
    mov.u32 %ba0, bar0;
    setp.eq.u32 %p7, %f, 0;
    @!%p7 bra INIT_DONE;
    mbarrier.init.shared.b64 [%ba0], 512;
    INIT_DONE:
    bar.sync 0;
    mov.u32 %t0, data; shl.b32 %t1, %f, 2; add.u32 %t1, %t0, %t1;
    st.shared.u32 [%t1], %a0;
    mov.u32 %t2, 2;
    mbarrier.arrive.release.cta.shared::cta.b64 %s0, [%ba0], %t2;
    WAIT:
    mbarrier.try_wait.shared::cta.b64 %p1, [%ba0], %s0;
    @!%p1 bra WAIT;
    add.u32 %t3, %f, 64; and.b32 %t3, %t3, 255; shl.b32 %t3, %t3, 2; add.u32 %t3, %t0, %t3;
    ld.shared.u32 %o0, [%t3];
    """
    values = np.arange(1000, 1256)
    out = run(warp_kernel(body, 1, _SHARED), (256, 1, 1), [values], 1)
    assert out[0].tolist() == [int(values[(t + 64) % 256]) for t in range(256)]


def test_cp_async_mbarrier_arrive() -> None:
    """.noinc: an arrive (the copies before it are complete); without it: no net change."""
    body = """
    mov.u32 %ba0, bar0; mov.u32 %ba1, bar1;
    setp.eq.u32 %p7, %f, 0;
    @!%p7 bra INIT_DONE;
    mbarrier.init.shared.b64 [%ba0], 64;
    mbarrier.init.shared.b64 [%ba1], 64;
    INIT_DONE:
    bar.sync 0;
    mov.u32 %t0, data; shl.b32 %t1, %f, 2; add.u32 %t1, %t0, %t1;
    mul.wide.u32 %rd1, %gid, 4; add.u64 %rd1, %rd1, %inp;
    cp.async.ca.shared.global [%t1], [%rd1], 4;
    cp.async.mbarrier.arrive.noinc.shared.b64 [%ba0];
    cp.async.mbarrier.arrive.shared.b64 [%ba1];
    mbarrier.test_wait.parity.shared.b64 %p1, [%ba0], 0;
    mbarrier.test_wait.parity.shared.b64 %p2, [%ba1], 0;
    xor.b32 %t2, %f, 1; shl.b32 %t2, %t2, 2; add.u32 %t2, %t0, %t2;
    ld.shared.u32 %o2, [%t2];
    """ + _flags(2)
    values = np.arange(64) * 3 + 7
    out = run(warp_kernel(body, 3, _SHARED), (64, 1, 1), [values], 3)
    assert out[0].tolist() == [1] * 64 and out[1].tolist() == [0] * 64
    assert out[2].tolist() == [int(values[t ^ 1]) for t in range(64)]


def test_wait_under_warp_dependent_flow_is_rejected() -> None:
    body = """
    mov.u32 %ba0, bar0;
    mov.u32 %t0, %warpid;
    setp.eq.u32 %p1, %t0, 0;
    @!%p1 bra SKIP;
    WAIT:
    mbarrier.test_wait.parity.shared.b64 %p2, [%ba0], 0;
    @!%p2 bra WAIT;
    SKIP:
    mbarrier.arrive.shared.b64 %s0, [%ba0];
    """
    with pytest.raises(UnsupportedError) as info:
        compile(warp_kernel(body, 1, _SHARED))
    text = str(info.value)
    assert "unsupported: mbarrier.test_wait: reached under warp-dependent control flow" in text
    assert "mbarrier.test_wait.parity.shared.b64" in text  # the located source line
