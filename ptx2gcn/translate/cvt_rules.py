"""Which rounding modifier a scalar ``cvt`` needs (PTX ISA 9.7.9.21 cvt, "Rounding modifiers").

Invariant: ``rounding_problem`` returns '' exactly for the (destination, source, rounding)
combinations PTX and ptxas 13.0 accept, else ptxas's sentence:

* integer -> integer: no rounding modifier;
* integer -> float and float -> narrower float (or another format of the same width, e.g.
  f32 -> tf32, f16 <-> bf16): a floating-point rounding (``.rn .rz .rm .rp``; for tf32
  ``.rna .rn .rz``) is required;
* float -> integer: an integer rounding (``.rni .rzi .rmi .rpi``) is required;
* float -> wider float: no rounding modifier;
* float -> the same float type: optional integer rounding (round to an integral value).

FP8 and other packed destination types are left to the caller (they have their own forms).
"""

from __future__ import annotations

_FLOAT_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64}
_FLOAT_ROUNDING = frozenset({"rn", "rz", "rm", "rp"})
_TF32_ROUNDING = frozenset({"rna", "rn", "rz"})
_INT_ROUNDING = frozenset({"rni", "rzi", "rmi", "rpi"})
_INTEGERS = frozenset(f"{k}{w}" for k in "bsu" for w in (8, 16, 32, 64))

REQUIRED = "rounding modifier required for instruction 'cvt'"
ILLEGAL = "illegal rounding modifier for instruction 'cvt'"


def _needed(dtype: str, stype: str) -> frozenset[str] | None:
    """The rounding modifiers the conversion takes (empty: none allowed); None when unknown."""
    d_float, s_float = dtype in _FLOAT_BITS, stype in _FLOAT_BITS
    if not d_float and not s_float:
        return frozenset() if dtype in _INTEGERS and stype in _INTEGERS else None
    if d_float and not s_float:
        return _FLOAT_ROUNDING if stype in _INTEGERS else None
    if s_float and not d_float:
        return _INT_ROUNDING if dtype in _INTEGERS else None
    if dtype == stype:
        return _INT_ROUNDING
    if _FLOAT_BITS[dtype] > _FLOAT_BITS[stype]:
        return frozenset()
    return _TF32_ROUNDING if dtype == "tf32" else _FLOAT_ROUNDING


def rounding_problem(dtype: str, stype: str, rnd: str | None) -> str:
    """'' when ``cvt[.rnd].dtype.stype`` has an acceptable rounding modifier, else the problem."""
    needed = _needed(dtype, stype)
    if needed is None:
        return ""
    if rnd is None:
        optional = dtype == stype or not needed
        return "" if optional else f"{REQUIRED} (.{dtype}.{stype} needs one of " \
                                   f"{', '.join('.' + r for r in sorted(needed))})"
    if rnd not in needed:
        return f"{ILLEGAL} (.{rnd} with .{dtype}.{stype})"
    return ""
