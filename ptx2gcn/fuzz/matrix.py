"""The warp-matrix family of fuzz programs: which ``mma``/``ldmatrix``/``stmatrix``/``movmatrix``/
``wmma`` forms the generator draws, how a ``program.Matrix`` statement is drawn, and its PTX text.

Every form fits the program's register file: destinations are distinct registers of one class
(at most ``REGS``), sources may repeat registers. Memory forms use the warp's own ``REGION`` bytes
of the shared array ``fmat`` and separate their phases with ``bar.warp.sync`` (a lane reads rows
other lanes wrote). The expected values are in ``fuzz.matrix_eval``.

Invariant: a ``Matrix`` statement is only ever placed at the top level (the generator's
``converged`` point), so the whole warp executes each ``.aligned`` instruction; its text uses only
scratch registers declared in its own ``{ }`` scope besides the program's registers.
"""

from __future__ import annotations

import random

from ptx2gcn.fuzz.program import REGS, WARP, Matrix, Operand
from ptx2gcn.reference.mma import mma_form

REGION = 1536
"""Shared bytes per warp: 32 rows of 16 bytes (ldmatrix/stmatrix), or wmma's A, B and C."""
MMA_FORMS = (
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
    "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16",
    "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
    "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32",
    "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
    "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32",
    "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
    "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32",
    "mma.sync.aligned.m16n8k16.row.col.s32.s8.u8.s32",
    "mma.sync.aligned.m8n8k16.row.col.satfinite.s32.u8.u8.s32",
    "mma.sync.aligned.m8n8k32.row.col.s32.s4.u4.s32",
    "mma.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.s4.s32",
    "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.xor.popc",
    "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc",
    "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32",
    "mma.sync.aligned.m16n8k16.row.col.f16.e5m2.e5m2.f16",
    "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
    "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64",
    "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64",
    "mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16",
    "mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f16",
)
"""mma forms (several shapes and types of every family) whose D fits ``REGS`` registers; all
accepted by ptxas (``conformance/matrix_ptxas.json``: it refuses mixed f16/f32 C and D types
except Volta's f32 D with f16 C)."""
LDST_FORMS = tuple(
    f"{op}.sync.aligned.m8n8.x{num}{trans}.shared.b16"
    for op in ("ldmatrix", "stmatrix") for num in (1, 2, 4) for trans in ("", ".trans")
)
MOVMATRIX = "movmatrix.sync.aligned.m8n8.trans.b16"
WMMA_FORMS = ("wmma.mma.sync.aligned.m16n16k16.f16.f16", "wmma.mma.sync.aligned.m8n8k4.f64.f64.f64.f64")
"""wmma load/mma/store sequences (layouts drawn per statement): f16 A/B/C/D, f64."""
TYPE_CLASS = {"f16": "h32", "bf16": "h32", "f32": "f32", "f64": "f64"}
"""Register class of an mma operand's element type (all others: ``i32``, i.e. ``.b32``)."""
SMALL_TYPES = frozenset({"f16", "bf16", "tf32", "f32", "f64"})


def all_matrix_spellings() -> tuple[str, ...]:
    return (*MMA_FORMS, *LDST_FORMS, MOVMATRIX, *WMMA_FORMS)


def type_class(ptx_type: str) -> str:
    return TYPE_CLASS.get(ptx_type, "i32")


def mma_operand_types(spelling: str) -> tuple[tuple[str, int], ...]:
    """(element type, registers) of A, B, C, D."""
    form = mma_form(spelling)
    return ((form.atype, form.shape.a.regs), (form.btype, form.shape.b.regs), (form.ctype, form.c_frag.regs),
            (form.dtype, form.d_frag.regs))


def wmma_operands(spelling: str) -> tuple[str, int]:
    """(register class, registers per lane for each of A, B, C and D) of a fuzz wmma sequence."""
    return ("f64", 1) if ".f64" in spelling else ("h32", 4)


def _regs(rng: random.Random, cls: str, count: int) -> tuple[Operand, ...]:
    return tuple(Operand(cls, rng.randrange(REGS)) for _ in range(count))


def _dests(rng: random.Random, cls: str, count: int) -> tuple[Operand, ...]:
    return tuple(Operand(cls, i) for i in rng.sample(range(REGS), count))


def generate_matrix(rng: random.Random, avoid: frozenset[str], small_only: frozenset[str] = frozenset()
                    ) -> Matrix | None:
    """A random warp-matrix statement (None when every form is avoided); forms in ``small_only``
    always get small-integer data."""
    spellings = [s for s in all_matrix_spellings() if s not in avoid]
    if not spellings:
        return None
    spelling = rng.choice(spellings)
    small = rng.random() < 0.5 or spelling in small_only
    if spelling.startswith("mma"):
        (at, na), (bt, nb), (ct, nc), (dt, nd) = mma_operand_types(spelling)
        sources = (_regs(rng, type_class(at), na), _regs(rng, type_class(bt), nb), _regs(rng, type_class(ct), nc))
        return Matrix("mma", spelling, _dests(rng, type_class(dt), nd), sources, small)
    if spelling == MOVMATRIX:
        cls = rng.choice(("i32", "h32"))
        return Matrix("movmatrix", spelling, _dests(rng, cls, 1), (_regs(rng, rng.choice(("i32", "h32")), 1),))
    if spelling.startswith("wmma"):
        cls, count = wmma_operands(spelling)
        sources = tuple(_regs(rng, cls, count * (2 if k == 2 and cls == "f64" else 1)) for k in range(3))
        layouts = tuple(rng.choice(("row", "col")) for _ in range(4))
        return Matrix("wmma", spelling, _dests(rng, cls, count * (2 if cls == "f64" else 1)), sources, small,
                      layouts=layouts)
    kind = spelling.split(".")[0]
    num = int(spelling.split(".x")[1][0])
    fill = tuple(Operand(rng.choice(("i32", "h32")), rng.randrange(REGS)) for _ in range(4))
    perm = (rng.randrange(1, WARP, 2), rng.randrange(WARP))
    cls = rng.choice(("i32", "h32"))
    if kind == "ldmatrix":
        return Matrix(kind, spelling, _dests(rng, cls, num), (fill,), perm=perm)
    return Matrix(kind, spelling, _dests(rng, cls, 4), (fill, _regs(rng, cls, num)), perm=perm)


def conditioning(st: Matrix) -> list[tuple[Operand, str, int]]:
    """The registers a ``small`` statement overwrites first, once each in this order, with the
    element type and the range ``2^bits`` of the small integers (``(x & (2^bits - 1)) - 2^(bits-1)``)."""
    if not st.small:
        return []
    if st.kind == "wmma":
        etype = "f64" if ".f64" in st.spelling else "f16"
        typed = [(op, etype, 7 if k == 2 else 4) for k, group in enumerate(st.sources) for op in group]
    else:
        form = mma_form(st.spelling)
        types = (form.atype, form.btype, form.ctype)
        typed = [(op, types[k], 7 if k == 2 and types[k] in ("f32", "f64") else 4)
                 for k, group in enumerate(st.sources) for op in group]
    seen: set[Operand] = set()
    out = []
    for op, etype, bits in typed:
        if etype in SMALL_TYPES and op not in seen:
            seen.add(op)
            out.append((op, etype, bits))
    return out


def _condition_text(op: Operand, etype: str, bits: int) -> list[str]:
    r = op.text()
    mask, bias = (1 << bits) - 1, 1 << (bits - 1)
    if etype in ("f16", "bf16"):
        lines = []
        for half, shift in ((0, 0), (1, 16)):
            lines += [f"shr.u32 %mt, {r}, {shift};", f"and.b32 %mt, %mt, {mask};", f"sub.s32 %mt, %mt, {bias};",
                      f"cvt.rn.f32.s32 %mf{half}, %mt;"]
        return [*lines, f"cvt.rn.{etype}x2.f32 {r}, %mf1, %mf0;"]
    if etype == "f64":
        return ["mov.b64 %m64, " + r + ";", "cvt.u32.u64 %mt, %m64;", f"and.b32 %mt, %mt, {mask};",
                f"sub.s32 %mt, %mt, {bias};", f"cvt.rn.f64.s32 {r}, %mt;"]
    head = [f"mov.b32 %mt, {r};", f"and.b32 %mt, %mt, {mask};", f"sub.s32 %mt, %mt, {bias};"]
    if etype == "f32":
        return [*head, f"cvt.rn.f32.s32 {r}, %mt;"]
    return [*head, "cvt.rn.f32.s32 %mf0, %mt;", f"mov.b32 {r}, %mf0;"]  # tf32 in a .b32 register


def _brace(ops: tuple[Operand, ...] | list[str]) -> str:
    return "{" + ", ".join(o if isinstance(o, str) else o.text() for o in ops) + "}"


SYNC = "bar.warp.sync -1;"
BASE = ["mov.u64 %mw, fmat;", "shr.u32 %mt, %tx, 5;", f"mul.wide.u32 %ma, %mt, {REGION};", "add.u64 %mw, %mw, %ma;"]
"""``%mw``: the warp's shared region."""


def _row(lane_expr: str, stride: int, offset: int = 0) -> list[str]:
    """``%ma`` = region + offset + stride * lane_expr."""
    return [f"mul.wide.u32 %ma, {lane_expr}, {stride};", "add.u64 %ma, %mw, %ma;"] + (
        [f"add.u64 %ma, %ma, {offset};"] if offset else [])


def _store_rows(ops: tuple[Operand, ...], offset: int) -> list[str]:
    if ops[0].cls == "f64":
        vec = ".v2.f64" if len(ops) == 2 else ".f64"
        stride = 8 * len(ops)
    else:
        vec, stride = ".v4.b32", 16
    return [*_row("%ln", stride, offset), f"st.shared{vec} [%ma], {_brace(ops) if len(ops) > 1 else ops[0].text()};"]


def _wmma_text(st: Matrix) -> list[str]:
    f64 = ".f64" in st.spelling
    shape, etype = ("m8n8k4", "f64") if f64 else ("m16n16k16", "f16")
    dims = {"a": (8, 4), "b": (4, 8), "c": (8, 8)} if f64 else {"a": (16, 16), "b": (16, 16), "c": (16, 16)}
    offsets = {"a": 0, "b": 256, "c": 512} if f64 else {"a": 0, "b": 512, "c": 1024}
    regs = {"a": 1, "b": 1, "c": 2, "d": 2} if f64 else {"a": 8, "b": 8, "c": 4, "d": 4}
    decl = ".f64" if f64 else ".b32"
    lines = [f".reg {decl} %w{w}<{n}>;" for w, n in regs.items()]
    for k, which in enumerate("abc"):
        lines += _store_rows(st.sources[k], offsets[which])
    lines.append(SYNC)
    layout = dict(zip("abcd", st.layouts))

    def stride(which: str) -> int:
        rows, cols = dims["c" if which == "d" else which]
        return cols if layout[which] == "row" else rows

    for which in "abc":
        frag = _brace([f"%w{which}{i}" for i in range(regs[which])])
        lines.append(f"wmma.load.{which}.sync.aligned.{layout[which]}.{shape}.shared.{etype} {frag}, "
                     f"[%mw+{offsets[which]}], {stride(which)};")
    types = "f64.f64.f64.f64" if f64 else "f16.f16"
    frags = ", ".join(_brace([f"%w{w}{i}" for i in range(regs[w])]) for w in "dabc")
    lines += [f"wmma.mma.sync.aligned.{layout['a']}.{layout['b']}.{shape}.{types} {frags};", SYNC]
    lines.append(f"wmma.store.d.sync.aligned.{layout['d']}.{shape}.shared.{etype} [%mw+{offsets['c']}], "
                 f"{_brace([f'%wd{i}' for i in range(regs['d'])])}, {stride('d')};")
    lines.append(SYNC)
    vec = ".v2.f64" if f64 else ".v4.b32"
    lines += [*_row("%ln", 16, offsets["c"]), f"ld.shared{vec} {_brace(st.dests)}, [%ma];", SYNC]
    return lines


def matrix_text(st: Matrix) -> list[str]:
    """The statement's PTX, in its own scope."""
    lines = ["{", ".reg .b32 %mt, %mr;", ".reg .b64 %mw, %ma, %m64;", ".reg .f32 %mf<2>;"]
    for op, etype, bits in conditioning(st):
        lines += _condition_text(op, etype, bits)
    if st.kind == "mma":
        lines.append(f"{st.spelling} {_brace(st.dests)}, {', '.join(_brace(g) for g in st.sources)};")
    elif st.kind == "movmatrix":
        lines.append(f"{st.spelling} {st.dests[0].text()}, {st.sources[0][0].text()};")
    elif st.kind == "wmma":
        lines += BASE + _wmma_text(st)
    else:
        mul, add = st.perm
        lines += BASE + _store_rows(st.sources[0], 0) + [SYNC]
        lines += [f"mad.lo.u32 %mr, %ln, {mul}, {add};", "and.b32 %mr, %mr, 31;", *_row("%mr", 16)]
        if st.kind == "ldmatrix":
            lines += [f"{st.spelling} {_brace(st.dests)}, [%ma];", SYNC]
        else:
            lines += [f"{st.spelling} [%ma], {_brace(st.sources[1])};", SYNC]
            lines += [*_row("%ln", 16), f"ld.shared.v4.b32 {_brace(st.dests)}, [%ma];", SYNC]
    return [*lines, "}"]


def region_declaration(warps: int) -> str:
    return f".shared .align 16 .b8 fmat[{warps * REGION}];"
