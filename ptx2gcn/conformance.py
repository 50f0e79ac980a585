"""The instruction conformance table and its runner: which PTX forms the compiler supports, and
whether each one computes what the reference model (``ptx2gcn.reference``) says.

A *form* is one instruction spelling (opcode × modifiers × types, e.g. ``add.sat.s32``). The
candidate spellings below are generated per opcode of ``reference.opcodes()``; a candidate the model
refuses is not a form. Each form is compiled inside a group kernel (one per opcode): a form whose
line the compiler blames with ``unsupported: ...`` is *rejected* (reported with the compiler's
sentence, never hidden); one the frontend calls invalid PTX is *invalid* (a candidate-table or
checker disagreement, reported too); the rest are *supported*. A supported form is *covered* when
``run_group`` has run it through PTX → code object → emulator and compared every lane with the model.

Invariant: expected values come only from the reference model; the device's bits are compared with
``Result.matches`` (which knows undefined lanes, open NaN payloads and ``.approx`` intervals), so a
form is reported as a mismatch exactly when some lane falls outside what PTX allows.

Harness: every thread ``i`` of a group kernel loads operand ``k`` of instance ``j`` from
``in + off(j, k) + i * size`` and stores destination ``m`` to ``out + off(j, m) + i * size``;
predicates travel as ``u8`` (0/1). Immediate-only operands (``lop3``'s LUT, warp membermasks,
``shfl``'s clamp) are fixed per instance. Carry forms get CC.CF set/read around them, ``atom``/``red``
find their old value in the output slot of the new memory value, and warp-wide forms run with a
full membermask on converged warps and are judged 32 lanes at a time. A form that needs a harness
not written yet would be listed by ``FormTable.uncovered`` (none at present).
"""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ptx2gcn.diagnostics import Ptx2GcnError, UnsupportedError
from ptx2gcn.fuzz_known import FAILING_INPUTS
from ptx2gcn.reference import ReferenceInputError, Result, run, signature
from ptx2gcn.reference.ptxtypes import PtxType
from ptx2gcn.reference.sampling import operands_for

INT_TYPES = ("u16", "u32", "u64", "s16", "s32", "s64")
BIT_TYPES = ("b16", "b32", "b64")
FLOAT_ROUNDINGS = ("", "rn", "rz", "rm", "rp")
CMP_INT = ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs")
CMP_FLOAT = ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")
CVT_TYPES = ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f16", "bf16", "f32", "f64")
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


def _candidates_for(op: str) -> Iterable[str]:
    """Plausible spellings of ``op``; the model filters out the ones PTX does not define."""
    if op in ("add", "sub"):
        yield from (_join(op, t) for t in INT_TYPES)
        yield from (
            _join(op, "sat", "s32"),
            _join(op, "cc", "u32"),
            _join(op, "cc", "s32"),
            _join(op, "cc", "u64"),
            _join(op, "u16x2"),
            _join(op, "s16x2"),
        )
        yield from _float_arith(op)
    elif op == "mul":
        yield from (_join(op, m, t) for m in ("lo", "hi", "wide") for t in INT_TYPES)
        yield from _float_arith(op)
    elif op == "mad":
        yield from (_join(op, m, t) for m in ("lo", "hi", "wide") for t in INT_TYPES)
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
        for ftz, nan in itertools.product(("", "ftz"), ("", "NaN")):
            yield from (_join(op, ftz, nan, t) for t in ("f32", "f16", "f16x2", "bf16", "bf16x2"))
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
            _join(op, c, b, t) for c in ("lt", "eq") for b in ("and", "or", "xor") for t in ("s32", "u64")
        )
        yield from (_join(op, c, b, "f32") for c in ("lt", "nan") for b in ("and", "or", "xor"))
    elif op == "set":
        yield from (
            _join(op, c, d, t)
            for c in ("eq", "lt", "hi")
            for d in ("u32", "s32", "f32")
            for t in ("u32", "s32", "u64")
        )
        yield from (_join(op, c, d, "f32") for c in ("lt", "equ", "nan") for d in ("u32", "s32", "f32"))
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


def _cvt_candidates() -> Iterable[str]:
    for dst, src in itertools.product(CVT_TYPES, CVT_TYPES):
        dfloat, sfloat = dst[0] in "fb", src[0] in "fb"
        if dfloat and sfloat:
            wider = int(dst[-2:].lstrip("f").lstrip("bf")) >= int(src[-2:].lstrip("f").lstrip("bf"))
            roundings = ("", "rni", "rzi") if dst == src else (("",) if wider else ("rn", "rz", "rm", "rp"))
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


def _harness_candidates(op: str) -> Iterable[str]:
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
        if op == "atom":
            yield from (_join(op, o, t) for o in ("exch", "cas") for t in ("b32", "b64"))
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


# -- group kernels ------------------------------------------------------------------------------


def storage_bytes(t: PtxType) -> int:
    return 1 if t.kind == "pred" else t.width // 8


def _reg_type(t: PtxType) -> str:
    if t.kind == "pred":
        return "pred"
    if t.name in ("f32", "f64"):
        return t.name
    return f"b{max(t.width, 16)}"


def _mem_type(t: PtxType) -> str:
    if t.kind == "pred" or t.width == 8:
        return "u8"
    return t.name if t.name in ("f32", "f64") else f"b{t.width}"


@dataclass(frozen=True)
class Instance:
    """A form with its immediate operands fixed: one instruction of a group kernel."""

    form: Form
    immediates: tuple[tuple[int, int], ...] = ()

    @property
    def label(self) -> str:
        imm = "".join(f" [{i}]=0x{v:x}" for i, v in self.immediates)
        return self.form.spelling + imm


def instances(form: Form) -> list[Instance]:
    imms = form.immediates
    if not imms:
        return [Instance(form)]
    keys = sorted(imms)
    return [Instance(form, tuple(zip(keys, combo))) for combo in itertools.product(*(imms[k] for k in keys))]


def _instruction_text(inst: Instance, j: int) -> list[str]:
    """The instruction (plus its carry/memory harness) of instance ``j``.

    Carry-in (a ``.pred`` source of addc/subc/madc) is put into CC.CF with ``add.cc`` (carry iff
    1 + 0xffffffff overflows) or ``sub.cc`` (borrow iff 0 - 1 underflows); carry-out is read back
    with ``addc.u32 r, 0, 0``. Memory forms find their old value already stored at ``%rd5``, the
    slot of their last destination (the new memory value)."""
    form = inst.form
    fixed = dict(inst.immediates)
    sources = [str(fixed[k]) if k in fixed else f"%s{j}_{k}" for k in range(len(form.sources))]
    dests = [f"%d{j}_{m}" for m in range(len(form.destinations))]
    out: list[str] = []
    if form.reads_carry:
        carry = sources.pop()
        setter = "sub.cc.u32 %r6, 0, %r5;" if form.opcode == "subc" else "add.cc.u32 %r6, %r5, 4294967295;"
        out += [f"selp.u32 %r5, 1, 0, {carry};", setter]
    carry_out = dests.pop() if form.writes_carry else None
    if form.is_memory:
        memory_dest = dests.pop()
        parts = form.spelling.split(".")
        spelled = ".".join([parts[0], "global", *parts[1:]])
        operands = [*dests, "[%rd5]", *sources[1:]]
        out.append(f"{spelled} {', '.join(operands)};")
        out.append(f"ld.global.{_mem_type(form.destinations[-1])} {memory_dest}, [%rd5];")
        return out
    if form.opcode == "match":
        dest = "|".join(dests) if ".all." in f".{form.spelling}." else dests[0]
    else:
        dest = "|".join(dests) if form.opcode in BAR_DESTINATIONS else ", ".join(dests)
    out.append(f"{form.spelling} {', '.join([dest, *sources])};")
    if carry_out is not None:
        out += ["addc.u32 %r6, 0, 0;", f"setp.ne.u32 {carry_out}, %r6, 0;"]
    return out


@dataclass
class GroupKernel:
    """A kernel running every instance of a group (see ``group_kernel`` for the buffer layout)."""

    ptx: str
    instances: list[Instance]
    lines: list[int]
    """1-based PTX line of each instance's instruction (to map compiler diagnostics back)."""


def group_kernel(group: Sequence[Instance]) -> GroupKernel:
    """PTX for ``k(in, out, n)``: instance j reads its source columns from ``in`` and writes its
    destination columns to ``out``; columns follow each other in instance and operand order, each
    ``n * size`` bytes (``size``: the operand's storage bytes, predicates 1)."""
    head = [
        ".version 8.0",
        ".target sm_90",
        ".address_size 64",
        ".visible .entry k(.param .u64 pin, .param .u64 pout, .param .u32 pn)",
        "{",
        ".reg .b32 %r<8>;",
        ".reg .b64 %rd<8>;",
        ".reg .pred %p<2>;",
        ".reg .b16 %h<2>;",
        "mov.u32 %r1, %ctaid.x;",
        "mov.u32 %r2, %ntid.x;",
        "mov.u32 %r3, %tid.x;",
        "mad.lo.s32 %r1, %r1, %r2, %r3;",
        "ld.param.u32 %r4, [pn];",
        "setp.ge.u32 %p1, %r1, %r4;",
        "@%p1 bra DONE;",
        "cvt.u64.u32 %rd1, %r1;",
        "ld.param.u64 %rd2, [pin];",
        "ld.param.u64 %rd3, [pout];",
        "cvt.u64.u32 %rd6, %r4;",
    ]
    body: list[str] = []
    decls: list[str] = []
    lines: list[int] = []
    in_off = out_off = 0
    for j, inst in enumerate(group):
        form = inst.form
        fixed = dict(inst.immediates)
        for k, t in enumerate(form.sources):
            if k in fixed:
                continue
            decls.append(f".reg .{_reg_type(t)} %s{j}_{k};")
            size = storage_bytes(t)
            body += [f"mad.lo.u64 %rd4, %rd6, {in_off}, %rd2;", f"mad.lo.u64 %rd4, %rd1, {size}, %rd4;"]
            if t.kind == "pred":
                body += ["ld.global.u8 %h1, [%rd4];", f"setp.ne.u16 %s{j}_{k}, %h1, 0;"]
            elif t.width == 8:
                body += ["ld.global.u8 %h1, [%rd4];", f"mov.b16 %s{j}_{k}, %h1;"]
            else:
                body.append(f"ld.global.{_mem_type(t)} %s{j}_{k}, [%rd4];")
            in_off += size
        for m, t in enumerate(form.destinations):
            decls.append(f".reg .{_reg_type(t)} %d{j}_{m};")
        if form.is_memory:
            slot = out_off + sum(storage_bytes(t) for t in form.destinations[:-1])
            size = storage_bytes(form.destinations[-1])
            body += [
                f"mad.lo.u64 %rd5, %rd6, {slot}, %rd3;",
                f"mad.lo.u64 %rd5, %rd1, {size}, %rd5;",
                f"st.global.{_mem_type(form.sources[0])} [%rd5], %s{j}_0;",
            ]
        lines.append(len(body) + (2 if form.reads_carry else 0))
        body += _instruction_text(inst, j)
        for m, t in enumerate(form.destinations):
            size = storage_bytes(t)
            body += [f"mad.lo.u64 %rd5, %rd6, {out_off}, %rd3;", f"mad.lo.u64 %rd5, %rd1, {size}, %rd5;"]
            if t.kind == "pred":
                body += [f"selp.u16 %h1, 1, 0, %d{j}_{m};", "st.global.u8 [%rd5], %h1;"]
            elif t.width == 8:
                body += [f"mov.b16 %h1, %d{j}_{m};", "st.global.u8 [%rd5], %h1;"]
            else:
                body.append(f"st.global.{_mem_type(t)} [%rd5], %d{j}_{m};")
            out_off += size
    first = len(head) + len(decls) + 1
    text = "\n".join(head + decls + body + ["DONE:", "ret;", "}"]) + "\n"
    return GroupKernel(text, list(group), [first + line for line in lines])


# -- classification -----------------------------------------------------------------------------


@dataclass
class FormTable:
    """The compiler's verdict on every modelled form."""

    supported: list[Form] = field(default_factory=list)
    rejected: dict[str, str] = field(default_factory=dict)
    """spelling -> the compiler's ``unsupported: ...`` sentence."""
    invalid: dict[str, str] = field(default_factory=dict)
    """spelling -> the frontend's error (the model accepts it; the compiler calls it invalid PTX)."""
    code: dict[str, bytes] = field(default_factory=dict)
    """opcode -> the code object of its group kernel (all supported instances of that opcode)."""
    kernels: dict[str, GroupKernel] = field(default_factory=dict)

    @property
    def uncovered(self) -> dict[str, str]:
        return {f.spelling: gap for f in self.supported if (gap := f.harness_gap) is not None}


def _blamed(error: Ptx2GcnError, kernel: GroupKernel) -> int | None:
    span = error.span
    if span is None:
        return None
    line = span.line
    for index, inst_line in enumerate(kernel.lines):
        if inst_line == line:
            return index
    return None


CHUNK = 48
"""Forms per group kernel: small enough that peeling a rejected form re-lowers little."""


def _lower(text: str) -> None:
    """Parse, check, build IR, run the passes and lower to LLVM IR: every ``unsupported`` verdict
    the compiler gives comes from these stages, at a fraction of a full compile's cost."""
    from ptx2gcn.compiler import compile_llvm

    compile_llvm(text, optimised=False)


def _build(text: str) -> bytes:
    from ptx2gcn.compiler import compile as compile_ptx

    return compile_ptx(text).data


def classify(forms: Sequence[Form], *, build: bool = True) -> FormTable:
    """Sort ``forms`` into supported / rejected / invalid; with ``build``, also compile one code
    object per chunk of supported forms (``FormTable.code``/``kernels``, keyed ``opcode#chunk``)."""
    table = FormTable()
    by_opcode: dict[str, list[Form]] = {}
    for form in forms:
        by_opcode.setdefault(form.opcode, []).append(form)
    for opcode, group in by_opcode.items():
        for start in range(0, len(group), CHUNK):
            key = f"{opcode}#{start // CHUNK}"
            accepted = _peel(group[start : start + CHUNK], table)
            table.supported.extend(accepted)
            if build and accepted:
                kernel = group_kernel([inst for f in accepted for inst in instances(f)])
                table.kernels[key] = kernel
                table.code[key] = _build(kernel.ptx)
    return table


def _peel(pending: list[Form], table: FormTable) -> list[Form]:
    """The forms of ``pending`` that lower, recording the others in ``table``."""
    while pending:
        kernel = group_kernel([inst for f in pending for inst in instances(f)])
        try:
            _lower(kernel.ptx)
            return pending
        except Ptx2GcnError as error:
            index = _blamed(error, kernel)
            if index is None:
                if len(pending) == 1:
                    table.invalid[pending[0].spelling] = str(error)
                    return []
                half = len(pending) // 2
                return _peel(pending[:half], table) + _peel(pending[half:], table)
            culprit = kernel.instances[index].form
            target = table.rejected if isinstance(error, UnsupportedError) else table.invalid
            target[culprit.spelling] = str(error)
            pending = [f for f in pending if f is not culprit]
    return []


# -- running ------------------------------------------------------------------------------------


@dataclass
class FormOutcome:
    spelling: str
    lanes: int
    failures: list[str]

    @property
    def ok(self) -> bool:
        return not self.failures


def instance_seed(inst: Instance, seed: int) -> int:
    """A per-instance seed that does not depend on the instance's place in its group kernel, so a
    form sees the same operands however the table is chunked."""
    return (seed * 1_000_003 + zlib.crc32(inst.label.encode())) & 0xFFFFFFFF


def operand_columns(inst: Instance, lanes: int, seed: int) -> list[npt.NDArray[np.generic]]:
    """Edge-biased operands for ``inst`` (immediates broadcast), from ``reference.sampling``; the
    first lanes hold the form's ``fuzz_known.FAILING_INPUTS`` (inputs that once exposed a bug)."""
    if inst.form.is_warp:  # the sampler gives one 32-lane warp per call
        warps = [operands_for(inst.form.spelling, WARP, seed + 104729 * w) for w in range(-(-lanes // WARP))]
        columns = [np.concatenate(parts)[:lanes] for parts in zip(*warps)] if warps and warps[0] else []
    else:
        columns = operands_for(inst.form.spelling, lanes, seed)
    for k, value in inst.immediates:
        columns[k] = np.full(lanes, value, dtype=inst.form.sources[k].dtype)
    for lane, operands in enumerate(FAILING_INPUTS.get(inst.form.spelling, ())[:lanes]):
        for k, bits in enumerate(operands):
            columns[k][lane] = bits
    return columns


def _column_bytes(t: PtxType, column: npt.NDArray[np.generic]) -> bytes:
    if t.kind == "pred":
        return np.asarray(column, dtype=np.uint8).tobytes()
    return np.ascontiguousarray(column).astype(t.dtype, copy=False).tobytes()


def run_group(
    code: bytes,
    kernel: GroupKernel,
    lanes: int,
    seed: int,
    columns: dict[int, list[npt.NDArray[np.generic]]] | None = None,
) -> list[FormOutcome]:
    """Run one group kernel on the emulator with ``lanes`` threads; compare every instance."""
    from ptx2gcn.fuzz_device import run_kernel

    inputs: list[bytes] = []
    all_columns: list[list[npt.NDArray[np.generic]]] = []
    for j, inst in enumerate(kernel.instances):
        cols = (
            columns[j]
            if columns and j in columns
            else operand_columns(inst, lanes, instance_seed(inst, seed))
        )
        all_columns.append(cols)
        fixed = dict(inst.immediates)
        inputs += [
            _column_bytes(t, c) for k, (t, c) in enumerate(zip(inst.form.sources, cols)) if k not in fixed
        ]
    out_size = sum(storage_bytes(t) for inst in kernel.instances for t in inst.form.destinations) * lanes
    raw = run_kernel(code, "k", b"".join(inputs), out_size, lanes)
    outcomes: list[FormOutcome] = []
    offset = 0
    for inst, cols in zip(kernel.instances, all_columns):
        actual = []
        for t in inst.form.destinations:
            size = storage_bytes(t) * lanes
            chunk = np.frombuffer(
                raw[offset : offset + size], dtype=np.uint8 if t.kind == "pred" else t.dtype
            )
            actual.append(chunk.astype(np.bool_) if t.kind == "pred" else chunk)
            offset += size
        outcomes.append(FormOutcome(inst.label, lanes, compare(inst, cols, actual)))
    return outcomes


def compare(
    inst: Instance,
    columns: Sequence[npt.NDArray[np.generic]],
    actual: Sequence[npt.NDArray[np.generic]],
    limit: int = 5,
) -> list[str]:
    """Readable failing lanes of one instance (empty when every lane is within the model); warp
    instructions are judged 32 lanes (one converged warp) at a time."""
    if inst.form.is_warp:
        oks, results = [], []
        for start in range(0, len(actual[0]), WARP):
            part = slice(start, start + WARP)
            results.append(run(inst.form.spelling, *(c[part] for c in columns)))
            oks.append(results[-1].matches(*(a[part] for a in actual)))
        ok = np.concatenate(oks)

        def explain(lane: int) -> str:
            return results[lane // WARP].explain(lane % WARP)
    else:
        result: Result = run(inst.form.spelling, *columns)
        ok = result.matches(*actual)

        def explain(lane: int) -> str:
            return result.explain(lane)

    failures: list[str] = []
    for lane in np.nonzero(~np.asarray(ok))[0][:limit]:
        ins = ", ".join(_hex(c[lane]) for c in columns)
        got = ", ".join(_hex(a[lane]) for a in actual)
        want = explain(int(lane)).replace("\n", "; ")
        failures.append(f"{inst.label} lane {lane}: inputs ({ins}) -> got {got}; expected {want}")
    missing = int((~np.asarray(ok)).sum()) - len(failures)
    if missing > 0:
        failures.append(f"... {missing} more lanes differ")
    return failures


def _hex(value: object) -> str:
    array = np.asarray(value)
    if array.dtype.kind == "b":
        return str(bool(array))
    return f"0x{int(array):x}"


def summary_line(covered: int, table: FormTable) -> str:
    return (
        f"conformance: {covered} forms covered / {len(table.supported)} supported / "
        f"{len(table.rejected)} rejected by the compiler"
    )


def run_all(table: FormTable, lanes: int, seed: int) -> dict[str, list[str]]:
    """Run every covered form; spelling -> failure lines (empty: every lane matched). A group whose
    launch fails (an emulator error) is rerun form by form, so one bad form blames only itself."""
    results: dict[str, list[str]] = {}
    for key, kernel in table.kernels.items():
        if any(inst.form.harness_gap for inst in kernel.instances):
            continue
        try:
            outcomes = run_group(table.code[key], kernel, lanes, seed)
        except Exception:  # noqa: BLE001 - isolated below, per form
            outcomes = []
            for form in dict.fromkeys(inst.form for inst in kernel.instances):
                outcomes += _run_alone(form, lanes, seed)
        for outcome in outcomes:
            results.setdefault(outcome.spelling.split(" ")[0], []).extend(outcome.failures)
    return results


def _run_alone(form: Form, lanes: int, seed: int) -> list[FormOutcome]:
    kernel = group_kernel(instances(form))
    try:
        return run_group(_build(kernel.ptx), kernel, lanes, seed)
    except Exception as error:  # noqa: BLE001 - reported as this form's failure
        return [FormOutcome(form.spelling, lanes, [f"{form.spelling}: {type(error).__name__}: {error}"])]


# -- the slow sweep -----------------------------------------------------------------------------

SWEEP_BITS = 16
"""Source operands at most this wide are swept exhaustively (all 2^16 patterns of one operand)."""


def is_narrow(form: Form) -> bool:
    fixed = dict(instances(form)[0].immediates)
    widths = [t.width for k, t in enumerate(form.sources) if k not in fixed and t.kind != "pred"]
    return bool(widths) and max(widths) <= SWEEP_BITS


def sweep_columns(inst: Instance, seed: int) -> list[list[npt.NDArray[np.generic]]]:
    """Exhaustive operand sets for a narrow instance: every pattern of the whole input space when
    it has at most 2^16 points (e.g. one 16-bit or two 8-bit sources), else every pattern of each
    source in turn with edge-biased values in the others. Each set has 2^16 lanes."""
    form = inst.form
    lanes = 1 << SWEEP_BITS
    fixed = dict(inst.immediates)
    free = [k for k, t in enumerate(form.sources) if k not in fixed and t.kind != "pred"]
    total = sum(form.sources[k].width for k in free)
    base = _tiled(inst, lanes, seed)
    if total <= SWEEP_BITS:
        index = np.arange(lanes, dtype=np.uint64)
        shift = 0
        for k in free:
            width = form.sources[k].width
            base[k] = ((index >> np.uint64(shift)) & np.uint64((1 << width) - 1)).astype(
                form.sources[k].dtype
            )
            shift += width
        return [base]
    sets = []
    for k in free:
        cols = _tiled(inst, lanes, seed + 1000 * (k + 1))
        width = form.sources[k].width
        cols[k] = (np.arange(lanes, dtype=np.uint64) % np.uint64(1 << width)).astype(form.sources[k].dtype)
        sets.append(cols)
    return sets


def _tiled(inst: Instance, lanes: int, seed: int, distinct: int = 4096) -> list[npt.NDArray[np.generic]]:
    """Edge-biased columns of ``lanes`` lanes built from ``distinct`` samples (sampling is the
    slow part; the swept operand supplies the variety)."""
    return [np.tile(c, lanes // distinct) for c in operand_columns(inst, distinct, seed)]


def run_sweep(table: FormTable, key: str, seed: int) -> dict[str, list[str]]:
    """Every narrow form of group ``key`` swept exhaustively, in a kernel of only those forms;
    spelling -> failure lines."""
    narrow = [inst for inst in table.kernels[key].instances if is_narrow(inst.form)]
    if not narrow:
        return {}
    kernel = group_kernel(narrow)
    code = _build(kernel.ptx)
    per_instance = [sweep_columns(inst, instance_seed(inst, seed)) for inst in narrow]
    results: dict[str, list[str]] = {}
    for r in range(max(len(s) for s in per_instance)):
        columns = {j: s[min(r, len(s) - 1)] for j, s in enumerate(per_instance)}
        for outcome in run_group(code, kernel, 1 << SWEEP_BITS, seed + 7919 * r, columns):
            results.setdefault(outcome.spelling.split(" ")[0], []).extend(outcome.failures)
    return results
