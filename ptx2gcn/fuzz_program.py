"""Fuzz programs: a small structured form of a PTX kernel, its PTX text, and its expected outputs.

A program has a fixed register file (``REGS`` registers per class), every register loaded from the
input buffer in the prologue and stored to the output buffer in the epilogue, and a body of
statements that only *overwrite* registers. So deleting any statement leaves a valid program (the
shrinker relies on this), and every output is defined on every path.

Statements: ``Op`` (one instruction, optionally guarded by ``@p``/``@!p``), ``If`` (divergent
branch on a predicate register), ``Loop`` (trip count ``reg & 3``, per thread), ``LocalStore`` /
``LocalLoad`` (an 8-word ``.local`` array, data-dependent index), ``SharedRotate`` (store to shared
memory, ``bar.sync``, read a neighbour's word; top level only, so barriers stay uniform),
``AtomicAdd`` (every thread adds to one ``.shared`` counter, then reads the total after a barrier:
order-independent), ``Call`` (a ``.func`` computing one instruction), ``Warp`` (shfl/vote/redux
with a full membermask, top level only, so every lane of the warp takes part).

Invariant: ``evaluate`` computes each thread's final registers from the reference model only
(``ptx2gcn.reference.run``), lane-wise over all threads; lanes whose value PTX does not fix (an
undefined result, a NaN of open payload, an ``.approx`` interval, a branch on such a value) are
*poisoned* and excluded from comparison, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ptx2gcn.reference import run
from ptx2gcn.reference.ptxtypes import PtxType

BLOCK = 64
GRID = 2
THREADS = BLOCK * GRID
REGS = 4
LOCAL_WORDS = 8
CLASSES: dict[str, tuple[str, str, int]] = {
    # class -> (register prefix, declaration type, width)
    "i16": ("%h", "b16", 16),
    "i32": ("%r", "b32", 32),
    "i64": ("%l", "b64", 64),
    "f32": ("%f", "f32", 32),
    "f64": ("%d", "f64", 64),
    "pred": ("%p", "pred", 1),
}
SLOT = 8
"""Bytes per register per thread in the input and output buffers."""

Bits = npt.NDArray[np.uint64]
Mask = npt.NDArray[np.bool_]


def register_class(t: PtxType) -> str:
    if t.kind == "pred":
        return "pred"
    if t.is_float and t.lanes == 1 and t.width in (32, 64):
        return f"f{t.width}"
    return f"i{t.width}"


def reg(cls: str, index: int) -> str:
    return f"{CLASSES[cls][0]}{index}"


def all_registers() -> list[tuple[str, int]]:
    return [(cls, i) for cls in CLASSES for i in range(REGS)]


@dataclass(frozen=True)
class Operand:
    """A register ``(class, index)`` or an integer immediate."""

    cls: str
    index: int = -1
    value: int = 0

    @property
    def is_immediate(self) -> bool:
        return self.index < 0

    def text(self) -> str:
        return str(self.value) if self.is_immediate else reg(self.cls, self.index)


@dataclass(frozen=True)
class Guard:
    index: int
    negated: bool = False

    def text(self) -> str:
        return f"@{'!' if self.negated else ''}{reg('pred', self.index)} "


@dataclass(frozen=True)
class Op:
    spelling: str
    dest: Operand
    sources: tuple[Operand, ...]
    guard: Guard | None = None


@dataclass(frozen=True)
class If:
    cond: int
    then: tuple[Statement, ...]
    otherwise: tuple[Statement, ...] = ()


@dataclass(frozen=True)
class Loop:
    count: int
    """i32 register whose low two bits are the trip count."""
    body: tuple[Statement, ...]


@dataclass(frozen=True)
class LocalStore:
    index: int
    value: int


@dataclass(frozen=True)
class LocalLoad:
    dest: int
    index: int


@dataclass(frozen=True)
class SharedRotate:
    dest: int
    value: int
    shift: int


@dataclass(frozen=True)
class AtomicAdd:
    dest: int
    value: int


@dataclass(frozen=True)
class Call:
    op: Op


@dataclass(frozen=True)
class Warp:
    """A warp-collective instruction with a full membermask, at top level (all lanes converged);
    ``op.sources`` exclude the membermask, which the text appends."""

    op: Op


WARP = 32
FULL_MASK = 0xFFFFFFFF

Statement = Op | If | Loop | LocalStore | LocalLoad | SharedRotate | AtomicAdd | Call | Warp


@dataclass(frozen=True)
class Program:
    body: tuple[Statement, ...]
    inputs: bytes = field(repr=False)
    """``THREADS`` slots per register, register-major, ``SLOT`` bytes each (little endian)."""

    def input_bits(self) -> dict[tuple[str, int], Bits]:
        words = np.frombuffer(self.inputs, dtype="<u8").reshape(len(all_registers()), THREADS)
        out: dict[tuple[str, int], Bits] = {}
        for row, (cls, i) in enumerate(all_registers()):
            width = CLASSES[cls][2]
            mask = np.uint64((1 << width) - 1) if width < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
            out[(cls, i)] = words[row] & mask
        return out


# -- PTX text ------------------------------------------------------------------------------------


def _calls(body: tuple[Statement, ...]) -> list[Op]:
    found: list[Op] = []
    for st in body:
        if isinstance(st, Call):
            found.append(st.op)
        elif isinstance(st, If):
            found += _calls(st.then) + _calls(st.otherwise)
        elif isinstance(st, Loop):
            found += _calls(st.body)
    return found


def _func_text(op: Op, number: int) -> list[str]:
    """``.func (.param ret) fn<number>(.param a<k>...)`` computing ``op`` on its register operands
    (immediates stay in the body). Called instructions have no predicate operands (generator)."""
    dtype = CLASSES[op.dest.cls][1]
    params = [f".param .{CLASSES[s.cls][1]} a{k}" for k, s in enumerate(op.sources) if not s.is_immediate]
    lines = [f".func (.param .{dtype} ret) fn{number}({', '.join(params)})", "{", f".reg .{dtype} %x;"]
    args: list[str] = []
    for k, s in enumerate(op.sources):
        if s.is_immediate:
            args.append(str(s.value))
            continue
        decl = CLASSES[s.cls][1]
        lines += [f".reg .{decl} %a{k};", f"ld.param.{decl} %a{k}, [a{k}];"]
        args.append(f"%a{k}")
    lines += [f"{op.spelling} %x, {', '.join(args)};", f"st.param.{dtype} [ret], %x;", "ret;", "}"]
    return lines


class _Emitter:
    """The body's PTX lines; ``functions`` numbers the called ``.func``s."""

    def __init__(self, functions: list[Op]) -> None:
        self.lines: list[str] = []
        self.labels = 0
        self.functions = functions

    def label(self) -> str:
        self.labels += 1
        return f"L{self.labels}"

    def emit(self, body: tuple[Statement, ...]) -> None:
        for st in body:
            self.statement(st)

    def statement(self, st: Statement) -> None:
        out = self.lines.append
        if isinstance(st, Op):
            guard = st.guard.text() if st.guard else ""
            sources = ", ".join(s.text() for s in st.sources)
            out(f"{guard}{st.spelling} {st.dest.text()}, {sources};")
        elif isinstance(st, If):
            other, end = self.label(), self.label()
            out(f"@!{reg('pred', st.cond)} bra {other};")
            self.emit(st.then)
            out(f"bra {end};")
            out(f"{other}:")
            self.emit(st.otherwise)
            out(f"{end}:")
        elif isinstance(st, Loop):
            top, end = self.label(), self.label()
            # one counter pair (%cnt, %it): loops do not nest (see the generator)
            out(f"and.b32 %cnt, {reg('i32', st.count)}, 3;")
            out("mov.u32 %it, 0;")
            out(f"{top}:")
            out("setp.ge.u32 %lp, %it, %cnt;")
            out(f"@%lp bra {end};")
            self.emit(st.body)
            out("add.u32 %it, %it, 1;")
            out(f"bra {top};")
            out(f"{end}:")
        elif isinstance(st, LocalStore):
            out(f"and.b32 %t, {reg('i32', st.index)}, {LOCAL_WORDS - 1};")
            out("mul.wide.u32 %ta, %t, 4;")
            out("add.u64 %ta, %loc, %ta;")
            out(f"st.local.b32 [%ta], {reg('i32', st.value)};")
        elif isinstance(st, LocalLoad):
            out(f"and.b32 %t, {reg('i32', st.index)}, {LOCAL_WORDS - 1};")
            out("mul.wide.u32 %ta, %t, 4;")
            out("add.u64 %ta, %loc, %ta;")
            out(f"ld.local.b32 {reg('i32', st.dest)}, [%ta];")
        elif isinstance(st, SharedRotate):
            out("mul.wide.u32 %ta, %tx, 4;")
            out("add.u64 %ta, %sh, %ta;")
            out(f"st.shared.b32 [%ta], {reg('i32', st.value)};")
            out("bar.sync 0;")
            out(f"add.u32 %t, %tx, {st.shift};")
            out(f"and.b32 %t, %t, {BLOCK - 1};")
            out("mul.wide.u32 %ta, %t, 4;")
            out("add.u64 %ta, %sh, %ta;")
            out(f"ld.shared.b32 {reg('i32', st.dest)}, [%ta];")
            out("bar.sync 0;")
        elif isinstance(st, AtomicAdd):
            out("setp.eq.u32 %lp, %tx, 0;")
            out("@%lp st.shared.u32 [%cnt_sh], 0;")
            out("bar.sync 0;")
            out(f"atom.shared.add.u32 %t, [%cnt_sh], {reg('i32', st.value)};")
            out("bar.sync 0;")
            out(f"ld.shared.u32 {reg('i32', st.dest)}, [%cnt_sh];")
            out("bar.sync 0;")
        elif isinstance(st, Warp):
            sources = ", ".join(x.text() for x in st.op.sources)
            out(f"{st.op.spelling} {st.op.dest.text()}, {sources}, {FULL_MASK};")
        elif isinstance(st, Call):
            number = self.functions.index(st.op)
            out("{")
            names: list[str] = []
            for k, s in enumerate(st.op.sources):
                if s.is_immediate:
                    continue
                decl = CLASSES[s.cls][1]
                out(f".param .{decl} arg{k};")
                out(f"st.param.{decl} [arg{k}], {s.text()};")
                names.append(f"arg{k}")
            decl = CLASSES[st.op.dest.cls][1]
            out(f".param .{decl} ret;")
            out(f"call.uni (ret), fn{number}, ({', '.join(names)});")
            out(f"ld.param.{decl} {st.op.dest.text()}, [ret];")
            out("}")
        else:  # pragma: no cover - the Statement union is closed
            raise TypeError(st)


def ptx_text(program: Program) -> str:
    """The kernel ``fuzz(in, out)``: prologue loads, body, epilogue stores."""
    functions = list(dict.fromkeys(_calls(program.body)))
    emitter = _Emitter(functions)
    emitter.emit(program.body)
    lines = [".version 8.0", ".target sm_90", ".address_size 64", ""]
    for number, op in enumerate(functions):
        lines += _func_text(op, number) + [""]
    lines += [".visible .entry fuzz(.param .u64 pin, .param .u64 pout)", "{"]
    for cls, (prefix, decl, _) in CLASSES.items():
        lines.append(f".reg .{decl} {prefix}<{REGS}>;")
    lines += [
        ".reg .b32 %t, %tx, %gid, %cnt, %it, %pw<4>;",
        ".reg .b64 %ta, %in, %out, %loc, %sh, %cnt_sh;",
        ".reg .pred %lp;",
        f".local .align 4 .b32 loc[{LOCAL_WORDS}];",
        f".shared .align 4 .b32 sh[{BLOCK}];",
        ".shared .align 4 .u32 counter;",
        "mov.u32 %tx, %tid.x;",
        "mov.u32 %t, %ctaid.x;",
        f"mad.lo.u32 %gid, %t, {BLOCK}, %tx;",
        "ld.param.u64 %in, [pin];",
        "ld.param.u64 %out, [pout];",
        "cvta.to.global.u64 %in, %in;",
        "cvta.to.global.u64 %out, %out;",
        "mov.u64 %loc, loc;",
        "mov.u64 %sh, sh;",
        "mov.u64 %cnt_sh, counter;",
    ]
    for row, (cls, i) in enumerate(all_registers()):
        lines.append(f"mad.wide.u32 %ta, %gid, {SLOT}, %in;")
        offset = row * THREADS * SLOT
        if cls == "pred":
            lines += [f"ld.global.u32 %t, [%ta+{offset}];", f"setp.ne.u32 {reg(cls, i)}, %t, 0;"]
        else:
            lines.append(f"ld.global.{CLASSES[cls][1]} {reg(cls, i)}, [%ta+{offset}];")
    for k in range(LOCAL_WORDS):
        lines.append(f"st.local.b32 [%loc+{4 * k}], {reg('i32', k % REGS)};")
    lines += emitter.lines
    for row, (cls, i) in enumerate(all_registers()):
        lines.append(f"mad.wide.u32 %ta, %gid, {SLOT}, %out;")
        offset = row * THREADS * SLOT
        if cls == "pred":
            lines += [f"selp.u32 %t, 1, 0, {reg(cls, i)};", f"st.global.u32 [%ta+{offset}], %t;"]
        else:
            lines.append(f"st.global.{CLASSES[cls][1]} [%ta+{offset}], {reg(cls, i)};")
    lines += ["ret;", "}"]
    return "\n".join(lines) + "\n"


# -- evaluation ----------------------------------------------------------------------------------


@dataclass
class State:
    """Per-thread values (raw bits; predicates as 0/1) and poison masks of every register, plus
    each thread's local array."""

    values: dict[tuple[str, int], Bits]
    poison: dict[tuple[str, int], Mask]
    local: Bits
    local_poison: Mask

    def copy(self) -> State:
        return State(dict(self.values), dict(self.poison), self.local.copy(), self.local_poison.copy())

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
        return State(values, poison, local, local_poison)


def _model_input(cls: str, bits: Bits) -> npt.NDArray[np.generic]:
    if cls == "pred":
        return bits.astype(np.bool_)
    return bits.astype({16: np.uint16, 32: np.uint32, 64: np.uint64}[CLASSES[cls][2]])


def _exact(output: object) -> Mask:
    """Lanes of a reference ``Output`` whose bits PTX fixes exactly."""
    exact = np.asarray(output.defined, dtype=np.bool_).copy()  # type: ignore[attr-defined]
    exact &= np.asarray(output.any_nan) == 0  # type: ignore[attr-defined]
    bounded = output.bounded  # type: ignore[attr-defined]
    if output.interval is not None and bounded is not None:  # type: ignore[attr-defined]
        exact &= ~np.asarray(bounded, dtype=np.bool_)
    alternative = output.alternative  # type: ignore[attr-defined]
    if alternative is not None:
        exact &= np.asarray(alternative) == np.asarray(output.bits)  # type: ignore[attr-defined]
    return exact


def _to_bits(array: npt.NDArray[np.generic]) -> Bits:
    a = np.asarray(array)
    if a.dtype == np.bool_:
        return a.astype(np.uint64)
    if a.dtype.kind == "f":
        a = a.view(f"u{a.dtype.itemsize}")
    return a.astype(np.uint64)


def apply_op(op: Op, state: State) -> None:
    inputs, poison = [], np.zeros(THREADS, dtype=np.bool_)
    for s in op.sources:
        if s.is_immediate:
            inputs.append(s.value)
        else:
            inputs.append(_model_input(s.cls, state.values[(s.cls, s.index)]))
            poison |= state.poison[(s.cls, s.index)]
    result = run(op.spelling, *inputs).outputs[0]
    bits = np.broadcast_to(_to_bits(result.bits), (THREADS,))
    exact = np.broadcast_to(_exact(result), (THREADS,))
    key = (op.dest.cls, op.dest.index)
    new_poison = poison | ~exact
    if op.guard is not None:
        g = state.values[("pred", op.guard.index)].astype(np.bool_) ^ op.guard.negated
        gp = state.poison[("pred", op.guard.index)]
        old = state.values[key]
        old_poison = state.poison[key]
        new_poison = np.where(g, new_poison, old_poison) | (gp & ((bits != old) | new_poison | old_poison))
        bits = np.where(g, bits, old)
    state.values[key] = np.array(bits, dtype=np.uint64)
    state.poison[key] = np.array(new_poison, dtype=np.bool_)


def apply_warp(op: Op, state: State) -> None:
    """``op`` on each 32-thread warp with all lanes active; a poisoned operand anywhere in a warp
    poisons the whole warp's result (a collective may read any lane)."""
    bits = np.zeros(THREADS, dtype=np.uint64)
    poison = np.zeros(THREADS, dtype=np.bool_)
    for start in range(0, THREADS, WARP):
        lanes = slice(start, start + WARP)
        inputs: list[object] = []
        tainted = False
        for s in op.sources:
            if s.is_immediate:
                inputs.append(s.value)
            else:
                inputs.append(_model_input(s.cls, state.values[(s.cls, s.index)][lanes]))
                tainted |= bool(state.poison[(s.cls, s.index)][lanes].any())
        result = run(op.spelling, *inputs, FULL_MASK).outputs[0]
        bits[lanes] = np.broadcast_to(_to_bits(result.bits), (WARP,))
        poison[lanes] = ~np.broadcast_to(_exact(result), (WARP,)) | tainted
    state.values[(op.dest.cls, op.dest.index)] = bits
    state.poison[(op.dest.cls, op.dest.index)] = poison


def _lane_index(state: State, index: int) -> tuple[npt.NDArray[np.intp], Mask]:
    key = ("i32", index)
    return (state.values[key] & np.uint64(LOCAL_WORDS - 1)).astype(np.intp), state.poison[key]


def execute(body: tuple[Statement, ...], state: State) -> State:
    lanes = np.arange(THREADS)
    for st in body:
        if isinstance(st, Op):
            apply_op(st, state)
        elif isinstance(st, Call):
            apply_op(st.op, state)
        elif isinstance(st, If):
            cond = state.values[("pred", st.cond)].astype(np.bool_)
            then = execute(st.then, state.copy())
            other = execute(st.otherwise, state.copy())
            state = then.merge(cond, other, state.poison[("pred", st.cond)])
        elif isinstance(st, Loop):
            trips = (state.values[("i32", st.count)] & np.uint64(3)).astype(np.int64)
            undecided = state.poison[("i32", st.count)]
            for it in range(int(trips.max(initial=0)) if not undecided.any() else 3):
                stepped = execute(st.body, state.copy())
                state = stepped.merge(it < trips, state, undecided)
        elif isinstance(st, LocalStore):
            idx, ip = _lane_index(state, st.index)
            value = state.values[("i32", st.value)]
            vp = state.poison[("i32", st.value)]
            local, local_poison = state.local.copy(), state.local_poison.copy()
            local[idx, lanes] = value
            local_poison[idx, lanes] = vp
            # an uncertain index may have written any word
            local_poison |= ip[None, :]
            state.local, state.local_poison = local, local_poison
        elif isinstance(st, LocalLoad):
            idx, ip = _lane_index(state, st.index)
            state.values[("i32", st.dest)] = state.local[idx, lanes]
            state.poison[("i32", st.dest)] = state.local_poison[idx, lanes] | ip
        elif isinstance(st, SharedRotate):
            source = (lanes // BLOCK) * BLOCK + (lanes % BLOCK + st.shift) % BLOCK
            state.values[("i32", st.dest)] = state.values[("i32", st.value)][source]
            state.poison[("i32", st.dest)] = state.poison[("i32", st.value)][source]
        elif isinstance(st, Warp):
            apply_warp(st.op, state)
        elif isinstance(st, AtomicAdd):
            value = state.values[("i32", st.value)].reshape(GRID, BLOCK)
            totals = value.sum(axis=1) & np.uint64(0xFFFFFFFF)
            vp = state.poison[("i32", st.value)].reshape(GRID, BLOCK).any(axis=1)
            state.values[("i32", st.dest)] = np.repeat(totals, BLOCK).astype(np.uint64)
            state.poison[("i32", st.dest)] = np.repeat(vp, BLOCK)
    return state


def evaluate(program: Program) -> tuple[dict[tuple[str, int], Bits], dict[tuple[str, int], Mask]]:
    """Expected final bits and poison of every register, per thread."""
    values = program.input_bits()
    state = State(
        values,
        {k: np.zeros(THREADS, dtype=np.bool_) for k in values},
        np.stack([values[("i32", k % REGS)] for k in range(LOCAL_WORDS)]),
        np.zeros((LOCAL_WORDS, THREADS), dtype=np.bool_),
    )
    final = execute(program.body, state)
    return final.values, final.poison


def expected_buffer(program: Program) -> tuple[bytes, npt.NDArray[np.bool_]]:
    """The output buffer the model expects (slot layout as the inputs) and its compare mask
    (True: the slot's bits are fixed by PTX and must match; the unused upper bytes of narrow
    registers are left as the zero fill and also compared)."""
    values, poison = evaluate(program)
    rows = [values[key] for key in all_registers()]
    masks = [~poison[key] for key in all_registers()]
    return np.stack(rows).astype("<u8").tobytes(), np.stack(masks).reshape(-1)
