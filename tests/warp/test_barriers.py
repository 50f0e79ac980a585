"""T15–T20: bar.warp.sync, bar.sync with exits, named producer/consumer, bar.red, counted barriers,
fences — several warps per CTA, different data per warp, run on the emulator (a hang is a
``KernelHang`` from the step budget, never a stuck test)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.warp.conftest import SENTINEL, run, warp_kernel

SMEM = ".shared .align 4 .b32 smem[1024];"


def test_bar_warp_sync_exchanges_through_shared(rng: np.random.Generator) -> None:
    """T15: st.shared [lane]; bar.warp.sync -1; ld.shared [lane^1] in both warps of every wave."""
    ptx = warp_kernel("""
    mov.u32 %t0, smem; shl.b32 %t1, %f, 2; add.u32 %t1, %t0, %t1; st.shared.u32 [%t1], %a0;
    bar.warp.sync -1;
    xor.b32 %t2, %f, 1; shl.b32 %t2, %t2, 2; add.u32 %t2, %t0, %t2; ld.shared.u32 %o0, [%t2];
    """, 1, SMEM)
    a = rng.integers(0, 2**32, 128)
    out = run(ptx, (128, 1, 1), [a], 1)
    assert (out[0] == a[np.arange(128) ^ 1]).all()


EXITS = warp_kernel("""
setp.ne.u32 %p1, %a1, 0; @%p1 exit;
mov.u32 %t0, smem; shl.b32 %t1, %f, 2; add.u32 %t1, %t0, %t1; st.shared.u32 [%t1], %a0;
bar.sync 0;
sub.u32 %t2, %f, 32; and.b32 %t2, %t2, 255; shl.b32 %t2, %t2, 2; add.u32 %t2, %t0, %t2; ld.shared.u32 %o0, [%t2];
bar.sync 0;
st.shared.u32 [%t1], %o0;
bar.sync 0;
ld.shared.u32 %o1, [%t2];
""", 2, SMEM)


@pytest.mark.parametrize("gone_warps", [(1,), (2, 3), (0,), (1, 6)])
def test_bar_sync_with_exited_warps(gone_warps: tuple[int, ...], rng: np.random.Generator) -> None:
    """T16: whole warps (an odd half, or a whole wave) exit before bar.sync 0; the rest must neither
    hang nor lose ordering. Each thread reads the value of thread f-32 (mod 256) after the barrier."""
    a = rng.integers(0, 2**31, 256)
    warp = np.arange(256) // 32
    gone = np.isin(warp, gone_warps)
    out = run(EXITS, (256, 1, 1), [a, gone], 2)
    live = ~gone
    src = (np.arange(256) - 32) % 256
    assert (out[0][gone] == SENTINEL).all() and (out[1][gone] == SENTINEL).all()
    ok_src = live & live[src]
    assert (out[0][ok_src] == a[src][ok_src]).all()
    assert (out[1][ok_src & live[src[src]]] == a[src[src]][ok_src & live[src[src]]]).all()


def _producer_consumer(iterations: int) -> str:
    """Warps 0-1 produce into smem then bar.arrive 1,128; warps 2-3 bar.sync 1,128, consume, and
    signal back on id 2 (roles reversed), ``iterations`` times."""
    return warp_kernel(f"""
    mov.u32 %t0, smem; and.b32 %t1, %f, 63; shl.b32 %t1, %t1, 2; add.u32 %t1, %t0, %t1;
    mov.u32 %r1, 0; mov.u32 %o0, 0;
    mov.u32 %r5, %warpid; setp.lt.u32 %p1, %r5, 2;
    LOOP:
      setp.ge.u32 %p2, %r1, {iterations}; @%p2 bra DONE;
      @!%p1 bra CONSUMER;
        bar.sync 2, 128;
        add.u32 %r2, %a0, %r1; st.shared.u32 [%t1], %r2;
        bar.arrive 1, 128;
        bra.uni NEXT;
      CONSUMER:
        bar.arrive 2, 128;
        bar.sync 1, 128;
        ld.shared.u32 %r3, [%t1]; add.u32 %o0, %o0, %r3;
      NEXT:
      add.u32 %r1, %r1, 1; bra.uni LOOP;
    DONE:
    """, 1, SMEM)


@pytest.mark.parametrize("iterations", [1, 3, 40])
def test_named_producer_consumer_even_split(iterations: int, rng: np.random.Generator) -> None:
    """T17: FlashAttention-style warp specialisation on warp-pair boundaries."""
    a = rng.integers(0, 2**20, 128)
    out = run(_producer_consumer(iterations), (128, 1, 1), [a], 1, step_budget=50_000_000)
    lane = np.arange(64)
    expect = sum(a[lane] + i for i in range(iterations)) & 0xFFFFFFFF
    assert (out[0][64:] == expect).all()
    assert (out[0][:64] == 0).all()


@pytest.mark.slow
def test_named_producer_consumer_generation_wrap(rng: np.random.Generator) -> None:
    """T17 with 70 000 phases: the 16-bit generation wraps."""
    a = rng.integers(0, 2**20, 128)
    out = run(_producer_consumer(70_000), (128, 1, 1), [a], 1, step_budget=2_000_000_000)
    expect = sum(a[np.arange(64)] + i for i in range(70_000)) & 0xFFFFFFFF
    assert (out[0][64:] == expect).all()


BAR_RED = warp_kernel("""
setp.ne.u32 %p1, %a0, 0; setp.ne.u32 %p2, %a1, 0;
bar.red.popc.u32 %o0, 0, %p1;
bar.red.and.pred %p3, 0, %p2; selp.u32 %o1, 1, 0, %p3;
bar.red.or.pred %p3, 0, !%p2; selp.u32 %o2, 1, 0, %p3;
bar.red.popc.u32 %o3, 0, !%p1;
bar.sync 5;
mov.u32 %r5, %warpid; setp.lt.u32 %p4, %r5, 2; @!%p4 bra OTHER;
  bar.red.popc.u32 %o4, 3, 64, %p1;
  bar.red.or.pred %p3, 3, 64, %p2; selp.u32 %o5, 1, 0, %p3;
  bar.red.popc.u32 %o6, 3, 64, %p2;
  bra.uni END;
OTHER:
  bar.sync 7, 64;
  bar.red.popc.u32 %o4, 4, 64, %p2;
END:
""", 7)


@pytest.mark.parametrize("seed", range(3))
def test_bar_red(seed: int) -> None:
    """T18: popc/and/or over the CTA (id 0) and counted over warps 0-1 (id 3, back to back), while
    warps 2-3 use other ids; per-warp predicate patterns."""
    rng = np.random.default_rng(seed)
    n = 128
    p1 = rng.random(n) < rng.choice([0.1, 0.5, 0.9], n // 32).repeat(32)
    p2 = np.ones(n, bool) if seed == 0 else rng.random(n) < 0.97
    out = run(BAR_RED, (n, 1, 1), [p1, p2], 7)
    first = np.arange(n) < 64
    assert (out[0] == p1.sum()).all()
    assert (out[1] == int(p2.all())).all()
    assert (out[2] == int((~p2).any())).all()
    assert (out[3] == (~p1).sum()).all()
    assert (out[4][first] == p1[first].sum()).all()
    assert (out[5][first] == int(p2[first].any())).all()
    assert (out[6][first] == p2[first].sum()).all()
    assert (out[4][~first] == p2[~first].sum()).all()


@pytest.mark.parametrize("spelling", ["bar.sync", "barrier.sync", "barrier.sync.aligned"])
def test_counted_barrier_on_id_zero(spelling: str, rng: np.random.Generator) -> None:
    """T19: bar.sync 0, 64 by warps 0-1 while warps 2-3 use bar.sync 1, 64; data crosses warps."""
    ptx = warp_kernel("""
    mov.u32 %t0, smem; shl.b32 %t1, %f, 2; add.u32 %t1, %t0, %t1; st.shared.u32 [%t1], %a0;
    xor.b32 %t2, %f, 32; shl.b32 %t2, %t2, 2; add.u32 %t2, %t0, %t2;
    mov.u32 %r5, %warpid; shr.u32 %r6, %r5, 1; setp.eq.u32 %p1, %r6, 0; @!%p1 bra HIGH;
      bar.sync 0, 64; bra.uni JOIN;
    HIGH:
      bar.sync 1, 64;
    JOIN:
    ld.shared.u32 %o0, [%t2];
    """.replace("bar.sync", spelling), 1, SMEM)
    a = rng.integers(0, 2**32, 128)
    out = run(ptx, (128, 1, 1), [a], 1)
    assert (out[0] == a[np.arange(128) ^ 32]).all()


@pytest.mark.parametrize("fence_", ["membar.cta", "fence.acq_rel.cta", "fence.sc.cta", "membar.gl",
                                    "fence.acq_rel.gpu", "membar.sys", "fence.sc.sys"])
def test_fence_message_passing_between_waves(fence_: str, rng: np.random.Generator) -> None:
    """T20, CTA scope through shared memory: wave 0 (warps 0-1) writes data, fences and sets a flag;
    wave 1 (warps 2-3) spins on the flag, fences, and must then see the data. (Spinning on the
    partner half of the *same* wave cannot work in Mode P: both halves share one PC.)"""
    ptx = warp_kernel(f"""
    mov.u32 %t0, smem; shl.b32 %t1, %f, 2; and.b32 %t1, %t1, 255; add.u32 %t1, %t0, %t1;
    setp.eq.u32 %p5, %f, 0; @%p5 st.shared.u32 [smem+512], 0; bar.sync 0;
    setp.gt.u32 %p1, %w, 1; @%p1 bra WAIT;
      st.shared.u32 [%t1], %a0; {fence_}; st.volatile.shared.u32 [smem+512], 1; bra.uni END;
    WAIT:
      ld.volatile.shared.u32 %t2, [smem+512]; setp.eq.u32 %p3, %t2, 0; @%p3 bra WAIT;
      {fence_}; ld.shared.u32 %o0, [%t1];
    END:
    """, 1, SMEM)
    a = rng.integers(0, 2**32, 128)
    out = run(ptx, (128, 1, 1), [a], 1)
    assert (out[0][64:] == a[:64]).all()
    assert (out[0][:64] == SENTINEL).all()


@pytest.mark.parametrize("fence_", ["membar.gl", "fence.acq_rel.gpu", "fence.sc.gpu", "fence.sc.sys"])
def test_fence_message_passing_between_ctas(fence_: str, rng: np.random.Generator) -> None:
    """T20, GPU scope through global memory: CTA 0 publishes its inputs and a flag, CTA 1 waits."""
    ptx = warp_kernel(f"""
    mad.wide.u32 %rd1, %n, 12, %inp; add.u64 %rd2, %rd1, 384;
    and.b32 %t1, %f, 63; mad.wide.u32 %rd3, %t1, 4, %rd1;
    mov.u32 %t0, %ctaid.x; setp.ne.u32 %p1, %t0, 0; @%p1 bra WAIT;
      st.global.u32 [%rd3], %a0; {fence_}; st.volatile.global.u32 [%rd2], 1; bra.uni END;
    WAIT:
      ld.volatile.global.u32 %t2, [%rd2]; setp.eq.u32 %p3, %t2, 0; @%p3 bra WAIT;
      {fence_}; ld.global.u32 %o0, [%rd3];
    END:
    """, 1)
    a = rng.integers(0, 2**32, 128)
    out = run(ptx, (64, 1, 1), [a], 1, grid=2)
    assert (out[0][64:] == a[:64]).all()


ODD_SPLIT = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
.reg .b32 %r<8>; .reg .pred %p<4>;
mov.u32 %r1, %warpid;
setp.lt.u32 %p1, %r1, {bound};
@%p1 bra PRODUCER;
{consumer}
bra.uni END;
PRODUCER:
{producer}
END:
ret;
}
"""


@pytest.mark.parametrize(("bound", "producer", "consumer", "line"), [
    (1, "bar.arrive 1, 128;", "bar.sync 1, 128;", 10),      # T17 odd split: warp 0 vs warps 1-3
    (3, "bar.sync 1, 96;", "bar.sync 2, 32;", 10),
    (1, "bar.red.or.pred %p2, 3, 64, %p1;", "bar.sync 0;", 13),
])
def test_odd_split_is_rejected_with_located_error(bound: int, producer: str, consumer: str, line: int) -> None:
    """Mode P cannot run warp-specialised code split inside a wave: a located compile error."""
    from ptx2gcn.compiler import compile
    from ptx2gcn.diagnostics import Ptx2GcnError

    ptx = ODD_SPLIT.replace("{bound}", str(bound)).replace("{producer}", producer).replace("{consumer}", consumer)
    with pytest.raises(Ptx2GcnError) as info:
        compile(ptx)
    rendered = info.value.render()
    assert "reached under warp-dependent control flow" in rendered and "may deadlock" in rendered
    span = info.value.span
    assert span is not None and span.line == line, rendered
    assert "^" in rendered


@pytest.mark.parametrize("condition", ["mov.u32 %r1, %tid.x; setp.lt.u32 %p1, %r1, 64;",
                                       "mov.u32 %r1, %laneid; setp.eq.u32 %p1, %r1, 0;",
                                       "mov.u32 %r1, %warpid; and.b32 %r2, %r1, 1; setp.eq.u32 %p1, %r2, 0;"])
def test_thread_dependent_counted_barrier_is_rejected(condition: str) -> None:
    from ptx2gcn.compiler import compile
    from ptx2gcn.diagnostics import Ptx2GcnError

    ptx = ODD_SPLIT.replace("mov.u32 %r1, %warpid;\nsetp.lt.u32 %p1, %r1, {bound};", condition).replace(
        "{producer}", "bar.sync 1, 64;").replace("{consumer}", "")
    with pytest.raises(Ptx2GcnError, match="barrier id 1: reached under warp-dependent control flow"):
        compile(ptx)


@pytest.mark.parametrize("condition", ["mov.u32 %r1, %ctaid.x; setp.lt.u32 %p1, %r1, 3;",
                                       "mov.u32 %r1, %warpid; shr.u32 %r2, %r1, 2; setp.eq.u32 %p1, %r2, 0;",
                                       "mov.u32 %r1, %warpid; setp.ge.u32 %p1, %r1, 4;",
                                       "mov.u32 %r1, %tid.x; setp.ge.u32 %p1, %r1, 1000; @%p1 exit;"])
def test_uniform_or_pair_uniform_control_compiles(condition: str) -> None:
    from ptx2gcn.compiler import compile

    ptx = ODD_SPLIT.replace("mov.u32 %r1, %warpid;\nsetp.lt.u32 %p1, %r1, {bound};", condition).replace(
        "{producer}", "bar.sync 1, 64;").replace("{consumer}", "bar.arrive 1, 64;")
    if "exit" in condition:
        ptx = ptx.replace("@%p1 bra PRODUCER;", "")
    assert compile(ptx).kernels


TINY_RED = warp_kernel("""
setp.ne.u32 %p1, %a0, 0;
bar.red.popc.u32 %o0, 15, %p1;
bar.red.popc.u32 %o1, 15, %p1;
bar.red.and.pred %p2, 9, %p1; selp.u32 %o2, 1, 0, %p2;
""", 3)


@pytest.mark.parametrize("size", [1, 5, 40, 100])
def test_bar_red_in_small_ctas_uses_zeroed_state(size: int, rng: np.random.Generator,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """CTAs with fewer threads than state words: every accumulator (id 15 = the last word) starts at 0
    even though LDS starts as garbage (as on hardware: the emulator's LDS is filled with 0xA5 here);
    back-to-back reductions on one id do not accumulate."""
    from ptx2gcn.runtime.emulator import memory

    plain_init = memory.Lds.__init__

    def garbage_init(self: memory.Lds, size: int) -> None:
        plain_init(self, size)
        self.data[:] = 0xA5

    monkeypatch.setattr(memory.Lds, "__init__", garbage_init)
    p = rng.random(size) < 0.5
    out = run(TINY_RED, (size, 1, 1), [np.tile(p, 3)], 3, grid=3)
    for cta in range(3):
        s = slice(cta * size, (cta + 1) * size)
        assert (out[0][s] == p.sum()).all() and (out[1][s] == p.sum()).all()
        assert (out[2][s] == int(p.all())).all()
