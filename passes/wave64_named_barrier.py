"""wave64-named-barrier: counted and named CTA barriers, ``bar.arrive`` and ``bar.red`` emulated in LDS
(Mode P).

gfx942 has one hardware barrier (``s_barrier``) that counts waves, not CUDA warps, so every barrier
with a thread count, every ``bar.arrive`` and every ``bar.red`` uses a per-module LDS state block
(``STATE``: 64 words; a kernel that uses the counted forms zeroes it at its entry, every thread
storing the whole block, then one ``s_barrier``):

- ``W[k]`` (word k, barrier id k = id & 15) packs ``generation << 16 | arrived_warps``. One leader
  per CUDA warp (its lowest active lane) arrives with a compare-and-swap loop; the arrival that
  completes the barrier resets the count and bumps the generation in the same CAS, so a warp that
  re-arrives right after completion is counted for the next phase, never released early.
  ``bar.sync``/``barrier.sync`` then spin (``s_sleep``) until the generation moves on.
- ``A[k][g & 1]`` (words 16 + 2k + parity) accumulate a counted ``bar.red``'s per-warp counts for
  phase ``g``; the completing arrival zeroes the other parity's word before bumping ``g``.
- ``R[k]`` (words 48 + k) accumulate a full-CTA ``bar.red`` (no count) with three ``s_barrier``s and
  no state carried between reductions: every wave's leader stores 0, ``s_barrier``, leaders add
  (the wave's count: both warps of a wave reach an aligned ``bar.red`` together),
  ``s_barrier``, everyone reads, ``s_barrier`` (so the next reduction's zeroing cannot overtake a
  read). Exited warps (which ``s_barrier`` does not wait for) contribute nothing, and no kernel-entry
  zeroing is needed, so this form also works in device functions (``__syncthreads_count`` in ``-G``
  builds).

Each CUDA warp arrives exactly once per barrier instruction whatever the partner half of its wave
does; all state words are updated with workgroup-scope atomics; release before arrival and acquire
after completion make the barrier order shared and global memory like ``bar.sync``. Whether the
reaching control flow is safe in Mode P is checked by ``wave64-barrier-check``. Design:
warp-on-wave64.md §5.9(c). Measured cost (gfx942 instructions added to a one-op kernel at -O3):
``bar.sync k, b`` 53 (LDS CAS arrive + ds_bpermute + s_sleep spin), ``bar.arrive k, b`` 32,
``bar.red`` without a count 34 in ``benchmarks/mode_p.py``'s kernel (one LDS add per wave + 3
s_barrier; 42 with one add per warp, which LLVM's atomic optimizer turned into a readlane loop),
``bar.red k, b`` 98; plus the entry
zeroing (ds_write per lane + 1 s_barrier).

Requires: a verified module (phase ``ssa``); ``wave64-barrier-check`` has run.
Ensures: no ``bar`` with ``mode = sync`` and a count, no ``bar`` with ``mode = arrive`` and no
``bar_red`` is left (the module gains the global ``STATE`` and blocks for the loops); the module
verifies.
Not handled: counted barriers in device functions (the state is zeroed at kernel entry): a located
``unsupported`` error; ``bar.arrive`` without a count (PTX requires one): the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptx2gcn.diagnostics import UnsupportedError
from ptx2gcn.ir.core import Function, Global, Module, Op, Value
from ptx2gcn.ir.rewriter import Cursor
from ptx2gcn.ir.types import I32, I64, PRED, AddrSpace, PtrType, VectorType
from ptx2gcn.ir.wave64 import (
    Wave64Rewrite,
    ballot64,
    cta_barrier,
    gather,
    half_bits,
    half_exec,
    lane64,
    leader,
)

STATE = "__ptx2gcn_wave64_barriers"
STATE_WORDS = 64
_ACC, _CTA_ACC = 16, 48
_COUNT_BITS = 0xFFFF
_SHARED = PtrType(AddrSpace.SHARED)
_ZERO_CHUNK = 8
"""Words per zeroing store (``st.v8.b32``)."""


def _word(at: Cursor, index: Value | int) -> Value:
    """The address of state word ``index``."""
    base = at.value("addr_of", (), _SHARED, sym=STATE)
    offset = at.const(4 * index) if isinstance(index, int) else at.shl(index, 2)
    return at.value("ptradd", (base, offset), _SHARED)


def _load(at: Cursor, address: Value, sem: str) -> Value:
    return at.value("ld", (address,), I32, type="u32", sem=sem, scope="cta")


def _store_zero(at: Cursor, address: Value) -> None:
    at.op("st", (address, at.const(0)), type="u32", sem="relaxed", scope="cta")


def _add(at: Cursor, address: Value, value: Value) -> None:
    at.op("red", (address, value), op="add", type="u32", sem="relaxed", scope="cta")


def _arrive(at: Cursor, k: Value, need: Value, zero_on_completion: Value | None) -> Value:
    """The leader arrives at ``W[k]``; returns the generation it arrived in, in every lane of the warp."""
    first, is_leader = leader(at)
    word = _word(at, k)
    joined = at.split_block("bar.arrive.done")
    gen = joined.add_arg(I32)
    arrive = at.new_block("bar.arrive", at.block)
    retry = at.new_block("bar.arrive.cas", arrive, (I32,))
    at.cbr(is_leader, arrive, joined, (), (at.const(0),))
    at.at_end(arrive)
    at.br(retry, (_load(at, word, "relaxed"),))
    at.at_end(retry)
    old = retry.args[0]
    count = at.add(at.and_(old, at.const(_COUNT_BITS)), at.const(1))
    completes = at.cmp("eq", count, need)
    next_gen = at.shl(at.add(at.shr(old, 16), at.const(1)), 16)
    new = at.select(completes, next_gen, at.add(old, at.const(1)))
    if zero_on_completion is not None:
        with at.if_then(completes, "bar.arrive.zero"):
            _store_zero(at, zero_on_completion)
    current = at.value("atom", (word, old, new), I32, op="cas", type="b32", sem="acq_rel", scope="cta")
    swapped = at.cmp("eq", current, old)
    arrived = at.shr(old, 16)
    at.cbr(swapped, joined, retry, (arrived,), (current,))
    at.at_end(joined)
    return gather(at, gen, first)


def _wait(at: Cursor, k: Value, gen: Value) -> None:
    """Spin until the generation of ``W[k]`` is no longer ``gen`` (the barrier completed)."""
    done = at.split_block("bar.wait.done")
    spin = at.new_block("bar.wait", at.block)
    sleep = at.new_block("bar.wait.sleep", spin)
    at.br(spin)
    at.at_end(spin)
    now = at.shr(_load(at, _word(at, k), "acquire"), 16)
    at.cbr(at.cmp("eq", now, gen), sleep, done)
    at.at_end(sleep)
    at.op("amdgcn.s.sleep", n=1)
    at.br(spin)
    at.at_end(done)


def _id_and_need(at: Cursor, op: Op, count_index: int) -> tuple[Value, Value]:
    k = at.and_(op.operand(0), at.const(15))
    return k, at.shr(op.operand(count_index), 5)


def _contribution(at: Cursor, kind: str, pred: Value) -> Value:
    """This warp's count for ``bar.red``: true lanes (popc, or) or false lanes (and)."""
    votes = half_bits(at, pred)
    if kind == "and":
        votes = at.and_(half_exec(at), at.not_(votes))
    return at.value("popc", (votes,), I32, type="b32")


def _wave_contribution(at: Cursor, kind: str, pred: Value) -> tuple[Value, Value]:
    """(this wave's count for a ``bar.red`` without a count, whether this lane is the wave's leader =
    its lowest active lane). Both warps of a wave reach an aligned ``bar.red`` together, so one add per
    wave of both warps' counts gives the CTA the same total as one per warp; the count is wave-uniform
    (an SGPR), so LLVM's atomic optimizer leaves the leader's single add alone instead of looping over
    the two per-warp leaders' different values."""
    active = ballot64(at, at.const(1, PRED))
    votes = ballot64(at, pred)
    if kind == "and":
        votes = at.and_(active, at.not_(votes))
    count = at.value("popc", (votes,), I32, type="b64")
    first = at.value("llvm.cttz", (active,), I64, type="b64", zero_poison=True)
    return count, at.cmp("eq", lane64(at), at.trunc(first))


def _counted(op: Op) -> bool:
    """Whether ``op`` uses the per-kernel state (all but a ``bar.red`` without a count)."""
    return op.name == "bar" or len(op.operands) > 2


def _zero_state(fn: Function, op: Op) -> None:
    """Zero the state at ``fn``'s entry: every thread stores the whole block (the same zeros; a CTA
    may have fewer threads than words), then one ``s_barrier``. ``op`` is the first op needing it."""
    what = f"bar.{op.attrs.get('mode')}" if op.name == "bar" else f"bar.red.{op.attrs.get('op')}"
    if op.name == "bar" and len(op.operands) < 2:
        raise UnsupportedError.feature(op.loc, f"{what} without a thread count", "PTX requires a count for "
                                       "bar.arrive")
    if fn.kind != "kernel":
        raise UnsupportedError.feature(op.loc, what, "barriers emulated in LDS are only supported in kernels, "
                                       "not in .func")
    at = Cursor(fn.entry, 0, op.loc)
    zero = at.const(0)
    zeros = at.value("pack", (zero,) * _ZERO_CHUNK, VectorType(I32, _ZERO_CHUNK))
    for chunk in range(0, STATE_WORDS, _ZERO_CHUNK):
        at.op("st", (_word(at, chunk), zeros), type="b32", vec=_ZERO_CHUNK)
    cta_barrier(at)


def _result(at: Cursor, kind: str, total: Value) -> Value:
    if kind == "popc":
        return total
    return at.cmp("eq" if kind == "and" else "ne", total, at.const(0))


@dataclass(frozen=True)
class Wave64NamedBarrier(Wave64Rewrite):
    name = "wave64-named-barrier"
    handles = frozenset({"bar", "bar_red"})

    def wants(self, op: Op) -> bool:
        return op.name == "bar_red" or op.attrs.get("mode") == "arrive" or (
            op.attrs.get("mode") == "sync" and len(op.operands) > 1)

    def run(self, module: Module) -> bool:
        zeroed: set[str] = set()
        for fn in module.functions:
            for op in fn.ops():
                if op.name in self.handles and self.wants(op) and _counted(op) and fn.name not in zeroed:
                    _zero_state(fn, op)
                    zeroed.add(fn.name)
        changed = super().run(module)
        if changed and module.global_(STATE) is None:
            module.globals.append(Global(STATE, AddrSpace.SHARED, "b32", STATE_WORDS, 16))
        return changed

    def rewrite(self, at: Cursor, op: Op) -> tuple[Value, ...]:
        if op.name == "bar_red":
            return (self._bar_red(at, op),)
        mode = op.attrs["mode"]
        k, need = _id_and_need(at, op, 1)
        at.op("llvm.fence", ordering="release", syncscope="workgroup")
        gen = _arrive(at, k, need, None)
        if mode == "sync":
            _wait(at, k, gen)
            at.op("llvm.fence", ordering="acquire", syncscope="workgroup")
        return ()

    def _bar_red(self, at: Cursor, op: Op) -> Value:
        """``bar.red.{popc.u32,and.pred,or.pred} d, k{, b}, {!}c``."""
        kind = op.attrs["op"]
        assert isinstance(kind, str)
        counted = len(op.operands) > 2
        if counted:
            k, need = _id_and_need(at, op, 2)
        else:
            k, need = at.and_(op.operand(0), at.const(15)), None
        if need is None:
            mine, is_leader = _wave_contribution(at, kind, op.operand(1))
            acc = _word(at, at.add(k, at.const(_CTA_ACC)))
            with at.if_then(is_leader, "bar.red.zero"):
                _store_zero(at, acc)
            cta_barrier(at)
            with at.if_then(is_leader, "bar.red.add"):
                _add(at, acc, mine)
            cta_barrier(at)
            total = _load(at, acc, "relaxed")
            cta_barrier(at)
            return _result(at, kind, total)
        mine = _contribution(at, kind, op.operand(1))
        _, is_leader = leader(at)
        at.op("llvm.fence", ordering="release", syncscope="workgroup")
        phase = at.shr(_load(at, _word(at, k), "acquire"), 16)
        parity = at.and_(phase, at.const(1))
        slot = at.add(at.add(at.const(_ACC), at.shl(k, 1)), parity)
        with at.if_then(is_leader, "bar.red.add"):
            _add(at, _word(at, slot), mine)
        gen = _arrive(at, k, need, _word(at, at.xor(slot, at.const(1))))
        _wait(at, k, gen)
        at.op("llvm.fence", ordering="acquire", syncscope="workgroup")
        return _result(at, kind, _load(at, _word(at, slot), "relaxed"))
