"""The IEEE division helpers of the VALU: V_DIV_SCALE_F32/F64, V_DIV_FMAS_F32/F64 and
V_DIV_FIXUP_F16/F32/F64, the three instructions around which LLVM builds every correctly rounded
``fdiv`` (div_scale x2, rcp, fma refinement, div_fmas, div_fixup).

Invariant: DIV_SCALE follows the branch chain of the AMD CDNA3/CDNA4 ISA reference (section "VOP3A &
VOP3B Instructions", V_DIV_SCALE_F32 opcode 480 / F64 481), DIV_FIXUP that of V_DIV_FIXUP_F32/F64
(opcodes 478/479), each predicate evaluated exactly on the operand values. Where that text is not
self-consistent the choice is stated at the definition and backed by hardware observations:

* ``S2/S1 == DENORM`` is tested on the *exact* quotient ("nonzero and below the format's smallest
  normal"), so a quotient too small to be represented at all counts as denormal. Read on the
  rounded value (zero is not denormal), a tiny numerator over a huge denominator would reach the
  "numerator is tiny" branch and scale the huge denominator by 2^64 to infinity; real hardware
  divides such operands correctly.
* ``1.0 / S1 == DENORM`` is tested on the exact reciprocal against the format's own normal range
  (|S1| > 2^126 for f32, 2^1022 for f64). For f32 the text writes ``1.0 / 64'F(S1) == DENORM.f64``,
  which no finite f32 reaches: the branch would be dead, V_RCP_F32 of a huge denominator would
  return a denormal with a few bits less, and LLVM's macro would lose the last bit (2^24 / FLT_MAX
  gives 0x0b800000 instead of the correctly rounded 0x0b800001). The gfx1151 sweep below shows the
  hardware scaling f32 denominators with exponent field >= 254 down by 2^-64.
* The branch "reciprocal and quotient both denormal" scales the denominator *down* (ldexp -64 /
  -128) where the text says ``ldexp(S0, 64/128)``: its denominators are above 2^126 / 2^1022, so
  the literal up-scaling overflows every one of them. Down-scaling is what the hardware does for
  huge denominators (the gfx1151 sweep below) and is the only choice that keeps the macro exact.
* V_DIV_FMAS scales by 2^+-64 (f32) / 2^+-128 (f64), up when |S2| >= 2, down otherwise (CLRX GCN
  ISA notes, ``doc/GcnInstrsVop3.md``, measured on GCN hardware); the ISA text's fixed 2^32 / 2^64
  factor cannot undo both directions DIV_SCALE scales in. The scale is applied before the single
  rounding, so a quotient that lands in the subnormal range is rounded once.
* V_DIV_FIXUP's ``UNDERFLOW`` result is the signed zero and a NaN quotient reaching the last branch
  gives the signed infinity, as measured on gfx1151 (RDNA3.5, all 262144 tuples of a 64-value f32
  set) and described for GCN by CLRX; the ISA text leaves ``UNDERFLOW_F32`` undefined.

V_DIV_FMAS rounds in the MODE direction like any FMA; V_DIV_SCALE (exact power-of-two scaling of
normal values) and V_DIV_FIXUP (a selection) do not round.

Hardware sweep cited: the notes of a public gfx1151 (RDNA3.5) emulator (found by code search; its
repository was not identified) whose DIV_SCALE_F32/DIV_FIXUP_F32 models were measured on all 262144
operand tuples of a 64-value f32 set. That hardware decides by exponent fields (VCC for exponent
differences of +-96 and beyond) where the ISA text tests exact quotients; both readings scale so
that no intermediate of the macro overflows or goes denormal, so the final quotient is the same
(checked here on 65536 random huge/tiny operand pairs per format against host division). No gfx942
measurement was available: VCC and the intermediate values may differ from MI300 in edge cases.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.semantics_common import (
    F32,
    F64,
    U32,
    U64,
    Handler,
    VecWrite,
    check_sgprs,
    vgpr_writer,
)
from ptx2gcn.runtime.emulator.semantics_fp import _round_to_odd_sum, fma_scaled, quiet
from ptx2gcn.runtime.emulator.semantics_lane import float_reader, write_lane_mask
from ptx2gcn.runtime.emulator.semantics_rounding import fma64_lane, round_directed, zero_sum_sign
from ptx2gcn.runtime.emulator.wave import Wave, mask_of

A = Any


@dataclass(frozen=True)
class _Format:
    dtype: Any
    unsigned: Any
    mantissa_bits: int
    exponent_mask: int
    scale: int
    """DIV_SCALE/DIV_FMAS scale exponent (64 for f32, 128 for f64)."""
    huge_ratio: int
    """Exponent difference at which N/D nears the format's maximum (96 / 768)."""
    tiny_numerator: int
    """Largest biased numerator exponent that counts as tiny (23 / 53)."""
    min_normal_exponent: int
    """-log2 of the smallest normal (126 / 1022)."""
    underflow_difference: int | None
    """DIV_FIXUP: exponent differences below -this underflow (150 / 1075; no such branch for f16)."""


_FORMATS = {
    16: _Format(np.float16, np.uint16, 10, 0x1F, 0, 0, 0, 14, None),
    32: _Format(F32, U32, 23, 0xFF, 64, 96, 23, 126, 150),
    64: _Format(F64, U64, 52, 0x7FF, 128, 768, 53, 1022, 1075),
}


def _exponent(x: A, fmt: _Format) -> A:
    """The biased exponent field (255 / 2047 for infinities and NaNs, 0 for zeros and denormals)."""
    raw = np.asarray(x).view(fmt.unsigned).astype(np.int64)
    return (raw >> fmt.mantissa_bits) & fmt.exponent_mask


def _quotient_denormal(s1: A, s2: A, fmt: _Format) -> A:
    """Exactly ``0 < |s2 / s1| < 2^-emin``: ``|s2| * 2^emin < |s1|`` is exact in the format (scaling
    up loses no bits; an overflow to inf correctly says no, since |s1| is finite)."""
    with np.errstate(all="ignore"):
        scaled = np.ldexp(np.abs(s2), fmt.min_normal_exponent).astype(fmt.dtype)
    return np.isfinite(s1) & (s2 != 0) & (scaled < np.abs(s1))


def _reciprocal_denormal(s1: A, fmt: _Format) -> A:
    """Exactly ``1/S1`` below the format's normal range: ``|S1| > 2^emin``, finite (see the module
    docstring for why f32 is not tested against the f64 range as the ISA text writes)."""
    return np.isfinite(s1) & (np.abs(s1) > 2.0**fmt.min_normal_exponent)


def div_scale(s0: A, s1: A, s2: A, bits: int) -> tuple[A, A]:
    """V_DIV_SCALE_F32/F64 with S0 the value to scale, S1 the denominator, S2 the numerator:
    (scaled value, VCC flag per lane). The first branch that applies decides."""
    fmt = _FORMATS[bits]
    s0, s1, s2 = np.broadcast_arrays(*(np.asarray(v, dtype=fmt.dtype) for v in (s0, s1, s2)))
    with np.errstate(all="ignore"):
        up = np.ldexp(s0, fmt.scale).astype(fmt.dtype)
        down = np.ldexp(s0, -fmt.scale).astype(fmt.dtype)
    e1, e2 = _exponent(s1, fmt), _exponent(s2, fmt)
    recip_denorm = _reciprocal_denormal(s1, fmt)
    quot_denorm = _quotient_denormal(s1, s2, fmt)
    nan = np.full(s0.shape, np.nan, dtype=fmt.dtype)
    # (condition, value only where S0 equals this operand (None: always), value, sets VCC)
    branches = [
        ((s2 == 0) | (s1 == 0), None, nan, False),
        (e2 - e1 >= fmt.huge_ratio, s1, up, True),  # N/D near the maximum: scale D up
        ((e1 == 0) & (s1 != 0), None, up, False),  # denormal D: scale N and D up alike
        (recip_denorm & quot_denorm, s1, down, True),  # see the module docstring: down, not up
        (recip_denorm, None, down, False),  # huge D, normal quotient: scale N and D down alike
        (quot_denorm, s2, up, True),  # tiny quotient: scale N up
        (e2 <= fmt.tiny_numerator, None, up, False),  # tiny N: scale N and D up alike
    ]
    d = s0.copy()
    vcc = np.zeros(s0.shape, dtype=bool)
    done = np.zeros(s0.shape, dtype=bool)
    for cond, only_if_equal, value, sets_vcc in branches:
        take = cond & ~done
        if sets_vcc:
            vcc |= take
        apply = take if only_if_equal is None else take & (s0 == only_if_equal)
        d = np.where(apply, value, d)
        done |= take
    return d.astype(fmt.dtype), vcc


def div_fmas(s0: A, s1: A, s2: A, vcc: A, bits: int, rounding: int = 0) -> A:
    """V_DIV_FMAS_F32/F64: fma(S0, S1, S2), scaled (where VCC is set) by 2^+scale when |S2| >= 2,
    else 2^-scale, with one rounding after the scaling, in MODE direction ``rounding``."""
    fmt = _FORMATS[bits]
    s0, s1, s2 = np.broadcast_arrays(*(np.asarray(v, dtype=fmt.dtype) for v in (s0, s1, s2)))
    exponent = np.where(np.asarray(vcc, dtype=bool), np.where(np.abs(s2) >= 2.0, fmt.scale, -fmt.scale), 0)
    if not rounding:
        return np.asarray(fma_scaled(s0, s1, s2, exponent), dtype=fmt.dtype)
    if bits == 64:
        lanes = zip(s0.ravel().tolist(), s1.ravel().tolist(), s2.ravel().tolist(), exponent.ravel().tolist())
        return np.array([fma64_lane(a, b, c, rounding, int(e)) for a, b, c, e in lanes], F64).reshape(s0.shape)
    product, addend = s0.astype(F64) * s1.astype(F64), s2.astype(F64)
    with np.errstate(all="ignore"):
        odd = np.ldexp(zero_sum_sign(_round_to_odd_sum(product, addend), product, addend, rounding), exponent)
    return round_directed(odd, fmt.dtype, rounding)


def div_fixup(s0: A, s1: A, s2: A) -> A:
    """V_DIV_FIXUP_F16/F32/F64: the special cases of the quotient S0 of numerator S2 by denominator S1."""
    s0, s1, s2 = np.broadcast_arrays(*(np.asarray(v) for v in (s0, s1, s2)))
    dtype = s0.dtype.type
    fmt = _FORMATS[s0.dtype.itemsize * 8]
    negative = np.signbit(s1) ^ np.signbit(s2)
    inf = np.where(negative, dtype(-np.inf), dtype(np.inf))
    zero = np.where(negative, dtype(-0.0), dtype(0.0))
    # 0/0 and inf/inf give the negative default NaN (0xffc00000 for f32).
    sign_bit = fmt.unsigned(1 << (8 * s0.dtype.itemsize - 1))
    default_nan = (np.full(s0.shape, np.nan, dtype=dtype).view(fmt.unsigned) | sign_bit).view(dtype)
    difference = _exponent(s2, fmt) - _exponent(s1, fmt)
    underflow = (
        difference < -fmt.underflow_difference if fmt.underflow_difference else np.zeros(s0.shape, bool)
    )
    cases = [
        (np.isnan(s2), quiet(s2)),
        (np.isnan(s1), quiet(s1)),
        (((s1 == 0) & (s2 == 0)) | (np.isinf(s1) & np.isinf(s2)), default_nan),
        ((s1 == 0) | np.isinf(s2), inf),
        (np.isinf(s1) | (s2 == 0), zero),
        (underflow, zero),
        (np.isnan(s0), inf),
    ]
    out = np.where(negative, -np.abs(s0), np.abs(s0))
    for cond, value in reversed(cases):
        out = np.where(cond, value, out)
    return np.asarray(out).astype(dtype)


def _bits(opcode: str) -> int:
    return {"f16": 16, "f32": 32, "f64": 64}[opcode[-3:]]


Sources = tuple[A, A, A]


def _operands(inst: Instruction) -> tuple[int, _Format, Callable[[Wave], Sources], VecWrite]:
    """(width, format, reader of the three sources as floats of that format, VDST writer) of one of
    the division helpers."""
    fmt = _FORMATS[bits := _bits(inst.opcode)]
    readers = [float_reader(inst, i, bits) for i in range(3)]

    def read(w: Wave) -> Sources:
        s0, s1, s2 = (np.asarray(r(w)).view(fmt.dtype) for r in readers)
        return s0, s1, s2

    return bits, fmt, read, vgpr_writer(inst.fields["vdst"], bits)


def _bind_div_scale(inst: Instruction) -> Handler:
    bits, fmt, read, write = _operands(inst)
    out = inst.fields["sdst"]
    check_sgprs(inst, out, 2)

    def run(w: Wave) -> None:
        d, vcc = div_scale(*read(w), bits)
        write(w, d.view(fmt.unsigned))
        write_lane_mask(w, out, vcc)

    return run


def _bind_div_fmas(inst: Instruction) -> Handler:
    bits, fmt, read, write = _operands(inst)

    def run(w: Wave) -> None:
        rounding = w.mode.round_32 if bits == 32 else w.mode.round_16_64
        write(w, div_fmas(*read(w), mask_of(w.vcc), bits, rounding).view(fmt.unsigned))

    return run


def _bind_div_fixup(inst: Instruction) -> Handler:
    _, fmt, read, write = _operands(inst)
    return lambda w: write(w, div_fixup(*read(w)).view(fmt.unsigned))


BUILDERS = {
    "v_div_scale_f32": _bind_div_scale,
    "v_div_scale_f64": _bind_div_scale,
    "v_div_fmas_f32": _bind_div_fmas,
    "v_div_fmas_f64": _bind_div_fmas,
    "v_div_fixup_f32": _bind_div_fixup,
    "v_div_fixup_f64": _bind_div_fixup,
    "v_div_fixup_f16": _bind_div_fixup,
    "v_div_fixup_legacy_f16": _bind_div_fixup,
}
