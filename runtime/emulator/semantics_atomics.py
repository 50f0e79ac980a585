"""Atomic read-modify-write operations shared by GLOBAL/FLAT and DS, on unsigned Python ints.

Invariant: ``AtomicOp.apply(old, data, compare)`` returns the new memory value for one lane, exactly
as the CDNA3 ISA defines the opcode (``inc``/``dec`` wrap against ``data``; ``cmpswap`` stores
``data`` when memory equals ``compare``); the caller returns ``old`` (the pre-operation value) and
runs lanes one at a time in ascending order. Float atomics round to nearest even.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


def _signed(x: int, bits: int) -> int:
    return x - (1 << bits) if x >> (bits - 1) & 1 else x


def _f32_add(a: int, b: int) -> int:
    total = np.float32(struct.unpack("<f", a.to_bytes(4, "little"))[0]) + np.float32(
        struct.unpack("<f", b.to_bytes(4, "little"))[0]
    )
    return int(np.float32(total).view(np.uint32))


def _f64(x: int) -> float:
    return struct.unpack("<d", x.to_bytes(8, "little"))[0]


def _f64_bits(x: float) -> int:
    return int.from_bytes(struct.pack("<d", x), "little")


def _pk_f16_add(a: int, b: int) -> int:
    x = np.array([a & 0xFFFF, a >> 16], dtype=np.uint16).view(np.float16)
    y = np.array([b & 0xFFFF, b >> 16], dtype=np.uint16).view(np.float16)
    s = (x + y).view(np.uint16)
    return int(s[0]) | int(s[1]) << 16


def _bf16_add(a: int, b: int) -> int:
    """bf16 + bf16 rounded to nearest even (through f32)."""
    total = np.float32(np.uint32(a << 16).view(np.float32)) + np.float32(np.uint32(b << 16).view(np.float32))
    bits = int(np.float32(total).view(np.uint32))
    if total != total:
        return (bits >> 16) | 0x40
    rounding = 0x7FFF + (bits >> 16 & 1)
    return (bits + rounding) >> 16 & 0xFFFF


def _pk_bf16_add(a: int, b: int) -> int:
    return _bf16_add(a & 0xFFFF, b & 0xFFFF) | _bf16_add(a >> 16, b >> 16) << 16


def _f32_minmax(a: int, b: int, take_min: bool) -> int:
    x = np.uint32(a).view(np.float32)
    y = np.uint32(b).view(np.float32)
    return int((np.fmin(x, y) if take_min else np.fmax(x, y)).view(np.uint32))


@dataclass(frozen=True, slots=True)
class AtomicOp:
    bytes: int
    apply: Callable[[int, int, int], int]
    two_operands: bool = False


def _int_ops(bits: int) -> dict[str, Callable[[int, int, int], int]]:
    mask = (1 << bits) - 1
    return {
        "swap": lambda o, d, c: d,
        "cmpswap": lambda o, d, c: d if o == c else o,
        "add": lambda o, d, c: (o + d) & mask,
        "sub": lambda o, d, c: (o - d) & mask,
        "rsub": lambda o, d, c: (d - o) & mask,
        "smin": lambda o, d, c: o if _signed(o, bits) <= _signed(d, bits) else d,
        "smax": lambda o, d, c: o if _signed(o, bits) >= _signed(d, bits) else d,
        "umin": lambda o, d, c: min(o, d),
        "umax": lambda o, d, c: max(o, d),
        "and": lambda o, d, c: o & d,
        "or": lambda o, d, c: o | d,
        "xor": lambda o, d, c: o ^ d,
        "inc": lambda o, d, c: 0 if o >= d else o + 1,
        "dec": lambda o, d, c: d if o == 0 or o > d else o - 1,
    }


ATOMICS: dict[str, AtomicOp] = {}
for _name, _fn in _int_ops(32).items():
    ATOMICS[_name] = AtomicOp(4, _fn, _name == "cmpswap")
for _name, _fn in _int_ops(64).items():
    ATOMICS[f"{_name}_x2"] = AtomicOp(8, _fn, _name == "cmpswap")
# DS-only two-operand ops; the DS binder passes (old, data1, data0) like for cmpst.
ATOMICS["mskor"] = AtomicOp(4, lambda o, d, c: (o & ~c) | d, True)  # DS_MSKOR: (MEM & ~DATA) | DATA2
ATOMICS["mskor_x2"] = AtomicOp(8, lambda o, d, c: (o & ~c) | d, True)
ATOMICS["wrap"] = AtomicOp(4, lambda o, d, c: o - c if o >= c else o + d, True)  # DS_WRAP_RTN_B32
ATOMICS["add_f32"] = AtomicOp(4, lambda o, d, c: _f32_add(o, d))
ATOMICS["pk_add_f16"] = AtomicOp(4, lambda o, d, c: _pk_f16_add(o, d))
ATOMICS["pk_add_bf16"] = AtomicOp(4, lambda o, d, c: _pk_bf16_add(o, d))
ATOMICS["add_f64"] = AtomicOp(8, lambda o, d, c: _f64_bits(_f64(o) + _f64(d)))
ATOMICS["min_f32"] = AtomicOp(4, lambda o, d, c: _f32_minmax(o, d, True))
ATOMICS["max_f32"] = AtomicOp(4, lambda o, d, c: _f32_minmax(o, d, False))
ATOMICS["min_f64"] = AtomicOp(8, lambda o, d, c: _f64_bits(float(np.fmin(_f64(o), _f64(d)))))
ATOMICS["max_f64"] = AtomicOp(8, lambda o, d, c: _f64_bits(float(np.fmax(_f64(o), _f64(d)))))
