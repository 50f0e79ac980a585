"""gfx942 FP8/BF8 conversions: v_cvt_f32_fp8/bf8, v_cvt_pk_f32_fp8/bf8 (VOP1: e32, e64, SDWA),
v_cvt_pk_fp8/bf8_f32 and v_cvt_sr_fp8/bf8_f32 (VOP3).

Invariant: gfx940/941/942 use the *FNUZ* formats (LLVM ``f8E4M3FNUZ`` / ``f8E5M2FNUZ``; gfx950 and
gfx12 use the OCP ``e4m3fn``/``e5m2`` instead, with other encodings and limits):

* FP8 = E4M3FNUZ, exponent bias 8: max 240 (0x7f), smallest subnormal 2^-10;
* BF8 = E5M2FNUZ, exponent bias 16: max 57344 (0x7f), smallest subnormal 2^-17;
* no infinities and no negative zero; 0x80 is the only NaN.

Decoding is exact (0x80 gives the canonical quiet NaN 0x7fc00000: the NaN's payload is not
documented). Encoding follows the ROCm reference of these instructions (HIP ``amd_hip_fp8.h``
``cast_to_f8``, from rocBLAS ``rocblas_hip_f8_impl.h``, non-saturating "NANOO" mode): NaN, infinity
and any magnitude above the maximum give 0x80; other values round to nearest even (``pk``) or
stochastically (``sr``: the low 20 (FP8) / 21 (BF8) bits of S1 are added below the kept bits of
the f32 significand aligned to the FP8 grid, then truncated); a zero result is 0x00 whatever the
sign. ``pk`` writes the two bytes {S1, S0} into the 16-bit half of D chosen by OPSEL[3]; ``sr``
writes one byte, chosen by OPSEL[3:2]; the other bits of D are kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.semantics_common import (
    F32,
    U32,
    U64,
    Builder,
    Handler,
    unsupported,
    vector_reader,
    vgpr_writer,
)
from ptx2gcn.runtime.emulator.semantics_dpp import sdwa_source, sdwa_writer
from ptx2gcn.runtime.emulator.semantics_lane import float_reader
from ptx2gcn.runtime.emulator.wave import Wave

A = Any
NAN_CODE = 0x80
QUIET_NAN = 0x7FC00000


@dataclass(frozen=True)
class Fnuz:
    """An 8-bit FNUZ float format: 1 sign bit, ``exponent_bits``, ``mantissa_bits``, ``bias``."""

    exponent_bits: int
    mantissa_bits: int
    bias: int

    @property
    def lowest_exponent(self) -> int:
        """Exponent of the smallest normal binade (also the scale of the subnormals)."""
        return 1 - self.bias

    def value(self, code: int) -> float:
        """The exact value of a non-NaN ``code``."""
        sign = -1.0 if code & 0x80 else 1.0
        exponent = (code & 0x7F) >> self.mantissa_bits
        mantissa = code & ((1 << self.mantissa_bits) - 1)
        if exponent == 0:
            return sign * mantissa * 2.0 ** (self.lowest_exponent - self.mantissa_bits)
        return sign * (1 + mantissa / (1 << self.mantissa_bits)) * 2.0 ** (exponent - self.bias)


FP8 = Fnuz(4, 3, 8)
BF8 = Fnuz(5, 2, 16)


@cache
def decode_table(fmt: Fnuz) -> npt.NDArray[np.uint32]:
    """f32 bits of every code (0x80: the quiet NaN)."""
    table = np.array([0 if code == NAN_CODE else fmt.value(code) for code in range(256)], dtype=F32)
    bits = table.view(U32).copy()
    bits[NAN_CODE] = QUIET_NAN
    return bits


@cache
def _magnitudes(fmt: Fnuz) -> npt.NDArray[np.float64]:
    """Values of codes 0x00..0x7f, increasing."""
    return np.array([fmt.value(code) for code in range(128)], dtype=np.float64)


def encode_nearest(x: A, fmt: Fnuz) -> npt.NDArray[np.uint32]:
    """f32 values -> codes, round to nearest even."""
    x = np.asarray(x, dtype=F32).astype(np.float64)
    grid = _magnitudes(fmt)
    m = np.abs(x)
    with np.errstate(invalid="ignore"):
        high = np.clip(np.searchsorted(grid, m, side="left"), 1, 127)
    lower, upper = grid[high - 1], grid[high]
    below, above = m - lower, upper - m
    pick_upper = (above < below) | ((above == below) & (high % 2 == 0))
    code = np.where(m <= lower, high - 1, np.where(pick_upper, high, high - 1)).astype(U32)
    return _finish(x, m, code, grid)


def encode_stochastic(x: A, random: A, fmt: Fnuz) -> npt.NDArray[np.uint32]:
    """f32 values -> codes with stochastic rounding driven by the u32 ``random`` bits."""
    x = np.asarray(x, dtype=F32).astype(np.float64)
    grid = _magnitudes(fmt)
    m = np.abs(x)
    dropped = 23 - fmt.mantissa_bits
    with np.errstate(divide="ignore", invalid="ignore"):
        binade = np.maximum(np.frexp(m)[1] - 1, fmt.lowest_exponent)
        fine = np.ldexp(1.0, binade - 23)  # the f32 significand's last place, on the FP8 grid's binade
        kept = np.floor(np.nan_to_num(m / fine, posinf=0.0))
    rng = np.asarray(random, dtype=U32).astype(np.float64) % (1 << dropped)
    units = np.floor((kept + rng) / (1 << dropped))
    rounded = units * fine * (1 << dropped)
    code = np.clip(np.searchsorted(grid, rounded, side="left"), 0, 127).astype(U32)
    return _finish(x, m, code, grid)


def _finish(x: A, m: A, code: A, grid: A) -> npt.NDArray[np.uint32]:
    """Sign, 0x80 for NaN / infinity / magnitudes above the maximum, unsigned zero."""
    sign = np.where(np.signbit(x) & (code != 0), U32(0x80), U32(0))
    out = (code | sign).astype(U32)
    return np.where(np.isnan(m) | (m > grid[-1]), U32(NAN_CODE), out).astype(U32)


def _format(opcode: str) -> Fnuz:
    return BF8 if "bf8" in opcode else FP8


def _check_plain(inst: Instruction, *fields: str) -> None:
    for name in fields:
        if inst.fields.get(name, 0):
            raise unsupported(inst, f"{name} on an FP8/BF8 conversion")


def _packed_source(inst: Instruction) -> Any:
    """The 32-bit source of a VOP1 conversion (SDWA: the selected byte/word, zero-extended)."""
    if inst.form == "dpp":
        raise unsupported(inst, "DPP form of an FP8/BF8 conversion")
    if inst.form == "sdwa":
        _check_plain(inst, "src0_neg", "src0_abs", "src0_sext", "clamp", "omod")
        return sdwa_source(inst, 0)
    # gfx942 has no OPSEL byte select on these (gfx950 has), and no float modifiers on S0.
    _check_plain(inst, "op_sel", "abs", "neg", "clamp", "omod")
    return vector_reader(inst, inst.fields["src0"])


def _bind_to_f32(inst: Instruction) -> Handler:
    table = decode_table(_format(inst.opcode))
    read = _packed_source(inst)
    vdst = inst.fields["vdst"]
    write = sdwa_writer(inst, vdst) if inst.form == "sdwa" else vgpr_writer(vdst)
    return lambda w: write(w, table[np.asarray(read(w), dtype=U32) & U32(0xFF)])


def _bind_pk_to_f32(inst: Instruction) -> Handler:
    table = decode_table(_format(inst.opcode)).astype(U64)
    read = _packed_source(inst)
    if inst.form == "sdwa" and inst.fields.get("dst_sel", 6) != 6:
        raise unsupported(inst, "SDWA dst_sel on a 64-bit result")
    write = vgpr_writer(inst.fields["vdst"], 64)

    def run(w: Wave) -> None:
        value = np.asarray(read(w), dtype=U32)
        write(w, table[value & U32(0xFF)] | table[(value >> U32(8)) & U32(0xFF)] << U64(32))

    return run


def _bind_from_f32(inst: Instruction) -> Handler:
    fmt = _format(inst.opcode)
    stochastic = "_sr_" in inst.opcode
    _check_plain(inst, "clamp", "omod")
    op_sel = inst.fields.get("op_sel", 0)
    if stochastic and inst.fields.get("abs", 0) & 6 or stochastic and inst.fields.get("neg", 0) & 6:
        raise unsupported(inst, "abs/neg on the random-bits operand")
    first = float_reader(inst, 0, 32)
    second = vector_reader(inst, inst.fields["src1"]) if stochastic else float_reader(inst, 1, 32)
    shift = U32(8 * (op_sel >> 2 & 3) if stochastic else 16 * (op_sel >> 3 & 1))
    keep = ~(U32(0xFF if stochastic else 0xFFFF) << shift)
    row = inst.fields["vdst"]
    write = vgpr_writer(row)

    def run(w: Wave) -> None:
        x = np.asarray(first(w), dtype=U32).view(F32)
        if stochastic:
            bits = encode_stochastic(x, second(w), fmt)
        else:
            y = np.asarray(second(w), dtype=U32).view(F32)
            bits = encode_nearest(x, fmt) | encode_nearest(y, fmt) << U32(8)
        write(w, (w.v[row] & keep) | (np.asarray(bits, dtype=U32) << shift))

    return run


BUILDERS: dict[str, Builder] = {
    "v_cvt_f32_fp8": _bind_to_f32,
    "v_cvt_f32_bf8": _bind_to_f32,
    "v_cvt_pk_f32_fp8": _bind_pk_to_f32,
    "v_cvt_pk_f32_bf8": _bind_pk_to_f32,
    "v_cvt_pk_fp8_f32": _bind_from_f32,
    "v_cvt_pk_bf8_f32": _bind_from_f32,
    "v_cvt_sr_fp8_f32": _bind_from_f32,
    "v_cvt_sr_bf8_f32": _bind_from_f32,
}
