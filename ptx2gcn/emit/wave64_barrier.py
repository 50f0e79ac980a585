"""Counted and named CTA barriers, ``bar.arrive`` and ``bar.red`` emulated in LDS (Mode P).

gfx942 has one hardware barrier (``s_barrier``) that counts waves, not CUDA warps, so every
barrier with a thread count, every ``bar.arrive`` and every counted ``bar.red`` uses a per-kernel
LDS state block (``STATE``: 64 words, zeroed by every thread of a kernel that uses it at its entry,
followed by one ``s_barrier``):

- ``W[k]`` (word k, barrier id k = id & 15) packs ``generation << 16 | arrived_warps``. One leader
  per CUDA warp (its lowest active lane) arrives with a compare-and-swap loop; the arrival that
  completes the barrier resets the count and bumps the generation in the same CAS, so a warp that
  re-arrives right after completion is counted for the next phase, never released early.
  ``bar.sync``/``barrier.sync`` then spin (``s_sleep``) until the generation moves on.
- ``A[k][g & 1]`` (words 16 + 2k + parity) accumulate a counted ``bar.red``'s per-warp counts for
  phase ``g``; the completing arrival zeroes the other parity's word before bumping ``g``.
- ``R[k]`` (words 48 + k) accumulate a full-CTA ``bar.red`` (no count) with three ``s_barrier``s and
  no state carried between reductions: every warp's leader stores 0, ``s_barrier``, leaders add,
  ``s_barrier``, everyone reads, ``s_barrier`` (so the next reduction's zeroing cannot overtake a
  read). Exited warps (which ``s_barrier`` does not wait for) contribute nothing, and no kernel-entry
  zeroing is needed, so this form also works in device functions (``__syncthreads_count`` in ``-G``
  builds).

Invariant: each CUDA warp arrives exactly once per barrier instruction whatever the partner half
of its wave does; all state words are updated with workgroup-scope atomics; release before arrival
and acquire after completion make the barrier order shared and global memory like ``bar.sync``.
Only kernels can use the counted emulation (its state is zeroed at kernel entry); device functions
get a located ``unsupported``. Whether the reaching control flow is safe in Mode P is checked by the IR
pass ``wave64-barrier-check``. Design: warp-on-wave64.md §5.9(c).
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from ptx2gcn.emit.context import FnContext
from ptx2gcn.emit.llvm_atomics import atomic_load, atomic_rmw, atomic_store, cmpxchg, fence
from ptx2gcn.emit.llvm_types import I1, I32, pointer
from ptx2gcn.emit.wave64_geometry import gather, half_bits, half_exec, lane_id
from ptx2gcn.ir.core import Op

CtaBarrier = Callable[[FnContext], None]

STATE = "__ptx2gcn_wave64_barriers"
STATE_WORDS = 64
_STATE_TYPE = ir.ArrayType(I32, STATE_WORDS)
_INIT_MARK = "wave64.barrier.init"
_ACC, _CTA_ACC = 16, 48
_COUNT_BITS = 0xFFFF


def _state(cx: FnContext) -> ir.GlobalVariable:
    module = cx.mod.module
    gv = module.globals.get(STATE)
    if gv is None:
        gv = ir.GlobalVariable(module, _STATE_TYPE, STATE, 3)
        gv.initializer = ir.Constant(_STATE_TYPE, ir.Undefined)
        gv.linkage = "internal"
        gv.align = 16
        gv.type = pointer(3)  # references print as opaque ``ptr addrspace(3)`` (as in emit.module)
    assert isinstance(gv, ir.GlobalVariable)
    return gv


def _word(cx: FnContext, index: ir.Value, name: str = "") -> ir.Value:
    return cx.builder.gep(_state(cx), [cx.i32(0), index], inbounds=True, source_etype=_STATE_TYPE, name=name)


def _ensure_state(cx: FnContext, what: str, cta_barrier: CtaBarrier) -> None:
    """Zero the state at this kernel's entry (once per kernel). Every thread stores the whole block
    (the same zeros; a CTA may have fewer threads than words), then one ``s_barrier``."""
    if not cx.is_kernel:
        raise cx.unsupported(what, "barriers emulated in LDS are only supported in kernels, not in .func")
    entry = cx.entry_allocas
    assert entry is not None and entry.terminator is not None
    if any(inst.name == _INIT_MARK for inst in entry.instructions):
        return
    b = cx.builder
    resume = b.block
    b.position_before(entry.terminator)
    zeros = ir.VectorType(I32, STATE_WORDS)
    b.store(ir.Constant(zeros, None), _word(cx, cx.i32(0), _INIT_MARK), align=16)
    cta_barrier(cx)
    b.position_at_end(resume)


def _leader(cx: FnContext) -> tuple[ir.Value, ir.Value]:
    """(lane of this warp's leader = its lowest active lane, whether this lane is it)."""
    first = cx.call("llvm.cttz.i32", I32, [half_exec(cx), ir.Constant(I1, 1)])
    return first, cx.builder.icmp_unsigned("==", lane_id(cx), first)


def _arrive(cx: FnContext, k: ir.Value, need: ir.Value, zero_on_completion: ir.Value | None) -> ir.Value:
    """The leader arrives at ``W[k]``; returns the generation it arrived in, in every lane of the warp."""
    b = cx.builder
    first, is_leader = _leader(cx)
    word = _word(cx, k)
    before = b.block
    arrive = b.append_basic_block("bar.arrive")
    retry = b.append_basic_block("bar.arrive.cas")
    joined = b.append_basic_block("bar.arrive.done")
    b.cbranch(is_leader, arrive, joined)
    b.position_at_end(arrive)
    seen = atomic_load(b, word, I32, "monotonic", "workgroup", 4)
    b.branch(retry)
    b.position_at_end(retry)
    old = b.phi(I32)
    count = b.add(b.and_(old, cx.i32(_COUNT_BITS)), cx.i32(1))
    completes = b.icmp_unsigned("==", count, need)
    next_gen = b.shl(b.add(b.lshr(old, cx.i32(16)), cx.i32(1)), cx.i32(16))
    new = b.select(completes, next_gen, b.add(old, cx.i32(1)))
    if zero_on_completion is not None:
        with b.if_then(completes):
            atomic_store(b, cx.i32(0), zero_on_completion, "monotonic", "workgroup", 4)
    pair = cmpxchg(b, word, old, new, "acq_rel", "workgroup")
    current, swapped = b.extract_value(pair, 0), b.extract_value(pair, 1)
    arrived = b.lshr(old, cx.i32(16))
    tail = b.block
    old.add_incoming(seen, arrive)
    old.add_incoming(current, tail)
    b.cbranch(swapped, joined, retry)
    b.position_at_end(joined)
    gen = b.phi(I32)
    gen.add_incoming(arrived, tail)
    gen.add_incoming(cx.i32(0), before)
    return gather(cx, gen, first)


def _wait(cx: FnContext, k: ir.Value, gen: ir.Value) -> None:
    """Spin until the generation of ``W[k]`` is no longer ``gen`` (the barrier completed)."""
    b = cx.builder
    spin = b.append_basic_block("bar.wait")
    sleep = b.append_basic_block("bar.wait.sleep")
    done = b.append_basic_block("bar.wait.done")
    b.branch(spin)
    b.position_at_end(spin)
    now = b.lshr(atomic_load(b, _word(cx, k), I32, "acquire", "workgroup", 4), cx.i32(16))
    b.cbranch(b.icmp_unsigned("==", now, gen), sleep, done)
    b.position_at_end(sleep)
    cx.call("llvm.amdgcn.s.sleep", ir.VoidType(), [cx.i32(1)])
    b.branch(spin)
    b.position_at_end(done)


def _id_and_need(cx: FnContext, op: Op, count_index: int) -> tuple[ir.Value, ir.Value]:
    b = cx.builder
    k = b.and_(cx.coerce(cx.operand(op, 0), I32), cx.i32(15))
    return k, b.lshr(cx.coerce(cx.operand(op, count_index), I32), cx.i32(5))


def lower_counted_bar(cx: FnContext, op: Op, cta_barrier: CtaBarrier) -> None:
    """``bar.sync k, b`` / ``barrier.sync k, b`` / ``bar.arrive k, b``."""
    mode = cx.attr(op, "mode")
    if len(op.operands) < 2:
        raise cx.unsupported(f"bar.{mode} without a thread count", "PTX requires a count for bar.arrive")
    _ensure_state(cx, f"bar.{mode}", cta_barrier)
    k, need = _id_and_need(cx, op, 1)
    fence(cx.builder, "release", "workgroup")
    gen = _arrive(cx, k, need, None)
    if mode == "sync":
        _wait(cx, k, gen)
        fence(cx.builder, "acquire", "workgroup")


def _contribution(cx: FnContext, kind: str, pred: ir.Value) -> ir.Value:
    """This warp's count for ``bar.red``: true lanes (popc, or) or false lanes (and)."""
    b = cx.builder
    votes = half_bits(cx, pred)
    if kind == "and":
        votes = b.and_(half_exec(cx), b.not_(votes))
    return cx.call("llvm.ctpop.i32", I32, [votes])


def _result(cx: FnContext, op: Op, kind: str, total: ir.Value) -> None:
    b = cx.builder
    if kind == "popc":
        cx.define(op, total)
    else:
        cx.define(op, b.icmp_unsigned("==" if kind == "and" else "!=", total, cx.i32(0)))


def lower_bar_red(cx: FnContext, op: Op, cta_barrier: CtaBarrier) -> None:
    """``bar.red.{popc.u32,and.pred,or.pred} d, k{, b}, {!}c``."""
    kind = cx.attr(op, "op")
    b = cx.builder
    pred = cx.coerce(cx.operand(op, 1), I1)
    counted = len(op.operands) > 2
    if counted:
        k, need = _id_and_need(cx, op, 2)
    else:
        k, need = b.and_(cx.coerce(cx.operand(op, 0), I32), cx.i32(15)), None
    mine = _contribution(cx, kind, pred)
    _, is_leader = _leader(cx)
    if need is None:
        acc = _word(cx, b.add(k, cx.i32(_CTA_ACC)))
        with b.if_then(is_leader):
            atomic_store(b, cx.i32(0), acc, "monotonic", "workgroup", 4)
        cta_barrier(cx)
        with b.if_then(is_leader):
            atomic_rmw(b, "add", acc, mine, "monotonic", "workgroup")
        cta_barrier(cx)
        total = atomic_load(b, acc, I32, "monotonic", "workgroup", 4)
        cta_barrier(cx)
        _result(cx, op, kind, total)
        return
    _ensure_state(cx, f"bar.red.{kind}", cta_barrier)
    fence(b, "release", "workgroup")
    phase = b.lshr(atomic_load(b, _word(cx, k), I32, "acquire", "workgroup", 4), cx.i32(16))
    parity = b.and_(phase, cx.i32(1))
    slot = b.add(b.add(cx.i32(_ACC), b.shl(k, cx.i32(1))), parity)
    with b.if_then(is_leader):
        atomic_rmw(b, "add", _word(cx, slot), mine, "monotonic", "workgroup")
    gen = _arrive(cx, k, need, _word(cx, b.xor(slot, cx.i32(1))))
    _wait(cx, k, gen)
    fence(b, "acquire", "workgroup")
    _result(cx, op, kind, atomic_load(b, _word(cx, slot), I32, "monotonic", "workgroup", 4))

