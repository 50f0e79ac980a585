"""The fuzzer's instruction tables: the scalar instruction pool (spellings over the fuzz register
classes), the warp collectives and the atomic operations, each filtered by the reference model's
``signature`` (so every entry is an instruction the model can judge).

Invariant: every spelling here is a conformance form (``conformance.forms`` spelling); the fuzzer
leaves out those the compiler rejects at run time (``fuzz.runner.unsupported_spellings``), so a form
joins the fuzzer the moment the compiler supports it; the shared-word atomics are exactly the
order-independent ones (``Atomic``'s docstring).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ptx2gcn.fuzz.program import CLASSES, register_class
from ptx2gcn.reference import ReferenceInputError, signature

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
_HALF_TYPES = ("f16", "bf16", "f16x2", "bf16x2")
_HALF = [f"{op}{r}.{t}" for op in ("add", "sub", "mul") for r in ("", ".rn") for t in _HALF_TYPES]
_HALF += [f"fma.rn{m}.{t}" for m in ("", ".relu") for t in _HALF_TYPES]
_HALF += [f"{op}{m}.{t}" for op in ("min", "max") for m in ("", ".NaN") for t in _HALF_TYPES]
_HALF += [f"{op}.{t}" for op in ("neg", "abs") for t in _HALF_TYPES]
_HALF += [
    "add.ftz.f16",
    "sub.rn.ftz.f16x2",
    "add.sat.f16x2",
    "mul.ftz.sat.f16",
    "fma.rn.ftz.sat.f16",
    "fma.rn.sat.f16x2",
    "fma.rn.ftz.relu.f16x2",
    "min.ftz.NaN.f16x2",
    "max.ftz.f16",
    "max.xorsign.abs.f16",
    "min.xorsign.abs.bf16x2",
    "neg.ftz.f16x2",
    "abs.ftz.f16",
    "cvt.f32.f16",
    "cvt.f32.bf16",
    "cvt.f64.f16",
    "cvt.rn.f16.f32",
    "cvt.rz.bf16.f32",
    "cvt.rn.bf16.f32",
    "cvt.rm.f16.f64",
    "cvt.rn.f16x2.f32",
    "cvt.rz.relu.bf16x2.f32",
    "cvt.rni.s32.f16",
    "cvt.rzi.u16.bf16",
    "cvt.rn.f16.s32",
    "cvt.rn.bf16.u16",
    "cvt.rni.f16.f16",
    "setp.lt.f16",
    "setp.geu.bf16",
    "setp.nan.f16",
    "ex2.approx.f16x2",
]
_MORE_INT = [
    f"{op}.{t}" for op in ("add", "sub", "min", "max") for t in ("u16x2", "s16x2")
] + ["min.relu.s16x2", "max.relu.s32", "cvt.pack.sat.u8.s32.b32", "cvt.pack.sat.s16.s32", "szext.wrap.s32",
     "szext.clamp.u32", "bmsk.wrap.b32", "cvt.rn.satfinite.e4m3x2.f32", "cvt.rn.f16x2.e4m3x2",
     "cvt.rn.satfinite.e5m2x2.f32", "cvt.rn.f16x2.e5m2x2", "vadd.s32.u32.s32.sat", "vabsdiff.u32.u32.u32.add",
     "vmin.s32.s32.s32.max", "vshl.u32.u32.u32.clamp", "vshr.s32.s32.u32.wrap", "vset.u32.s32.lt.add",
     "vmad.s32.s32.u32.sat", "vadd2.s32.s32.s32.sat", "vavrg4.u32.u32.u32", "vabsdiff4.u32.u32.u32.add",
     "vset2.s32.s32.ge", "vmax4.s32.s32.s32.sat", "cvt.rna.tf32.f32", "cvt.rmi.f32.f32", "mad.lo.cc.u32",
     "set.gtu.u32.f16x2", "setp.lt.and.u32"]
POOL_SPELLINGS: tuple[str, ...] = tuple(_INT32 + _INT64 + _INT16 + _F32 + _F64 + _PRED + _HALF + _MORE_INT)
IMMEDIATE_ONLY = {"lop3.b32": 3}
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
        if all(c in CLASSES for c in classes):
            integer = tuple(t.kind in ("u", "s", "b") and t.lanes == 1 for t in sig.sources)
            pool.append(PoolEntry(spelling, classes[-1], tuple(classes[:-1]), integer))
    return pool


POOL: tuple[PoolEntry, ...] = tuple(_pool(POOL_SPELLINGS))


@dataclass(frozen=True)
class WarpEntry:
    spelling: str
    dest: str
    sources: tuple[str, ...]
    """Register classes, or ``immN`` for the immediate N (the membermask is appended by the text)."""
    has_pred: bool = False
    """A second destination ``|p`` may be written (``shfl``, ``match.all``)."""
    narrowed: bool = False
    """The source is first masked to two bits (``and``), so that lanes often match."""


WARP_OPS: tuple[WarpEntry, ...] = (
    WarpEntry("shfl.sync.idx.b32", "i32", ("i32", "i32", "imm31"), has_pred=True),
    WarpEntry("shfl.sync.bfly.b32", "i32", ("i32", "i32", "imm31"), has_pred=True),
    WarpEntry("shfl.sync.down.b32", "i32", ("i32", "i32", "imm31"), has_pred=True),
    WarpEntry("shfl.sync.up.b32", "i32", ("i32", "i32", "imm0"), has_pred=True),
    WarpEntry("vote.sync.ballot.b32", "i32", ("pred",)),
    WarpEntry("vote.sync.any.pred", "pred", ("pred",)),
    WarpEntry("vote.sync.all.pred", "pred", ("pred",)),
    WarpEntry("vote.sync.uni.pred", "pred", ("pred",)),
    WarpEntry("redux.sync.add.u32", "i32", ("i32",)),
    WarpEntry("redux.sync.min.s32", "i32", ("i32",)),
    WarpEntry("redux.sync.max.u32", "i32", ("i32",)),
    WarpEntry("redux.sync.xor.b32", "i32", ("i32",)),
    WarpEntry("redux.sync.or.b32", "i32", ("i32",)),
    WarpEntry("match.any.sync.b32", "i32", ("i32",), narrowed=True),
    WarpEntry("match.any.sync.b64", "i32", ("i64",), narrowed=True),
    WarpEntry("match.all.sync.b32", "i32", ("i32",), has_pred=True, narrowed=True),
    WarpEntry("match.all.sync.b64", "i32", ("i64",), has_pred=True, narrowed=True),
)
PARTIAL_MASKS = (0x0000FFFF, 0xFFFF0000, 0x55555555, 0xAAAAAAAA, 0x0F0F0F0F, 0x80000001, 0x00000001, 0x7FFFFFFF)
"""Membermasks for warp collectives run by part of the warp (the generator also draws random ones)."""


@dataclass(frozen=True)
class AtomicEntry:
    spelling: str
    """``atom.<op>.<type>`` or ``red.<op>.<type>``; the text inserts the state space."""
    cls: str
    operands: int
    """Sources after the address."""
    shared_word: bool
    """Order-independent, so every thread of a block may apply it to one word."""
    immediate_bound: bool = False
    """inc/dec: on a shared word the bound must be the same for every thread (an immediate)."""


def _atomics() -> tuple[AtomicEntry, ...]:
    entries: list[AtomicEntry] = []
    ints = [("add", "u32"), ("add", "s32"), ("add", "u64"), ("min", "s32"), ("min", "u64"), ("max", "u32"),
            ("max", "s64"), ("and", "b32"), ("or", "b64"), ("xor", "b32"), ("xor", "b64")]
    for kind in ("atom", "red"):
        for op, t in ints:
            entries.append(AtomicEntry(f"{kind}.{op}.{t}", "i64" if t.endswith("64") else "i32", 1, True))
        for op in ("inc", "dec"):
            entries.append(AtomicEntry(f"{kind}.{op}.u32", "i32", 1, True, immediate_bound=True))
        entries += [AtomicEntry(f"{kind}.add.f32", "f32", 1, True), AtomicEntry(f"{kind}.add.f64", "f64", 1, True)]
    entries += [AtomicEntry(f"atom.{op}.{t}", "i64" if t == "b64" else "i32", 1, False)
                for op in ("exch",) for t in ("b32", "b64")]
    entries += [AtomicEntry(f"atom.cas.{t}", "i64" if t == "b64" else "i32", 2, False) for t in ("b32", "b64")]
    for entry in entries:
        signature(model_spelling(entry.spelling))  # the model must know each one
    return tuple(entries)


def model_spelling(spelling: str, space: str = "global") -> str:
    """``atom.add.u32`` as the model (and PTX) spells it with a state space: ``atom.global.add.u32``;
    every other spelling unchanged."""
    kind, _, rest = spelling.partition(".")
    return f"{kind}.{space}.{rest}" if kind in ("atom", "red") else spelling


def all_spellings() -> list[str]:
    """Every spelling the generator may emit (scalar pool, warp collectives, atomics)."""
    return [e.spelling for e in POOL] + [w.spelling for w in WARP_OPS] + [a.spelling for a in ATOMICS]


ATOMICS: tuple[AtomicEntry, ...] = _atomics()
