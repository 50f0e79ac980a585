"""Fuzz programs: a small structured form of a PTX kernel (its text: ``fuzz.text``; its expected
outputs: ``fuzz.eval``).

A program has a fixed register file (``REGS`` registers per class), every register loaded from the
input buffer in the prologue and stored to the output buffer in the epilogue, and a body of
statements that only *overwrite* registers. So deleting any statement leaves a valid program (the
shrinker relies on this), and every output is defined on every path.

Register classes: ``i16 i32 i64`` (integers and bit patterns), ``f32 f64``, ``h16`` (one f16 or
bf16 value in a ``.b16`` register), ``h32`` (a packed f16x2/bf16x2 pair in a ``.b32`` register)
and ``pred``.

Statements: ``Op`` (one instruction, optionally guarded by ``@p``/``@!p``), ``If`` (divergent
branch on a predicate register), ``Loop`` (trip count ``reg & 3``, per thread; loops nest),
``LocalStore``/``LocalLoad`` (an 8-word ``.local`` array, data-dependent index), ``SharedRotate``
(store to shared memory, ``bar.sync``, read a neighbour's word), ``Atomic`` (one atomic operation
per thread on its own global/shared word, or every thread of a block on one word with an
order-independent operation, read back after a barrier), ``Call`` (a ``.func`` computing one
instruction), ``Warp`` (shfl/vote/match/redux; the lanes of ``membermask`` execute it, the others
branch around it, so the executing set always equals the membermask as PTX requires). Statements
with barriers or warp collectives stay at the top level, where every thread is converged.

Invariant: every statement only writes registers of the program's register file (scratch
registers of the text are dead between statements), and a statement's effect is defined for every
initial register value (PTX leaves some results open; ``fuzz.eval`` poisons those lanes).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ptx2gcn.reference.ptxtypes import PtxType

BLOCK = 64
GRID = 2
THREADS = BLOCK * GRID
WARP = 32
FULL_MASK = 0xFFFFFFFF
REGS = 4
LOCAL_WORDS = 8
CLASSES: dict[str, tuple[str, str, int]] = {
    # class -> (register prefix, declaration type, width)
    "i16": ("%h", "b16", 16),
    "i32": ("%r", "b32", 32),
    "i64": ("%l", "b64", 64),
    "f32": ("%f", "f32", 32),
    "f64": ("%d", "f64", 64),
    "h16": ("%hf", "b16", 16),
    "h32": ("%hh", "b32", 32),
    "pred": ("%p", "pred", 1),
}
SAMPLED_AS: dict[str, tuple[str, str]] = {
    # class -> the reference types its even / odd registers are sampled as (edge-biased inputs)
    "i16": ("u16", "s16"),
    "i32": ("u32", "s32"),
    "i64": ("u64", "s64"),
    "f32": ("f32", "f32"),
    "f64": ("f64", "f64"),
    "h16": ("f16", "bf16"),
    "h32": ("f16x2", "bf16x2"),
    "pred": ("pred", "pred"),
}
SLOT = 8
"""Bytes per register per thread in the input and output buffers."""

Bits = npt.NDArray[np.uint64]
Mask = npt.NDArray[np.bool_]


def register_class(t: PtxType) -> str:
    if t.kind == "pred":
        return "pred"
    if t.is_float and t.element_width == 16 and t.element in ("f16", "bf16"):
        return "h16" if t.lanes == 1 else "h32"
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
class Atomic:
    """``spelling`` (``atom.add.u32``, ``red.xor.b64``, ``atom.cas.b32`` ...; the state space is
    inserted by the text) on ``space`` memory.

    ``private``: thread ``t`` stores register ``init`` to its own word, runs the atomic (``dest``
    gets the returned old value), then loads the word's new value back into ``init``.
    Otherwise (shared word): thread 0 of each block stores its ``init`` to the block's word; after
    a barrier every thread applies the operation; after another barrier ``dest`` gets the word.
    Only operations whose final value does not depend on the order qualify (the generator's
    choice): integer add/and/or/xor/min/max, inc/dec with an immediate bound, and float add of
    small integer values (``integral``: the operand is ``cvt`` of ``value & 255``, the initial word
    is 0.0), whose partial sums are all exact."""

    spelling: str
    space: str
    private: bool
    dest: Operand
    init: Operand
    operands: tuple[Operand, ...]
    integral: bool = False


@dataclass(frozen=True)
class Call:
    op: Op


@dataclass(frozen=True)
class Warp:
    """A warp-collective instruction at the top level; ``op.sources`` exclude the membermask, which
    the text appends. Lanes outside ``membermask`` skip it (their ``dest`` keeps its value);
    ``pred_dest`` receives the second destination (``match.all``'s ``p``, ``shfl``'s ``p``)."""

    op: Op
    membermask: int = FULL_MASK
    pred_dest: int | None = None


@dataclass(frozen=True)
class Matrix:
    """A warp-matrix instruction at the top level, where all 32 threads of every warp execute it
    (PTX's ``.aligned``). ``kind``: ``mma`` (``spelling``: the whole ``mma.sync.aligned...``;
    ``sources``: the A, B, C register lists), ``movmatrix`` (one source), ``ldmatrix`` (``sources[0]``:
    four b32 registers each lane first stores as row ``%laneid`` of its warp's shared region; row
    addresses ``16 * ((lane * perm[0] + perm[1]) % 32)``), ``stmatrix`` (the same fill, then the
    stored registers ``sources[1]``; every lane reads its row back into ``dests``) and ``wmma``
    (``sources``: A, B, C registers stored to the region, loaded with ``layouts`` (a, b, c, d),
    multiplied, stored, read back). ``small``: the float sources are first overwritten with small
    integers of their element type (``fuzz.matrix.conditioning``), so results are bit exact."""

    kind: str
    spelling: str
    dests: tuple[Operand, ...]
    sources: tuple[tuple[Operand, ...], ...]
    small: bool = False
    perm: tuple[int, int] = (1, 0)
    layouts: tuple[str, ...] = ()


Statement = Op | If | Loop | LocalStore | LocalLoad | SharedRotate | Atomic | Call | Warp | Matrix


@dataclass(frozen=True)
class Program:
    body: tuple[Statement, ...]
    inputs: bytes = field(repr=False)
    """``THREADS`` slots per register, register-major, ``SLOT`` bytes each (little endian)."""

    @property
    def fixed_block(self) -> bool:
        """Whether the kernel declares ``.reqntid BLOCK``: for half the programs, chosen by a bit of the
        inputs (not drawn, so a seed's program and the shrinker's steps keep their choice). With it
        the compiler knows both warps of every wave run the whole kernel, so warp-matrix statements
        take the whole-wave MFMA plans and the layout passes (without it the run-time gate)."""
        return bool(self.inputs[0] & 1) if self.inputs else False

    def input_bits(self) -> dict[tuple[str, int], Bits]:
        words = np.frombuffer(self.inputs, dtype="<u8").reshape(len(all_registers()), THREADS)
        out: dict[tuple[str, int], Bits] = {}
        for row, (cls, i) in enumerate(all_registers()):
            width = CLASSES[cls][2]
            mask = np.uint64((1 << width) - 1) if width < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
            out[(cls, i)] = words[row] & mask
        return out


def children(st: Statement) -> tuple[tuple[Statement, ...], ...]:
    """The nested bodies of a statement (none for leaves)."""
    if isinstance(st, If):
        return (st.then, st.otherwise)
    if isinstance(st, Loop):
        return (st.body,)
    return ()
