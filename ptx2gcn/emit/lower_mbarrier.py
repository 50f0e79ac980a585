"""``mbarrier.*`` (PTX ISA 9.7.13.15 "Parallel Synchronization and Communication Instructions:
mbarrier") on one 64-bit LDS word, updated by compare-and-swap.

Invariant: the object's word holds the pending arrival count of the current phase in bits 0-19, the
expected arrival count in bits 20-39, the transaction count (tx-count, 21-bit two's complement: PTX
allows -(2^20 - 1) .. 2^20 - 1) in bits 40-60 and the phase number modulo 8 in bits 61-63 (its parity
is bit 61). ``init n`` stores ``n | n << 20`` (phase 0, tx-count 0). Every update is one CAS loop
(acq_rel, work-group scope: PTX's default ``.release.cta``, plus the acquire a CAS needs) that applies
an arrive-on of ``count`` (pending -= count; ``arrive_drop`` also lowers the expected count), an
expect-tx of ``n`` (tx-count += n) or a complete-tx of ``n`` (tx-count -= n), and then, unless
``.noComplete``, completes the phase when the pending count and the tx-count are both zero (PTX
9.7.13.15.2 "Phase completion"): the phase number goes up by one, the pending count is reloaded from
the expected count and the tx-count restarts at zero. ``arrive.expect_tx n`` is expect-tx n, then an
arrive-on of 1, in the same update. The state token an arrive returns holds the phase number (mod 8)
it arrived in (bits 0-2) and the pending count just before its arrive-on (bits 32-51);
``test_wait``/``try_wait`` (acquire) are true once the phase number differs from the token's (a token
names the current or the immediately preceding phase, PTX says, so eight phase numbers never alias),
``.parity p`` once the current phase's parity differs from ``p``; ``mbarrier.pending_count`` returns
the token's pending count (PTX ISA 9.7.13.15.17: "the pending count of the mbarrier object prior to
the arrive-on operation from which the state register was obtained"). ``try_wait`` never blocks (PTX
lets it return false when its time limit passes; callers loop). ``inval`` does nothing.
``.shared::cluster`` objects (arrive with a ``_`` state,
expect_tx, complete_tx) are reached through the generic pointer of ``cvta_cluster``: with one CTA per
cluster that is the CTA's own shared memory. Mode P: ``wave64-barrier-check`` rejects waits reached
under warp-dependent control flow (a warp spinning there would keep its partner warp from arriving).
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_atomics import atomic_load, atomic_store, cas_loop
from ptx2gcn.emit.llvm_types import I1, I64
from ptx2gcn.ir.core import Op

_COUNT = 0xFFFFF
_EXPECTED_SHIFT = 20
_TX_SHIFT = 40
_TX_MASK = (1 << 21) - 1
_PHASE_SHIFT = 61
_PHASE_MASK = 7
_TOKEN_PENDING_SHIFT = 32
"""Where an arrive's state token keeps the pending count before the arrive-on (the phase: bits 0-2)."""


def _i64(value: int) -> ir.Constant:
    return ir.Constant(I64, value)


def _init(cx: FnContext, op: Op) -> None:
    count = cx.builder.and_(cx.builder.zext(cx.coerce(cx.operand(op, 1), ir.IntType(32)), I64), _i64(_COUNT))
    word = cx.builder.or_(count, cx.builder.shl(count, _i64(_EXPECTED_SHIFT)))
    atomic_store(cx.builder, word, cx.operand(op, 0), "monotonic", "workgroup", 8)


def _operand64(cx: FnContext, op: Op, index: int) -> ir.Value:
    return cx.builder.zext(cx.coerce(cx.operand(op, index), ir.IntType(32)), I64)


def _update(cx: FnContext, op: Op, count: ir.Value, drop: bool, tx_delta: ir.Value | None) -> ir.Value:
    """One CAS loop: arrive-on ``count`` (0: none), ``tx_delta`` added to the tx-count, then phase
    completion unless ``.noComplete`` (module docstring); returns the word before the update."""
    bld = cx.builder
    complete = not cx.flag(op, "noComplete")

    def update(old: ir.Value) -> ir.Value:
        pending = bld.and_(bld.sub(bld.and_(old, _i64(_COUNT)), count), _i64(_COUNT))
        expected = bld.and_(bld.lshr(old, _i64(_EXPECTED_SHIFT)), _i64(_COUNT))
        if drop:
            expected = bld.and_(bld.sub(expected, count), _i64(_COUNT))
        tx = bld.and_(bld.lshr(old, _i64(_TX_SHIFT)), _i64(_TX_MASK))
        if tx_delta is not None:
            tx = bld.and_(bld.add(tx, tx_delta), _i64(_TX_MASK))
        phase = bld.lshr(old, _i64(_PHASE_SHIFT))
        counts = bld.shl(expected, _i64(_EXPECTED_SHIFT))
        stay = bld.or_(bld.or_(pending, counts), bld.or_(bld.shl(tx, _i64(_TX_SHIFT)),
                                                         bld.shl(phase, _i64(_PHASE_SHIFT))))
        if not complete:
            return stay
        next_phase = bld.shl(bld.and_(bld.add(phase, _i64(1)), _i64(_PHASE_MASK)), _i64(_PHASE_SHIFT))
        reload = bld.or_(bld.or_(expected, counts), next_phase)
        done = bld.icmp_unsigned("==", bld.or_(pending, tx), _i64(0))
        return bld.select(done, reload, stay)

    return cas_loop(bld, cx.operand(op, 0), I64, update, "acq_rel", "workgroup")


def _arrive(cx: FnContext, op: Op, drop: bool) -> None:
    """arrive / arrive_drop [.expect_tx n] [count]."""
    bld = cx.builder
    if cx.flag(op, "expect_tx"):
        count, tx = _i64(1), _operand64(cx, op, 1)
    else:
        count, tx = (_operand64(cx, op, 1) if len(op.operands) > 1 else _i64(1)), None
    old = _update(cx, op, count, drop, tx)
    if op.results:
        pending = bld.shl(bld.and_(old, _i64(_COUNT)), _i64(_TOKEN_PENDING_SHIFT))
        cx.define(op, bld.or_(bld.lshr(old, _i64(_PHASE_SHIFT)), pending))


def _tx(cx: FnContext, op: Op, sign: int) -> None:
    """expect_tx n (+n) / complete_tx n (-n) on the tx-count."""
    n = _operand64(cx, op, 1)
    _update(cx, op, _i64(0), False, n if sign > 0 else cx.builder.sub(_i64(0), n))


def _wait(cx: FnContext, op: Op) -> None:
    bld = cx.builder
    word = atomic_load(bld, cx.operand(op, 0), I64, "acquire", "workgroup", 8)
    phase = bld.lshr(word, _i64(_PHASE_SHIFT))
    if cx.flag(op, "parity"):
        parity = bld.and_(bld.zext(cx.coerce(cx.operand(op, 1), ir.IntType(32)), I64), _i64(1))
        done = bld.icmp_unsigned("!=", bld.and_(phase, _i64(1)), parity)
    else:
        token_phase = bld.and_(cx.coerce(cx.operand(op, 1), I64), _i64(_PHASE_MASK))
        done = bld.icmp_unsigned("!=", phase, token_phase)
    if op.results:
        cx.define(op, done if done.type == I1 else bld.trunc(done, I1))


def lower_pending_count(cx: FnContext, op: Op) -> None:
    """The pending count a state token carries (bits 32-51)."""
    bld = cx.builder
    token = cx.coerce(cx.operand(op, 0), I64)
    count = bld.and_(bld.lshr(token, _i64(_TOKEN_PENDING_SHIFT)), _i64(_COUNT))
    cx.define(op, bld.trunc(count, ir.IntType(32)))


def lower_mbarrier(cx: FnContext, op: Op) -> None:
    kind = cx.attr(op, "op")
    if kind == "init":
        _init(cx, op)
    elif kind in ("arrive", "arrive_drop"):
        _arrive(cx, op, kind == "arrive_drop")
    elif kind in ("expect_tx", "complete_tx"):
        _tx(cx, op, 1 if kind == "expect_tx" else -1)
    elif kind in ("test_wait", "try_wait"):
        _wait(cx, op)
    else:
        assert kind == "inval", kind


LOWERINGS: dict[str, Lowering] = {"mbarrier": lower_mbarrier, "mbarrier_pending_count": lower_pending_count}
