"""Exact evaluation of IR ops on constant bit patterns (the constant folder's semantics).

Invariant: ``evaluate(op, inputs)`` returns the exact result bit patterns PTX defines for ``op``
with operand bit patterns ``inputs`` (unsigned, masked to each type's width), or None when it does
not know them exactly; it never guesses. Integer ops follow the PTX ISA definitions (shift amounts
clamp at the width, ``.sat`` clamps to the signed range, ``.relu`` to 0 from below, packed
``u16x2``/``s16x2`` work per 16-bit half, ``mul.hi``/``.wide`` use the full
product, ``bfe``/``bfi``/``prmt``/``lop3`` bit by bit). Floating-point arithmetic is not evaluated
(denormal flushing, NaN payloads and rounding modes would all need modelling); only bit-level
reinterpretation of float constants is.
"""

from __future__ import annotations

from collections.abc import Callable

from ptx2gcn.ir.core import Op
from ptx2gcn.ir.types import IntType, PredType, Type

Bits = int


def _mask(bits: int) -> int:
    return (1 << bits) - 1


def _signed(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) & 1 else value


def _is_signed_attr(op: Op) -> bool:
    t = op.attrs.get("type")
    return isinstance(t, str) and t.startswith("s") and t[1:].isdigit()


def _sat(value: int, bits: int) -> int:
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return min(max(value, low), high)


def _arith(op: Op, a: int, b: int, width: int) -> int | None:
    """add/sub/min/max (``.sat``, ``.relu``), lane by lane for the packed u16x2/s16x2 types."""
    t = op.attrs.get("type")
    if t in ("u16x2", "s16x2"):
        lanes = [_arith_lane(op, a >> shift & 0xFFFF, b >> shift & 0xFFFF, 16, t == "s16x2")
                 for shift in (0, 16)]
        low, high = lanes
        return None if low is None or high is None else low | high << 16
    return _arith_lane(op, a, b, width, _is_signed_attr(op))


def _arith_lane(op: Op, a: int, b: int, width: int, signed: bool) -> int | None:
    x, y = (_signed(a, width), _signed(b, width)) if signed else (a, b)
    if op.name == "add":
        result = x + y
    elif op.name == "sub":
        result = x - y
    elif op.name == "min":
        result = min(x, y)
    elif op.name == "max":
        result = max(x, y)
    else:
        return None
    if op.attrs.get("sat"):
        if not (signed and width == 32):
            return None
        result = _sat(result, width)
    if op.attrs.get("relu"):
        result = max(result, 0)
    return result & _mask(width)


def _mul(op: Op, a: int, b: int, width: int) -> int | None:
    signed = _is_signed_attr(op)
    x, y = (_signed(a, width), _signed(b, width)) if signed else (a, b)
    product = x * y
    mode = op.attrs.get("mode", "lo")
    if mode == "wide":
        return product & _mask(2 * width)
    if mode == "hi":
        return (product >> width) & _mask(width)
    return product & _mask(width)


def _mad(op: Op, a: int, b: int, c: int, width: int) -> int | None:
    """mad.lo/.hi/.wide: the chosen part of a*b, plus c (double width for wide), wrapping."""
    if op.attrs.get("sat"):
        return None
    mode = op.attrs.get("mode", "lo")
    part = _mul(op, a, b, width)
    if part is None:
        return None
    out_width = 2 * width if mode == "wide" else width
    return (part + c) & _mask(out_width)


def _shift(op: Op, a: int, b: int, width: int) -> int:
    amount = min(b, width)
    if op.name == "shl":
        return (a << amount) & _mask(width)
    if _is_signed_attr(op):
        return (_signed(a, width) >> amount) & _mask(width)
    return a >> amount


def _compare(op: Op, a: int, b: int, width: int) -> int | None:
    cmp = op.attrs.get("cmp")
    signed = _is_signed_attr(op)
    x, y = (_signed(a, width), _signed(b, width)) if signed else (a, b)
    table: dict[str, Callable[[int, int], bool]] = {
        "eq": lambda p, q: p == q, "ne": lambda p, q: p != q,
        "lt": lambda p, q: p < q, "le": lambda p, q: p <= q, "gt": lambda p, q: p > q,
        "ge": lambda p, q: p >= q, "lo": lambda p, q: p < q, "ls": lambda p, q: p <= q,
        "hi": lambda p, q: p > q, "hs": lambda p, q: p >= q,
    }
    fn = table.get(cmp) if isinstance(cmp, str) else None
    if fn is None:
        return None
    if cmp in ("lo", "ls", "hi", "hs"):
        x, y = a, b
    return int(fn(x, y))


def _bfe(a: int, pos: int, length: int, width: int, signed: bool) -> int:
    pos, length = pos & 0xFF, length & 0xFF
    msb = width - 1
    if signed:
        sign_at = min(pos + length - 1, msb) if length else 0
        sbit = (a >> sign_at) & 1 if length else 0
    else:
        sbit = 0
    result = 0
    for i in range(width):
        bit = (a >> (pos + i)) & 1 if i < length and pos + i <= msb else sbit
        result |= bit << i
    return result


def _bfi(a: int, b: int, pos: int, length: int, width: int) -> int:
    pos, length = pos & 0xFF, length & 0xFF
    result = b
    for i in range(length):
        if pos + i >= width:
            break
        result = (result & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
    return result & _mask(width)


def _prmt(op: Op, a: int, b: int, c: int) -> int | None:
    if "mode" in op.attrs:
        return None
    source = a | (b << 32)
    result = 0
    for i in range(4):
        sel = (c >> (4 * i)) & 0xF
        byte = (source >> (8 * (sel & 7))) & 0xFF
        if sel & 8:
            byte = 0xFF if byte & 0x80 else 0
        result |= byte << (8 * i)
    return result


def _lop3(a: int, b: int, c: int, lut: int, width: int) -> int:
    result = 0
    for i in range(width):
        index = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1)
        result |= ((lut >> index) & 1) << i
    return result


def _int_width(t: Type) -> int | None:
    if isinstance(t, (IntType, PredType)):
        return t.bits
    return None


def evaluate(op: Op, inputs: list[int]) -> list[int] | None:
    """Result bit patterns of ``op`` on constant ``inputs``, or None when not exactly known."""
    name = op.name
    if name in ("bitcast", "zext", "trunc"):
        return [inputs[0] & _mask(op.results[0].type.bits)]
    if name == "sext":
        return [_signed(inputs[0], op.operand(0).type.bits) & _mask(op.results[0].type.bits)]
    if name == "selp":
        return [inputs[0] if inputs[2] else inputs[1]]
    if name in ("pack", "unpack"):
        return _pack(op, inputs)
    width = _int_width(op.operand(0).type) if op.operands else None
    if width is None:
        return None
    return _integer(op, inputs, width)


def _pack(op: Op, inputs: list[int]) -> list[int] | None:
    """pack/unpack of integer parts: part 0 is the least significant."""
    if op.name == "pack":
        part = op.operand(0).type
        return [sum(v << (part.bits * i) for i, v in enumerate(inputs))] if isinstance(part, IntType) else None
    part_bits = op.results[0].type.bits
    if not all(isinstance(r.type, IntType) for r in op.results):
        return None
    return [(inputs[0] >> (part_bits * i)) & _mask(part_bits) for i in range(len(op.results))]


def _integer(op: Op, inputs: list[int], width: int) -> list[int] | None:  # noqa: C901
    name = op.name
    m = _mask(width)
    if name in ("add", "sub", "min", "max"):
        result = _arith(op, inputs[0], inputs[1], width)
    elif name == "mul":
        result = _mul(op, inputs[0], inputs[1], width)
    elif name == "mad":
        result = _mad(op, inputs[0], inputs[1], inputs[2], width)
    elif name in ("and", "or", "xor"):
        a, b = inputs
        result = {"and": a & b, "or": a | b, "xor": a ^ b}[name]
    elif name == "not":
        result = ~inputs[0] & m
    elif name == "cnot":
        result = int(inputs[0] == 0)
    elif name in ("shl", "shr"):
        result = _shift(op, inputs[0], inputs[1], width)
    elif name == "setp":
        result = _compare(op, inputs[0], inputs[1], width)
    elif name == "popc":
        result = bin(inputs[0]).count("1")
    elif name == "clz":
        result = width - inputs[0].bit_length()
    elif name == "brev":
        result = int(format(inputs[0], f"0{width}b")[::-1], 2)
    elif name == "bfe":
        result = _bfe(inputs[0], inputs[1], inputs[2], width, _is_signed_attr(op))
    elif name == "bfi":
        result = _bfi(inputs[0], inputs[1], inputs[2], inputs[3], width)
    elif name == "prmt":
        result = _prmt(op, inputs[0], inputs[1], inputs[2])
    elif name == "lop3":
        lut = op.attrs.get("lut")
        result = _lop3(inputs[0], inputs[1], inputs[2], lut, width) if isinstance(lut, int) else None
    else:
        result = None
    return None if result is None else [result]
