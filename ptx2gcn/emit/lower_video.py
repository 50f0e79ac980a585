"""Lowering of the PTX video instructions (PTX ISA 9.7.18) to plain LLVM integer arithmetic.

Invariant: the result is exactly the ISA pseudocode's, bit for bit, for every operand value.
Scalar forms (``vadd vsub vabsdiff vmin vmax vshl vshr vmad vset``, 9.7.18.1) extend the selected
byte/half/word of each source to a signed 33-bit value and compute the intermediate exactly in a
wider LLVM integer (i64; i128 for ``vshl`` and ``vmad`` whose intermediates exceed 64 bits); every
comparison (``vmin``, ``vmax``, ``vset``, the secondary ``.min``/``.max``) is a signed comparison of
those exact values; saturation clamps to the destination type's range (the byte/half range with a
merge selector), then the secondary operation or the merge with ``c``, and the low 32 bits are
the result. SIMD forms (``vadd2 ... vset4``, 9.7.18.2) select 2 half-words or 4 bytes from the
8 bytes of ``b:a`` per operand, compute each lane exactly in i32, clamp with ``.sat``, then merge
the lanes named by the destination mask into ``c`` or add them to ``c`` (``.add``).

The IR op ``video`` carries the form as written (``inst``, ``types``, ``sat``, ``secondary``,
``shift``, ``cmp``, ``po`` and the selector symbols ``dsel``/``asel``/``bsel``; for ``vmad`` also
``scale`` = ``shr7``/``shr15`` and the flags ``neg_a``/``neg_b``/``neg_c``, which the front end
does not produce yet). A form outside the ISA's syntax (``.sat`` with ``.add`` on SIMD forms, a
merge selector with a secondary operation, negation in ``.po`` mode, ...) is a located error.

Reading of the pseudocode where it is loose: MIN/MAX of the intermediate and ``c`` compare the
mathematical (sign- or zero-extended) values, so an unsigned ``vsub`` result below zero stays
below ``c``; ``vset2``'s description says unmasked lanes come from ``b`` but its pseudocode (and
every other SIMD form) takes them from ``c``: the pseudocode is followed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from llvmlite import ir

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_types import I32
from ptx2gcn.emit.lower_int_common import const
from ptx2gcn.ir.core import Op

_SCALAR = frozenset({"vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset"})
_SIMD = frozenset({"vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax", "vset"})
_CMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_SCALAR_SELECTORS = {f"b{i}": (8, i) for i in range(4)} | {"h0": (16, 0), "h1": (16, 1)}
"""Scalar selector → (field width, field index)."""


@dataclass(frozen=True)
class VideoForm:
    """One video instruction form, decoded from the ``video`` op's attributes."""

    base: str
    """The operation without its lane count: ``vadd``, ``vabsdiff``, ``vset`` ..."""
    lanes: int
    """1 for scalar forms, 2 or 4 for SIMD forms."""
    dsigned: bool
    asigned: bool
    bsigned: bool
    sat: bool
    secondary: str
    """``add``, ``min``, ``max`` or ``""``."""
    shift: str
    cmp: str
    po: bool
    scale: str
    """vmad's ``shr7``/``shr15`` or ``""``."""
    neg_a: bool
    neg_b: bool
    neg_c: bool
    """vmad's operand negations (``-a``, ``-b``, ``-c``)."""
    dsel: str
    asel: str
    bsel: str

    @property
    def spelling(self) -> str:
        return f"{self.base}{self.lanes if self.lanes > 1 else ''}"


def _error(op: Op, message: str) -> Ptx2GcnError:
    return Ptx2GcnError.at(op.loc, message)


def _types(op: Op, inst: str, base: str, text: str) -> tuple[bool, bool, bool]:
    """(dtype, atype, btype) signedness; vset has no dtype (its result is unsigned)."""
    words = text.split(".") if text else []
    expected = 2 if base == "vset" else 3
    if len(words) != expected or any(w not in ("u32", "s32") for w in words):
        raise _error(op, f"{inst} needs {expected} types, each .u32 or .s32 (got '.{text}')")
    if base in ("vshl", "vshr") and words[2] != "u32":
        raise _error(op, f"{inst}: the shift amount type must be .u32")
    if base == "vset":  # vset.atype.btype: the comparison result is unsigned
        return False, words[0] == "s32", words[1] == "s32"
    return words[0] == "s32", words[1] == "s32", words[2] == "s32"


def decode(op: Op) -> VideoForm:
    """The form of a ``video`` op, or a located error for a form the ISA does not define."""
    inst = str(op.attrs.get("inst", ""))
    match = re.fullmatch(r"([a-z]+?)([24]?)", inst)
    base, lanes = (match.group(1), int(match.group(2) or 1)) if match else ("", 0)
    if (base not in _SCALAR) if lanes == 1 else (base not in _SIMD):
        raise _error(op, f"unknown video instruction '{inst}'")
    dsigned, asigned, bsigned = _types(op, inst, base, str(op.attrs.get("types", "")))

    def text(name: str) -> str:
        value = op.attrs.get(name)
        return value if isinstance(value, str) else ""

    form = VideoForm(base, lanes, dsigned, asigned, bsigned, bool(op.attrs.get("sat")), text("secondary"),
                     text("shift"), text("cmp"), bool(op.attrs.get("po")), text("scale"),
                     bool(op.attrs.get("neg_a")), bool(op.attrs.get("neg_b")), bool(op.attrs.get("neg_c")),
                     text("dsel"), text("asel"), text("bsel"))
    _check(op, form)
    return form


def _check(op: Op, f: VideoForm) -> None:
    name = f.spelling
    if f.base == "vset" and f.cmp not in _CMP:
        raise _error(op, f"{name} needs a comparison (.eq .ne .lt .le .gt .ge)")
    if f.base != "vset" and f.cmp:
        raise _error(op, f"{name} takes no comparison")
    if (f.base in ("vshl", "vshr")) != bool(f.shift):
        raise _error(op, f"{name} needs a shift mode (.clamp or .wrap)" if f.shift == "" else
                     f"{name} takes no shift mode")
    if f.base != "vmad" and (f.po or f.scale or f.neg_a or f.neg_b or f.neg_c):
        raise _error(op, f"{name}: .po, .shr7/.shr15 and operand negation belong to vmad")
    if f.sat and f.base == "vset":
        raise _error(op, f"{name} takes no .sat")
    if f.lanes > 1:
        _check_simd(op, f)
    else:
        _check_scalar(op, f)


def _check_scalar(op: Op, f: VideoForm) -> None:
    for role, sel in (("destination", f.dsel), ("a", f.asel), ("b", f.bsel)):
        if sel and sel not in _SCALAR_SELECTORS:
            raise _error(op, f"{f.spelling}: '.{sel}' is not a selector for {role} "
                             "(.b0 .b1 .b2 .b3 .h0 .h1)")
    if f.dsel and f.secondary:
        raise _error(op, f"{f.spelling}: a destination selector (merge) excludes a secondary operation")
    if f.base == "vmad":
        _check_vmad(op, f)


def _check_vmad(op: Op, f: VideoForm) -> None:
    if f.secondary or f.dsel:
        raise _error(op, "vmad takes no secondary operation or destination selector")
    if f.scale not in ("", "shr7", "shr15"):
        raise _error(op, f"vmad: '.{f.scale}' is not a scale (.shr7 or .shr15)")
    if f.po and (f.neg_a or f.neg_b or f.neg_c):
        raise _error(op, "vmad: source operands may not be negated in .po mode")
    if f.neg_c and f.neg_a != f.neg_b:
        raise _error(op, "vmad: negate either the product (a or b) or c, not both")


def _check_simd(op: Op, f: VideoForm) -> None:
    if f.secondary not in ("", "add"):
        raise _error(op, f"{f.spelling}: the only secondary operation is .add")
    if f.sat and f.secondary:
        raise _error(op, f"{f.spelling}: .sat cannot be used with the secondary accumulate operation .add")
    kind, digits = ("h", "0123") if f.lanes == 2 else ("b", "01234567")
    for role, sel in (("a", f.asel), ("b", f.bsel)):
        if sel and not re.fullmatch(f"{kind}[{digits}]{{{f.lanes}}}", sel):
            raise _error(op, f"{f.spelling}: '.{sel}' is not a selector for {role} (.{kind} followed by "
                             f"{f.lanes} digits from {digits[0]}-{digits[-1]})")
    if f.dsel and not _mask_ok(f.dsel, kind, f.lanes):
        raise _error(op, f"{f.spelling}: '.{f.dsel}' is not a destination mask")


def _mask_ok(mask: str, kind: str, lanes: int) -> bool:
    lanes_named = mask[1:]
    return (mask[:1] == kind and lanes_named != "" and lanes_named.isdigit()
            and all(int(x) < lanes for x in lanes_named)
            and list(lanes_named) == sorted(set(lanes_named), reverse=True))


# ---- scalar forms ------------------------------------------------------------------------------

def _part(cx: FnContext, x: ir.Value, signed: bool, sel: str, wide: ir.IntType) -> ir.Value:
    """partSelectSignExtend: the selected byte/half (or the word) of i32 ``x``, extended to ``wide``."""
    b = cx.builder
    width, index = _SCALAR_SELECTORS.get(sel, (32, 0))
    field = x if width == 32 else b.trunc(b.lshr(x, const(I32, width * index)), ir.IntType(width))
    return b.sext(field, wide) if signed else b.zext(field, wide)


def _smin(cx: FnContext, x: ir.Value, y: ir.Value) -> ir.Value:
    return cx.builder.select(cx.builder.icmp_signed("<", x, y), x, y)


def _smax(cx: FnContext, x: ir.Value, y: ir.Value) -> ir.Value:
    return cx.builder.select(cx.builder.icmp_signed(">", x, y), x, y)


def _clamp(cx: FnContext, x: ir.Value, width: int, signed: bool) -> ir.Value:
    """CLAMP(x, MAX, MIN) to the signed or unsigned range of ``width`` bits (x a wide signed value)."""
    t = x.type
    assert isinstance(t, ir.IntType)
    low, high = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    return _smin(cx, _smax(cx, x, const(t, low)), const(t, high))


def _shift_amount(cx: FnContext, f: VideoForm, tb: ir.Value) -> ir.Value:
    t = tb.type
    assert isinstance(t, ir.IntType)
    if f.shift == "wrap":
        return cx.builder.and_(tb, const(t, 31))
    return _smin(cx, tb, const(t, 32))  # tb is zero-extended, so the signed min is the unsigned one


def _absdiff(cx: FnContext, x: ir.Value, y: ir.Value) -> ir.Value:
    b = cx.builder
    diff = b.sub(x, y)
    return b.select(b.icmp_signed("<", diff, ir.Constant(diff.type, 0)), b.neg(diff), diff)


def _average(cx: FnContext, x: ir.Value, y: ir.Value) -> ir.Value:
    """vavrg: (x + y + 1) >> 1 when x + y ≥ 0, else (x + y) >> 1 (arithmetic shifts)."""
    b = cx.builder
    total = b.add(x, y)
    one = ir.Constant(total.type, 1)
    up = b.ashr(b.add(total, one), one)
    return b.select(b.icmp_signed(">=", total, ir.Constant(total.type, 0)), up, b.ashr(total, one))


_Binary = Callable[[FnContext, ir.Value, ir.Value], ir.Value]
_ARITH: dict[str, _Binary] = {
    "vadd": lambda cx, x, y: cx.builder.add(x, y), "vsub": lambda cx, x, y: cx.builder.sub(x, y),
    "vabsdiff": _absdiff, "vmin": _smin, "vmax": _smax, "vavrg": _average,
}
"""The primary operations on exact (sign- or zero-extended) values; no wrap-around can occur."""


def _primary(cx: FnContext, f: VideoForm, ta: ir.Value, tb: ir.Value) -> ir.Value:
    """The intermediate result (the .s34 of scalar forms, a lane's t[i] of SIMD forms), exact."""
    b = cx.builder
    if f.base == "vset":
        return b.zext(b.icmp_signed(_CMP[f.cmp], ta, tb), ta.type)
    if f.base in ("vshl", "vshr"):
        amount = _shift_amount(cx, f, tb)
        return b.shl(ta, amount) if f.base == "vshl" else b.ashr(ta, amount)  # ta is exactly extended
    return _ARITH[f.base](cx, ta, tb)


def _secondary(cx: FnContext, f: VideoForm, tmp: ir.Value, c: ir.Value) -> ir.Value:
    if f.secondary == "add":
        return cx.builder.add(tmp, c)
    if f.secondary == "min":
        return _smin(cx, tmp, c)
    if f.secondary == "max":
        return _smax(cx, tmp, c)
    return tmp


def _merge(cx: FnContext, dsel: str, tmp32: ir.Value, c: ir.Value) -> ir.Value:
    """optMerge: the low byte/half of the result placed at ``dsel`` in ``c``."""
    b = cx.builder
    width, index = _SCALAR_SELECTORS[dsel]
    field = ((1 << width) - 1) << (width * index)
    placed = b.and_(b.shl(tmp32, const(I32, width * index)), const(I32, field))
    return b.or_(placed, b.and_(c, const(I32, ~field)))


def _vmad(cx: FnContext, f: VideoForm, a: ir.Value, b_: ir.Value, c: ir.Value) -> ir.Value:
    """vmad (9.7.18.1.3): (±a·b) + ±c [+ 1 with .po] in 128 bits, signed when either source type is
    or anything is negated; negation is ~x + 1 (the pseudocode's lsb); optional >> 7 / >> 15;
    saturated to the final result's 32-bit range."""
    b = cx.builder
    i128 = ir.IntType(128)
    negate_product = f.neg_a != f.neg_b
    signed_final = f.asigned or f.bsigned or negate_product or f.neg_c
    tmp = b.mul(_part(cx, a, f.asigned, f.asel, i128), _part(cx, b_, f.bsigned, f.bsel, i128))
    if negate_product:
        tmp = b.not_(tmp)
    if f.neg_c and not negate_product:
        c = b.not_(c)
    total = b.add(tmp, b.sext(c, i128) if signed_final else b.zext(c, i128))
    if f.po or negate_product or f.neg_c:
        total = b.add(total, const(i128, 1))
    if f.scale:
        amount = const(i128, 7 if f.scale == "shr7" else 15)
        total = b.ashr(total, amount) if signed_final else b.lshr(total, amount)
    if f.sat:
        total = _clamp(cx, total, 32, signed_final)
    return b.trunc(total, I32)


def _scalar(cx: FnContext, f: VideoForm, a: ir.Value, b_: ir.Value, c: ir.Value) -> ir.Value:
    if f.base == "vmad":
        return _vmad(cx, f, a, b_, c)
    b = cx.builder
    wide = ir.IntType(128 if f.base == "vshl" else 64)
    ta = _part(cx, a, f.asigned, f.asel, wide)
    tb = _part(cx, b_, False if f.base in ("vshl", "vshr") else f.bsigned, f.bsel, wide)
    tmp = _primary(cx, f, ta, tb)
    if f.sat:
        tmp = _clamp(cx, tmp, _SCALAR_SELECTORS.get(f.dsel, (32, 0))[0], f.dsigned)
    if f.dsel:
        return _merge(cx, f.dsel, b.trunc(tmp, I32), c)
    wide_c = b.sext(c, wide) if f.dsigned else b.zext(c, wide)
    return b.trunc(_secondary(cx, f, tmp, wide_c), I32)


# ---- SIMD forms --------------------------------------------------------------------------------

def _lane_sources(sel: str, default: str) -> list[int]:
    """Source element of each lane (0 = lowest); elements 0..7 / 0..3 span b:a (a low)."""
    digits = (sel or default)[1:]
    return [int(d) for d in reversed(digits)]


def _extract(cx: FnContext, pair: ir.Value, width: int, element: int, signed: bool) -> ir.Value:
    b = cx.builder
    field = b.trunc(b.lshr(pair, ir.Constant(pair.type, width * element)), ir.IntType(width))
    return b.sext(field, I32) if signed else b.zext(field, I32)


def _simd(cx: FnContext, f: VideoForm, a: ir.Value, b_: ir.Value, c: ir.Value) -> ir.Value:
    b = cx.builder
    width = 32 // f.lanes
    kind = "h" if f.lanes == 2 else "b"
    i64 = ir.IntType(64)
    pair = b.or_(b.zext(a, i64), b.shl(b.zext(b_, i64), ir.Constant(i64, 32)))
    asel = _lane_sources(f.asel, "h10" if f.lanes == 2 else "b3210")
    bsel = _lane_sources(f.bsel, "h32" if f.lanes == 2 else "b7654")
    mask = {int(x) for x in (f.dsel or kind + "3210"[-f.lanes:])[1:]}
    result: ir.Value = c if f.secondary == "add" else const(I32, 0)
    for lane in range(f.lanes):
        if f.secondary == "add" and lane not in mask:
            continue
        t = _primary(cx, f, _extract(cx, pair, width, asel[lane], f.asigned),
                     _extract(cx, pair, width, bsel[lane], f.bsigned))
        if f.sat:
            t = _clamp(cx, t, width, f.dsigned)
        if f.secondary == "add":
            result = b.add(result, t)
            continue
        source = t if lane in mask else b.lshr(c, const(I32, width * lane))
        field = b.and_(source, const(I32, (1 << width) - 1))
        result = b.or_(result, b.shl(field, const(I32, width * lane)))
    return result


def lower_video(cx: FnContext, op: Op) -> None:
    form = decode(op)
    a, b_, c = cx.operands(op)
    cx.define(op, (_simd if form.lanes > 1 else _scalar)(cx, form, a, b_, c))


LOWERINGS: dict[str, Lowering] = {"video": lower_video}
