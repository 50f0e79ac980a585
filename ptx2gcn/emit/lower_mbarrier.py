"""``mbarrier.*`` (PTX ISA 9.7.13.15 "Parallel Synchronization and Communication Instructions:
mbarrier") on one 64-bit LDS word, updated by compare-and-swap.

Invariant: the object's word holds the pending arrival count of the current phase in bits 0-19, the
expected arrival count in bits 20-39 and the phase number in bits 40-62 (its parity is bit 40).
``init n`` stores ``n | n << 20`` (phase 0). ``arrive[.noComplete] [count]`` subtracts ``count``
(default 1) from the pending count in one CAS loop (acq_rel, work-group scope: PTX's default
``.release.cta``, plus the acquire a CAS needs); when it reaches zero the phase completes: the
phase number goes up by one and the pending count is reloaded from the expected count.
``arrive_drop`` also lowers the expected count. The state token an arrive returns is the phase
number it arrived in; ``test_wait``/``try_wait`` (acquire) are true once the phase number differs
from the token's, ``.parity p`` once the current phase's parity differs from ``p``. ``try_wait``
never blocks (PTX lets it return false when its time limit passes; callers loop).
``inval`` does nothing. Transaction counts (``expect_tx``/``complete_tx``, ``arrive.expect_tx``)
belong to the asynchronous proxy (cp.async.bulk, TMA), which has no gfx942 lowering: unsupported,
as is ``pending_count``. Mode P: ``wave64-barrier-check`` rejects waits reached under
warp-dependent control flow (a warp spinning there would keep its partner warp from arriving).
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_atomics import atomic_load, atomic_store, cas_loop
from ptx2gcn.emit.llvm_types import I1, I64
from ptx2gcn.ir.core import Op

_COUNT = 0xFFFFF
_EXPECTED_SHIFT = 20
_PHASE_SHIFT = 40


def _i64(value: int) -> ir.Constant:
    return ir.Constant(I64, value)


def _init(cx: FnContext, op: Op) -> None:
    count = cx.builder.and_(cx.builder.zext(cx.coerce(cx.operand(op, 1), ir.IntType(32)), I64), _i64(_COUNT))
    word = cx.builder.or_(count, cx.builder.shl(count, _i64(_EXPECTED_SHIFT)))
    atomic_store(cx.builder, word, cx.operand(op, 0), "monotonic", "workgroup", 8)


def _arrive(cx: FnContext, op: Op, drop: bool) -> None:
    bld = cx.builder
    count = bld.zext(cx.coerce(cx.operand(op, 1), ir.IntType(32)), I64) if len(op.operands) > 1 else _i64(1)
    complete = not cx.flag(op, "noComplete")

    def update(old: ir.Value) -> ir.Value:
        pending = bld.sub(bld.and_(old, _i64(_COUNT)), count)
        expected = bld.and_(bld.lshr(old, _i64(_EXPECTED_SHIFT)), _i64(_COUNT))
        if drop:
            expected = bld.sub(expected, count)
        phase = bld.lshr(old, _i64(_PHASE_SHIFT))
        counts = bld.shl(expected, _i64(_EXPECTED_SHIFT))
        stay = bld.or_(bld.or_(bld.and_(pending, _i64(_COUNT)), counts), bld.shl(phase, _i64(_PHASE_SHIFT)))
        if not complete:
            return stay
        next_phase = bld.shl(bld.add(phase, _i64(1)), _i64(_PHASE_SHIFT))
        reload = bld.or_(bld.or_(expected, counts), next_phase)
        return bld.select(bld.icmp_unsigned("==", pending, _i64(0)), reload, stay)

    old = cas_loop(bld, cx.operand(op, 0), I64, update, "acq_rel", "workgroup")
    if op.results:
        cx.define(op, bld.lshr(old, _i64(_PHASE_SHIFT)))


def _wait(cx: FnContext, op: Op) -> None:
    bld = cx.builder
    word = atomic_load(bld, cx.operand(op, 0), I64, "acquire", "workgroup", 8)
    phase = bld.lshr(word, _i64(_PHASE_SHIFT))
    if cx.flag(op, "parity"):
        parity = bld.and_(bld.zext(cx.coerce(cx.operand(op, 1), ir.IntType(32)), I64), _i64(1))
        done = bld.icmp_unsigned("!=", bld.and_(phase, _i64(1)), parity)
    else:
        done = bld.icmp_unsigned("!=", phase, cx.coerce(cx.operand(op, 1), I64))
    if op.results:
        cx.define(op, done if done.type == I1 else bld.trunc(done, I1))


def lower_mbarrier(cx: FnContext, op: Op) -> None:
    kind = cx.attr(op, "op")
    if cx.flag(op, "expect_tx") or kind in ("expect_tx", "complete_tx", "pending_count"):
        what = f"mbarrier.{kind}{'.expect_tx' if cx.flag(op, 'expect_tx') else ''}"
        raise cx.unsupported(what, "transaction counts belong to the asynchronous proxy (cp.async.bulk, TMA), "
                                   "which has no gfx942 lowering" if kind != "pending_count" else
                             "pending_count is not lowered yet")
    if kind == "init":
        _init(cx, op)
    elif kind in ("arrive", "arrive_drop"):
        _arrive(cx, op, kind == "arrive_drop")
    elif kind in ("test_wait", "try_wait"):
        _wait(cx, op)
    else:
        assert kind == "inval", kind


LOWERINGS: dict[str, Lowering] = {"mbarrier": lower_mbarrier}
