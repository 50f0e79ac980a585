"""Random well-defined fuzz programs (``ptx2gcn.fuzz.program``) from a seed.

Instructions come from the tables of ``fuzz.pool``, minus the caller's forms to avoid (those with
known bugs or that the compiler rejects). Structure: straight-line code mixed with guarded
instructions, divergent ``If``s (nesting depth 3), bounded ``Loop``s nested up to two deep,
local-array traffic, per-thread atomics anywhere (global or shared, every operation kind), and at
the top level only (where every thread is converged): shared-memory rotation behind barriers,
order-independent atomics of a whole block on one word, and warp collectives
(shfl/vote/match/redux) with a full or partial membermask and warp-matrix instructions
(``fuzz.matrix``: mma, ldmatrix/stmatrix/movmatrix, wmma; ``.aligned``, so the whole warp runs
them), device-function calls anywhere.

Invariant: ``generate(seed)`` is a pure function of its arguments; the inputs are edge-biased
(``reference.sampling.sample``) so NaNs, infinities, subnormals, zero divisors and INT_MIN show up.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from ptx2gcn.fuzz.matrix import generate_matrix
from ptx2gcn.fuzz.pool import ATOMICS, IMMEDIATE_ONLY, PARTIAL_MASKS, POOL, WARP_OPS, PoolEntry, WarpEntry
from ptx2gcn.fuzz.program import (
    FULL_MASK,
    REGS,
    SAMPLED_AS,
    THREADS,
    Atomic,
    Call,
    Guard,
    If,
    LocalLoad,
    LocalStore,
    Loop,
    Op,
    Operand,
    Program,
    SharedRotate,
    Statement,
    Warp,
    all_registers,
)
from ptx2gcn.reference.ptxtypes import ptx_type
from ptx2gcn.reference.sampling import sample

MAX_DEPTH = 3
MAX_LOOP_NESTING = 2


@dataclass(frozen=True)
class GenOptions:
    statements: int = 24
    avoid: frozenset[str] = frozenset()
    """Spellings never to generate (known bugs, compiler rejections)."""
    matrix: float = 0.04
    """Probability of a warp-matrix statement at a converged point."""
    small_only: frozenset[str] = frozenset()
    """Warp-matrix spellings drawn with small-integer data only (known bugs on other data)."""


@dataclass(frozen=True)
class _Where:
    depth: int = 0
    loops: int = 0

    @property
    def converged(self) -> bool:
        return self.depth == 0


class _Gen:
    def __init__(self, rng: random.Random, options: GenOptions) -> None:
        self.rng = rng
        self.pool = [e for e in POOL if e.spelling not in options.avoid]
        self.callable = [e for e in self.pool if e.dest != "pred" and "pred" not in e.sources]
        self.warp_ops = [w for w in WARP_OPS if w.spelling not in options.avoid]
        self.atomics = [a for a in ATOMICS if a.spelling not in options.avoid]
        self.options = options

    def register(self, cls: str) -> Operand:
        return Operand(cls, self.rng.randrange(REGS))

    def operand(self, entry: PoolEntry, position: int) -> Operand:
        cls = entry.sources[position]
        if IMMEDIATE_ONLY.get(entry.spelling) == position:
            return Operand(cls, value=self.rng.randrange(256))
        if entry.integer_sources[position] and self.rng.random() < 0.12:
            return Operand(cls, value=self.rng.choice([0, 1, 2, 7, 31, 32, 63, 255]))
        return self.register(cls)

    def op(self, guarded: bool = True, callable_only: bool = False) -> Op:
        entry = self.rng.choice(self.callable if callable_only else self.pool)
        sources = tuple(self.operand(entry, k) for k in range(len(entry.sources)))
        guard = None
        if guarded and self.rng.random() < 0.15:
            guard = Guard(self.rng.randrange(REGS), self.rng.random() < 0.5)
        return Op(entry.spelling, self.register(entry.dest), sources, guard)

    def membermask(self) -> int:
        roll = self.rng.random()
        if roll < 0.5:
            return FULL_MASK
        if roll < 0.8:
            return self.rng.choice(PARTIAL_MASKS)
        return self.rng.randrange(1, FULL_MASK)

    def warp(self) -> list[Statement]:
        entry: WarpEntry = self.rng.choice(self.warp_ops)
        before: list[Statement] = []
        operands: list[Operand] = []
        for cls in entry.sources:
            if cls.startswith("imm"):
                operands.append(Operand("i32", value=int(cls[3:])))
            elif cls == "i32" and entry.spelling.startswith("shfl") and operands and self.rng.random() < 0.5:
                operands.append(Operand("i32", value=self.rng.randrange(32)))
            else:
                operands.append(self.register(cls))
        if entry.narrowed:
            source = operands[0]
            width = "b64" if source.cls == "i64" else "b32"
            before.append(Op(f"and.{width}", source, (source, Operand(source.cls, value=3))))
        pred = self.rng.randrange(REGS) if entry.has_pred and self.rng.random() < 0.5 else None
        op = Op(entry.spelling, self.register(entry.dest), tuple(operands))
        return [*before, Warp(op, self.membermask(), pred)]

    def atomic(self, converged: bool) -> Atomic:
        candidates = [a for a in self.atomics if converged or not a.shared_word]
        entry = self.rng.choice(candidates)
        space = self.rng.choice(("global", "shared"))
        private = not (converged and entry.shared_word and self.rng.random() < 0.6)
        integral = not private and entry.cls in ("f32", "f64")
        if integral:
            operands: tuple[Operand, ...] = (self.register("i32"),)
        elif entry.immediate_bound and (not private or self.rng.random() < 0.5):
            operands = (Operand(entry.cls, value=self.rng.choice([0, 1, 5, 63, 200, 0xFFFFFFFF])),)
        else:
            operands = tuple(self.register(entry.cls) for _ in range(entry.operands))
        init = self.register(entry.cls)
        if entry.spelling.startswith("atom.cas") and self.rng.random() < 0.5:
            operands = (init, operands[1])  # compare with the word's own value: the swap happens
        return Atomic(entry.spelling, space, private, self.register(entry.cls), init, operands, integral)

    def block(self, count: int, where: _Where) -> tuple[Statement, ...]:
        out: list[Statement] = []
        for _ in range(count):
            out += self.statement(where)
        return tuple(out)

    def statement(self, where: _Where) -> list[Statement]:
        roll = self.rng.random()
        inner = _Where(where.depth + 1, where.loops)
        if roll < 0.07 and where.depth < MAX_DEPTH:
            then = self.block(self.rng.randint(1, 4), inner)
            return [If(self.rng.randrange(REGS), then, self.block(self.rng.randint(0, 3), inner))]
        if roll < 0.12 and where.loops < MAX_LOOP_NESTING and where.depth < MAX_DEPTH:
            body = self.block(self.rng.randint(1, 4), _Where(where.depth + 1, where.loops + 1))
            return [Loop(self.rng.randrange(REGS), body)]
        if roll < 0.15:
            return [LocalStore(self.rng.randrange(REGS), self.rng.randrange(REGS))]
        if roll < 0.18:
            return [LocalLoad(self.rng.randrange(REGS), self.rng.randrange(REGS))]
        if roll < 0.20 and where.converged:
            shift = self.rng.randint(1, 63)
            return [SharedRotate(self.rng.randrange(REGS), self.rng.randrange(REGS), shift)]
        if roll < 0.24 and self.atomics:
            return [self.atomic(where.converged)]
        if roll < 0.27:
            return [Call(self.op(guarded=False, callable_only=True))]
        if roll < 0.32 and where.converged and self.warp_ops:
            return self.warp()
        return self.matrix_or_op(roll < 0.32 + self.options.matrix and where.converged)

    def matrix_or_op(self, matrix_here: bool) -> list[Statement]:
        """A warp-matrix statement when ``matrix_here`` (a converged point) and one is allowed."""
        matrix = generate_matrix(self.rng, self.options.avoid, self.options.small_only) if matrix_here else None
        return [matrix] if matrix is not None else [self.op()]


def inputs(seed: int) -> bytes:
    """Edge-biased initial values of every register for every thread."""
    rng = np.random.default_rng(seed)
    rows = []
    for cls, index in all_registers():
        values = sample(ptx_type(SAMPLED_AS[cls][index % 2]), THREADS, rng)
        rows.append(np.asarray(values).astype(np.uint64))
    return np.stack(rows).astype("<u8").tobytes()


def generate(seed: int, options: GenOptions = GenOptions()) -> Program:
    rng = random.Random(seed)
    body = _Gen(rng, options).block(options.statements, _Where())
    return Program(body, inputs(seed))
