"""The expected outputs of a fuzz program (``ptx2gcn.fuzz.program``), from the reference model only.

``evaluate`` runs the program lane-wise over all threads with numpy, calling
``ptx2gcn.reference.run`` for every instruction the program tests; control flow is modelled by
running both sides of a branch and merging per thread, loops by iterating to the largest trip
count and merging, memory statements by indexing the per-thread state.

Invariant: lanes whose value PTX does not fix (an undefined result, a NaN of open payload, an
``.approx`` interval, a branch or index on such a value, a collective over such a value) are
*poisoned* and excluded from comparison, never guessed; every other lane's bits are exactly what
PTX prescribes. A float result that the model only bounds (an ``mma`` of random data) is poisoned
for everything downstream and *checked* at the end: ``checks`` holds the model's acceptance per
thread until the register is written again (``fuzz.matrix_eval``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ptx2gcn.fuzz.matrix_eval import Check, apply_matrix, check_accepts
from ptx2gcn.fuzz.pool import model_spelling
from ptx2gcn.fuzz.program import (
    BLOCK,
    CLASSES,
    GRID,
    LOCAL_WORDS,
    REGS,
    THREADS,
    WARP,
    Atomic,
    Bits,
    Call,
    If,
    LocalLoad,
    LocalStore,
    Loop,
    Mask,
    Matrix,
    Op,
    Operand,
    Program,
    SharedRotate,
    Statement,
    Warp,
    all_registers,
)
from ptx2gcn.reference import run

Key = tuple[str, int]


@dataclass
class State:
    """Per-thread values (raw bits; predicates as 0/1) and poison masks of every register, plus
    each thread's local array; ``checks``: per register, the threads whose (poisoned) value is a
    bounded matrix result, with the model's acceptance."""

    values: dict[Key, Bits]
    poison: dict[Key, Mask]
    local: Bits
    local_poison: Mask
    checks: dict[Key, dict[int, Check]] = field(default_factory=dict)

    def copy(self) -> State:
        return State(dict(self.values), dict(self.poison), self.local.copy(), self.local_poison.copy(),
                     {k: dict(v) for k, v in self.checks.items()})

    def merge(self, choose: Mask, other: State, undecided: Mask) -> State:
        """Lanes where ``choose`` take ``self``, else ``other``; ``undecided`` lanes get poisoned
        wherever the two disagree or either is poisoned."""
        values, poison = {}, {}
        for key in self.values:
            a, b = self.values[key], other.values[key]
            pa, pb = self.poison[key], other.poison[key]
            values[key] = np.where(choose, a, b)
            poison[key] = np.where(choose, pa, pb) | (undecided & ((a != b) | pa | pb))
        local = np.where(choose, self.local, other.local)
        either = self.local_poison | other.local_poison
        local_poison = np.where(choose, self.local_poison, other.local_poison) | (
            undecided & ((self.local != other.local) | either)
        )
        checks: dict[Key, dict[int, Check]] = {}
        for key in set(self.checks) | set(other.checks):
            ours, theirs = self.checks.get(key, {}), other.checks.get(key, {})
            kept = {t: c for t, c in ours.items() if choose[t] and not undecided[t]}
            kept.update({t: c for t, c in theirs.items() if not choose[t] and not undecided[t]})
            if kept:
                checks[key] = kept
        return State(values, poison, local, local_poison, checks)

    def write(self, key: Key, bits: object, poison: object, where: Mask | None = None) -> None:
        """Set register ``key`` (only in the ``where`` lanes, when given)."""
        new_bits = np.broadcast_to(np.asarray(bits, dtype=np.uint64), (THREADS,))
        new_poison = np.broadcast_to(np.asarray(poison, dtype=np.bool_), (THREADS,))
        if where is not None:
            new_bits = np.where(where, new_bits, self.values[key])
            new_poison = np.where(where, new_poison, self.poison[key])
        self.values[key] = np.array(new_bits, dtype=np.uint64)
        self.poison[key] = np.array(new_poison, dtype=np.bool_)
        old = self.checks.pop(key, {})
        if where is not None:  # the lanes not written keep their checks
            kept = {t: c for t, c in old.items() if not where[t]}
            if kept:
                self.checks[key] = kept

    def write_checked(self, key: Key, bits: Bits, poison: Mask, checks: dict[int, Check]) -> None:
        """Set register ``key`` in every thread; ``checks`` for the threads with bounded results."""
        self.write(key, bits, poison)
        if checks:
            self.checks[key] = dict(checks)


def model_input(cls: str, bits: Bits) -> npt.NDArray[np.generic]:
    if cls == "pred":
        return bits.astype(np.bool_)
    return bits.astype({16: np.uint16, 32: np.uint32, 64: np.uint64}[CLASSES[cls][2]])


def to_bits(array: npt.NDArray[np.generic]) -> Bits:
    a = np.asarray(array)
    if a.dtype == np.bool_:
        return a.astype(np.uint64)
    if a.dtype.kind == "f":
        a = a.view(f"u{a.dtype.itemsize}")
    if a.dtype == object:
        return np.array([int(x) for x in a.reshape(-1)], dtype=np.uint64).reshape(a.shape)
    return a.astype(np.uint64)


def _operands(state: State, sources: tuple[Operand, ...], lanes: slice | None = None) -> tuple[list[object], Mask]:
    """Model inputs for ``sources`` (immediates as they are) and the lanes any of them poisons."""
    part = lanes if lanes is not None else slice(None)
    inputs: list[object] = []
    poison = np.zeros(THREADS, dtype=np.bool_)[part]
    for s in sources:
        if s.is_immediate:
            inputs.append(s.value)
        else:
            inputs.append(model_input(s.cls, state.values[(s.cls, s.index)][part]))
            poison = poison | state.poison[(s.cls, s.index)][part]
    return inputs, poison


def apply_op(op: Op, state: State) -> None:
    inputs, poison = _operands(state, op.sources)
    result = run(op.spelling, *inputs).outputs[0]
    bits = np.broadcast_to(to_bits(result.bits), (THREADS,))
    new_poison = poison | ~np.broadcast_to(result.fixed(), (THREADS,))
    key = (op.dest.cls, op.dest.index)
    if op.guard is None:
        state.write(key, bits, new_poison)
        return
    g = state.values[("pred", op.guard.index)].astype(np.bool_) ^ op.guard.negated
    gp = state.poison[("pred", op.guard.index)]
    old, old_poison = state.values[key], state.poison[key]
    merged_poison = np.where(g, new_poison, old_poison) | (gp & ((bits != old) | new_poison | old_poison))
    state.write(key, np.where(g, bits, old), merged_poison)


def apply_warp(st: Warp, state: State) -> None:
    """``st.op`` on each 32-thread warp, executed by the lanes of ``st.membermask``; a poisoned
    operand in any executing lane poisons the whole result (a collective may read any lane)."""
    count = 2 if st.pred_dest is not None else 1
    bits = np.zeros((count, THREADS), dtype=np.uint64)
    poison = np.zeros((count, THREADS), dtype=np.bool_)
    for start in range(0, THREADS, WARP):
        lanes = slice(start, start + WARP)
        inputs, tainted = _operands(state, st.op.sources, lanes)
        member = (st.membermask >> np.arange(WARP)) & 1 == 1
        result = run(st.op.spelling, *inputs, st.membermask, st.membermask)
        for k in range(count):
            out = result.outputs[k]
            bits[k, lanes] = np.broadcast_to(to_bits(out.bits), (WARP,))
            poison[k, lanes] = ~np.broadcast_to(out.fixed(), (WARP,)) | bool((tainted & member).any())
    executing = np.tile((st.membermask >> np.arange(WARP)) & 1 == 1, THREADS // WARP)
    state.write((st.op.dest.cls, st.op.dest.index), bits[0], poison[0], executing)
    if st.pred_dest is not None:
        state.write(("pred", st.pred_dest), bits[1], poison[1], executing)


def apply_atomic(st: Atomic, state: State) -> None:
    init_key = (st.init.cls, st.init.index)
    dest_key = (st.dest.cls, st.dest.index)
    if st.private:
        operands, poison = _operands(state, st.operands)
        old = model_input(st.init.cls, state.values[init_key])
        poison = poison | state.poison[init_key]
        outputs = run(model_spelling(st.spelling, st.space), old, *operands).outputs
        if st.spelling.startswith("atom."):
            state.write(dest_key, to_bits(outputs[0].bits), poison | ~outputs[0].fixed())
        state.write(init_key, to_bits(outputs[-1].bits), poison | ~outputs[-1].fixed())
        return
    values, poison = _shared_word_operands(st, state)
    if st.integral:
        memory = np.zeros(GRID, dtype=np.uint64)
    else:
        memory = state.values[init_key][::BLOCK].copy()
        poison = poison | state.poison[init_key][::BLOCK]
    width = CLASSES[st.dest.cls][2]
    for k in range(BLOCK):  # one thread after another; the generator only picks orders that do not matter
        output = run(model_spelling(st.spelling, st.space), _unsigned(memory, width), values[:, k]).outputs[-1]
        memory = to_bits(output.bits).reshape(GRID)
        poison = poison | ~np.broadcast_to(output.fixed(), (GRID,))
    state.write(dest_key, np.repeat(memory, BLOCK), np.repeat(poison, BLOCK))


def _unsigned(bits: Bits, width: int) -> npt.NDArray[np.generic]:
    return bits.astype({32: np.uint32, 64: np.uint64}[width])


def _shared_word_operands(st: Atomic, state: State) -> tuple[npt.NDArray[np.generic], Mask]:
    """Each thread's operand, shaped (GRID, BLOCK), and per block whether any is poisoned."""
    (operand,) = st.operands
    width = CLASSES[st.dest.cls][2]
    if operand.is_immediate:
        values = np.full((GRID, BLOCK), operand.value, dtype=np.uint64)
        return _unsigned(values, width), np.zeros(GRID, dtype=np.bool_)
    bits = state.values[(operand.cls, operand.index)]
    poison = state.poison[(operand.cls, operand.index)].reshape(GRID, BLOCK).any(axis=1)
    if st.integral:  # cvt.rn.f32/f64.u32 of (value & 255): exact
        small = (bits & np.uint64(255)).astype(np.float64)
        if st.dest.cls == "f32":
            return small.astype(np.float32).view(np.uint32).reshape(GRID, BLOCK), poison
        return small.view(np.uint64).reshape(GRID, BLOCK), poison
    return _unsigned(bits, width).reshape(GRID, BLOCK), poison


def _lane_index(state: State, index: int) -> tuple[npt.NDArray[np.intp], Mask]:
    key = ("i32", index)
    return (state.values[key] & np.uint64(LOCAL_WORDS - 1)).astype(np.intp), state.poison[key]


LANES = np.arange(THREADS)


def _local_store(st: LocalStore, state: State) -> None:
    idx, ip = _lane_index(state, st.index)
    local, local_poison = state.local.copy(), state.local_poison.copy()
    local[idx, LANES] = state.values[("i32", st.value)]
    local_poison[idx, LANES] = state.poison[("i32", st.value)]
    local_poison |= ip[None, :]  # an uncertain index may have written any word
    state.local, state.local_poison = local, local_poison


def _local_load(st: LocalLoad, state: State) -> None:
    idx, ip = _lane_index(state, st.index)
    state.write(("i32", st.dest), state.local[idx, LANES], state.local_poison[idx, LANES] | ip)


def _shared_rotate(st: SharedRotate, state: State) -> None:
    source = (LANES // BLOCK) * BLOCK + (LANES % BLOCK + st.shift) % BLOCK
    key = ("i32", st.value)
    state.write(("i32", st.dest), state.values[key][source], state.poison[key][source])


def _branch(st: If, state: State) -> State:
    cond = state.values[("pred", st.cond)].astype(np.bool_)
    then = execute(st.then, state.copy())
    other = execute(st.otherwise, state.copy())
    return then.merge(cond, other, state.poison[("pred", st.cond)])


def _loop(st: Loop, state: State) -> State:
    trips = (state.values[("i32", st.count)] & np.uint64(3)).astype(np.int64)
    undecided = state.poison[("i32", st.count)]
    for it in range(int(trips.max(initial=0)) if not undecided.any() else 3):
        stepped = execute(st.body, state.copy())
        state = stepped.merge(it < trips, state, undecided)
    return state


_IN_PLACE: dict[type, Callable[..., None]] = {
    Op: apply_op,
    Call: lambda st, state: apply_op(st.op, state),
    Warp: apply_warp,
    Atomic: apply_atomic,
    LocalStore: _local_store,
    LocalLoad: _local_load,
    SharedRotate: _shared_rotate,
    Matrix: lambda st, state: apply_matrix(st, state.values, state.poison, state.write_checked),
}
_STRUCTURED: dict[type, Callable[..., State]] = {If: _branch, Loop: _loop}


def execute(body: tuple[Statement, ...], state: State) -> State:
    for st in body:
        if type(st) in _STRUCTURED:
            state = _STRUCTURED[type(st)](st, state)
        else:
            _IN_PLACE[type(st)](st, state)
    return state


def final_state(program: Program) -> State:
    """Expected final bits, poison and checks of every register, per thread."""
    values = program.input_bits()
    state = State(
        values,
        {k: np.zeros(THREADS, dtype=np.bool_) for k in values},
        np.stack([values[("i32", k % REGS)] for k in range(LOCAL_WORDS)]),
        np.zeros((LOCAL_WORDS, THREADS), dtype=np.bool_),
    )
    return execute(program.body, state)


def evaluate(program: Program) -> tuple[dict[Key, Bits], dict[Key, Mask]]:
    """Expected final bits and poison of every register, per thread."""
    final = final_state(program)
    return final.values, final.poison


@dataclass(frozen=True)
class Expectation:
    """The output buffer the model expects (slot layout as the inputs), its compare mask (True: the
    slot's bits are fixed by PTX and must match; the unused upper bytes of narrow registers are left
    as the zero fill and also compared) and the checked slots (flat slot index -> acceptance)."""

    data: bytes
    mask: npt.NDArray[np.bool_]
    checks: dict[int, Check]

    def failed_checks(self, got: npt.NDArray[np.uint64]) -> npt.NDArray[np.bool_]:
        bad = np.zeros(len(self.mask), dtype=np.bool_)
        for slot, check in self.checks.items():
            bad[slot] = not check_accepts(check, int(got[slot]))
        return bad


def expectation(program: Program) -> Expectation:
    final = final_state(program)
    rows = [final.values[key] for key in all_registers()]
    masks = [~final.poison[key] for key in all_registers()]
    checks = {row * THREADS + t: c for row, key in enumerate(all_registers())
              for t, c in final.checks.get(key, {}).items()}
    return Expectation(np.stack(rows).astype("<u8").tobytes(), np.stack(masks).reshape(-1), checks)


def expected_buffer(program: Program) -> tuple[bytes, npt.NDArray[np.bool_]]:
    """``expectation``'s buffer and mask (a case file stores these; checked slots are left out)."""
    found = expectation(program)
    return found.data, found.mask
