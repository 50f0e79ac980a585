"""The conformance form table: every PTX instruction spelling (opcode x modifiers x types) that the
reference model defines, as ``Form`` objects with their operand types.

Candidate spellings are generated per opcode of ``reference.opcodes()`` (deliberately generous); a
candidate the model refuses (``ReferenceInputError``) is not a form. Immediate-only operands
(``lop3``'s LUT, ``shfl``'s clamp, warp membermasks) carry the fixed values the suite runs.

Invariant: ``model_forms()`` is a pure function of the model: the same spellings in the same order,
each accepted by ``reference.signature``; nothing here compiles or runs anything.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass

from ptx2gcn.reference import ReferenceInputError, signature
from ptx2gcn.reference.ptxtypes import PtxType

INT_TYPES = ("u16", "u32", "u64", "s16", "s32", "s64")
BIT_TYPES = ("b16", "b32", "b64")
FLOAT_ROUNDINGS = ("", "rn", "rz", "rm", "rp")
CMP_INT = ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs")
CMP_FLOAT = ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")
CVT_TYPES = ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f16", "bf16", "f32", "f64")
INTEGRAL_ROUNDINGS = ("", "rni", "rzi", "rmi", "rpi")
"""cvt between equal float types: a plain copy (with .ftz/.sat) or rounding to an integral value."""
LOP3_LUTS = (0x00, 0xFF, 0x96, 0xE8, 0x80, 0xFE, 0x1E, 0xCA, 0x6A)
WARP_OPCODES = frozenset({"shfl", "vote", "match", "redux", "activemask", "elect"})
WARP = 32
FULL_MASK = 0xFFFFFFFF
SHFL_CLAMPS = (0x1F, 0x0, 0x1C1F, 0x181F)
"""shfl.sync ``c`` operands: whole warp (down/bfly/idx), up's 0, and 8/4-lane segments."""
HARNESS_MISSING: dict[str, str] = {}
"""Opcodes the one-instruction harness cannot run yet, with the reason (none at present)."""
BAR_DESTINATIONS = frozenset({"setp", "shfl", "elect"})
"""Opcodes whose two destinations are written ``d|p``."""


def _join(*parts: str) -> str:
    return ".".join(p for p in parts if p)


def _float_arith(op: str) -> Iterable[str]:
    for r, ftz, sat in itertools.product(FLOAT_ROUNDINGS, ("", "ftz"), ("", "sat")):
        yield _join(op, r, ftz, sat, "f32")
    for r in FLOAT_ROUNDINGS:
        yield _join(op, r, "f64")
    for t in ("f16", "bf16", "f16x2", "bf16x2"):
        for r, ftz, sat in itertools.product(("", "rn"), ("", "ftz"), ("", "sat")):
            yield _join(op, r, ftz, sat, t)


def _candidates_for(op: str) -> Iterable[str]:  # noqa: C901
    """Plausible spellings of ``op``; the model filters out the ones PTX does not define."""
    if op in ("add", "sub"):
        yield from (_join(op, t) for t in INT_TYPES)
        yield from (
            _join(op, "sat", "s32"),
            _join(op, "cc", "u32"),
            _join(op, "cc", "s32"),
            _join(op, "cc", "u64"),
            _join(op, "cc", "s64"),
            _join(op, "u16x2"),
            _join(op, "s16x2"),
        )
        yield from _float_arith(op)
    elif op == "mul":
        yield from (_join(op, m, t) for m in ("lo", "hi", "wide") for t in INT_TYPES)
        yield from _float_arith(op)
    elif op == "mad":
        yield from (_join(op, m, t) for m in ("lo", "hi", "wide") for t in INT_TYPES)
        yield from (_join(op, m, "cc", t) for m in ("lo", "hi") for t in ("u32", "s32", "u64", "s64"))
        yield "mad.hi.sat.s32"
        for r, ftz, sat in itertools.product(("rn", "rz", "rm", "rp"), ("", "ftz"), ("", "sat")):
            yield _join(op, r, ftz, sat, "f32")
        yield from (_join(op, r, "f64") for r in ("rn", "rz", "rm", "rp"))
    elif op == "fma":
        for r, ftz, sat in itertools.product(("rn", "rz", "rm", "rp"), ("", "ftz"), ("", "sat")):
            yield _join(op, r, ftz, sat, "f32")
        yield from (_join(op, r, "f64") for r in ("rn", "rz", "rm", "rp"))
        for t in ("f16", "bf16", "f16x2", "bf16x2"):
            for ftz, sat, relu in itertools.product(("", "ftz"), ("", "sat"), ("", "relu")):
                yield _join(op, "rn", ftz, sat, relu, t)
    elif op in ("mul24", "mad24"):
        yield from (_join(op, m, t) for m in ("lo", "hi") for t in ("u32", "s32"))
    elif op == "sad":
        yield from (_join(op, t) for t in INT_TYPES)
    elif op in ("div", "rem"):
        yield from (_join(op, t) for t in INT_TYPES)
        if op == "div":
            yield from (_join(op, "approx", ftz, "f32") for ftz in ("", "ftz"))
            yield from (_join(op, "full", ftz, "f32") for ftz in ("", "ftz"))
            yield from (_join(op, r, ftz, "f32") for r in ("rn", "rz", "rm", "rp") for ftz in ("", "ftz"))
            yield from (_join(op, r, "f64") for r in ("rn", "rz", "rm", "rp"))
    elif op in ("abs", "neg"):
        yield from (_join(op, t) for t in ("s16", "s32", "s64"))
        yield from (
            _join(op, ftz, t) for ftz in ("", "ftz") for t in ("f32", "f16", "f16x2", "bf16", "bf16x2")
        )
        yield _join(op, "f64")
    elif op in ("min", "max"):
        yield from (_join(op, t) for t in INT_TYPES)
        yield from (_join(op, "relu", t) for t in ("s32", "s16x2"))
        yield from (_join(op, t) for t in ("u16x2", "s16x2"))
        for ftz, nan, sign in itertools.product(("", "ftz"), ("", "NaN"), ("", "xorsign.abs")):
            yield from (_join(op, ftz, nan, sign, t) for t in ("f32", "f16", "f16x2", "bf16", "bf16x2"))
        yield _join(op, "f64")
    elif op in ("popc", "clz", "brev"):
        yield from (_join(op, t) for t in ("b32", "b64"))
    elif op == "bfind":
        yield from (_join(op, s, t) for s in ("", "shiftamt") for t in ("u32", "s32", "u64", "s64"))
    elif op == "fns":
        yield "fns.b32"
    elif op == "bfe":
        yield from (_join(op, t) for t in ("u32", "s32", "u64", "s64"))
    elif op == "bfi":
        yield from (_join(op, t) for t in ("b32", "b64"))
    elif op == "szext":
        yield from (_join(op, m, t) for m in ("clamp", "wrap") for t in ("u32", "s32"))
    elif op == "bmsk":
        yield from (_join(op, m, "b32") for m in ("clamp", "wrap"))
    elif op in ("and", "or", "xor", "not", "cnot"):
        yield from (_join(op, t) for t in (*BIT_TYPES, "pred"))
    elif op == "lop3":
        yield "lop3.b32"
    elif op == "shf":
        yield from (_join(op, d, m, "b32") for d in ("l", "r") for m in ("wrap", "clamp"))
    elif op == "shl":
        yield from (_join(op, t) for t in BIT_TYPES)
    elif op == "shr":
        yield from (_join(op, t) for t in (*BIT_TYPES, *INT_TYPES))
    elif op == "prmt":
        yield from (_join(op, "b32", m) for m in ("", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"))
    elif op == "copysign":
        yield from (_join(op, t) for t in ("f32", "f64"))
    elif op in ("sin", "cos", "lg2", "ex2", "tanh"):
        yield from (_join(op, "approx", ftz, "f32") for ftz in ("", "ftz"))
        yield from (_join(op, "approx", t) for t in ("f16", "f16x2", "bf16", "bf16x2"))
    elif op in ("rcp", "sqrt"):
        yield from (_join(op, "approx", ftz, "f32") for ftz in ("", "ftz"))
        yield from (_join(op, r, ftz, "f32") for r in ("rn", "rz", "rm", "rp") for ftz in ("", "ftz"))
        yield from (_join(op, r, "f64") for r in ("rn", "rz", "rm", "rp"))
        yield from (_join(op, "approx", ftz, "f64") for ftz in ("", "ftz"))
    elif op == "rsqrt":
        yield from (_join(op, "approx", ftz, t) for ftz in ("", "ftz") for t in ("f32", "f64"))
    elif op == "testp":
        yield from (
            _join(op, p, t)
            for p in ("finite", "infinite", "number", "notanumber", "normal", "subnormal")
            for t in ("f32", "f64")
        )
    elif op == "setp":
        yield from (_join(op, c, t) for c in CMP_INT for t in (*INT_TYPES, *BIT_TYPES))
        yield from (_join(op, c, ftz, t) for c in CMP_FLOAT for ftz in ("", "ftz") for t in ("f32", "f64"))
        yield from (
            _join(op, c, b, t)
            for c in ("lt", "eq")
            for b in ("and", "or", "xor")
            for t in ("s32", "u32", "u64")
        )
        yield from (_join(op, c, b, "f32") for c in ("lt", "nan") for b in ("and", "or", "xor"))
        yield from (
            _join(op, c, ftz, t)
            for c in CMP_FLOAT
            for ftz in ("", "ftz")
            for t in ("f16", "bf16", "f16x2", "bf16x2")
        )
    elif op == "set":
        yield from (
            _join(op, c, d, t)
            for c in ("eq", "lt", "hi")
            for d in ("u32", "s32", "f32")
            for t in ("u32", "s32", "u64")
        )
        yield from (
            _join(op, c, d, "f32") for c in (*CMP_INT[:6], "equ", "nan") for d in ("u32", "s32", "f32")
        )
        yield from (
            _join(op, c, ftz, d, t)
            for c in ("eq", "ge", "gt", "gtu", "nan")
            for ftz in ("", "ftz")
            for t in ("f16", "bf16", "f16x2", "bf16x2")
            for d in ("u32", "s32", "f32", t)
        )
    elif op == "selp":
        yield from (_join(op, t) for t in (*INT_TYPES, *BIT_TYPES, "f32", "f64"))
    elif op == "slct":
        yield from (
            _join(op, t, s) for t in ("b32", "u32", "s32", "f32", "b64", "f64") for s in ("s32", "f32")
        )
        yield from (_join(op, "ftz", t, "f32") for t in ("b32", "f32"))
    elif op in ("dp4a", "dp2a"):
        modes = ("lo", "hi") if op == "dp2a" else ("",)
        yield from (_join(op, m, a, b) for m in modes for a in ("u32", "s32") for b in ("u32", "s32"))
    elif op == "cvt":
        yield from _cvt_candidates()
    elif op in WARP_OPCODES or op in ("atom", "red", "addc", "subc", "madc"):
        yield from _harness_candidates(op)
    elif op.startswith("v"):
        yield from _video_candidates(op)


VIDEO_TYPES = (("u32", "u32", "u32"), ("s32", "s32", "s32"), ("s32", "u32", "s32"), ("u32", "s32", "u32"))
"""dtype.atype.btype combinations of the video forms (all four signednesses of a and b)."""


def _video_candidates(op: str) -> Iterable[str]:  # noqa: C901
    """Video forms (PTX ISA 9.7.18): every type combination with and without ``.sat`` and each
    secondary operation, plus operand selectors and merges (``=`` modifiers, see
    ``reference.video``)."""
    if op in ("vadd", "vsub", "vabsdiff", "vmin", "vmax"):
        for types, sat, op2 in itertools.product(VIDEO_TYPES, ("", "sat"), ("", "add", "min", "max")):
            yield _join(op, *types, sat, op2)
        for sels in (("asel=b1", "bsel=h1"), ("dsel=h1",), ("sat", "dsel=b2", "asel=h0"), ("dsel=b0", "bsel=b3")):
            yield _join(op, "s32", "u32", "s32", *sels)
    elif op in ("vshl", "vshr"):
        for (d, a), sat, mode, op2 in itertools.product(
            (("u32", "u32"), ("s32", "s32"), ("s32", "u32")), ("", "sat"), ("clamp", "wrap"), ("", "add")
        ):
            yield _join(op, d, a, "u32", sat, mode, op2)
        yield _join(op, "s32", "s32", "u32", "wrap", "dsel=h0", "asel=b3")
    elif op == "vmad":
        for (d, a, b), po, sat, scale in itertools.product(
            (("u32", "u32", "u32"), ("s32", "s32", "s32"), ("s32", "u32", "s32"), ("s32", "s32", "u32")),
            ("", "po"), ("", "sat"), ("", "shr7", "shr15"),
        ):
            yield _join(op, d, a, b, po, sat, scale)
        for neg in ("neg=a", "neg=c", "neg=b", "neg=a.neg=b"):
            yield _join(op, "s32", "u32", "u32", neg)
            yield _join(op, "s32", "s32", "s32", "sat", neg)
        yield _join(op, "u32", "u32", "u32", "asel=h1", "bsel=b2")
    elif op == "vset":
        for (a, b), cmp in itertools.product((("u32", "u32"), ("s32", "s32"), ("s32", "u32")), CMP_INT[:6]):
            yield _join(op, a, b, cmp)
        for op2 in ("add", "min", "max"):
            yield _join(op, "s32", "u32", "lt", op2)
        yield _join(op, "u32", "s32", "ne", "dsel=b1", "asel=h1")
    elif op[-1] in "24":
        yield from _simd_video_candidates(op)


def _simd_video_candidates(op: str) -> Iterable[str]:
    lanes = int(op[-1])
    selectors = (
        ("mask=h0", "asel=h32", "bsel=h10") if lanes == 2 else ("mask=b31", "asel=b7531", "bsel=b0246")
    )
    if op.startswith("vset"):
        for (a, b), cmp in itertools.product((("u32", "u32"), ("s32", "s32")), CMP_INT[:6]):
            yield _join(op, a, b, cmp)
        yield from (_join(op, "s32", "u32", "ge", "add"), _join(op, "u32", "s32", "ne", *selectors))
        return
    for types, mode in itertools.product(VIDEO_TYPES[:3], ("", "sat", "add")):
        yield _join(op, *types, mode)
    yield _join(op, "s32", "s32", "u32", "sat", *selectors)
    yield _join(op, "u32", "u32", "u32", "add", selectors[0])


def _cvt_candidates() -> Iterable[str]:
    for dst, src in itertools.product(CVT_TYPES, CVT_TYPES):
        dfloat, sfloat = dst[0] in "fb", src[0] in "fb"
        if dfloat and sfloat:
            wider = int(dst[-2:].lstrip("f").lstrip("bf")) >= int(src[-2:].lstrip("f").lstrip("bf"))
            roundings = INTEGRAL_ROUNDINGS if dst == src else (("",) if wider else ("rn", "rz", "rm", "rp"))
            for r, ftz, sat in itertools.product(roundings, ("", "ftz"), ("", "sat")):
                yield _join("cvt", r, ftz, sat, dst, src)
        elif sfloat:
            for r, ftz, sat in itertools.product(("rni", "rzi", "rmi", "rpi"), ("", "ftz"), ("", "sat")):
                yield _join("cvt", r, ftz, sat, dst, src)
        elif dfloat:
            yield from (_join("cvt", r, dst, src) for r in ("rn", "rz", "rm", "rp"))
        else:
            yield from (_join("cvt", sat, dst, src) for sat in ("", "sat"))
    yield from (_join("cvt", r, relu, "f16x2", "f32") for r in ("rn", "rz") for relu in ("", "relu"))
    yield from (_join("cvt", r, relu, "bf16x2", "f32") for r in ("rn", "rz") for relu in ("", "relu"))
    yield from (_join("cvt", r, sat, "tf32", "f32") for r in ("rna", "rn", "rz") for sat in ("", "satfinite"))
    for fp8, relu in itertools.product(("e4m3x2", "e5m2x2"), ("", "relu")):
        yield from (_join("cvt", "rn", "satfinite", relu, fp8, src) for src in ("f32", "f16x2"))
        yield _join("cvt", "rn", relu, "f16x2", fp8)
    for d, tail in itertools.product(("u2", "s2", "u4", "s4", "u8", "s8", "u16", "s16"), (("s32", "b32"), ("s32",))):
        yield _join("cvt", "pack", "sat", d, *tail)


def _harness_candidates(op: str) -> Iterable[str]:  # noqa: C901
    if op in ("addc", "subc"):
        yield from (_join(op, cc, t) for cc in ("", "cc") for t in ("u32", "s32", "u64", "s64"))
    elif op == "madc":
        yield from (
            _join(op, m, cc, t) for m in ("lo", "hi") for cc in ("", "cc") for t in ("u32", "s32", "u64")
        )
    elif op in ("atom", "red"):
        for o, t in itertools.product(("and", "or", "xor"), ("b32", "b64")):
            yield _join(op, o, t)
        for o, t in itertools.product(("add", "min", "max"), ("u32", "s32", "u64", "s64")):
            yield _join(op, o, t)
        yield from (_join(op, "add", t) for t in ("f32", "f64"))
        yield from (_join(op, o, "u32") for o in ("inc", "dec"))
        yield from (_join(op, "add", "noftz", t) for t in ("f16", "bf16", "f16x2", "bf16x2"))
        if op == "atom":
            yield from (_join(op, o, t) for o in ("exch", "cas") for t in ("b32", "b64"))
            yield "atom.cas.b16"
    elif op == "shfl":
        yield from (_join(op, "sync", m, "b32") for m in ("up", "down", "bfly", "idx"))
    elif op == "vote":
        yield from (_join(op, "sync", m, "pred") for m in ("all", "any", "uni"))
        yield "vote.sync.ballot.b32"
    elif op == "match":
        yield from (_join(op, m, "sync", t) for m in ("any", "all") for t in ("b32", "b64"))
    elif op == "redux":
        yield from (_join(op, "sync", o, t) for o in ("add", "min", "max") for t in ("u32", "s32"))
        yield from (_join(op, "sync", o, "b32") for o in ("and", "or", "xor"))
        # f32 (and .abs/.NaN) need PTX 8.6 / sm_100a; the harness is PTX 8.0 / sm_90, so only the plain form
        yield from (_join(op, "sync", o, "f32") for o in ("min", "max"))
    elif op == "activemask":
        yield "activemask.b32"
    elif op == "elect":
        yield "elect.sync"


@dataclass(frozen=True)
class Form:
    """One modelled instruction spelling with its operand types (PTX order)."""

    spelling: str
    sources: tuple[PtxType, ...]
    destinations: tuple[PtxType, ...]

    @property
    def opcode(self) -> str:
        return self.spelling.split(".")[0]

    @property
    def immediates(self) -> dict[int, tuple[int, ...]]:
        """Source positions that PTX requires to be immediates, with the values the suite uses."""
        if self.opcode == "lop3":
            return {3: LOP3_LUTS}
        if self.opcode == "shfl":
            return {2: SHFL_CLAMPS, 3: (FULL_MASK,)}
        if self.opcode in WARP_OPCODES and self.sources:
            return {len(self.sources) - 1: (FULL_MASK,)}  # the membermask: the whole (converged) warp
        return {}

    @property
    def is_warp(self) -> bool:
        return self.opcode in WARP_OPCODES

    @property
    def harness_gap(self) -> str | None:
        """Why this form cannot run in the one-instruction harness yet (None: it can)."""
        return HARNESS_MISSING.get(self.opcode)

    @property
    def reads_carry(self) -> bool:
        return self.opcode in ("addc", "subc", "madc")

    @property
    def writes_carry(self) -> bool:
        return "cc" in self.spelling.split(".")

    @property
    def is_memory(self) -> bool:
        return self.opcode in ("atom", "red")


def model_forms(opcodes: Iterable[str] | None = None) -> list[Form]:
    """Every candidate spelling the reference model accepts, in a stable order (by default over
    every modelled opcode that has a harness: the warp-wide ones do not yet)."""
    from ptx2gcn.reference import opcodes as model_opcodes

    forms: list[Form] = []
    seen: set[str] = set()
    chosen = opcodes if opcodes is not None else [op for op in model_opcodes() if op not in HARNESS_MISSING]
    for op in chosen:
        for spelling in _candidates_for(op):
            if spelling in seen:
                continue
            seen.add(spelling)
            try:
                sig = signature(spelling)
            except ReferenceInputError:
                continue
            forms.append(Form(spelling, sig.sources, sig.destinations))
    return forms

