"""Binary floating-point formats (f16, bf16, f32, f64, e4m3, e5m2): decode, classify, encode.

Invariant: a value is its bit pattern; ``exact`` turns a finite pattern into the exact rational it
denotes, and ``encode`` is the only place that assembles sign/exponent/fraction fields, so every
rounding path produces bits through the same code. ``e4m3`` follows the OCP FP8 E4M3FN layout PTX
uses (no infinity, NaN is S.1111.111, largest finite 448); the other formats are IEEE 754 binary
formats (PTX ISA 5.2 "Types", alternate floating-point data formats, for bf16/e4m3/e5m2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction

from ptx2gcn.reference.errors import ReferenceInputError


class FpClass(Enum):
    ZERO = "zero"
    SUBNORMAL = "subnormal"
    NORMAL = "normal"
    INF = "inf"
    NAN = "nan"


@dataclass(frozen=True, slots=True)
class FloatFormat:
    name: str
    exp_bits: int
    man_bits: int
    has_inf: bool = True
    """False for e4m3: the all-ones exponent holds normal numbers except the S.1111.111 NaN."""

    width: int = field(init=False)
    bias: int = field(init=False)
    emin: int = field(init=False)
    """Exponent of the smallest normal number."""
    emax: int = field(init=False)
    """Exponent of the largest finite binade (one more for e4m3, whose top exponent is usable)."""
    sign_bit: int = field(init=False)
    exp_mask: int = field(init=False)
    man_mask: int = field(init=False)

    def __post_init__(self) -> None:
        # Derived constants are stored, not recomputed: they sit on the hot path of every lane.
        derived = {
            "width": 1 + self.exp_bits + self.man_bits,
            "bias": (1 << (self.exp_bits - 1)) - 1,
            "emin": 2 - (1 << (self.exp_bits - 1)),
            "emax": (1 << (self.exp_bits - 1)) - (1 if self.has_inf else 0),
            "sign_bit": 1 << (self.exp_bits + self.man_bits),
            "exp_mask": ((1 << self.exp_bits) - 1) << self.man_bits,
            "man_mask": (1 << self.man_bits) - 1,
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    @property
    def inf(self) -> int:
        if not self.has_inf:
            raise ReferenceInputError(f".{self.name} has no infinity")
        return self.exp_mask

    @property
    def max_finite(self) -> int:
        """Bit pattern of the largest finite magnitude."""
        return self.exp_mask - 1 if self.has_inf else self.exp_mask | (self.man_mask - 1)

    @property
    def canonical_nan(self) -> int:
        """The NaN NVIDIA GPUs produce (all ones but the sign: 0x7fffffff for f32, 0x7fff for f16)."""
        return self.exp_mask | self.man_mask

    @property
    def min_normal(self) -> int:
        return 1 << self.man_bits

    @property
    def one(self) -> int:
        """Bit pattern of 1.0."""
        return self.bias << self.man_bits

    def classify(self, bits: int) -> FpClass:
        exponent = bits & self.exp_mask
        fraction = bits & self.man_mask
        if exponent == self.exp_mask:
            if self.has_inf:
                return FpClass.NAN if fraction else FpClass.INF
            if fraction == self.man_mask:
                return FpClass.NAN
        if exponent == 0:
            return FpClass.SUBNORMAL if fraction else FpClass.ZERO
        return FpClass.NORMAL

    def is_nan(self, bits: int) -> bool:
        return self.classify(bits) is FpClass.NAN

    def is_inf(self, bits: int) -> bool:
        return self.classify(bits) is FpClass.INF

    def is_negative(self, bits: int) -> bool:
        return bool(bits & self.sign_bit)

    def magnitude(self, bits: int) -> int:
        return bits & ~self.sign_bit & ((1 << self.width) - 1)

    def negate(self, bits: int) -> int:
        return bits ^ self.sign_bit

    def with_sign(self, bits: int, negative: bool) -> int:
        return self.magnitude(bits) | (self.sign_bit if negative else 0)

    def zero(self, negative: bool = False) -> int:
        return self.sign_bit if negative else 0

    def infinity(self, negative: bool) -> int:
        return self.with_sign(self.inf, negative)

    def decode(self, bits: int) -> tuple[int, int]:
        """A finite pattern as ``(significand, exponent)`` with value ``significand * 2^exponent``;
        the significand carries the sign (so -0.0 decodes to ``(0, ...)``: check ``is_negative``)."""
        cls = self.classify(bits)
        if cls in (FpClass.NAN, FpClass.INF):
            raise ReferenceInputError(f"{cls.value} has no exact value in .{self.name}")
        exponent = (bits & self.exp_mask) >> self.man_bits
        fraction = bits & self.man_mask
        if exponent == 0:
            significand, scale = fraction, self.emin - self.man_bits
        else:
            significand = fraction | (1 << self.man_bits)
            scale = exponent - self.bias - self.man_bits
        return (-significand if self.is_negative(bits) else significand), scale

    def exact(self, bits: int) -> Fraction:
        """The exact value of a finite pattern (zero keeps no sign: check ``is_negative``)."""
        significand, scale = self.decode(bits)
        return Fraction(significand << scale) if scale >= 0 else Fraction(significand, 1 << -scale)

    def encode(self, negative: bool, significand: int, quantum: int) -> int:
        """Bits of ``(-1)^negative * significand * 2^quantum`` (the caller guarantees it fits).

        ``significand`` is below ``2^(man_bits+1)`` and ``quantum`` is ``emin - man_bits`` for
        subnormals, so the biased exponent follows from ``quantum`` directly.
        """
        if significand == 0:
            return self.zero(negative)
        if significand < 1 << self.man_bits:
            if quantum != self.emin - self.man_bits:
                raise AssertionError("subnormal significand at a normal quantum")
            magnitude = significand
        else:
            biased = quantum + self.man_bits + self.bias
            magnitude = (biased << self.man_bits) | (significand & self.man_mask)
        return magnitude | (self.sign_bit if negative else 0)

    def flush_subnormal(self, bits: int) -> int:
        """``.ftz``: a subnormal becomes the zero of the same sign (PTX ISA 9.7.3 ".ftz")."""
        if self.classify(bits) is FpClass.SUBNORMAL:
            return bits & self.sign_bit
        return bits

    def quiet(self, bits: int) -> int:
        """A NaN with its quiet bit set (IEEE 754 6.2: operations return quiet NaNs)."""
        return bits | (1 << (self.man_bits - 1))


F16 = FloatFormat("f16", 5, 10)
BF16 = FloatFormat("bf16", 8, 7)
F32 = FloatFormat("f32", 8, 23)
F64 = FloatFormat("f64", 11, 52)
E4M3 = FloatFormat("e4m3", 4, 3, has_inf=False)
E5M2 = FloatFormat("e5m2", 5, 2)
TF32 = FloatFormat("tf32", 8, 10)
"""tf32 values are stored in 32-bit registers in the f32 layout with the low 13 bits zero;
``convert`` handles that placement, this format describes the 19 meaningful bits."""

FORMATS: dict[str, FloatFormat] = {f.name: f for f in (F16, BF16, F32, F64, E4M3, E5M2, TF32)}


def float_format(name: str) -> FloatFormat:
    found = FORMATS.get(name.removeprefix("."))
    if found is None:
        raise ReferenceInputError(f"'.{name}' is not a floating-point type")
    return found
