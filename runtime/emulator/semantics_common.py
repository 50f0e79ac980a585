"""Operand access shared by every instruction family: readers and writers bound once per instruction.

Invariant: a reader or writer is built from an operand code *once* (when the program is bound) and
then only indexes wave state; nothing here decodes at run time. Scalar readers return Python ints
(``0 <= x < 2**bits``); vector readers return numpy ``uint16``/``uint32``/``uint64`` arrays of 64
lanes, or numpy scalars for lane-uniform operands (SGPRs, constants), which broadcast. Vector writers
only touch lanes enabled in EXEC. Codes follow ``operands.py`` (CDNA3 ISA "SRC" table): inline
constants and literals become values, never register indices; 1/(2*pi) is code 248.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.errors import UnknownInstruction
from ptx2gcn.runtime.emulator.memory import APERTURE_SIZE, PRIVATE_APERTURE_BASE, SHARED_APERTURE_BASE
from ptx2gcn.runtime.emulator.operands import (
    LITERAL_CODE,
    inline_constant_bits,
    is_inline_constant,
    literal_bits,
    packed16_constant_bits,
)
from ptx2gcn.runtime.emulator.wave import EXEC_HI, EXEC_LO, MASK32, NULL, Wave, mask_of

Handler = Callable[[Wave], None]
Builder = Callable[[Instruction], Handler]
ScalarRead = Callable[[Wave], int]
ScalarWrite = Callable[[Wave, int], None]
Vec = Any  # numpy array of 64 lanes or a numpy scalar (lane-uniform)
VecRead = Callable[[Wave], Vec]
VecWrite = Callable[[Wave, Vec], None]

U16, U32, U64 = np.uint16, np.uint32, np.uint64
I16, I32, I64 = np.int16, np.int32, np.int64
F16, F32, F64 = np.float16, np.float32, np.float64
UINT = {16: U16, 32: U32, 64: U64}

# Read-only special sources (value as 64 bits; 32-bit reads take the low dword, as the hardware
# does for the aperture registers: LLVM reads them with 64-bit moves only).
_APERTURES = {
    235: SHARED_APERTURE_BASE,
    236: SHARED_APERTURE_BASE + APERTURE_SIZE - 1,
    237: PRIVATE_APERTURE_BASE,
    238: PRIVATE_APERTURE_BASE + APERTURE_SIZE - 1,
    239: 0,
}
SCC_CODE, EXECZ_CODE, VCCZ_CODE = 253, 252, 251


def unsupported(inst: Instruction, why: str) -> UnknownInstruction:
    return UnknownInstruction(inst.pc, inst.encoding, f"{inst.opcode}: {why}")


def check_sgprs(inst: Instruction, code: int, count: int) -> None:
    """An SGPR tuple of ``count`` dwords at ``code`` must be even-aligned and inside s0..exec_hi."""
    if code < 128 and code != NULL and ((count > 1 and code % 2) or code + count > 128):
        raise unsupported(inst, f"scalar register tuple of {count} dwords at operand code {code} is invalid")


def check_vgprs(inst: Instruction, row: int, count: int) -> None:
    """A VGPR/AGPR tuple must lie inside the 512-entry register file (v0..v255, a0..a255)."""
    if row + count > 512 or (row < 256 and row + count > 256):
        raise unsupported(
            inst, f"vector register tuple of {count} dwords at v{row} runs past the register file"
        )


def data_tuple(inst: Instruction, field: str, count: int) -> int:
    """The register-file row of a memory instruction's ``count``-dword data operand ``field``: an
    AGPR tuple (rows 256..511) when the ``acc`` bit is set, checked with ``check_vgprs``."""
    row: int = inst.fields[field] + (256 if inst.fields.get("acc", 0) else 0)
    check_vgprs(inst, row, count)
    return row


def merge_d16(old: npt.NDArray[np.uint32], half: npt.NDArray[np.uint32], high: bool) -> npt.NDArray[np.uint32]:
    """A d16 load's register value: the loaded 16 bits in the high or low half, the other half kept."""
    return (old & U32(0xFFFF)) | (half << U32(16)) if high else (old & U32(0xFFFF0000)) | half


def constant_bits(
    inst: Instruction, code: int, bits: int, is_float: bool, signed: bool = False
) -> int | None:
    """The value of an inline constant or the literal as a ``bits``-wide operand (None for registers)."""
    if is_inline_constant(code):
        return inline_constant_bits(code, max(bits, 16), is_float)
    if code == LITERAL_CODE:
        if inst.literal is None:
            raise unsupported(inst, "literal operand without a literal dword")
        return literal_bits(inst.literal, max(bits, 16), is_float, signed)
    return None


# -- scalar operands ----------------------------------------------------------------------------
def scalar_reader(
    inst: Instruction, code: int, bits: int = 32, is_float: bool = False, signed: bool = False
) -> ScalarRead:
    """A reader for a scalar source (SGPR/special/constant) as an unsigned ``bits``-wide int."""
    value = constant_bits(inst, code, bits, is_float, signed)
    if value is not None:
        return lambda w: value
    if code in _APERTURES:
        fixed = _APERTURES[code] & ((1 << bits) - 1)  # narrower reads take the low bits
        return lambda w: fixed
    if code == SCC_CODE:
        return lambda w: w.scc
    if code == EXECZ_CODE:
        return lambda w: int(w.exec == 0)
    if code == VCCZ_CODE:
        return lambda w: int(w.vcc == 0)
    if code < 128:
        if bits == 64:
            check_sgprs(inst, code, 2)
            return lambda w: w.s[code] | w.s[code + 1] << 32
        return lambda w: w.s[code]
    raise unsupported(inst, f"scalar source code {code} is not readable")


def scalar_writer(inst: Instruction, code: int, bits: int = 32) -> ScalarWrite:
    if code == NULL:
        return lambda w, value: None
    if code >= 128:
        raise unsupported(inst, f"scalar destination code {code} is not writable")
    check_sgprs(inst, code, bits // 32)
    if code in (EXEC_LO, EXEC_HI) or (bits == 64 and code + 1 == EXEC_LO):
        return (
            (lambda w, value: w.set_sreg64(code, value))
            if bits == 64
            else (lambda w, value: w.set_sreg(code, value))
        )
    if bits == 64:

        def write64(w: Wave, value: int) -> None:
            s = w.s
            s[code] = value & MASK32
            s[code + 1] = value >> 32 & MASK32

        return write64

    def write32(w: Wave, value: int) -> None:
        w.s[code] = value & MASK32

    return write32


# -- vector operands ----------------------------------------------------------------------------
class ConstantReader:
    """A vector reader of a lane-uniform constant; binders may fold ``constant`` directly."""

    __slots__ = ("constant",)

    def __init__(self, constant: Vec) -> None:
        self.constant = constant

    def __call__(self, w: Wave) -> Vec:
        return self.constant


def vector_reader(
    inst: Instruction,
    code: int,
    bits: int = 32,
    is_float: bool = False,
    signed: bool = False,
    high: bool = False,
) -> VecRead:
    """A reader of a VALU source as unsigned ``bits``-wide lanes (``high``: upper half for 16 bits)."""
    dtype = UINT[bits]
    if code >= 256:
        row = code - 256
        check_vgprs(inst, row, 2 if bits == 64 else 1)
        if bits == 64:
            return lambda w: np.ascontiguousarray(w.v[row : row + 2].T).view(U64).ravel()
        if bits == 16:
            if high:
                return lambda w: (w.v[row] >> 16).astype(U16)
            return lambda w: w.v[row].astype(U16)
        return lambda w: w.v[row]
    scalar = scalar_reader(inst, code, bits, is_float, signed)
    if constant_bits(inst, code, bits, is_float, signed) is not None or code in _APERTURES:
        return ConstantReader(dtype(scalar(None)))  # constants ignore the wave
    if bits == 16:
        shift = 16 if high else 0
        return lambda w: U16(scalar(w) >> shift & 0xFFFF)
    return lambda w: dtype(scalar(w))


def packed16_reader(inst: Instruction, code: int, is_f16: bool) -> VecRead:
    """A reader of a packed 16-bit source as 32-bit lanes (both halves, before op_sel picks one).

    An inline constant is ``operands.packed16_constant_bits`` (f16 ops: the f16 pattern in the low
    half, 0 in the high half; integer ops: the f32 pattern; integer codes sign-extended); a literal
    (``v_pk_fmac_f16`` e32 only) is its whole dword, as LLVM folds a ``<2 x half>`` literal."""
    if is_inline_constant(code):
        return ConstantReader(U32(packed16_constant_bits(code, is_f16)))
    return vector_reader(inst, code, 32)


def vgpr_writer(row: int, bits: int = 32, high: bool = False, preserve: bool = False) -> VecWrite:  # noqa: C901
    """Writes ``bits``-wide unsigned results to active lanes of VGPR ``row`` (and ``row+1`` for 64).

    A 16-bit result goes to the low half (``high``: the high half, keeping the low one); the other
    half is zeroed, as most gfx9 16-bit VALU ops do, unless ``preserve`` (v_mac/madak/madmk_f16)."""
    if bits == 64:

        def write64(w: Wave, value: Vec) -> None:
            value = np.asarray(value, dtype=U64)
            if value.ndim == 0:
                lo, hi = U32(int(value) & MASK32), U32(int(value) >> 32)
            else:
                halves = value.view(U32).reshape(64, 2)
                lo, hi = halves[:, 0], halves[:, 1]
            if w.exec_full:
                w.v[row] = lo
                w.v[row + 1] = hi
            else:
                np.copyto(w.v[row], lo, where=w.exec_mask)
                np.copyto(w.v[row + 1], hi, where=w.exec_mask)

        return write64
    if bits == 16:
        if high:

            def write_hi(w: Wave, value: Vec) -> None:
                merged = (w.v[row] & U32(0xFFFF)) | (np.asarray(value).astype(U32) << U32(16))
                np.copyto(w.v[row], merged, where=w.exec_mask)

            return write_hi

        keep = U32(0xFFFF0000 if preserve else 0)

        def write_lo16(w: Wave, value: Vec) -> None:
            merged = (w.v[row] & keep) | (np.asarray(value).astype(U32) & U32(0xFFFF))
            np.copyto(w.v[row], merged, where=w.exec_mask)

        return write_lo16

    def write32(w: Wave, value: Vec) -> None:
        if w.exec_full:
            w.v[row] = value
        else:
            np.copyto(w.v[row], value, where=w.exec_mask, casting="unsafe")

    return write32


def lane_mask_reader(inst: Instruction, code: int) -> Callable[[Wave], npt.NDArray[np.bool_]]:
    """A 64-bit lane mask source (VCC or an SGPR pair) as ``bool[64]``."""
    read = scalar_reader(inst, code, 64)
    return lambda w: mask_of(read(w))
