"""Video instructions (PTX ISA 9.7.18 "Video Instructions"; 9.7.16 in older manuals): scalar
``vadd vsub vabsdiff vmin vmax`` (9.7.18.1.1), ``vshl vshr`` (.1.2), ``vmad`` (.1.3), ``vset`` (.1.4),
and SIMD ``vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2`` (.2.1), ``vset2`` (.2.2), ``vadd4 ... vmax4``
(.2.3), ``vset4`` (.2.4).

Operand syntax: PTX attaches selectors and negation to operands (``d.h1``, ``a.b0``, ``-c``,
``b.b7654``, ``d.b10``). The model takes them as spelling modifiers with an ``=`` (never a PTX
modifier): ``dsel=h1 asel=b0 bsel=h0`` (scalar), ``mask=b10 asel=b3210 bsel=b7654`` (SIMD), and
``neg=a neg=b neg=c`` (vmad); ``operand_syntax`` turns such a spelling back into PTX text.

Invariant: every lane is computed on exact Python integers exactly as the manual's pseudocode
reads (``partSelectSignExtend``, ``optSaturate``, ``optSecOp``, ``optMerge``, ``extractAndSignExt``),
and only the low 32 bits are written. Two readings the pseudocode needs: the SIMD merge puts
``t[i]`` (or ``c``'s element ``i``) into element ``i`` of ``d`` (``d |= ...`` with element
positions implied), and ``vset2``/``vset4`` merge unmasked elements from ``c`` as their pseudocode
says (the prose of vset2 says ``b``; vadd2's prose and every pseudocode say ``c``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ptx2gcn.reference.errors import ReferenceInputError
from ptx2gcn.reference.ptxtypes import PtxType, mask, ptx_type, to_signed
from ptx2gcn.reference.result import Result
from ptx2gcn.reference.spelling import LaneValue, Spelling, run_lanes

Handler = Callable[[Spelling, Sequence[object]], Result]

TYPES = ("u32", "s32")
SCALAR_SELECTORS = ("b0", "b1", "b2", "b3", "h0", "h1")
SECONDARY = ("add", "min", "max")
COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")
SCALAR_OPS = ("vadd", "vsub", "vabsdiff", "vmin", "vmax")
SIMD_OPS = ("vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax")
U32 = ptx_type("u32")


@dataclass(frozen=True)
class Syntax:
    """A spelling split into its PTX instruction name and operand decorations."""

    spelling: str
    """The PTX spelling (selector and negation modifiers removed)."""
    selectors: dict[str, str]
    """``d``/``a``/``b``/``mask`` -> selector (``h1``, ``b3210``...)."""
    negated: frozenset[str]
    """Negated operands (``a``, ``b``, ``c``: vmad)."""

    def operand(self, name: str, text: str) -> str:
        """``text`` of operand ``name`` with its decorations (``-%r1``, ``%r2.b0``)."""
        sel = self.selectors.get("mask" if name == "d" and "mask" in self.selectors else name)
        return ("-" if name in self.negated else "") + text + (f".{sel}" if sel else "")


def operand_syntax(spelling: str) -> Syntax:
    """``vadd.u32.u32.u32.asel=b1`` -> ``vadd.u32.u32.u32`` with ``a`` selecting ``.b1``."""
    parts = spelling.split(".")
    plain = [p for p in parts if "=" not in p]
    selectors: dict[str, str] = {}
    negated: set[str] = set()
    for p in parts:
        if "=" not in p:
            continue
        key, _, value = p.partition("=")
        if key == "neg":
            negated.add(value)
        else:
            selectors[key.removesuffix("sel")] = value
    return Syntax(".".join(plain), selectors, frozenset(negated))


def _decorations(sp: Spelling) -> tuple[Spelling, dict[str, str], frozenset[str]]:
    syntax = operand_syntax(sp.text)
    return Spelling.parse(syntax.spelling), syntax.selectors, syntax.negated


def _select(value: int, t: PtxType, sel: str | None) -> int:
    """partSelectSignExtend: the whole word, byte ``bN`` or half-word ``hN``, sign-extended for s32."""
    if sel is None:
        return to_signed(value, 32) if t.signed else value
    width = 8 if sel[0] == "b" else 16
    part = (value >> (width * int(sel[1]))) & mask(width)
    return to_signed(part, width) if t.signed else part


def _clamp(value: int, width: int, signed: bool) -> int:
    low, high = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, mask(width))
    return min(max(value, low), high)


def _opt_saturate(tmp: int, sat: bool, signed: bool, dsel: str | None) -> int:
    if not sat:
        return tmp
    width = 32 if dsel is None else 8 if dsel[0] == "b" else 16
    return _clamp(tmp, width, signed)


def _opt_merge(dsel: str, tmp: int, c: int) -> int:
    width = 8 if dsel[0] == "b" else 16
    shift = width * int(dsel[1])
    field = mask(width) << shift
    return ((tmp & mask(width)) << shift) | (c & ~field & mask(32))


def _finish(sp: Spelling, tmp: int, c: int | None, dtype_signed: bool, dsel: str | None) -> int:
    """optSecOp or optMerge with ``c`` (sign per ``dtype``), then the low 32 bits."""
    secondary = [m for m in sp.modifiers if m in SECONDARY]
    if secondary:
        assert c is not None
        cv = to_signed(c, 32) if dtype_signed else c
        op = secondary[0]
        tmp = tmp + cv if op == "add" else min(tmp, cv) if op == "min" else max(tmp, cv)
    elif dsel is not None:
        assert c is not None
        tmp = _opt_merge(dsel, tmp, c)
    return tmp & mask(32)


_SCALAR: dict[str, Callable[[int, int], int]] = {
    "vadd": lambda a, b: a + b,
    "vsub": lambda a, b: a - b,
    "vabsdiff": lambda a, b: abs(a - b),
    "vmin": min,
    "vmax": max,
}
_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
}


def _check_selectors(sp: Spelling, selectors: dict[str, str], allowed: Sequence[str]) -> None:
    for key, value in selectors.items():
        if key not in ("d", "a", "b") or value not in allowed:
            raise ReferenceInputError(f"{sp.text}: selector {key}sel={value} is not valid here")


def _operand_count(sp: Spelling, selectors: dict[str, str]) -> int:
    """2 sources, or 3 with a secondary operation or a destination merge (which exclude each other)."""
    secondary = [m for m in sp.modifiers if m in SECONDARY]
    if len(secondary) > 1 or (secondary and "d" in selectors):
        raise ReferenceInputError(f"{sp.text}: one secondary operation or a merge, not both")
    return 3 if secondary or "d" in selectors else 2


def _scalar(raw: Spelling, inputs: Sequence[object]) -> Result:
    """vadd/vsub/vabsdiff/vmin/vmax.dtype.atype.btype{.sat}{.op2} (9.7.18.1.1)."""
    sp, selectors, negated = _decorations(raw)
    sp.require({"sat", *SECONDARY}, TYPES)
    _check_selectors(raw, selectors, SCALAR_SELECTORS)
    if negated or len(sp.types) != 3:
        raise ReferenceInputError(f"{raw.text}: expected .dtype.atype.btype and no negation")
    dtype, atype, btype = sp.types
    count = _operand_count(sp, selectors)
    fn, sat, dsel = _SCALAR[sp.opcode], sp.has("sat"), selectors.get("d")

    def lane(a: int, b: int, c: int | None = None) -> LaneValue:
        tmp = fn(_select(a, atype, selectors.get("a")), _select(b, btype, selectors.get("b")))
        return _finish(sp, _opt_saturate(tmp, sat, dtype.signed, dsel), c, dtype.signed, dsel)

    return run_lanes(raw, lane, inputs, [atype, btype, dtype][:count], [dtype])


def _shift(raw: Spelling, inputs: Sequence[object]) -> Result:
    """vshl/vshr.dtype.atype.u32{.sat}.mode{.op2} (9.7.18.1.2)."""
    sp, selectors, negated = _decorations(raw)
    sp.require({"sat", "clamp", "wrap", *SECONDARY}, TYPES)
    _check_selectors(raw, selectors, SCALAR_SELECTORS)
    if negated or len(sp.types) != 3 or sp.types[2].name != "u32":
        raise ReferenceInputError(f"{raw.text}: expected .dtype.atype.u32 and no negation")
    mode = sp.one_of(("clamp", "wrap"))
    dtype, atype, btype = sp.types
    count = _operand_count(sp, selectors)
    sat, dsel = sp.has("sat"), selectors.get("d")

    def lane(a: int, b: int, c: int | None = None) -> LaneValue:
        ta, tb = _select(a, atype, selectors.get("a")), _select(b, btype, selectors.get("b"))
        tb = min(tb, 32) if mode == "clamp" else tb & 0x1F
        tmp = ta << tb if sp.opcode == "vshl" else ta >> tb
        return _finish(sp, _opt_saturate(tmp, sat, dtype.signed, dsel), c, dtype.signed, dsel)

    return run_lanes(raw, lane, inputs, [atype, btype, dtype][:count], [dtype])


def _vset(raw: Spelling, inputs: Sequence[object]) -> Result:
    """vset.atype.btype.cmp{.op2} (9.7.18.1.4): the result, ``c`` and ``d`` are unsigned."""
    sp, selectors, negated = _decorations(raw)
    sp.require({*COMPARISONS, *SECONDARY}, TYPES)
    _check_selectors(raw, selectors, SCALAR_SELECTORS)
    if negated or len(sp.types) != 2:
        raise ReferenceInputError(f"{raw.text}: expected .atype.btype and no negation")
    atype, btype = sp.types
    compare = _COMPARE[sp.one_of(COMPARISONS)]
    count = _operand_count(sp, selectors)
    dsel = selectors.get("d")

    def lane(a: int, b: int, c: int | None = None) -> LaneValue:
        tmp = int(compare(_select(a, atype, selectors.get("a")), _select(b, btype, selectors.get("b"))))
        return _finish(sp, tmp, c, False, dsel)

    return run_lanes(raw, lane, inputs, [atype, btype, U32][:count], [U32])


def _vmad(raw: Spelling, inputs: Sequence[object]) -> Result:
    """vmad.dtype.atype.btype{.po}{.sat}{.shr7|.shr15} d, {-}a{.asel}, {-}b{.bsel}, {-}c
    (9.7.18.1.3), following its 128-bit pseudocode."""
    sp, selectors, negated = _decorations(raw)
    sp.require({"po", "sat", "shr7", "shr15"}, TYPES)
    _check_selectors(raw, selectors, SCALAR_SELECTORS)
    if "d" in selectors or len(sp.types) != 3 or not negated <= {"a", "b", "c"}:
        raise ReferenceInputError(f"{raw.text}: expected .dtype.atype.btype, no destination selector")
    if sp.has("po") and negated:
        raise ReferenceInputError(f"{raw.text}: operands may not be negated in .po mode")
    dtype, atype, btype = sp.types
    product_negated = ("a" in negated) != ("b" in negated)
    signed_final = atype.signed or btype.signed or product_negated or "c" in negated
    if signed_final != dtype.signed:
        raise ReferenceInputError(f"{raw.text}: the final result is {'s' if signed_final else 'u'}32")
    scale = {"shr7": 7, "shr15": 15}.get(sp.one_of(("shr7", "shr15"), ""), 0)
    wide = mask(128)

    def lane(a: int, b: int, c: int) -> LaneValue:
        tmp = (_select(a, atype, selectors.get("a")) * _select(b, btype, selectors.get("b"))) & wide
        lsb = 0
        if sp.has("po"):
            lsb = 1
        elif product_negated:
            tmp, lsb = ~tmp & wide, 1
        elif "c" in negated:
            c, lsb = ~c & mask(32), 1
        c128 = (to_signed(c, 32) if signed_final else c) & wide
        tmp = (tmp + c128 + lsb) & wide
        value = to_signed(tmp, 128) if signed_final else tmp
        result = (value >> scale) & mask(64)
        if sp.has("sat"):
            result = _clamp(to_signed(result, 64) if signed_final else result, 32, signed_final)
        return result & mask(32)

    return run_lanes(raw, lane, inputs, [atype, btype, dtype], [dtype])


def _simd_elements(sp: Spelling) -> int:
    return int(sp.opcode[-1])


def _simd_defaults(lanes: int) -> dict[str, str]:
    return {"mask": "h10", "a": "h10", "b": "h32"} if lanes == 2 else {"mask": "b3210", "a": "b3210", "b": "b7654"}


def _simd_selectors(raw: Spelling, selectors: dict[str, str], lanes: int) -> dict[str, str]:
    chosen = dict(_simd_defaults(lanes))
    letter, top = ("h", 3) if lanes == 2 else ("b", 7)
    for key, value in selectors.items():
        digits = value[1:]
        count = lanes if key in ("a", "b") else None
        valid = (
            key in ("mask", "a", "b")
            and value[:1] == letter
            and digits.isdigit()
            and all(int(x) <= (top if key != "mask" else lanes - 1) for x in digits)
            and (count is None or len(digits) == count)
            and (key != "mask" or (list(digits) == sorted(digits, reverse=True) and len(set(digits)) == len(digits)))
        )
        if not valid:
            raise ReferenceInputError(f"{raw.text}: selector {key}sel={value} is not valid here")
        chosen[key] = value
    return chosen


def _extract(a: int, b: int, sel: str, t: PtxType, lanes: int) -> list[int]:
    """extractAndSignExt: element i is part ``sel``'s digit for i (rightmost digit: element 0) of
    the 64-bit ``b:a``."""
    width = 32 // lanes
    pool = (b << 32) | a
    digits = [int(x) for x in reversed(sel[1:])]
    parts = [(pool >> (width * d)) & mask(width) for d in digits]
    return [to_signed(p, width) if t.signed else p for p in parts]


def _simd(raw: Spelling, inputs: Sequence[object]) -> Result:
    """vop2/vop4.dtype.atype.btype{.sat} d{.mask}, a{.asel}, b{.bsel}, c (merge) or .add
    (accumulate), and vset2/vset4.atype.btype.cmp{.add} (9.7.18.2.1-4)."""
    sp, selectors, negated = _decorations(raw)
    lanes = _simd_elements(sp)
    compare_op = sp.opcode.startswith("vset")
    sp.require({"add", *(COMPARISONS if compare_op else ("sat",))}, TYPES)
    if negated or len(sp.types) != (2 if compare_op else 3):
        raise ReferenceInputError(f"{raw.text}: wrong type list or negation")
    chosen = _simd_selectors(raw, selectors, lanes)
    accumulate, sat = sp.has("add"), sp.has("sat")
    if accumulate and sat:
        raise ReferenceInputError(f"{raw.text}: saturation cannot be used with the secondary accumulate")
    if compare_op:
        atype, btype = sp.types
        dtype = U32
        compare = _COMPARE[sp.one_of(COMPARISONS)]
    else:
        dtype, atype, btype = sp.types
    width = 32 // lanes
    enabled = {int(x) for x in chosen["mask"][1:]}
    base = sp.opcode[: -1]

    def element(x: int, y: int) -> int:
        if compare_op:
            return int(compare(x, y))
        if base == "vavrg":
            total = x + y
            t = (total + 1) >> 1 if total >= 0 else total >> 1
        else:
            t = _SCALAR[base](x, y)
        return _clamp(t, width, dtype.signed) if sat else t

    def lane(a: int, b: int, c: int) -> LaneValue:
        va, vb = _extract(a, b, chosen["a"], atype, lanes), _extract(a, b, chosen["b"], btype, lanes)
        t = [element(x, y) for x, y in zip(va, vb)]
        if accumulate:
            return (c + sum(t[i] for i in range(lanes) if i in enabled)) & mask(32)
        out = 0
        for i in range(lanes):
            part = t[i] if i in enabled else c >> (width * i)
            out |= (part & mask(width)) << (width * i)
        return out

    return run_lanes(raw, lane, inputs, [atype, btype, dtype], [dtype])


HANDLERS: dict[str, Handler] = {
    **{op: _scalar for op in SCALAR_OPS},
    "vshl": _shift,
    "vshr": _shift,
    "vmad": _vmad,
    "vset": _vset,
    **{f"{op}{n}": _simd for op in (*SIMD_OPS, "vset") for n in (2, 4)},
}
