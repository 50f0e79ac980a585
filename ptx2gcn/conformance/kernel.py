"""Group kernels of the conformance suite: many one-instruction instances in one PTX kernel.

Harness: every thread ``i`` of a group kernel loads operand ``k`` of instance ``j`` from
``in + off(j, k) + i * size`` and stores destination ``m`` to ``out + off(j, m) + i * size``;
predicates travel as ``u8`` (0/1). Immediate-only operands are fixed per ``Instance``. Carry forms
get CC.CF set/read around them, ``atom``/``red`` find their old value in the output slot of the new
memory value, warp-wide forms run with a full membermask on converged warps.

Invariant: ``GroupKernel.lines[j]`` is the 1-based PTX line of instance ``j``'s instruction, so a
compiler diagnostic blaming that line names exactly one form.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ptx2gcn.conformance.forms import BAR_DESTINATIONS, Form
from ptx2gcn.reference.ptxtypes import PtxType
from ptx2gcn.reference.video import operand_syntax


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
    with ``addc.u32 r, 0, 0`` (``subc`` after a subtraction, whose CC.CF is the inverted borrow).
    Memory forms find their old value already stored at ``%rd5``, the slot of their last destination
    (the new memory value)."""
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
    if "=" in form.spelling:  # operand selectors / negation of the video forms
        syntax = operand_syntax(form.spelling)
        decorated = [syntax.operand(name, text) for name, text in zip("abc", sources)]
        out.append(f"{syntax.spelling} {syntax.operand('d', dests[0])}, {', '.join(decorated)};")
        return out
    if form.opcode == "match":
        dest = "|".join(dests) if ".all." in f".{form.spelling}." else dests[0]
    else:
        dest = "|".join(dests) if form.opcode in BAR_DESTINATIONS else ", ".join(dests)
    out.append(f"{form.spelling} {', '.join([dest, *sources])};")
    if carry_out is not None:
        # CC.CF after a subtraction is NOT the borrow (ptx2gcn/translate/alu.py _carry_flag): a
        # subc reads it back as the borrow the model reports
        reader = "subc.u32 %r6, 0, 0;" if form.opcode in ("sub", "subc") else "addc.u32 %r6, 0, 0;"
        out += [reader, f"setp.ne.u32 {carry_out}, %r6, 0;"]
    return out


@dataclass
class GroupKernel:
    """A kernel running every instance of a group (see ``group_kernel`` for the buffer layout)."""

    ptx: str
    instances: list[Instance]
    lines: list[int]
    """1-based PTX line of each instance's instruction (to map compiler diagnostics back)."""


def constant_move(t: PtxType, register: str, bits: int) -> str:
    """PTX that sets ``register`` (declared with the harness's register type for ``t``) to the
    constant ``bits`` of ``t``, spelled as an immediate the compiler folds (f32/f64 in PTX's exact
    ``0f``/``0d`` hex form, 8-bit values zero-extended as ``ld.u8`` would leave them)."""
    if t.kind == "pred":
        return f"setp.ne.u32 {register}, {bits & 1}, 0;"
    reg_type = _reg_type(t)
    if reg_type == "f32":
        return f"mov.f32 {register}, 0f{bits & 0xFFFFFFFF:08X};"
    if reg_type == "f64":
        return f"mov.f64 {register}, 0d{bits & (1 << 64) - 1:016X};"
    return f"mov.{reg_type} {register}, 0x{bits & (1 << t.width) - 1:X};"


def group_kernel(  # noqa: C901
    group: Sequence[Instance], constants: Sequence[Mapping[int, int]] | None = None
) -> GroupKernel:
    """PTX for ``k(in, out, n)``: instance j reads its source columns from ``in`` and writes its
    destination columns to ``out``; columns follow each other in instance and operand order, each
    ``n * size`` bytes (``size``: the operand's storage bytes, predicates 1).

    ``constants[j]`` maps source indices of instance j to bits that the kernel writes as immediates
    (``constant_move``) instead of loading them; their ``in`` columns keep their place (unread), so
    one ``in`` buffer serves the kernel with and without constants."""
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
        folded = constants[j] if constants else {}
        for k, t in enumerate(form.sources):
            if k in fixed:
                continue
            decls.append(f".reg .{_reg_type(t)} %s{j}_{k};")
            size = storage_bytes(t)
            if k in folded:
                body.append(constant_move(t, f"%s{j}_{k}", folded[k]))
                in_off += size
                continue
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

