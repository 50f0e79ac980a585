"""mbarrier.* and cp.async.mbarrier.arrive on the emulator: phases, state tokens and parities, arrive
counts, arrive_drop, noComplete, try_wait, pending_count, data exchanged across the waves of a block
through a barrier phase; and the Mode P rejection of an mbarrier wait under warp-dependent control flow."""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.compiler import compile
from ptx2gcn.diagnostics import Ptx2GcnError, UnsupportedError
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
    """
    out = run(warp_kernel(body, 10, _SHARED), (64, 1, 1), [], 10)
    # p1 ph0 done; p2 still pending; p3 parity 0 not done; p4 done after 2nd arrive; p5 parity 0 done;
    # p6 parity 1 not done; p8 bar2 phase 0 done; p9 phase 1 done; p10 parity 1 done; p11 parity 0: the
    # current phase is 2 (parity 0), so phase 0's parity reads "not completed" (PTX: only the current
    # and the immediately preceding phase can be named). Tokens are opaque: not compared.
    expected = [1, 0, 0, 1, 1, 0, 1, 1, 1, 0]
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


def test_transaction_counts() -> None:
    """expect_tx / complete_tx / arrive.expect_tx (PTX ISA 9.7.13.15: a phase completes when its pending
    arrival count and its tx-count are both zero), 128 threads (two waves), expectations by hand:
    bar0 (expects 128): thread 0 expects 256 bytes, everyone arrives -> pending 0, tx 256: p1 false;
      thread 0 completes 200 -> tx 56: p2 false; thread 100 (other wave) completes 56 through a
      .shared::cluster address (mapa to CTA 0) -> complete: p3 true, and the parity-0 wait p4 true.
    bar1 (expects 128): everyone arrive.expect_tx 4 -> pending 0, tx 512: p5 false; everyone
      complete_tx 4 -> the last one completes phase 0: p6 true; phase 1 restarted at pending 128 and
      tx 0: one plain arrive each completes it: p7 (parity 1 wait) true, p8 (parity 0 wait) false.
    bar2 (expects 1): thread 0 completes 8 first (tx -8), arrives (pending 0, tx -8): p9 false; then
      expects 8 -> tx 0: the phase completes: p10 true (all threads read after a bar.sync)."""
    body = """
    mov.u32 %ba0, bar0; mov.u32 %ba1, bar1; mov.u32 %ba2, bar2;
    setp.eq.u32 %p7, %f, 0;
    @!%p7 bra INIT_DONE;
    mbarrier.init.shared.b64 [%ba0], 128;
    mbarrier.init.shared.b64 [%ba1], 128;
    mbarrier.init.shared.b64 [%ba2], 1;
    mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%ba0], 256;
    INIT_DONE:
    bar.sync 0;
    mbarrier.arrive.shared.b64 %s0, [%ba0];
    mbarrier.arrive.expect_tx.shared.b64 %s1, [%ba1], 4;
    bar.sync 0;
    mbarrier.test_wait.shared.b64 %p1, [%ba0], %s0;
    mbarrier.test_wait.shared.b64 %p5, [%ba1], %s1;
    bar.sync 0;
    @!%p7 bra C1;
    mbarrier.complete_tx.shared.b64 [%ba0], 200;
    C1:
    mov.u32 %t0, 4;
    mbarrier.complete_tx.shared.b64 [%ba1], %t0;
    bar.sync 0;
    mbarrier.test_wait.shared.b64 %p2, [%ba0], %s0;
    mbarrier.test_wait.shared.b64 %p6, [%ba1], %s1;
    bar.sync 0;
    setp.eq.u32 %p15, %f, 100;
    @!%p15 bra C2;
    mapa.shared::cluster.u32 %ba3, %ba0, 0;
    mbarrier.complete_tx.shared::cluster.b64 [%ba3], 56;
    C2:
    mbarrier.arrive.shared.b64 %s2, [%ba1];
    bar.sync 0;
    mbarrier.test_wait.shared.b64 %p3, [%ba0], %s0;
    mbarrier.test_wait.parity.shared.b64 %p4, [%ba0], 0;
    mbarrier.test_wait.parity.shared.b64 %p8, [%ba1], 1;
    mbarrier.test_wait.parity.shared.b64 %p9, [%ba1], 0;
    bar.sync 0;
    @!%p7 bra C3;
    mbarrier.complete_tx.shared.b64 [%ba2], 8;
    mbarrier.arrive.shared.b64 %s3, [%ba2];
    C3:
    bar.sync 0;
    mbarrier.test_wait.parity.shared.b64 %p10, [%ba2], 0;
    bar.sync 0;
    @!%p7 bra C4;
    mbarrier.expect_tx.shared.b64 [%ba2], 8;
    C4:
    bar.sync 0;
    mbarrier.test_wait.parity.shared.b64 %p11, [%ba2], 0;
    """ + "\n".join(f"selp.u32 %o{i}, 1, 0, %p{p};" for i, p in enumerate((1, 2, 3, 4, 5, 6, 8, 9, 10, 11)))
    out = run(warp_kernel(body, 10, _SHARED), (128, 1, 1), [], 10)
    # p1 p2 p3 p4 p5 p6 | p8: bar1 phase 2 (parity 0) -> parity-1 wait done; p9 parity-0 wait not done
    # p10 bar2 pending 0 but tx -8: not done; p11 done after expect_tx 8
    expected = [0, 0, 1, 1, 0, 1, 1, 0, 0, 1]
    assert out.tolist() == [[e] * 128 for e in expected], out[:, :4]


@pytest.mark.parametrize(("line", "message"), [
    ("mbarrier.arrive.expect_tx.noComplete.shared.b64 %s0, [%ba0], 16;", "does not take .noComplete"),
    ("mbarrier.arrive.expect_tx.shared::cluster.b64 %s0, [%ba0], 16;", "returns no state: write '_'"),
    ("mbarrier.test_wait.shared::cluster.b64 %p1, [%ba0], %s0;", "not .shared::cluster"),
    ("mbarrier.expect_tx.shared.b64 [%ba0];", "one tx-count operand"),
])
def test_malformed_transaction_forms_are_located_errors(line: str, message: str) -> None:
    """Spellings ptxas 13 rejects (checked by hand): located errors, not unsupported."""
    with pytest.raises(Ptx2GcnError) as info:
        compile(warp_kernel("mov.u32 %ba0, bar0;\n" + line, 1, _SHARED))
    assert not isinstance(info.value, UnsupportedError) and message in str(info.value)


def test_pending_count_across_waves() -> None:
    """pending_count (PTX ISA 9.7.13.15.17) is the pending count just before the thread's arrive-on.
    256 threads (four waves) arrive.noComplete with count 2 on a barrier expecting 1024 and with count
    1 on one expecting 300, in some order: the counts seen are 1024, 1022, ..., 514 and 300, ..., 45,
    one each. out0 = (1024 - count) / 2 and out1 = 300 - count, gathered by value (an LDS scatter),
    must both be 0 .. 255."""
    body = """
    mov.u32 %ba0, bar0; mov.u32 %ba1, bar1; mov.u32 %t0, data;
    setp.eq.u32 %p7, %f, 0;
    @!%p7 bra INIT_DONE;
    mbarrier.init.shared.b64 [%ba0], 1024;
    mbarrier.init.shared.b64 [%ba1], 300;
    INIT_DONE:
    bar.sync 0;
    mbarrier.arrive.noComplete.shared.b64 %s0, [%ba0], 2;
    mbarrier.pending_count.b64 %t1, %s0;
    sub.u32 %t1, 1024, %t1; shr.u32 %t1, %t1, 1;
    shl.b32 %t2, %t1, 2; add.u32 %t2, %t0, %t2; st.shared.u32 [%t2], %t1;
    bar.sync 0;
    shl.b32 %t2, %f, 2; add.u32 %t2, %t0, %t2; ld.shared.u32 %o0, [%t2];
    bar.sync 0;
    mbarrier.arrive.noComplete.shared.b64 %s1, [%ba1], 1;
    mbarrier.pending_count.b64 %t1, %s1;
    sub.u32 %t1, 300, %t1;
    shl.b32 %t3, %t1, 2; add.u32 %t3, %t0, %t3; st.shared.u32 [%t3], %t1;
    bar.sync 0;
    ld.shared.u32 %o1, [%t2];
    """
    out = run(warp_kernel(body, 2, _SHARED), (256, 1, 1), [], 2)
    assert out.tolist() == [list(range(256))] * 2


def test_wait_under_a_branch_on_pending_count_is_rejected() -> None:
    """Every thread's arrive-on sees another pending count, so a branch on it is warp-dependent
    control flow even though the token's phase (what a wait reads) is the same."""
    body = """
    mov.u32 %ba0, bar0;
    mbarrier.arrive.noComplete.shared.b64 %s0, [%ba0], 1;
    mbarrier.pending_count.b64 %t0, %s0;
    setp.eq.u32 %p1, %t0, 1;
    @!%p1 bra SKIP;
    mbarrier.test_wait.parity.shared.b64 %p2, [%ba0], 0;
    SKIP:
    """
    with pytest.raises(UnsupportedError) as info:
        compile(warp_kernel(body, 1, _SHARED))
    assert "unsupported: mbarrier.test_wait: reached under warp-dependent control flow" in str(info.value)


@pytest.mark.parametrize(("head", "message"), [
    (".version 7.0\n.target sm_75", "requires .target sm_80 or higher"),
    (".version 6.5\n.target sm_75", "requires PTX ISA .version 7.0 or later"),
])
def test_pending_count_target_gate(head: str, message: str) -> None:
    """ptxas 13's gates for mbarrier.pending_count (sm_80, PTX 7.0), checked by hand: located errors."""
    ptx = (f"{head}\n.address_size 64\n.visible .entry k()\n{{\n.reg .b32 %r1;\n.reg .b64 %rd1;\n"
           "mov.u64 %rd1, 0;\nmbarrier.pending_count.b64 %r1, %rd1;\nret;\n}\n")
    with pytest.raises(Ptx2GcnError) as info:
        compile(ptx)
    assert not isinstance(info.value, UnsupportedError) and message in str(info.value)
    assert ":9:1: error:" in str(info.value)  # the instruction's line


# (spelling, .version, .target, ptxas 13.0 accepts it): verdicts of ptxas 13.0 recorded by hand (PTX ISA
# 9.7.13.15; the gates of ptx2gcn/translate/mbarrier_rules.py).
PTXAS_VERDICTS = [
    ("mbarrier.init.shared::cta.b64 [%r1], %r2;", "7.1", "sm_80", False),
    ("mbarrier.init.shared::cta.b64 [%r1], %r2;", "7.8", "sm_80", True),
    ("mbarrier.init.shared.b64 %rd2, [%r1], %r2;", "8.0", "sm_90", False),
    ("mbarrier.arrive.shared.b64 %rd2, [%r1], %r2;", "7.8", "sm_80", False),
    ("mbarrier.arrive.shared.b64 %rd2, [%r1], %r2;", "7.8", "sm_90", True),
    ("mbarrier.arrive_drop.shared.b64 %rd2, [%r1], %r2;", "7.8", "sm_80", False),
    ("mbarrier.arrive.noComplete.shared.b64 %rd2, [%r1];", "8.0", "sm_90", False),
    ("mbarrier.arrive.noComplete.shared.b64 %rd2, [%r1], %r2;", "7.0", "sm_80", True),
    ("mbarrier.arrive.shared.b64 [%r1];", "8.0", "sm_90", False),
    ("mbarrier.arrive.shared.b64 _, [%r1];", "7.0", "sm_80", False),
    ("mbarrier.arrive.shared.b64 _, [%r1];", "7.1", "sm_80", True),
    ("mbarrier.arrive.release.cta.shared::cta.b64 %rd2, [%r1];", "7.8", "sm_90", False),
    ("mbarrier.arrive.release.cta.shared::cta.b64 %rd2, [%r1];", "8.0", "sm_90", True),
    ("mbarrier.arrive.relaxed.cta.shared::cta.b64 %rd2, [%r1];", "8.0", "sm_90", False),
    ("mbarrier.arrive.relaxed.cta.shared::cta.b64 %rd2, [%r1];", "8.6", "sm_90", True),
    ("mbarrier.arrive.acquire.cta.shared::cta.b64 %rd2, [%r1];", "8.6", "sm_90", False),
    ("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 16;", "8.0", "sm_90", True),
    ("mbarrier.test_wait.parity.shared.b64 %p1, [%r1], %r2;", "7.0", "sm_80", False),
    ("mbarrier.test_wait.parity.shared.b64 %p1, [%r1], %r2;", "7.1", "sm_80", True),
    ("mbarrier.test_wait.shared.b64 %p1, [%r1], %rd2, %r2;", "8.6", "sm_90", False),
    ("mbarrier.test_wait.release.cta.shared::cta.b64 %p1, [%r1], %rd2;", "8.6", "sm_90", False),
    ("mbarrier.try_wait.shared.b64 %p1, [%r1], %rd2;", "7.8", "sm_80", False),
    ("mbarrier.try_wait.shared.b64 %p1, [%r1], %rd2;", "7.8", "sm_90", True),
    ("mbarrier.try_wait.shared.b64 %p1, [%r1], %rd2, %r2;", "7.8", "sm_90", True),
    ("mbarrier.try_wait.parity.shared.b64 %p1, [%r1], %r2, 1000;", "8.0", "sm_90", True),
    ("mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p1, [%r1], %r2;", "8.0", "sm_90", True),
    ("mbarrier.pending_count.b64 %r3, %rd2;", "7.0", "sm_80", True),
]


@pytest.mark.parametrize(("line", "version", "target", "accepted"), PTXAS_VERDICTS)
def test_forms_follow_ptxas(line: str, version: str, target: str, accepted: bool) -> None:
    """What ptxas accepts translates; what it rejects is a located error at the line, not unsupported."""
    from ptx2gcn.translate.load import module_from_ptx

    ptx = (f".version {version}\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n"
           ".reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>;\n.shared .align 8 .b64 bar;\n"
           f"mov.u32 %r1, bar;\nmov.u32 %r2, 1;\nmov.u64 %rd2, 0;\n{line}\nret;\n}}\n")
    if accepted:
        module_from_ptx(ptx, "t.ptx")
        return
    with pytest.raises(Ptx2GcnError) as info:
        module_from_ptx(ptx, "t.ptx")
    assert not isinstance(info.value, UnsupportedError)
    assert ":13:" in str(info.value), str(info.value)
