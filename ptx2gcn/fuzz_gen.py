"""Random well-defined fuzz programs (``ptx2gcn.fuzz_program``) from a seed.

The instruction pool is a fixed list of spellings over the fuzzer's register classes, filtered at
import by the reference model's ``signature`` (so every chosen instruction is one the model can
judge) and, at run time, by the caller's set of forms to avoid (those with known bugs or that the
compiler rejects). Structure: top-level straight-line code mixed with guarded instructions,
divergent ``If``s (nesting depth 2), non-nesting bounded ``Loop``s, local-array traffic, shared
memory rotation, an atomic counter behind barriers and warp collectives (shfl/vote/redux with a
full membermask; top level only), and device-function calls.

Invariant: ``generate(seed)`` is a pure function of its arguments; the inputs are edge-biased
(``reference.sampling.sample``) so NaNs, infinities, subnormals, zero divisors and INT_MIN show up.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ptx2gcn.fuzz_program import (
    REGS,
    THREADS,
    AtomicAdd,
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
    register_class,
)
from ptx2gcn.reference import ReferenceInputError, signature
from ptx2gcn.reference.ptxtypes import ptx_type
from ptx2gcn.reference.sampling import sample

_INT32 = [
    f"{op}.{t}"
    for op in ("add", "sub", "mul.lo", "mul.hi", "min", "max", "div", "rem")
    for t in ("u32", "s32")
]
_INT32 += [
    "mad.lo.u32",
    "mad.hi.s32",
    "mad.lo.s32",
    "sad.u32",
    "mul24.lo.u32",
    "mul24.hi.s32",
    "add.sat.s32",
    "sub.sat.s32",
    "abs.s32",
    "neg.s32",
    "and.b32",
    "or.b32",
    "xor.b32",
    "not.b32",
    "cnot.b32",
    "shl.b32",
    "shr.u32",
    "shr.s32",
    "shr.b32",
    "bfe.u32",
    "bfe.s32",
    "bfi.b32",
    "popc.b32",
    "clz.b32",
    "brev.b32",
    "bfind.u32",
    "bfind.s32",
    "bfind.shiftamt.u32",
    "prmt.b32",
    "lop3.b32",
    "shf.l.wrap.b32",
    "shf.r.clamp.b32",
    "selp.b32",
    "dp4a.u32.s32",
    "dp2a.lo.s32.s32",
    "bmsk.clamp.b32",
    "cvt.u32.u64",
    "cvt.rzi.s32.f32",
    "cvt.rni.u32.f64",
    "cvt.u32.u16",
    "cvt.s32.s16",
    "set.lt.u32.s32",
    "set.gt.u32.f32",
]
_INT64 = [f"{op}.{t}" for op in ("add", "sub", "mul.lo", "min", "max") for t in ("u64", "s64")]
_INT64 += [
    "and.b64",
    "xor.b64",
    "shl.b64",
    "shr.u64",
    "shr.s64",
    "mul.wide.u32",
    "mul.wide.s32",
    "mad.wide.u32",
    "cvt.u64.u32",
    "cvt.s64.s32",
    "popc.b64",
    "brev.b64",
    "bfe.u64",
    "selp.b64",
    "cvt.rmi.s64.f64",
    "rem.u64",
    "div.s64",
]
_INT16 = [
    "add.u16",
    "sub.s16",
    "mul.lo.u16",
    "min.s16",
    "max.u16",
    "and.b16",
    "xor.b16",
    "shl.b16",
    "shr.s16",
    "cvt.u16.u32",
    "cvt.s16.s64",
    "selp.b16",
    "cvt.rn.f16.f32",
]
_F32 = [f"{op}.{r}f32" for op in ("add", "sub", "mul") for r in ("", "rn.", "rz.", "rm.", "ftz.")]
_F32 += [
    "fma.rn.f32",
    "fma.rz.f32",
    "fma.rn.ftz.f32",
    "fma.rn.sat.f32",
    "mad.rn.f32",
    "min.f32",
    "max.f32",
    "min.NaN.f32",
    "abs.f32",
    "neg.f32",
    "div.rn.f32",
    "sqrt.rn.f32",
    "rcp.rn.f32",
    "copysign.f32",
    "cvt.rn.f32.s32",
    "cvt.rz.f32.u32",
    "cvt.rn.f32.f64",
    "cvt.f32.f16",
    "cvt.rni.f32.f32",
    "selp.f32",
    "add.sat.f32",
    "cvt.rn.f32.s64",
]
_F64 = [
    "add.rn.f64",
    "sub.rn.f64",
    "mul.rn.f64",
    "fma.rn.f64",
    "add.rz.f64",
    "mul.rp.f64",
    "min.f64",
    "max.f64",
    "abs.f64",
    "neg.f64",
    "div.rn.f64",
    "sqrt.rn.f64",
    "cvt.f64.f32",
    "cvt.rn.f64.s32",
    "cvt.rn.f64.u64",
    "selp.f64",
    "copysign.f64",
]
_PRED = [f"setp.{c}.{t}" for c in ("lt", "ge", "ne", "eq") for t in ("s32", "u32", "u64")]
_PRED += [f"setp.{c}.f32" for c in ("lt", "geu", "nan", "num")] + [
    "setp.le.f64",
    "testp.finite.f32",
    "testp.normal.f64",
    "and.pred",
    "or.pred",
    "xor.pred",
    "not.pred",
]
POOL_SPELLINGS: tuple[str, ...] = tuple(_INT32 + _INT64 + _INT16 + _F32 + _F64 + _PRED)
IMMEDIATE_ONLY = {"lop3.b32": 3}
WARP_OPS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    # spelling, destination class, source classes (the membermask is appended by the emitter)
    ("shfl.sync.idx.b32", "i32", ("i32", "i32", "imm31")),
    ("shfl.sync.bfly.b32", "i32", ("i32", "i32", "imm31")),
    ("shfl.sync.down.b32", "i32", ("i32", "i32", "imm31")),
    ("shfl.sync.up.b32", "i32", ("i32", "i32", "imm0")),
    ("vote.sync.ballot.b32", "i32", ("pred",)),
    ("vote.sync.any.pred", "pred", ("pred",)),
    ("vote.sync.all.pred", "pred", ("pred",)),
    ("vote.sync.uni.pred", "pred", ("pred",)),
    ("redux.sync.add.u32", "i32", ("i32",)),
    ("redux.sync.min.s32", "i32", ("i32",)),
    ("redux.sync.max.u32", "i32", ("i32",)),
    ("redux.sync.xor.b32", "i32", ("i32",)),
)
"""Source positions PTX requires to be immediates."""


@dataclass(frozen=True)
class PoolEntry:
    spelling: str
    dest: str
    sources: tuple[str, ...]
    integer_sources: tuple[bool, ...]
    """Per source: an integer type (so an integer immediate means what it says)."""


def _pool(spellings: Iterable[str]) -> list[PoolEntry]:
    pool: list[PoolEntry] = []
    for spelling in spellings:
        try:
            sig = signature(spelling)
        except ReferenceInputError:
            continue
        classes = [register_class(t) for t in (*sig.sources, sig.destinations[0])]
        if all(c in ("i16", "i32", "i64", "f32", "f64", "pred") for c in classes):
            integer = tuple(t.kind in ("u", "s", "b") and t.lanes == 1 for t in sig.sources)
            pool.append(PoolEntry(spelling, classes[-1], tuple(classes[:-1]), integer))
    return pool


POOL: tuple[PoolEntry, ...] = tuple(_pool(POOL_SPELLINGS))


@dataclass(frozen=True)
class GenOptions:
    statements: int = 24
    avoid: frozenset[str] = frozenset()
    """Spellings never to generate (known bugs, compiler rejections)."""


class _Gen:
    def __init__(self, rng: random.Random, options: GenOptions) -> None:
        self.rng = rng
        self.pool = [e for e in POOL if e.spelling not in options.avoid]
        self.warp_ops = [w for w in WARP_OPS if w[0] not in options.avoid]
        self.options = options

    def operand(self, entry: PoolEntry, position: int) -> Operand:
        cls = entry.sources[position]
        if IMMEDIATE_ONLY.get(entry.spelling) == position:
            return Operand(cls, value=self.rng.randrange(256))
        if entry.integer_sources[position] and self.rng.random() < 0.12:
            return Operand(cls, value=self.rng.choice([0, 1, 2, 7, 31, 32, 63, 255]))
        return Operand(cls, self.rng.randrange(REGS))

    def op(self, guarded: bool = True, callable_only: bool = False) -> Op:
        pool = (
            [e for e in self.pool if e.dest != "pred" and "pred" not in e.sources]
            if callable_only
            else self.pool
        )
        entry = self.rng.choice(pool)
        sources = tuple(self.operand(entry, k) for k in range(len(entry.sources)))
        guard = None
        if guarded and self.rng.random() < 0.15:
            guard = Guard(self.rng.randrange(REGS), self.rng.random() < 0.5)
        return Op(entry.spelling, Operand(entry.dest, self.rng.randrange(REGS)), sources, guard)

    def warp(self) -> Warp:
        spelling, dest, sources = self.rng.choice(self.warp_ops)
        operands = []
        for cls in sources:
            if cls.startswith("imm"):
                operands.append(Operand("i32", value=int(cls[3:])))
            elif cls == "i32" and spelling.startswith("shfl") and operands and self.rng.random() < 0.5:
                operands.append(Operand("i32", value=self.rng.randrange(32)))
            else:
                operands.append(Operand(cls, self.rng.randrange(REGS)))
        return Warp(Op(spelling, Operand(dest, self.rng.randrange(REGS)), tuple(operands)))

    def block(self, count: int, depth: int, in_loop: bool) -> tuple[Statement, ...]:
        out: list[Statement] = []
        for _ in range(count):
            roll = self.rng.random()
            if roll < 0.08 and depth < 2:
                out.append(
                    If(
                        self.rng.randrange(REGS),
                        self.block(self.rng.randint(1, 4), depth + 1, in_loop),
                        self.block(self.rng.randint(0, 3), depth + 1, in_loop),
                    )
                )
            elif roll < 0.13 and not in_loop and depth < 2:
                out.append(
                    Loop(self.rng.randrange(REGS), self.block(self.rng.randint(1, 4), depth + 1, True))
                )
            elif roll < 0.17:
                out.append(LocalStore(self.rng.randrange(REGS), self.rng.randrange(REGS)))
            elif roll < 0.21:
                out.append(LocalLoad(self.rng.randrange(REGS), self.rng.randrange(REGS)))
            elif roll < 0.24 and depth == 0:
                out.append(
                    SharedRotate(self.rng.randrange(REGS), self.rng.randrange(REGS), self.rng.randint(1, 63))
                )
            elif roll < 0.26 and depth == 0:
                out.append(AtomicAdd(self.rng.randrange(REGS), self.rng.randrange(REGS)))
            elif roll < 0.29:
                out.append(Call(self.op(guarded=False, callable_only=True)))
            elif roll < 0.32 and depth == 0 and self.warp_ops:
                out.append(self.warp())
            else:
                out.append(self.op())
        return tuple(out)


def inputs(seed: int) -> bytes:
    """Edge-biased initial values of every register for every thread."""
    rng = np.random.default_rng(seed)
    rows = []
    types = {"i16": "u16", "i32": "u32", "i64": "u64", "f32": "f32", "f64": "f64", "pred": "pred"}
    for cls, _ in all_registers():
        values = sample(ptx_type(types[cls]), THREADS, rng)
        rows.append(np.asarray(values).astype(np.uint64))
    return np.stack(rows).astype("<u8").tobytes()


def generate(seed: int, options: GenOptions = GenOptions()) -> Program:
    rng = random.Random(seed)
    body = _Gen(rng, options).block(options.statements, 0, False)
    return Program(body, inputs(seed))
