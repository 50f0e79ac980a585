"""Bit manipulation and logic: popc, clz, bfind, fns, brev, bfe, bfi, szext, bmsk, and/or/xor/not/cnot,
lop3, shf, shl/shr, prmt (all modes).

Invariant: each function is a direct transcription of the PTX ISA pseudo-code for the instruction
(9.7.1 "Integer Arithmetic Instructions" for popc..bmsk, "Logic and Shift Instructions" for
and..shr, "Data Movement and Conversion Instructions: prmt"; section numbers shift between manual
versions, so the names are the reference), evaluated on
exact Python integers; there are no unspecified results except ``fns`` with ``base > 31``, which
the manual calls undefined behaviour.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ptx2gcn.reference.errors import ReferenceInputError
from ptx2gcn.reference.ptxtypes import mask, ptx_type, to_signed
from ptx2gcn.reference.result import Result
from ptx2gcn.reference.spelling import UNDEFINED, LaneValue, Spelling, run_lanes

Handler = Callable[[Spelling, Sequence[object]], Result]

U32 = ptx_type("u32")
S32 = ptx_type("s32")
B32 = ptx_type("b32")
PRED = ptx_type("pred")


def _unary_count(sp: Spelling, inputs: Sequence[object]) -> Result:
    """popc/clz: the result is always .u32."""
    sp.require(set(), ("b32", "b64"))
    t = sp.type

    def lane(a: int) -> LaneValue:
        return bin(a).count("1") if sp.opcode == "popc" else t.width - a.bit_length()

    return run_lanes(sp, lane, inputs, [t], [U32])


def _bfind(sp: Spelling, inputs: Sequence[object]) -> Result:
    """bfind: position of the most significant non-sign bit; 0xffffffff when none."""
    sp.require({"shiftamt"}, ("u32", "u64", "s32", "s64"))
    t = sp.type
    msb = t.width - 1

    def lane(a: int) -> LaneValue:
        if t.signed and a >> msb & 1:
            a = ~a & mask(t.width)
        if a == 0:
            return 0xFFFFFFFF
        position = a.bit_length() - 1
        return msb - position if sp.has("shiftamt") else position

    return run_lanes(sp, lane, inputs, [t], [U32])


def _fns(sp: Spelling, inputs: Sequence[object]) -> Result:
    """fns: position of the n-th set bit of ``mask`` counting from ``base``."""
    sp.require(set(), ("b32",))

    def lane(bitmask: int, base: int, offset: int) -> LaneValue:
        if base > 31:
            return UNDEFINED
        n = to_signed(offset, 32)
        if n == 0:
            return base if bitmask >> base & 1 else 0xFFFFFFFF
        step = 1 if n > 0 else -1
        count = abs(n) - 1
        pos = base
        while 0 <= pos < 32:
            if bitmask >> pos & 1:
                if count == 0:
                    return pos
                count -= 1
            pos += step
        return 0xFFFFFFFF

    return run_lanes(sp, lane, inputs, [B32, U32, S32], [B32],
                     ["base > 31 is undefined behaviour (PTX ISA fns)"])


def _brev(sp: Spelling, inputs: Sequence[object]) -> Result:
    sp.require(set(), ("b32", "b64"))
    t = sp.type

    def lane(a: int) -> LaneValue:
        return int(format(a, f"0{t.width}b")[::-1], 2)

    return run_lanes(sp, lane, inputs, [t], [t])


def _bfe(sp: Spelling, inputs: Sequence[object]) -> Result:
    """bfe: extract ``len`` bits at ``pos``; signed types replicate the field's top bit."""
    sp.require(set(), ("u32", "u64", "s32", "s64"))
    t = sp.type
    msb = t.width - 1

    def lane(a: int, b: int, c: int) -> LaneValue:
        pos, length = b & 0xFF, c & 0xFF
        sbit = 0 if not t.signed or length == 0 else a >> min(pos + length - 1, msb) & 1
        d = 0
        for i in range(t.width):
            bit = a >> (pos + i) & 1 if i < length and pos + i <= msb else sbit
            d |= bit << i
        return d

    return run_lanes(sp, lane, inputs, [t, U32, U32], [t])


def _bfi(sp: Spelling, inputs: Sequence[object]) -> Result:
    """bfi: insert the low ``len`` bits of ``a`` into ``b`` at ``pos``."""
    sp.require(set(), ("b32", "b64"))
    t = sp.type

    def lane(a: int, b: int, c: int, d: int) -> LaneValue:
        pos, length = c & 0xFF, d & 0xFF
        f = b
        i = 0
        while i < length and pos + i < t.width:
            f = (f & ~(1 << (pos + i))) | ((a >> i & 1) << (pos + i))
            i += 1
        return f

    return run_lanes(sp, lane, inputs, [t, t, U32, U32], [t])


def _szext(sp: Spelling, inputs: Sequence[object]) -> Result:
    """szext: sign- or zero-extend the low N bits of ``a`` (N from ``b``; .clamp/.wrap)."""
    sp.require({"clamp", "wrap"}, ("u32", "s32"))
    t = sp.type
    clamp = sp.one_of(("clamp", "wrap")) == "clamp"

    def lane(a: int, b: int) -> LaneValue:
        b1 = b & 0x1F
        too_large = b >= 32 and clamp
        high = 0 if too_large else (mask(32) << b1) & mask(32)
        sign_pos = (b1 - 1) & 0x1F
        sign_bit = not (b1 == 0 or too_large or not t.signed) and bool(a >> sign_pos & 1)
        return (a & ~high & mask(32)) | (high if sign_bit else 0)

    return run_lanes(sp, lane, inputs, [t, U32], [t])


def _bmsk(sp: Spelling, inputs: Sequence[object]) -> Result:
    """bmsk: a mask of ``b`` ones starting at bit ``a`` (.clamp/.wrap)."""
    sp.require({"clamp", "wrap"}, ("b32",))
    clamp = sp.one_of(("clamp", "wrap")) == "clamp"

    def lane(a: int, b: int) -> LaneValue:
        a1, b1 = a & 0x1F, b & 0x1F
        mask0 = (mask(32) << a1) & mask(32)
        total = a1 + b1
        mask1 = (mask(32) << total) & mask(32) if total < 32 else 0
        overflow = total >= 32
        if clamp and a >= 32:
            overflow, mask0 = True, 0
        if clamp and b >= 32:
            overflow = True
        if overflow:
            mask1 = 0
        elif b1 == 0:
            mask1 = mask(32)
        return mask0 & ~mask1 & mask(32)

    return run_lanes(sp, lane, inputs, [U32, U32], [B32])


_LOGIC: dict[str, Callable[[int, int], int]] = {
    "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b}


def _logic(sp: Spelling, inputs: Sequence[object]) -> Result:
    """and/or/xor on .pred and .b16/.b32/.b64."""
    sp.require(set(), ("pred", "b16", "b32", "b64"))
    t = sp.type
    op = _LOGIC[sp.opcode]

    def lane(a: int | bool, b: int | bool) -> LaneValue:
        result = op(int(a), int(b))
        return bool(result) if t.kind == "pred" else result

    return run_lanes(sp, lane, inputs, [t, t], [t])


def _not_cnot(sp: Spelling, inputs: Sequence[object]) -> Result:
    """not (also .pred) and cnot: ``d = (a == 0) ? 1 : 0``."""
    sp.require(set(), ("pred", "b16", "b32", "b64") if sp.opcode == "not" else ("b16", "b32", "b64"))
    t = sp.type

    def lane(a: int | bool) -> LaneValue:
        if t.kind == "pred":
            return not a
        if sp.opcode == "cnot":
            return int(a == 0)
        return ~int(a) & mask(t.width)

    return run_lanes(sp, lane, inputs, [t], [t])


def lop3_value(a: int, b: int, c: int, lut: int, width: int = 32) -> int:
    """Bit i of the result is bit ``(a_i << 2) | (b_i << 1) | c_i`` of ``lut`` (lop3):
    this is what evaluating F on ta=0xF0, tb=0xCC, tc=0xAA means."""
    d = 0
    for i in range(width):
        index = (a >> i & 1) << 2 | (b >> i & 1) << 1 | (c >> i & 1)
        d |= (lut >> index & 1) << i
    return d


_BOOL_OPS: dict[str, Callable[[bool, bool], bool]] = {
    "and": lambda x, y: x and y, "or": lambda x, y: x or y}


def _lop3(sp: Spelling, inputs: Sequence[object]) -> Result:
    """``lop3.b32 d, a, b, c, immLut`` and ``lop3.BoolOp.b32 d|p, a, b, c, immLut, q`` with
    ``p = (d != 0) BoolOp q``."""
    sp.require(set(_BOOL_OPS), ("b32",))
    bool_ops = [m for m in sp.modifiers if m in _BOOL_OPS]
    combine = _BOOL_OPS[sp.one_of(_BOOL_OPS)] if bool_ops else None

    def lane(a: int, b: int, c: int, lut: int, q: bool = False) -> LaneValue | tuple[LaneValue, ...]:
        if lut > 0xFF:
            raise ReferenceInputError(f"{sp.text}: immLut {lut} is not in 0..255")
        d = lop3_value(a, b, c, lut)
        return d if combine is None else (d, combine(d != 0, q))

    if combine is None:
        return run_lanes(sp, lane, inputs, [B32, B32, B32, U32], [B32])
    return run_lanes(sp, lane, inputs, [B32, B32, B32, U32, PRED], [B32, PRED])


def _shf(sp: Spelling, inputs: Sequence[object]) -> Result:
    """shf: funnel shift of the 64-bit ``b:a`` by a clamped or wrapped amount."""
    sp.require({"l", "r", "clamp", "wrap"}, ("b32",))
    left = sp.one_of(("l", "r")) == "l"
    clamp = sp.one_of(("clamp", "wrap")) == "clamp"

    def lane(a: int, b: int, c: int) -> LaneValue:
        n = min(c, 32) if clamp else c & 0x1F
        joined = b << 32 | a
        return (joined << n) >> 32 & mask(32) if left else (joined >> n) & mask(32)

    return run_lanes(sp, lane, inputs, [B32, B32, U32], [B32])


def _shift(sp: Spelling, inputs: Sequence[object]) -> Result:
    """shl/shr: shift amounts above the width clamp to the width; the amount is always .u32."""
    sp.require(set(), ("b16", "b32", "b64") if sp.opcode == "shl"
               else ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64"))
    t = sp.type

    def lane(a: int, b: int) -> LaneValue:
        n = min(b, t.width)
        if sp.opcode == "shl":
            return (a << n) & mask(t.width)
        value = to_signed(a, t.width) if t.signed else a
        return (value >> n) & mask(t.width)

    return run_lanes(sp, lane, inputs, [t, U32], [t])


# prmt selector tables (the manual's mode table): for each mode, the source byte index of d.b0..d.b3 for
# selector values 0..3.
_PRMT_MODES: dict[str, tuple[tuple[int, int, int, int], ...]] = {
    "f4e": ((0, 1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)),
    "b4e": ((0, 7, 6, 5), (1, 0, 7, 6), (2, 1, 0, 7), (3, 2, 1, 0)),
    "rc8": ((0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3)),
    "ecl": ((0, 1, 2, 3), (1, 1, 2, 3), (2, 2, 2, 3), (3, 3, 3, 3)),
    "ecr": ((0, 0, 0, 0), (0, 1, 1, 1), (0, 1, 2, 2), (0, 1, 2, 3)),
    "rc16": ((0, 1, 0, 1), (2, 3, 2, 3), (0, 1, 0, 1), (2, 3, 2, 3)),
}


def prmt_value(a: int, b: int, c: int, mode: str | None) -> int:
    source = b << 32 | a
    source_bytes = [source >> (8 * i) & 0xFF for i in range(8)]
    out = 0
    for i in range(4):
        if mode is None:
            selector = c >> (4 * i) & 0xF
            byte = source_bytes[selector & 7]
            if selector & 8:  # sign-replicate: the msb of the selected byte fills the byte
                byte = 0xFF if byte & 0x80 else 0x00
        else:
            byte = source_bytes[_PRMT_MODES[mode][c & 3][i]]
        out |= byte << (8 * i)
    return out


def _prmt(sp: Spelling, inputs: Sequence[object]) -> Result:
    sp.require(set(_PRMT_MODES), ("b32",))
    modes = [m for m in sp.modifiers if m in _PRMT_MODES]
    mode = sp.one_of(_PRMT_MODES) if modes else None

    def lane(a: int, b: int, c: int) -> LaneValue:
        return prmt_value(a, b, c, mode)

    return run_lanes(sp, lane, inputs, [B32, B32, B32], [B32])


HANDLERS: dict[str, Handler] = {
    "popc": _unary_count, "clz": _unary_count, "bfind": _bfind, "fns": _fns, "brev": _brev,
    "bfe": _bfe, "bfi": _bfi, "szext": _szext, "bmsk": _bmsk, "and": _logic, "or": _logic,
    "xor": _logic, "not": _not_cnot, "cnot": _not_cnot, "lop3": _lop3, "shf": _shf,
    "shl": _shift, "shr": _shift, "prmt": _prmt,
}


