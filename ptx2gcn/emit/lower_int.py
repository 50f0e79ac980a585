"""Lowering of PTX integer, bit and logic instructions with PTX's exact semantics (PTX ISA 9.7.1-9.7.8).

Invariant: no lowering emits LLVM undefined behaviour or poison for any input: shift amounts are
clamped as PTX says (``shl``/``shr`` by ≥ width give 0 or the sign fill), division by zero and
``INT_MIN / -1`` (unspecified in PTX) give defined values (quotient all ones / INT_MIN, remainder
the dividend), bit-field positions and lengths are taken modulo 256 and clamped as PTX says.
Signedness comes from the op's ``type`` attribute (``s*`` signed); IR integers are signless.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_types import I1, I32, llvm_type
from ptx2gcn.ir.core import Op
from ptx2gcn.ir.types import is_signed


def _c(t: ir.Type, value: int) -> ir.Constant:
    assert isinstance(t, ir.IntType)
    return ir.Constant(t, value & ((1 << t.width) - 1))


def _signed(cx: FnContext, op: Op) -> bool:
    return is_signed(cx.attr(op, "type"))


def _ext(cx: FnContext, value: ir.Value, width: int, signed: bool) -> ir.Value:
    t = ir.IntType(width)
    return cx.builder.sext(value, t) if signed else cx.builder.zext(value, t)


def _fit(cx: FnContext, value: ir.Value, to: ir.IntType) -> ir.Value:
    """Zero-extend or truncate an integer to ``to`` (shift amounts, counts)."""
    return cx.coerce(value, to)


def int_add(cx: FnContext, op: Op) -> None:
    a, b_ = cx.operands(op)
    if cx.flag(op, "sat"):
        cx.define(op, cx.call(f"llvm.sadd.sat.{a.type}", a.type, [a, b_]))
    else:
        cx.define(op, cx.builder.add(a, b_))


def int_sub(cx: FnContext, op: Op) -> None:
    a, b_ = cx.operands(op)
    if cx.flag(op, "sat"):
        cx.define(op, cx.call(f"llvm.ssub.sat.{a.type}", a.type, [a, b_]))
    else:
        cx.define(op, cx.builder.sub(a, b_))


def _with_carry(cx: FnContext, kind: str, a: ir.Value, b_: ir.Value,
                cin: ir.Value) -> tuple[ir.Value, ir.Value]:
    """``a ± (b + cin)`` and the carry (add) or borrow (sub) out, as PTX's CC.CF."""
    b = cx.builder
    name = f"llvm.{kind}.with.overflow.{a.type}"
    pair_t = ir.LiteralStructType([a.type, I1])
    first = cx.call(name, pair_t, [a, b_])
    second = cx.call(name, pair_t, [b.extract_value(first, 0), b.zext(cin, a.type)])
    carry = b.or_(b.extract_value(first, 1), b.extract_value(second, 1))
    return b.extract_value(second, 0), carry


def lower_addc(cx: FnContext, op: Op) -> None:
    cx.define(op, *_with_carry(cx, "uadd", *cx.operands(op)))


def lower_subc(cx: FnContext, op: Op) -> None:
    cx.define(op, *_with_carry(cx, "usub", *cx.operands(op)))


def _product(cx: FnContext, op: Op, a: ir.Value, b_: ir.Value, mode: str) -> ir.Value:
    b = cx.builder
    width = a.type.width
    if mode in ("", "lo"):
        return b.mul(a, b_)
    signed = _signed(cx, op)
    wide = b.mul(_ext(cx, a, 2 * width, signed), _ext(cx, b_, 2 * width, signed))
    if mode == "wide":
        return wide
    return b.trunc(b.lshr(wide, _c(wide.type, width)), a.type)


def int_mul(cx: FnContext, op: Op) -> None:
    a, b_ = cx.operands(op)
    cx.define(op, _product(cx, op, a, b_, cx.attr(op, "mode")))


def int_mad(cx: FnContext, op: Op) -> None:
    a, b_, c = cx.operands(op)
    product = _product(cx, op, a, b_, cx.attr(op, "mode"))
    if cx.flag(op, "sat"):  # mad.hi.sat.s32
        cx.define(op, cx.call(f"llvm.sadd.sat.{c.type}", c.type, [product, c]))
    else:
        cx.define(op, cx.builder.add(product, c))


def lower_madc(cx: FnContext, op: Op) -> None:
    a, b_, c, cin = cx.operands(op)
    product = _product(cx, op, a, b_, cx.attr(op, "mode"))
    cx.define(op, *_with_carry(cx, "uadd", product, c, cin))


def _operand24(cx: FnContext, value: ir.Value, signed: bool) -> ir.Value:
    b = cx.builder
    shifted = b.shl(value, _c(value.type, 8))
    return b.ashr(shifted, _c(value.type, 8)) if signed else b.lshr(shifted, _c(value.type, 8))


def _product24(cx: FnContext, op: Op, a: ir.Value, b_: ir.Value) -> ir.Value:
    b = cx.builder
    signed = _signed(cx, op)
    wide = b.mul(_ext(cx, _operand24(cx, a, signed), 64, signed),
                 _ext(cx, _operand24(cx, b_, signed), 64, signed))
    if cx.attr(op, "mode") == "hi":  # bits 47..16 of the 48-bit product
        wide = b.lshr(wide, _c(wide.type, 16))
    return b.trunc(wide, a.type)


def lower_mul24(cx: FnContext, op: Op) -> None:
    cx.define(op, _product24(cx, op, *cx.operands(op)))


def lower_mad24(cx: FnContext, op: Op) -> None:
    a, b_, c = cx.operands(op)
    product = _product24(cx, op, a, b_)
    if cx.flag(op, "sat"):
        cx.define(op, cx.call(f"llvm.sadd.sat.{c.type}", c.type, [product, c]))
    else:
        cx.define(op, cx.builder.add(product, c))


def lower_sad(cx: FnContext, op: Op) -> None:
    a, b_, c = cx.operands(op)
    b = cx.builder
    lt = b.icmp_signed("<", a, b_) if _signed(cx, op) else b.icmp_unsigned("<", a, b_)
    diff = b.select(lt, b.sub(b_, a), b.sub(a, b_))
    cx.define(op, b.add(diff, c))


def int_div(cx: FnContext, op: Op) -> None:
    a, b_ = cx.operands(op)
    b = cx.builder
    zero = b.icmp_unsigned("==", b_, _c(b_.type, 0))
    safe = b.select(zero, _c(b_.type, 1), b_)
    if _signed(cx, op):
        overflow = b.and_(b.icmp_signed("==", a, _c(a.type, 1 << (a.type.width - 1))),
                          b.icmp_signed("==", b_, _c(b_.type, -1)))
        safe = b.select(overflow, _c(b_.type, 1), safe)
        quotient = b.sdiv(a, safe)
    else:
        quotient = b.udiv(a, safe)
    cx.define(op, b.select(zero, _c(a.type, -1), quotient))


def lower_rem(cx: FnContext, op: Op) -> None:
    a, b_ = cx.operands(op)
    b = cx.builder
    zero = b.icmp_unsigned("==", b_, _c(b_.type, 0))
    safe = b.select(zero, _c(b_.type, 1), b_)
    if _signed(cx, op):
        minus_one = b.icmp_signed("==", b_, _c(b_.type, -1))
        safe = b.select(minus_one, _c(b_.type, 1), safe)  # x rem -1 = 0 = x rem 1, no INT_MIN trap
        remainder = b.srem(a, safe)
    else:
        remainder = b.urem(a, safe)
    cx.define(op, b.select(zero, a, remainder))


def int_abs(cx: FnContext, op: Op) -> None:
    a = cx.operand(op, 0)
    cx.define(op, cx.call(f"llvm.abs.{a.type}", a.type, [a, ir.Constant(I1, 0)]))


def int_neg(cx: FnContext, op: Op) -> None:
    a = cx.operand(op, 0)
    cx.define(op, cx.builder.neg(a))


def int_minmax(kind: str) -> Lowering:
    def lower(cx: FnContext, op: Op) -> None:
        a, b_ = cx.operands(op)
        prefix = "s" if _signed(cx, op) else "u"
        result = cx.call(f"llvm.{prefix}{kind}.{a.type}", a.type, [a, b_])
        if cx.flag(op, "relu"):
            result = cx.call(f"llvm.smax.{a.type}", a.type, [result, _c(a.type, 0)])
        cx.define(op, result)
    return lower


def lower_popc(cx: FnContext, op: Op) -> None:
    a = cx.operand(op, 0)
    cx.define(op, _fit(cx, cx.call(f"llvm.ctpop.{a.type}", a.type, [a]), I32))


def lower_clz(cx: FnContext, op: Op) -> None:
    a = cx.operand(op, 0)
    cx.define(op, _fit(cx, cx.call(f"llvm.ctlz.{a.type}", a.type, [a, ir.Constant(I1, 0)]), I32))


def lower_bfind(cx: FnContext, op: Op) -> None:
    """Position of the most significant non-sign bit; 0xffffffff when there is none."""
    a = cx.operand(op, 0)
    b = cx.builder
    width = a.type.width
    if _signed(cx, op):
        negative = b.icmp_signed("<", a, _c(a.type, 0))
        a = b.select(negative, b.not_(a), a)
    leading = _fit(cx, cx.call(f"llvm.ctlz.{a.type}", a.type, [a, ir.Constant(I1, 0)]), I32)
    none = b.icmp_unsigned("==", leading, ir.Constant(I32, width))
    position = leading if cx.flag(op, "shiftamt") else b.sub(ir.Constant(I32, width - 1), leading)
    cx.define(op, b.select(none, ir.Constant(I32, 0xFFFFFFFF), position))


def lower_brev(cx: FnContext, op: Op) -> None:
    a = cx.operand(op, 0)
    cx.define(op, cx.call(f"llvm.bitreverse.{a.type}", a.type, [a]))


def _mask(cx: FnContext, length: ir.Value, t: ir.IntType) -> ir.Value:
    """Low ``length`` bits set (all bits when length ≥ width); ``length`` is i32 in 0..255."""
    b = cx.builder
    full = b.icmp_unsigned(">=", length, ir.Constant(I32, t.width))
    shift = _fit(cx, b.and_(length, ir.Constant(I32, t.width - 1)), t)
    return b.select(full, _c(t, -1), b.sub(b.shl(_c(t, 1), shift), _c(t, 1)))


def lower_bfe(cx: FnContext, op: Op) -> None:
    """PTX: d[i] = (i < len && pos + i < width) ? a[pos + i] : sbit, sbit = 0 for .u and
    a[min(pos + len - 1, width - 1)] for .s; len == 0 gives 0."""
    a, pos, length = cx.operands(op)
    b = cx.builder
    t = a.type
    width = t.width
    pos = b.and_(pos, ir.Constant(I32, 0xFF))
    length = b.and_(length, ir.Constant(I32, 0xFF))
    beyond = b.icmp_unsigned(">=", pos, ir.Constant(I32, width))
    pos_t = _fit(cx, cx.call("llvm.umin.i32", I32, [pos, ir.Constant(I32, width - 1)]), t)
    # Result bits that come from ``a``: the first ``len`` ones, and only those inside the source.
    valid = b.and_(_mask(cx, length, t), b.select(beyond, _c(t, 0), b.lshr(_c(t, -1), pos_t)))
    field = b.and_(b.lshr(a, pos_t), valid)
    if _signed(cx, op):
        msb = cx.call("llvm.umin.i32", I32, [b.sub(b.add(pos, length), ir.Constant(I32, 1)),
                                             ir.Constant(I32, width - 1)])
        sbit = b.trunc(b.lshr(a, _fit(cx, msb, t)), I1)
        field = b.or_(field, b.select(sbit, b.not_(valid), _c(t, 0)))
    cx.define(op, b.select(b.icmp_unsigned("==", length, ir.Constant(I32, 0)), _c(t, 0), field))


def lower_bfi(cx: FnContext, op: Op) -> None:
    insert, base, pos, length = cx.operands(op)
    b = cx.builder
    t = base.type
    pos = b.and_(pos, ir.Constant(I32, 0xFF))
    length = b.and_(length, ir.Constant(I32, 0xFF))
    in_range = b.icmp_unsigned("<", pos, ir.Constant(I32, t.width))
    shift = _fit(cx, b.and_(pos, ir.Constant(I32, t.width - 1)), t)
    mask = b.shl(_mask(cx, length, t), shift)
    merged = b.or_(b.and_(base, b.not_(mask)), b.and_(b.shl(insert, shift), mask))
    cx.define(op, b.select(in_range, merged, base))


def lower_bmsk(cx: FnContext, op: Op) -> None:
    pos, length = cx.operands(op)
    b = cx.builder
    if cx.attr(op, "mode") == "wrap":
        pos = b.and_(pos, ir.Constant(I32, 31))
        length = b.and_(length, ir.Constant(I32, 31))
    else:
        pos = cx.call("llvm.umin.i32", I32, [pos, ir.Constant(I32, 32)])
        length = cx.call("llvm.umin.i32", I32, [length, ir.Constant(I32, 32)])
    i64 = ir.IntType(64)
    mask = b.sub(b.shl(ir.Constant(i64, 1), b.zext(length, i64)), ir.Constant(i64, 1))
    cx.define(op, b.trunc(b.shl(mask, b.zext(pos, i64)), I32))


def _binary(method: str) -> Lowering:
    def lower(cx: FnContext, op: Op) -> None:
        a, b_ = cx.operands(op)
        cx.define(op, getattr(cx.builder, method)(a, b_))
    return lower


def lower_not(cx: FnContext, op: Op) -> None:
    cx.define(op, cx.builder.not_(cx.operand(op, 0)))


def lower_cnot(cx: FnContext, op: Op) -> None:
    a = cx.operand(op, 0)
    cx.define(op, cx.builder.zext(cx.builder.icmp_unsigned("==", a, _c(a.type, 0)), a.type))


def lower_lop3(cx: FnContext, op: Op) -> None:
    """Sum of the minterms selected by the LUT; minterm i has a = bit 2, b = bit 1, c = bit 0."""
    a, b_, c = cx.operands(op)
    lut = op.attrs["lut"]
    assert isinstance(lut, int)
    b = cx.builder
    result: ir.Value = _c(a.type, 0)
    for index in range(8):
        if lut >> index & 1:
            term = b.and_(b.and_(a if index & 4 else b.not_(a), b_ if index & 2 else b.not_(b_)),
                          c if index & 1 else b.not_(c))
            result = b.or_(result, term)
    cx.define(op, result)


def _constant_amount(amount: ir.Value) -> int | None:
    """The value of a constant shift amount (PTX code mostly shifts by immediates)."""
    constant = getattr(amount, "constant", None)
    return constant if isinstance(amount, ir.Constant) and isinstance(constant, int) else None


def lower_shl(cx: FnContext, op: Op) -> None:
    a, amount = cx.operands(op)
    b = cx.builder
    known = _constant_amount(amount)
    if known is not None:
        cx.define(op, b.shl(a, _c(a.type, known)) if known < a.type.width else _c(a.type, 0))
        return
    big = b.icmp_unsigned(">=", amount, ir.Constant(I32, a.type.width))
    safe = _fit(cx, b.select(big, ir.Constant(I32, 0), amount), a.type)
    cx.define(op, b.select(big, _c(a.type, 0), b.shl(a, safe)))


def lower_shr(cx: FnContext, op: Op) -> None:
    a, amount = cx.operands(op)
    b = cx.builder
    width = a.type.width
    known = _constant_amount(amount)
    if known is not None:
        if _signed(cx, op):
            cx.define(op, b.ashr(a, _c(a.type, min(known, width - 1))))
        else:
            cx.define(op, b.lshr(a, _c(a.type, known)) if known < width else _c(a.type, 0))
        return
    if _signed(cx, op):
        clamped = cx.call("llvm.umin.i32", I32, [amount, ir.Constant(I32, width - 1)])
        cx.define(op, b.ashr(a, _fit(cx, clamped, a.type)))
        return
    big = b.icmp_unsigned(">=", amount, ir.Constant(I32, width))
    safe = _fit(cx, b.select(big, ir.Constant(I32, 0), amount), a.type)
    cx.define(op, b.select(big, _c(a.type, 0), b.lshr(a, safe)))


def lower_shf(cx: FnContext, op: Op) -> None:
    """Funnel shift of b:a (b high); ``.clamp`` saturates the amount at 32, ``.wrap`` takes it mod 32."""
    a, high, amount = cx.operands(op)
    b = cx.builder
    left = cx.attr(op, "dir") == "l"
    masked = b.and_(amount, ir.Constant(I32, 31))
    shifted = cx.call(f"llvm.fsh{'l' if left else 'r'}.i32", I32, [high, a, masked])
    if cx.attr(op, "mode") == "clamp":
        saturated = b.icmp_unsigned(">=", amount, ir.Constant(I32, 32))
        shifted = b.select(saturated, a if left else high, shifted)
    cx.define(op, shifted)


_PRMT_MODES: dict[str, tuple[tuple[int, int, int, int], ...]] = {
    # mode → for c[1:0] = 0..3, the source byte of result bytes (b0, b1, b2, b3); source bytes 0-3
    # are a's, 4-7 are b's (PTX ISA "prmt", table of the special modes).
    "f4e": ((0, 1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)),
    "b4e": ((0, 7, 6, 5), (1, 0, 7, 6), (2, 1, 0, 7), (3, 2, 1, 0)),
    "rc8": ((0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3)),
    "ecl": ((0, 1, 2, 3), (1, 1, 2, 3), (2, 2, 2, 3), (3, 3, 3, 3)),
    "ecr": ((0, 0, 0, 0), (0, 1, 1, 1), (0, 1, 2, 2), (0, 1, 2, 3)),
    "rc16": ((0, 1, 0, 1), (2, 3, 2, 3), (0, 1, 0, 1), (2, 3, 2, 3)),
}


def _prmt_mode(cx: FnContext, pair: ir.Value, selector: ir.Value, mode: str) -> ir.Value:
    b = cx.builder
    i64 = pair.type
    low = b.and_(selector, ir.Constant(I32, 3))
    result: ir.Value = ir.Constant(I32, 0)
    for position in range(4):
        index: ir.Value = ir.Constant(I32, _PRMT_MODES[mode][0][position])
        for choice in range(1, 4):
            chosen = b.icmp_unsigned("==", low, ir.Constant(I32, choice))
            index = b.select(chosen, ir.Constant(I32, _PRMT_MODES[mode][choice][position]), index)
        byte = b.trunc(b.lshr(pair, b.shl(b.zext(index, i64), ir.Constant(i64, 3))), ir.IntType(8))
        result = b.or_(result, b.shl(b.zext(byte, I32), ir.Constant(I32, 8 * position)))
    return result


def lower_prmt(cx: FnContext, op: Op) -> None:
    a, b_, selector = cx.operands(op)
    b = cx.builder
    i64 = ir.IntType(64)
    pair = b.or_(b.zext(a, i64), b.shl(b.zext(b_, i64), ir.Constant(i64, 32)))
    if cx.attr(op, "mode"):
        cx.define(op, _prmt_mode(cx, pair, selector, cx.attr(op, "mode")))
        return
    result: ir.Value = ir.Constant(I32, 0)
    for index in range(4):
        nibble = b.and_(b.lshr(selector, ir.Constant(I32, 4 * index)), ir.Constant(I32, 0xF))
        byte_index = b.zext(b.and_(nibble, ir.Constant(I32, 7)), i64)
        byte = b.trunc(b.lshr(pair, b.shl(byte_index, ir.Constant(i64, 3))), ir.IntType(8))
        replicate = b.icmp_unsigned("!=", b.and_(nibble, ir.Constant(I32, 8)), ir.Constant(I32, 0))
        sign = b.ashr(byte, ir.Constant(ir.IntType(8), 7))
        chosen = b.zext(b.select(replicate, sign, byte), I32)
        result = b.or_(result, b.shl(chosen, ir.Constant(I32, 8 * index)))
    cx.define(op, result)


def _parts(cx: FnContext, x: ir.Value, width: int, count: int, first: int, signed: bool) -> list[ir.Value]:
    """``count`` fields of ``width`` bits of i32 ``x`` starting at field ``first``, extended to i32."""
    b = cx.builder
    field_t = ir.IntType(width)
    parts = []
    for index in range(first, first + count):
        piece = b.trunc(b.lshr(x, ir.Constant(I32, index * width)), field_t)
        parts.append(b.sext(piece, I32) if signed else b.zext(piece, I32))
    return parts


def lower_dp4a(cx: FnContext, op: Op) -> None:
    """d = c + Σ a.byte[i] · b.byte[i] (bytes signed per .atype/.btype), wrapping mod 2^32."""
    a, b_, c = cx.operands(op)
    xs = _parts(cx, a, 8, 4, 0, cx.attr(op, "atype") == "s32")
    ys = _parts(cx, b_, 8, 4, 0, cx.attr(op, "btype") == "s32")
    total = c
    for x, y in zip(xs, ys):
        total = cx.builder.add(total, cx.builder.mul(x, y))
    cx.define(op, total)


def lower_dp2a(cx: FnContext, op: Op) -> None:
    """d = c + Σ a.half[i] · b.byte[i + 2·hi] (two 16-bit halves of a, two bytes of b)."""
    a, b_, c = cx.operands(op)
    xs = _parts(cx, a, 16, 2, 0, cx.attr(op, "atype") == "s32")
    ys = _parts(cx, b_, 8, 2, 2 if cx.attr(op, "mode") == "hi" else 0, cx.attr(op, "btype") == "s32")
    total = c
    for x, y in zip(xs, ys):
        total = cx.builder.add(total, cx.builder.mul(x, y))
    cx.define(op, total)


_ICMP: dict[str, tuple[str, bool | None]] = {
    "eq": ("==", None), "ne": ("!=", None), "lt": ("<", True), "le": ("<=", True), "gt": (">", True),
    "ge": (">=", True), "lo": ("<", False), "ls": ("<=", False), "hi": (">", False), "hs": (">=", False),
}


def int_setp(cx: FnContext, op: Op) -> None:
    a, b_ = cx.operands(op)
    predicate, signed_cmp = _ICMP[cx.attr(op, "cmp")]
    signed = _signed(cx, op) if signed_cmp is True else False
    b = cx.builder
    cx.define(op, b.icmp_signed(predicate, a, b_) if signed else b.icmp_unsigned(predicate, a, b_))


LOWERINGS: dict[str, Lowering] = {
    "addc": lower_addc, "subc": lower_subc, "madc": lower_madc, "mul24": lower_mul24,
    "mad24": lower_mad24, "sad": lower_sad, "rem": lower_rem, "popc": lower_popc, "clz": lower_clz,
    "bfind": lower_bfind, "brev": lower_brev, "bfe": lower_bfe, "bfi": lower_bfi, "bmsk": lower_bmsk,
    "and": _binary("and_"), "or": _binary("or_"), "xor": _binary("xor"), "not": lower_not,
    "cnot": lower_cnot, "lop3": lower_lop3, "shl": lower_shl, "shr": lower_shr, "shf": lower_shf,
    "prmt": lower_prmt, "dp4a": lower_dp4a, "dp2a": lower_dp2a,
}
"""Ops that exist only for integers; ``INT_FORMS`` holds the integer halves of shared ops."""

INT_FORMS: dict[str, Lowering] = {
    "add": int_add, "sub": int_sub, "mul": int_mul, "mad": int_mad, "div": int_div, "abs": int_abs,
    "neg": int_neg, "min": int_minmax("min"), "max": int_minmax("max"), "setp": int_setp,
}
