"""Approximate VALU instructions: their documented error bounds and the per-run policy that picks
each result within them.

AMD documents ``v_rcp``/``v_rsq``/``v_sqrt``/``v_exp``/``v_log``/``v_sin``/``v_cos`` as
approximations (CDNA3/CDNA4 ISA guide, VOP1 instruction notes), so a program whose result depends
on them being correctly rounded is wrong on an MI300X even if it passes on an emulator that rounds
them correctly. The emulator therefore evaluates them under an explicit policy, chosen per run:

* ``nominal`` (the default): the best estimate from the documentation. The exact value rounded to
  nearest even, except that the instructions documented with "denormals are flushed" flush
  denormal inputs and results to sign-preserving zero whatever MODE says.
* ``adversarial``: the same specials and flushing, but every other result is a deterministic
  pseudo-random pick among the representable values within the documented bound of the exact
  value (``APPROX_BOUNDS``); a zero pick gets either sign, and NaN results get a pseudo-random quiet
  NaN (sign and payload), since the guide fixes neither. The pick hashes (seed, opcode, input bits),
  so one input always gives one result in a run, as it would on one piece of hardware.

Invariant: an approximate opcode's result is always either its documented special value (NaN,
infinity and zero inputs, overflow to infinity) or within ``APPROX_BOUNDS[opcode]`` of the exact
value computed from the (possibly flushed) input; ``nominal`` and ``adversarial`` differ only in
which such value is returned. The policy is ``ApproxPolicy``; a launch takes it explicitly or from
``PTX2GCN_EMU_APPROX`` / ``PTX2GCN_EMU_APPROX_SEED`` (``approx_from_environment``).
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

A = Any
F16, F32, F64 = np.float16, np.float32, np.float64
ENV_MODE = "PTX2GCN_EMU_APPROX"
ENV_SEED = "PTX2GCN_EMU_APPROX_SEED"
MODES = ("nominal", "adversarial")


@dataclass(frozen=True, slots=True)
class ApproxPolicy:
    """How the emulator evaluates the instructions of ``APPROX_BOUNDS`` in one run."""

    mode: str = "nominal"
    seed: int = 0

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"emulator approximation policy {self.mode!r}: expected one of {', '.join(MODES)}")

    @property
    def adversarial(self) -> bool:
        return self.mode == "adversarial"


NOMINAL = ApproxPolicy()


def approx_from_environment(environ: Mapping[str, str] | None = None) -> ApproxPolicy:
    """The policy ``PTX2GCN_EMU_APPROX`` (``nominal``/``adversarial``, default nominal) and
    ``PTX2GCN_EMU_APPROX_SEED`` (an integer, default 0) name; ``ValueError`` says which is bad."""
    env = os.environ if environ is None else environ
    mode = env.get(ENV_MODE, "").strip().lower() or "nominal"
    seed_text = env.get(ENV_SEED, "").strip() or "0"
    try:
        seed = int(seed_text, 0)
    except ValueError:
        raise ValueError(f"{ENV_SEED}={seed_text!r}: expected an integer") from None
    try:
        return ApproxPolicy(mode, seed)
    except ValueError as error:
        raise ValueError(f"{ENV_MODE}: {error}") from None


@dataclass(frozen=True, slots=True)
class ApproxBound:
    """|result - exact| <= max(``ulps`` ULPs of the exact value in the result format, ``absolute``)."""

    ulps: float
    absolute: float = 0.0
    flushes: bool = False
    """Denormal inputs and results are flushed to sign-preserving zero (whatever MODE says)."""
    source: str = ""


_ISA = "CDNA ISA guide, VOP1 notes"
_F32_FLUSHED = ApproxBound(1, flushes=True, source=f"{_ISA}: \"1ULP accuracy, denormals are flushed\"")
_F16_1ULP = ApproxBound(1, source=f"{_ISA}: \"1ULP accuracy\" (denormals supported)")
_F64_2_29 = ApproxBound(2.0**29, source=f"{_ISA}: \"(2**29)ULP accuracy and supports denormals\"")
_TRIG_NOTE = "no accuracy stated (\"Denormals are supported. Full range input is supported.\"); assumed"

APPROX_BOUNDS: dict[str, ApproxBound] = {
    "v_rcp_f32": ApproxBound(
        1, flushes=True, source=f"{_ISA}: \"1ULP accuracy ... Denormals are flushed.\""
    ),
    "v_rcp_iflag_f32": ApproxBound(
        1, flushes=True, source=f"{_ISA}: no accuracy stated (integer-division helper); v_rcp_f32's assumed"
    ),
    "v_rsq_f32": _F32_FLUSHED,
    "v_sqrt_f32": _F32_FLUSHED,
    "v_exp_f32": _F32_FLUSHED,
    "v_log_f32": _F32_FLUSHED,
    "v_exp_legacy_f32": ApproxBound(1, flushes=True, source=f"{_ISA}: no accuracy stated; v_exp_f32's assumed"),
    "v_log_legacy_f32": ApproxBound(1, flushes=True, source=f"{_ISA}: no accuracy stated; v_log_f32's assumed"),
    "v_sin_f32": ApproxBound(1, 2.0**-22, source=f"{_ISA}: {_TRIG_NOTE} 1 ULP or 2^-22 absolute"),
    "v_cos_f32": ApproxBound(1, 2.0**-22, source=f"{_ISA}: {_TRIG_NOTE} 1 ULP or 2^-22 absolute"),
    "v_rcp_f16": _F16_1ULP,
    "v_sqrt_f16": _F16_1ULP,
    "v_rsq_f16": _F16_1ULP,
    "v_exp_f16": _F16_1ULP,
    "v_log_f16": _F16_1ULP,
    "v_sin_f16": ApproxBound(1, 2.0**-11, source=f"{_ISA}: {_TRIG_NOTE} 1 ULP or 2^-11 absolute"),
    "v_cos_f16": ApproxBound(1, 2.0**-11, source=f"{_ISA}: {_TRIG_NOTE} 1 ULP or 2^-11 absolute"),
    "v_rcp_f64": _F64_2_29,
    "v_rsq_f64": _F64_2_29,
    "v_sqrt_f64": _F64_2_29,
}
"""Every approximate VALU opcode the emulator implements, with its bound and where it comes from."""

# dtype -> (unsigned view, mantissa bits, smallest normal exponent, margin kept inside the bound in
# ULPs: the float64 "exact" value is within 2^-29 ULP of the truth for f16/f32 and within 2 ULPs for
# the f64 instructions, whose bound is 2^29 ULPs)
_FORMATS: dict[Any, tuple[Any, int, int, float]] = {
    np.dtype(F16): (np.uint16, 10, -14, 2.0**-20),
    np.dtype(F32): (np.uint32, 23, -126, 2.0**-20),
    np.dtype(F64): (np.uint64, 52, -1022, 2.0),
}
_MASK64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def flush(x: A) -> A:
    """Denormal lanes of ``x`` as zeros of the same sign."""
    x = np.asarray(x)
    tiny = np.finfo(x.dtype).tiny
    return np.where((np.abs(x) < tiny) & (x != 0), np.copysign(x.dtype.type(0), x), x).astype(x.dtype)


def _mix(h: A) -> A:
    """splitmix64's finaliser over uint64 lanes (wrapping arithmetic)."""
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


def lane_hash(policy: ApproxPolicy, opcode: str, x: A) -> A:
    """A uint64 per lane from (seed, opcode, the input's bits): the adversarial choice's randomness."""
    x = np.asarray(x)
    bits = x.view(_FORMATS[x.dtype][0]).astype(np.uint64)
    salt = np.uint64((policy.seed * 0x9E3779B97F4A7C15 + zlib.crc32(opcode.encode())) & 0xFFFFFFFFFFFFFFFF)
    return _mix(_mix(bits ^ salt) + np.uint64(0x9E3779B97F4A7C15))


def _ordinal(values: A, unsigned: Any, nbits: int) -> A:
    """Float bits as int64 ordered like the values (+0 and -0 both map to 0)."""
    bits = np.asarray(values).view(unsigned).astype(np.int64)
    magnitude = bits & ((1 << (nbits - 1)) - 1)
    return np.where(bits >> (nbits - 1) & 1 == 1, -magnitude, magnitude)


def _from_ordinal(ordinal: A, unsigned: Any, nbits: int, negative_zero: A) -> A:
    sign = (ordinal < 0) | ((ordinal == 0) & negative_zero)
    bits = np.abs(ordinal).astype(np.uint64) | (sign.astype(np.uint64) << np.uint64(nbits - 1))
    return bits.astype(unsigned)


def _ulp(exact: A, mant_bits: int, emin: int) -> A:
    """The spacing of the format at |exact| (the smallest denormal's for zero and denormals)."""
    _, exponent = np.frexp(exact)
    exponent = np.where(exact == 0, emin, exponent.astype(np.int64) - 1)
    return np.ldexp(1.0, np.maximum(exponent, emin) - mant_bits)


def pick_within(policy: ApproxPolicy, opcode: str, bound: ApproxBound, x: A, exact: A, dtype: Any) -> A:
    """A pseudo-random representable value within ``bound`` of ``exact`` (float64 lanes) for every
    lane whose exact value is finite and representable; other lanes get the nearest value."""
    unsigned, mant_bits, emin, margin = _FORMATS[np.dtype(dtype)]
    nbits = np.dtype(dtype).itemsize * 8
    exact = np.asarray(exact, dtype=F64)
    with np.errstate(all="ignore"):
        nearest = exact.astype(dtype)
        ulp = _ulp(exact, mant_bits, emin)
        width = np.maximum((bound.ulps - margin) * ulp, bound.absolute * (1 - 2.0**-20))
        low, high = exact - width, exact + width
        lo = low.astype(dtype)
        lo = np.where(lo.astype(F64) < low, np.nextafter(lo, dtype(np.inf)), lo)
        hi = high.astype(dtype)
        hi = np.where(hi.astype(F64) > high, np.nextafter(hi, dtype(-np.inf)), hi)
    largest = np.finfo(dtype).max
    hi, lo = np.minimum(hi, largest), np.maximum(lo, -largest)
    lo_o, hi_o = _ordinal(lo, unsigned, nbits), _ordinal(hi, unsigned, nbits)
    h = lane_hash(policy, opcode, x)
    span = np.maximum(hi_o - lo_o + 1, 1).astype(np.uint64)
    chosen = lo_o + (h % span).astype(np.int64)
    negative_zero = (h >> np.uint64(63)) == 1
    picked = _from_ordinal(chosen, unsigned, nbits, negative_zero).view(dtype)
    usable = np.isfinite(exact) & np.isfinite(nearest) & (hi_o >= lo_o)
    return np.where(usable, picked, nearest).astype(dtype)


def any_quiet_nan(policy: ApproxPolicy, opcode: str, x: A, dtype: Any) -> A:
    """A pseudo-random quiet NaN per lane (random sign and payload)."""
    unsigned, mant_bits, _, _ = _FORMATS[np.dtype(dtype)]
    nbits = np.dtype(dtype).itemsize * 8
    h = lane_hash(policy, opcode + ".nan", x)
    exponent_and_quiet = ((1 << (nbits - mant_bits)) - 1) << (mant_bits - 1)
    keep = (1 << (mant_bits - 1)) - 1 | 1 << (nbits - 1)
    bits = (h & np.uint64(keep)) | np.uint64(exponent_and_quiet)
    return bits.astype(unsigned).view(dtype)


def evaluate(
    policy: ApproxPolicy, opcode: str, x: A, exact: Callable[[A], A]
) -> A:
    """``opcode`` over typed lanes ``x``: ``exact`` (float64 in, float64 out) evaluated on the
    (flushed, where documented) input, then rounded to nearest (nominal) or picked within the
    documented bound (adversarial), then flushed where documented."""
    bound = APPROX_BOUNDS[opcode]
    x = np.asarray(x)
    dtype = x.dtype.type
    if bound.flushes:
        x = flush(x)
    with np.errstate(all="ignore"):
        value = np.asarray(exact(x.astype(F64)), dtype=F64)
        result = value.astype(dtype)
    if policy.adversarial:
        ordinary = np.isfinite(x) & (x != 0)
        result = np.where(ordinary, pick_within(policy, opcode, bound, x, value, dtype), result)
        result = np.where(np.isnan(result), any_quiet_nan(policy, opcode, x, dtype), result)
    if bound.flushes:
        result = flush(result)
    return np.asarray(result).astype(dtype)
