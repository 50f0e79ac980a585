"""Lowering of PTX arithmetic, logic, comparison, move and conversion instructions to IR ops.

Invariant: each function here lowers one PTX instruction family to ops of the same name (see
``ptx2gcn.ir.opcodes``) with every modifier either turned into an attribute or rejected (``Mods.done``),
and emits only side-effect-free ops (so a guarded instance may be lowered to a ``selp``). Implicit
PTX behaviours become explicit: ``.cc`` carries are the pseudo-register ``%cc``; ``setp`` with a
boolean operator or two destinations is a compare plus predicate logic; ``set``/``slct`` are a
compare plus ``selp``; ``mov`` with braces is ``pack``/``unpack``.
"""

from __future__ import annotations

import re
from typing import Protocol

from ptx2gcn.frontend import ast
from ptx2gcn.ir.core import Value
from ptx2gcn.ir.types import I32, PRED, PackedType, Type, int_type, is_signed, ptx_type
from ptx2gcn.translate.arith_forms import (
    check_minmax,
    check_mul_mode,
    instruction_type,
    instruction_value_type,
    minmax_flags,
    reject_on_packed,
)
from ptx2gcn.translate.cluster import lower_cvta_cluster
from ptx2gcn.translate.cvt_pack import lower_cvt_pack
from ptx2gcn.translate.cvt_rules import rounding_problem
from ptx2gcn.translate.emitter import FnCtx
from ptx2gcn.translate.modifiers import Mods
from ptx2gcn.translate.target_gates import check_arith_features

CMP_OPS = frozenset("eq ne lt le gt ge lo ls hi hs equ neu ltu leu gtu geu num nan".split())
BOOL_OPS = frozenset({"and", "or", "xor"})


class Lowering(Protocol):
    def __call__(self, ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None: ...


def operands(ctx: FnCtx, ins: ast.Instruction, *counts: int) -> tuple[ast.Operand, ...]:
    """The operands, checking that their number is one of ``counts``."""
    if len(ins.operands) not in counts:
        want = " or ".join(str(c) for c in counts)
        raise ctx.error(ins.span, f"'{ins.opcode}' takes {want} operands, got {len(ins.operands)}")
    return ins.operands


def _arith_attrs(mods: Mods) -> dict[str, str | bool | None]:
    return {"rnd": mods.rounding(), "ftz": mods.take("ftz"), "sat": mods.take("sat")}


def _carry_flag(ctx: FnCtx, opcode: str, value: Value) -> Value:
    """``%cc`` holds the hardware CC.CF: for a subtraction that is the carry of ``a + ~b + 1``, i.e.
    NOT the borrow that the IR ops ``sub``-with-carry/``subc`` produce and consume (the PTX ISA's
    wording). ptxas folds ``sub.cc 0, 1; addc 0, 0`` to 0 and ``add.cc 0, 1; subc 5, 0`` to 4, and
    nvcc's inlined 128-bit division reads a subtraction's flag with ``addc``. The flag is inverted
    where a subtraction writes or reads ``%cc``, so chains mixing add and sub carry what hardware does."""
    return ctx.value("not", (value,), PRED, type="pred") if opcode in ("sub", "subc") else value


class BinaryForm:
    """What the opcode and modifiers of a binary ALU instruction decode to (``binary_form``)."""

    __slots__ = ("carry", "t_name", "type", "signed", "result", "mode", "attrs")

    def __init__(self, carry: bool, t_name: str, mode: str | None, attrs: dict[str, str | bool | None]) -> None:
        self.carry = carry
        """``add.cc``/``sub.cc``: the op is ``addc``/``subc`` and writes ``%cc``."""
        self.t_name = t_name
        self.type: Type = instruction_value_type(t_name)
        self.signed = is_signed(t_name)
        self.result: Type = int_type(2 * self.type.bits) if mode == "wide" else self.type
        self.mode = mode
        self.attrs = attrs
        """The IR attributes besides ``type`` and ``mode`` (rounding, ftz, sat or min/max flags)."""


def binary_form(ctx: FnCtx, ins: ast.Instruction, mods: Mods) -> BinaryForm:
    """Decode and check the modifiers of ``ins`` (add sub mul div rem min max and or xor copysign),
    or raise the located error. Decoded once per distinct opcode and modifiers in a function
    (``FnCtx.forms``): the result depends on nothing else (the target is the module's)."""
    key = (ins.opcode, ins.modifiers)
    form = ctx.forms.get(key)
    if isinstance(form, BinaryForm):
        return form
    name = ins.opcode
    carry = mods.take("cc") if name in ("add", "sub") else False
    is_minmax = name in ("min", "max")
    minmax = minmax_flags(mods) if is_minmax else set[str]()
    attrs: dict[str, str | bool | None] = {} if is_minmax else _arith_attrs(mods)
    mode = mods.one_of(frozenset({"lo", "hi", "wide"})) if name == "mul" else None
    t_name = instruction_type(mods) if name in ("add", "sub", "min", "max") else mods.type()
    mods.done()
    if is_minmax:
        attrs.update(check_minmax(mods, t_name, minmax))
    else:
        reject_on_packed(mods, t_name, {**attrs, "cc": carry})
    check_arith_features(ctx, ins, t_name, attrs)
    if name == "mul":
        check_mul_mode(mods, t_name, mode)
    form = ctx.forms[key] = BinaryForm(carry, t_name, mode, attrs)
    return form


def lower_binary(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """add sub mul div rem min max and or xor copysign (+ add/sub ``.cc``)."""
    form = binary_form(ctx, ins, mods)
    name = ins.opcode
    t, signed = form.type, form.signed
    d, a, b = operands(ctx, ins, 3)
    va, vb = ctx.src(a, t, signed), ctx.src(b, t, signed)
    if form.carry:
        zero = ctx.const(PRED, 0)
        op = ctx.emit("addc" if name == "add" else "subc", (va, vb, zero), (t, PRED), type=form.t_name)
        ctx.dst(d, op.results[0])
        ctx.write_var(ctx.cc, _carry_flag(ctx, name, op.results[1]))
        return
    value = ctx.value(name, (va, vb), form.result, type=form.t_name, mode=form.mode, **form.attrs)
    ctx.dst(d, value, signed)


def lower_carry(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """addc / subc (carry in from ``%cc``, carry out with ``.cc``)."""
    carry_out = mods.take("cc")
    t_name = mods.type()
    mods.done()
    t = ptx_type(t_name)
    d, a, b = operands(ctx, ins, 3)
    carry_in = _carry_flag(ctx, ins.opcode, ctx.read_var(ctx.cc))
    op = ctx.emit(ins.opcode, (ctx.src(a, t), ctx.src(b, t), carry_in), (t, PRED), type=t_name)
    ctx.dst(d, op.results[0])
    if carry_out:
        ctx.write_var(ctx.cc, _carry_flag(ctx, ins.opcode, op.results[1]))


def lower_mad(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """mad (lo/hi/wide, float rounding), mad.cc and madc."""
    carry_out = mods.take("cc")
    carry_in = ins.opcode == "madc"
    attrs = _arith_attrs(mods)
    mode = mods.one_of(frozenset({"lo", "hi", "wide"}))
    t_name = mods.type()
    mods.done()
    check_mul_mode(mods, t_name, mode)
    t = ptx_type(t_name)
    signed = is_signed(t_name)
    d, a, b, c = operands(ctx, ins, 4)
    va, vb = ctx.src(a, t, signed), ctx.src(b, t, signed)
    if carry_out or carry_in:
        if mode == "wide":
            raise ctx.error(ins.span, "mad.wide has no carry form")
        cin = ctx.read_var(ctx.cc) if carry_in else ctx.const(PRED, 0)
        op = ctx.emit("madc", (va, vb, ctx.src(c, t, signed), cin), (t, PRED), type=t_name, mode=mode)
        ctx.dst(d, op.results[0])
        if carry_out:
            ctx.write_var(ctx.cc, op.results[1])
        return
    result = int_type(2 * t.bits) if mode == "wide" else t
    value = ctx.value("mad", (va, vb, ctx.src(c, result, signed)), result, type=t_name, mode=mode, **attrs)
    ctx.dst(d, value, signed)


def lower_ternary(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """fma sad mul24 mad24 (three or two sources of the instruction type)."""
    attrs = _arith_attrs(mods) if ins.opcode == "fma" else {"sat": mods.take("sat") or None}
    if ins.opcode == "fma" and mods.take("relu"):
        attrs["relu"] = True
    mode = mods.one_of(frozenset({"lo", "hi"})) if ins.opcode in ("mul24", "mad24") else None
    t_name = mods.type()
    mods.done()
    if ins.opcode in ("mul24", "mad24") and mode is None:
        raise ctx.error(ins.span, f"'{ins.opcode}' needs .lo or .hi")
    t = ptx_type(t_name)
    signed = is_signed(t_name)
    count = 3 if ins.opcode == "mul24" else 4
    ops = operands(ctx, ins, count)
    values = [ctx.src(o, t, signed) for o in ops[1:]]
    ctx.dst(ops[0], ctx.value(ins.opcode, values, t, type=t_name, mode=mode, **attrs), signed)


def lower_unary(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """abs neg not cnot brev popc clz bfind and the float unary functions (rcp sqrt sin ...)."""
    name = ins.opcode
    attrs: dict[str, str | bool | None] = {"ftz": mods.take("ftz")}
    if name not in ("abs", "neg", "not", "cnot", "brev", "popc", "clz", "bfind"):
        attrs["rnd"] = mods.rounding()
    if name == "bfind":
        attrs["shiftamt"] = mods.take("shiftamt")
    t_name = mods.type()
    mods.done()
    t = ptx_type(t_name)
    result: Type = I32 if name in ("popc", "clz", "bfind") else t
    d, a = operands(ctx, ins, 2)
    ctx.dst(d, ctx.value(name, (ctx.src(a, t, is_signed(t_name)),), result, type=t_name, **attrs))


def lower_testp(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    test = mods.one_of(frozenset({"finite", "infinite", "number", "notanumber", "normal", "subnormal"}))
    t_name = mods.type()
    mods.done()
    if test is None:
        raise ctx.error(ins.span, "testp needs a test (.finite, .infinite, .number, ...)")
    d, a = operands(ctx, ins, 2)
    ctx.dst(d, ctx.value("testp", (ctx.src(a, ptx_type(t_name)),), PRED, type=t_name, op=test))


def lower_bits(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """bfe (a, pos, len) and bfi (a, b, pos, len): positions and lengths are u32."""
    t_name = mods.type()
    mods.done()
    t = ptx_type(t_name)
    ops = operands(ctx, ins, 4 if ins.opcode == "bfe" else 5)
    data = [ctx.src(o, t) for o in ops[1:-2]]
    fields = [ctx.src(o, I32) for o in ops[-2:]]
    ctx.dst(ops[0], ctx.value(ins.opcode, (*data, *fields), t, type=t_name))


def lower_shift(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    t_name = mods.type()
    mods.done()
    t = ptx_type(t_name)
    d, a, b = operands(ctx, ins, 3)
    ctx.dst(d, ctx.value(ins.opcode, (ctx.src(a, t), ctx.src(b, I32)), t, type=t_name))


def lower_shf(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    direction = mods.one_of(frozenset({"l", "r"}))
    mode = mods.one_of(frozenset({"clamp", "wrap"}))
    mods.type()
    mods.done()
    if direction is None or mode is None:
        raise ctx.error(ins.span, "shf needs a direction (.l/.r) and a mode (.clamp/.wrap)")
    d, a, b, c = operands(ctx, ins, 4)
    values = [ctx.src(o, I32) for o in (a, b, c)]
    ctx.dst(d, ctx.value("shf", values, I32, dir=direction, mode=mode))


def lower_szext(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """szext.{clamp,wrap}.{u32,s32} d, a, n (PTX ISA 9.7.1.21, PTX 7.6, sm_70+)."""
    mode = mods.one_of(frozenset({"clamp", "wrap"}))
    t_name = mods.type()
    mods.done()
    if mode is None:
        raise ctx.error(ins.span, "szext needs a mode (.clamp or .wrap)")
    if t_name not in ("u32", "s32"):
        raise ctx.error(ins.span, f"szext takes .u32 or .s32, not .{t_name}")
    d, a, b = operands(ctx, ins, 3)
    ctx.dst(d, ctx.value("szext", (ctx.src(a, I32), ctx.src(b, I32)), I32, type=t_name, mode=mode))


def lower_fns(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """fns.b32 d, mask, base, offset (PTX ISA 9.7.1.17, PTX 6.0): base and offset are .b32/.u32/.s32."""
    mods.type()
    mods.done()
    d, mask, base, offset = operands(ctx, ins, 4)
    ctx.dst(d, ctx.value("fns", tuple(ctx.src(o, I32) for o in (mask, base, offset)), I32))


def lower_bmsk(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    mode = mods.one_of(frozenset({"clamp", "wrap"}))
    mods.type()
    mods.done()
    if mode is None:
        raise ctx.error(ins.span, "bmsk needs a mode (.clamp or .wrap)")
    d, a, b = operands(ctx, ins, 3)
    ctx.dst(d, ctx.value("bmsk", (ctx.src(a, I32), ctx.src(b, I32)), I32, mode=mode))


def lower_dot(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """dp4a.atype.btype d, a, b, c and dp2a.lo|hi.atype.btype d, a, b, c."""
    mode = mods.one_of(frozenset({"lo", "hi"})) if ins.opcode == "dp2a" else None
    types = mods.types()
    mods.done()
    if len(types) != 2 or not set(types) <= {"u32", "s32"}:
        raise ctx.error(ins.span, f"{ins.opcode} needs two types, each .u32 or .s32")
    if ins.opcode == "dp2a" and mode is None:
        raise ctx.error(ins.span, "dp2a needs .lo or .hi")
    d, a, b, c = operands(ctx, ins, 4)
    values = [ctx.src(o, I32) for o in (a, b, c)]
    ctx.dst(d, ctx.value(ins.opcode, values, I32, atype=types[0], btype=types[1], mode=mode))


VIDEO = frozenset({*(f"{n}{lanes}" for n in ("vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax", "vset")
                    for lanes in ("2", "4")),
                   "vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset"})
# Byte/half selectors and lane masks as the grammar spells them (``.b0``, ``.h1``, ``.b7531``, ``.h10``);
# which of them a given video form allows is checked where the form is lowered.
_SELECTOR = re.compile(r"[bh][0-7]{1,4}")


def _selected(ctx: FnCtx, operand: ast.Operand) -> tuple[ast.Operand, str | None, bool]:
    """A video operand, its byte/half selector or mask (``%r1.b0``), if any, and whether it is
    negated (``-a``, vmad only)."""
    negated = isinstance(operand, ast.Negated)
    if isinstance(operand, ast.Negated):
        operand = operand.operand
    if isinstance(operand, ast.Register) and operand.component and _SELECTOR.fullmatch(operand.component):
        return ast.Register(operand.span, operand.name), operand.component, negated
    return operand, None, negated


def lower_video(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """Scalar and SIMD video instructions: one ``video`` op carrying the PTX form exactly."""
    types = mods.types()
    attrs: dict[str, str | bool | None] = {
        "sat": mods.take("sat"), "secondary": mods.one_of(frozenset({"add", "min", "max"})),
        "shift": mods.one_of(frozenset({"clamp", "wrap"})), "cmp": mods.one_of(CMP_OPS),
        "po": mods.take("po"), "scale": mods.one_of(frozenset({"shr7", "shr15"}))}
    mods.done()
    ops = operands(ctx, ins, 3, 4)
    dest, dsel, neg_d = _selected(ctx, ops[0])
    (a, asel, neg_a), (b, bsel, neg_b) = _selected(ctx, ops[1]), _selected(ctx, ops[2])
    c_operand, _, neg_c = _selected(ctx, ops[3]) if len(ops) == 4 else (ops[0], None, False)
    if neg_d or ((neg_a or neg_b or neg_c) and ins.opcode != "vmad"):
        raise ctx.error(ins.span, "only vmad's source operands can be negated")
    c = ctx.src(c_operand, I32) if len(ops) == 4 else ctx.const(I32, 0)
    negations = {"neg_a": neg_a or None, "neg_b": neg_b or None, "neg_c": neg_c or None}
    value = ctx.value("video", (ctx.src(a, I32), ctx.src(b, I32), c), I32, inst=ins.opcode,
                      types=".".join(types), dsel=dsel, asel=asel, bsel=bsel, **attrs, **negations)
    ctx.dst(dest, value)


def lower_prmt(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    mode = mods.one_of(frozenset({"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"}))
    mods.type()
    mods.done()
    d, a, b, c = operands(ctx, ins, 4)
    values = [ctx.src(o, I32) for o in (a, b, c)]
    ctx.dst(d, ctx.value("prmt", values, I32, mode=mode))


def lower_lop3(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    t_name = mods.type()
    mods.done()
    t = ptx_type(t_name)
    d, a, b, c, lut = operands(ctx, ins, 5)
    if not isinstance(lut, ast.IntImmediate) or not 0 <= lut.value <= 255:
        raise ctx.error(lut.span, "lop3 needs an immediate lookup table 0..255")
    values = [ctx.src(o, t) for o in (a, b, c)]
    ctx.dst(d, ctx.value("lop3", values, t, type=t_name, lut=lut.value))


def _compare(ctx: FnCtx, mods: Mods, ins: ast.Instruction) -> tuple[list[Value], str | None, str, bool]:
    """The comparison of a setp/set: one predicate, or (low half, high half) for packed types."""
    cmp = mods.one_of(CMP_OPS)
    boolop = mods.one_of(BOOL_OPS)
    ftz = mods.take("ftz")
    types = mods.types()
    mods.done()
    if cmp is None or not types:
        raise ctx.error(ins.span, f"'{ins.opcode}' needs a comparison and a type")
    t_name = types[-1]
    t = ptx_type(t_name)
    a, b = ins.operands[1], ins.operands[2]
    signed = is_signed(t_name)
    va, vb = ctx.src(a, t, signed), ctx.src(b, t, signed)
    if isinstance(t, PackedType):
        # Packed halves compare element-wise (PTX: setp/set with .f16x2/.bf16x2).
        halves_a = ctx.emit("unpack", (va,), (t.elem, t.elem)).results
        halves_b = ctx.emit("unpack", (vb,), (t.elem, t.elem)).results
        results = [ctx.value("setp", (x, y), PRED, type=t.elem.kind, cmp=cmp, ftz=ftz)
                   for x, y in zip(halves_a, halves_b)]
        return results, boolop, types[0], len(types) == 2
    value = ctx.value("setp", (va, vb), PRED, type=t_name, cmp=cmp, ftz=ftz)
    return [value], boolop, types[0], len(types) == 2


def _combine(ctx: FnCtx, value: Value, boolop: str | None, c: ast.Operand | None) -> Value:
    if boolop is None:
        return value
    assert c is not None
    return ctx.value(boolop, (value, ctx.src(c, PRED)), PRED, type="pred")


def lower_setp(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """setp[.bool] p[|q], a, b[, c]: p = cmp BOOL c, q = !cmp BOOL c (packed: p low half, q high)."""
    ops = operands(ctx, ins, 3, 4)
    values, boolop, _, _ = _compare(ctx, mods, ins)
    if (boolop is None) != (len(ops) == 3):
        raise ctx.error(ins.span, "setp with a boolean operator takes a fourth (predicate) operand")
    c = ops[3] if len(ops) == 4 else None
    dest = ops[0]
    first, second = (dest.first, dest.second) if isinstance(dest, ast.Pair) else (dest, None)
    if len(values) == 2:
        ctx.dst(first, _combine(ctx, values[0], boolop, c))
        if second is None:
            raise ctx.error(dest.span, "a packed setp needs two destinations p|q")
        ctx.dst(second, _combine(ctx, values[1], boolop, c))
        return
    ctx.dst(first, _combine(ctx, values[0], boolop, c))
    if second is not None:
        inverse = ctx.value("not", (values[0],), PRED, type="pred")
        ctx.dst(second, _combine(ctx, inverse, boolop, c))


def _set_true(d_name: str) -> tuple[Type, int]:
    """The element type and the "true" bit pattern of a set destination type."""
    ones = {"f32": 0x3F800000, "f16": 0x3C00, "bf16": 0x3F80}
    t = ptx_type(d_name)
    return t, ones.get(d_name, (1 << t.bits) - 1)


def lower_set(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """set.cmp[.bool].dtype.stype d, a, b[, c]: all ones (integers) or 1.0 (floats) when true, else 0.

    Packed sources compare per half; each half of the destination gets its own result.
    """
    ops = operands(ctx, ins, 3, 4)
    values, boolop, d_name, two_types = _compare(ctx, mods, ins)
    if not two_types:
        raise ctx.error(ins.span, "set needs a destination and a source type")
    c = ops[3] if len(ops) == 4 else None
    values = [_combine(ctx, v, boolop, c) for v in values]
    d_type = ptx_type(d_name)
    if len(values) == 1:
        elem, ones = _set_true(d_name)
        ctx.dst(ops[0], ctx.value("selp", (ctx.const(elem, ones), ctx.const(elem, 0), values[0]), elem))
        return
    if d_type.bits != 32:
        raise ctx.error(ins.span, "set with packed sources produces .u32, .s32 or a packed type")
    elem, ones = (d_type.elem, _set_true(d_type.elem.kind)[1]) if isinstance(d_type, PackedType) else (
        int_type(16), 0xFFFF)
    halves = [ctx.value("selp", (ctx.const(elem, ones), ctx.const(elem, 0), v), elem) for v in values]
    ctx.dst(ops[0], ctx.value("pack", halves, d_type if isinstance(d_type, PackedType) else int_type(32)))


def lower_selp(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    t_name = mods.type()
    mods.done()
    t = ptx_type(t_name)
    d, a, b, c = operands(ctx, ins, 4)
    ctx.dst(d, ctx.value("selp", (ctx.src(a, t), ctx.src(b, t), ctx.src(c, PRED)), t))


def lower_slct(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """slct.dtype.stype d, a, b, c: d = c >= 0 ? a : b."""
    ftz = mods.take("ftz")
    types = mods.types()
    mods.done()
    if len(types) != 2 or types[1] not in ("s32", "f32"):
        raise ctx.error(ins.span, "slct needs a destination type and .s32 or .f32")
    t, c_type = ptx_type(types[0]), ptx_type(types[1])
    d, a, b, c = operands(ctx, ins, 4)
    zero = ctx.const(c_type, 0)
    test = ctx.value("setp", (ctx.src(c, c_type), zero), PRED, type=types[1], cmp="ge", ftz=ftz)
    ctx.dst(d, ctx.value("selp", (ctx.src(a, t), ctx.src(b, t), test), t))


def lower_mov(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """mov: copy, or pack/unpack for brace operands; a symbol operand yields its address."""
    vec = mods.vec()
    t_name = mods.type()
    mods.done()
    t = ptx_type(t_name)
    d, a = operands(ctx, ins, 2)
    d = ast.Vector(d.span, parts) if (parts := ctx.components(d)) is not None else d
    a = ast.Vector(a.span, parts) if (parts := ctx.components(a)) is not None else a
    if vec:
        # mov.vN: an element-wise copy between braced lists (or whole vector registers).
        if not (isinstance(d, ast.Vector) and isinstance(a, ast.Vector)
                and len(d.elements) == len(a.elements) == vec):
            raise ctx.error(ins.span, f"mov.v{vec} needs {vec} destinations and {vec} sources in braces")
        values = [ctx.src(e, t) for e in a.elements]
        for element, value in zip(d.elements, values):
            ctx.dst(element, value)
        return
    if isinstance(d, ast.Vector):
        parts = d.elements
        part_type = int_type(t.bits // len(parts))
        whole = ctx.src(a, int_type(t.bits))
        op = ctx.emit("unpack", (whole,), [part_type] * len(parts))
        for element, value in zip(parts, op.results):
            ctx.dst(element, value)
        return
    if isinstance(a, ast.Vector):
        part_type = int_type(t.bits // len(a.elements))
        values = [ctx.src(e, part_type) for e in a.elements]
        packed = ctx.value("pack", values, int_type(t.bits))
        ctx.dst(d, packed)
        return
    ctx.dst(d, ctx.src(a, t))


def lower_cvt(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """cvt[.rnd][.ftz][.sat][.relu].dtype.stype d, a (and the two-source packing f16x2/bf16x2 form)."""
    if mods.take("pack"):
        lower_cvt_pack(ctx, ins, mods)
        return
    attrs = {"rnd": mods.rounding(), "ftz": mods.take("ftz"), "sat": mods.take("sat"),
             "relu": mods.take("relu"), "satfinite": mods.take("satfinite")}
    types = mods.types()
    mods.done()
    if len(types) != 2:
        raise ctx.error(ins.span, "cvt needs a destination and a source type")
    d_name, s_name = types
    d_type, s_type = ptx_type(d_name), ptx_type(s_name)
    ops = operands(ctx, ins, 2, 3)
    if len(ops) == 3:
        # d = {cvt(a) in the upper half, cvt(b) in the lower half}; halves are f16/bf16, or one
        # FP8 byte each for .e4m3x2/.e5m2x2 (held as integers: the IR has no 8-bit float type).
        fp8 = {"e4m3x2": "e4m3", "e5m2x2": "e5m2"}.get(d_name)
        if fp8 is None and not isinstance(d_type, PackedType):
            raise ctx.error(ins.span, "only cvt to a packed pair (.f16x2, .bf16x2, .e4m3x2, .e5m2x2) "
                            "takes two sources")
        elem_name = fp8 or (d_type.elem.kind if isinstance(d_type, PackedType) else "")
        elem = ptx_type(elem_name)
        halves = [ctx.value("cvt", (ctx.src(o, s_type),), elem, dtype=elem_name, stype=s_name, **attrs)
                  for o in (ops[2], ops[1])]
        ctx.dst(ops[0], ctx.value("pack", halves, d_type))
        return
    problem = rounding_problem(d_name, s_name, attrs["rnd"] if isinstance(attrs["rnd"], str) else None)
    if problem:
        raise ctx.error(ins.span, problem)
    value = ctx.value("cvt", (ctx.src(ops[1], s_type, is_signed(s_name)),), d_type, dtype=d_name,
                      stype=s_name, **attrs)
    ctx.dst(ops[0], value, is_signed(d_name))


def lower_cvta(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    """cvta[.to].space.size d, a: generic ↔ specific address (``a`` may be a variable)."""
    to = mods.take("to")
    space = mods.space(cluster=True)
    if space == "shared_cluster":
        lower_cvta_cluster(ctx, ins, mods, to)
        return
    t_name = mods.type()
    mods.done()
    if space == "generic":
        raise ctx.error(ins.span, "cvta needs a state space")
    t = ptx_type(t_name)
    d, a = operands(ctx, ins, 2)
    value = ctx.value("cvta", (ctx.src(a, t),), t, space=space, to=to)
    ctx.dst(d, value)


def lower_isspacep(ctx: FnCtx, ins: ast.Instruction, mods: Mods, fb: object) -> None:
    space = mods.space()
    mods.done()
    d, a = operands(ctx, ins, 2)
    ctx.dst(d, ctx.value("isspacep", (ctx.src(a, int_type(ctx.reg_bits(a))),), PRED, space=space))


ALU: dict[str, Lowering] = {
    **{name: lower_binary for name in ("add", "sub", "mul", "div", "rem", "min", "max", "and", "or",
                                       "xor", "copysign")},
    "addc": lower_carry, "subc": lower_carry, "mad": lower_mad, "madc": lower_mad,
    **{name: lower_ternary for name in ("fma", "sad", "mul24", "mad24")},
    **{name: lower_unary for name in ("abs", "neg", "not", "cnot", "brev", "popc", "clz", "bfind",
                                      "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh")},
    "testp": lower_testp, "bfe": lower_bits, "bfi": lower_bits, "shl": lower_shift, "shr": lower_shift,
    "shf": lower_shf, "bmsk": lower_bmsk, "szext": lower_szext, "fns": lower_fns, "dp4a": lower_dot,
    "dp2a": lower_dot, "prmt": lower_prmt, "lop3": lower_lop3, "setp": lower_setp, "set": lower_set,
    "selp": lower_selp, "slct": lower_slct, "mov": lower_mov, "cvt": lower_cvt, "cvta": lower_cvta,
    "isspacep": lower_isspacep,
    **{name: lower_video for name in VIDEO},
}
