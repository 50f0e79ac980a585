"""The PTX text of a fuzz program (``ptx2gcn.fuzz.program``): kernel ``fuzz(in, out)`` with a
prologue that loads every register, the body, and an epilogue that stores every register.

Invariant: the text is a pure function of the program; scratch registers (``%t``, ``%ta``,
``%lp`` ...) carry nothing from one statement to the next, so each statement's text depends only on
the program's registers, and nested loops get their own counters (``%cnt<level>``, ``%it<level>``).
"""

from __future__ import annotations

from collections.abc import Callable

from ptx2gcn.fuzz.matrix import matrix_text, region_declaration
from ptx2gcn.fuzz.program import (
    BLOCK,
    CLASSES,
    FULL_MASK,
    GRID,
    LOCAL_WORDS,
    REGS,
    SLOT,
    THREADS,
    WARP,
    Atomic,
    Call,
    If,
    LocalLoad,
    LocalStore,
    Loop,
    Matrix,
    Op,
    Program,
    SharedRotate,
    Statement,
    Warp,
    all_registers,
    children,
    reg,
)

LOOP_LEVELS = 3
"""Loop nesting the text declares counters for (the generator nests at most two)."""
SCRATCH = {"i32": "%t", "i64": "%t64", "f32": "%tf", "f64": "%td"}
"""Scratch destination per register class: where a shared-word ``atom`` drops its old value."""


def calls(body: tuple[Statement, ...]) -> list[Op]:
    found: list[Op] = []
    for st in body:
        if isinstance(st, Call):
            found.append(st.op)
        for inner in children(st):
            found += calls(inner)
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


def _memory_type(cls: str) -> str:
    return {"f32": "f32", "f64": "f64", "i64": "b64"}.get(cls, "b32")


class _Emitter:
    """The body's PTX lines; ``functions`` numbers the called ``.func``s."""

    def __init__(self, functions: list[Op]) -> None:
        self.lines: list[str] = []
        self.labels = 0
        self.loop_level = 0
        self.functions = functions
        self.handlers: dict[type, Callable[..., None]] = {
            Op: self.op,
            If: self.branch,
            Loop: self.loop,
            LocalStore: self.local_store,
            LocalLoad: self.local_load,
            SharedRotate: self.shared_rotate,
            Atomic: self.atomic,
            Warp: self.warp,
            Call: self.call,
            Matrix: lambda st: self.lines.extend(matrix_text(st)),
        }

    def label(self) -> str:
        self.labels += 1
        return f"L{self.labels}"

    def emit(self, body: tuple[Statement, ...]) -> None:
        for st in body:
            self.handlers[type(st)](st)

    def op(self, st: Op) -> None:
        guard = st.guard.text() if st.guard else ""
        sources = ", ".join(s.text() for s in st.sources)
        self.lines.append(f"{guard}{st.spelling} {st.dest.text()}, {sources};")

    def branch(self, st: If) -> None:
        other, end = self.label(), self.label()
        self.lines.append(f"@!{reg('pred', st.cond)} bra {other};")
        self.emit(st.then)
        self.lines += [f"bra {end};", f"{other}:"]
        self.emit(st.otherwise)
        self.lines.append(f"{end}:")

    def loop(self, st: Loop) -> None:
        top, end = self.label(), self.label()
        level = self.loop_level
        cnt, it = f"%cnt{level}", f"%it{level}"
        self.lines += [
            f"and.b32 {cnt}, {reg('i32', st.count)}, 3;",
            f"mov.u32 {it}, 0;",
            f"{top}:",
            f"setp.ge.u32 %lp, {it}, {cnt};",
            f"@%lp bra {end};",
        ]
        self.loop_level += 1
        self.emit(st.body)
        self.loop_level -= 1
        self.lines += [f"add.u32 {it}, {it}, 1;", f"bra {top};", f"{end}:"]

    def _local_address(self, index: int) -> None:
        self.lines += [
            f"and.b32 %t, {reg('i32', index)}, {LOCAL_WORDS - 1};",
            "mul.wide.u32 %ta, %t, 4;",
            "add.u64 %ta, %loc, %ta;",
        ]

    def local_store(self, st: LocalStore) -> None:
        self._local_address(st.index)
        self.lines.append(f"st.local.b32 [%ta], {reg('i32', st.value)};")

    def local_load(self, st: LocalLoad) -> None:
        self._local_address(st.index)
        self.lines.append(f"ld.local.b32 {reg('i32', st.dest)}, [%ta];")

    def shared_rotate(self, st: SharedRotate) -> None:
        self.lines += [
            "mul.wide.u32 %ta, %tx, 4;",
            "add.u64 %ta, %sh, %ta;",
            f"st.shared.b32 [%ta], {reg('i32', st.value)};",
            "bar.sync 0;",
            f"add.u32 %t, %tx, {st.shift};",
            f"and.b32 %t, %t, {BLOCK - 1};",
            "mul.wide.u32 %ta, %t, 4;",
            "add.u64 %ta, %sh, %ta;",
            f"ld.shared.b32 {reg('i32', st.dest)}, [%ta];",
            "bar.sync 0;",
        ]

    def atomic(self, st: Atomic) -> None:
        kind, rest = st.spelling.split(".", 1)
        spelled = f"{kind}.{st.space}.{rest}"
        memory = _memory_type(st.dest.cls)
        if st.private:
            index, base = ("%gid", "%gp") if st.space == "global" else ("%tx", "%sp")
            init = st.init.text()
            self.lines += [f"mad.wide.u32 %ta, {index}, 8, {base};", f"st.{st.space}.{memory} [%ta], {init};"]
            operands = ", ".join(o.text() for o in st.operands)
            dest = "" if kind == "red" else f"{st.dest.text()}, "
            self.lines += [f"{spelled} {dest}[%ta], {operands};", f"ld.{st.space}.{memory} {init}, [%ta];"]
            return
        word = "%gw" if st.space == "global" else "%sw"
        self.lines.append("setp.eq.u32 %lp, %tx, 0;")
        if st.integral:
            scratch = SCRATCH[st.dest.cls]
            zero = "0f00000000" if st.dest.cls == "f32" else "0d0000000000000000"
            self.lines += [f"mov.{st.dest.cls} {scratch}, {zero};", f"@%lp st.{st.space}.{memory} [{word}], {scratch};"]
            self.lines += ["bar.sync 0;", f"and.b32 %t, {st.operands[0].text()}, 255;"]
            self.lines.append(f"cvt.rn.{st.dest.cls}.u32 {scratch}, %t;")
            operands = scratch
        else:
            self.lines += [f"@%lp st.{st.space}.{memory} [{word}], {st.init.text()};", "bar.sync 0;"]
            operands = ", ".join(o.text() for o in st.operands)
        dest = "" if kind == "red" else f"{SCRATCH[st.dest.cls]}, "
        self.lines += [
            f"{spelled} {dest}[{word}], {operands};",
            "bar.sync 0;",
            f"ld.{st.space}.{memory} {st.dest.text()}, [{word}];",
            "bar.sync 0;",
        ]

    def warp(self, st: Warp) -> None:
        skip = None
        if st.membermask != FULL_MASK:
            skip = self.label()
            self.lines += [
                f"mov.u32 %t, {st.membermask};",
                "shr.b32 %t, %t, %ln;",
                "and.b32 %t, %t, 1;",
                "setp.eq.u32 %lp, %t, 0;",
                f"@%lp bra {skip};",
            ]
        dest = st.op.dest.text()
        if st.pred_dest is not None:
            dest += f"|{reg('pred', st.pred_dest)}"
        sources = "".join(f"{x.text()}, " for x in st.op.sources)
        self.lines.append(f"{st.op.spelling} {dest}, {sources}{st.membermask};")
        if skip is not None:
            self.lines.append(f"{skip}:")

    def call(self, st: Call) -> None:
        number = self.functions.index(st.op)
        out = self.lines.append
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


PROLOGUE = [
    ".reg .b32 %t, %tx, %gid, %ln, %cta;",
    f".reg .b32 %cnt<{LOOP_LEVELS}>, %it<{LOOP_LEVELS}>;",
    ".reg .b64 %t64, %ta, %in, %out, %loc, %sh, %gp, %sp, %gw, %sw;",
    ".reg .f32 %tf;",
    ".reg .f64 %td;",
    ".reg .pred %lp;",
    f".local .align 4 .b32 loc[{LOCAL_WORDS}];",
    f".shared .align 4 .b32 sh[{BLOCK}];",
    f".shared .align 8 .b64 spriv[{BLOCK}];",
    ".shared .align 8 .b64 sword;",
    "mov.u32 %tx, %tid.x;",
    "mov.u32 %cta, %ctaid.x;",
    f"mad.lo.u32 %gid, %cta, {BLOCK}, %tx;",
    "and.b32 %ln, %tx, 31;",
    "ld.param.u64 %in, [pin];",
    "ld.param.u64 %out, [pout];",
    "cvta.to.global.u64 %in, %in;",
    "cvta.to.global.u64 %out, %out;",
    "mov.u64 %loc, loc;",
    "mov.u64 %sh, sh;",
    "mov.u64 %gp, gpriv;",
    "mov.u64 %sp, spriv;",
    "mov.u64 %gw, gword;",
    "mad.wide.u32 %gw, %cta, 8, %gw;",
    "mov.u64 %sw, sword;",
]
MODULE_VARIABLES = [f".global .align 8 .b64 gpriv[{THREADS}];", f".global .align 8 .b64 gword[{GRID}];"]


def _load_register(cls: str, register: str, address: str) -> list[str]:
    if cls == "pred":
        return [f"ld.global.u32 %t, {address};", f"setp.ne.u32 {register}, %t, 0;"]
    return [f"ld.global.{CLASSES[cls][1]} {register}, {address};"]


def _store_register(cls: str, register: str, address: str) -> list[str]:
    if cls == "pred":
        return [f"selp.u32 %t, 1, 0, {register};", f"st.global.u32 {address}, %t;"]
    return [f"st.global.{CLASSES[cls][1]} {address}, {register};"]


def _register_transfers(base: str, transfer: Callable[[str, str, str], list[str]]) -> list[str]:
    """Every register of the program loaded from or stored to its slot of this thread in the
    ``base`` buffer (one row of ``THREADS`` slots per register, in ``all_registers`` order)."""
    lines = []
    for row, (cls, i) in enumerate(all_registers()):
        lines.append(f"mad.wide.u32 %ta, %gid, {SLOT}, {base};")
        lines += transfer(cls, reg(cls, i), f"[%ta+{row * THREADS * SLOT}]")
    return lines


def ptx_text(program: Program) -> str:
    """The kernel ``fuzz(in, out)``: prologue loads, body, epilogue stores."""
    functions = list(dict.fromkeys(calls(program.body)))
    emitter = _Emitter(functions)
    emitter.emit(program.body)
    lines = [".version 8.7", ".target sm_90", ".address_size 64", "", *MODULE_VARIABLES, ""]
    for number, op in enumerate(functions):
        lines += _func_text(op, number) + [""]
    reqntid = f" .reqntid {BLOCK}" if program.fixed_block else ""
    lines += [f".visible .entry fuzz(.param .u64 pin, .param .u64 pout){reqntid}", "{"]
    for prefix, decl, _ in CLASSES.values():
        lines.append(f".reg .{decl} {prefix}<{REGS}>;")
    lines += PROLOGUE
    if any(isinstance(st, Matrix) and st.kind in ("ldmatrix", "stmatrix", "wmma") for st in program.body):
        lines.append(region_declaration(BLOCK // WARP))
    lines += _register_transfers("%in", _load_register)
    for k in range(LOCAL_WORDS):
        lines.append(f"st.local.b32 [%loc+{4 * k}], {reg('i32', k % REGS)};")
    lines += emitter.lines
    lines += _register_transfers("%out", _store_register)
    lines += ["ret;", "}"]
    return "\n".join(lines) + "\n"
