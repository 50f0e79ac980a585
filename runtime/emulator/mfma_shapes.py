"""Static facts about every dense gfx942 MFMA opcode: shape, operand layouts, passes, unit, modifiers.

Invariant: ``shape(name)`` describes one ``v_mfma_*`` opcode completely enough to execute it and to
time it, from its LLVM 22 name alone (``v_mfma_<out>_<M>x<N>x<K>[_<B>b]_<in>``) plus the pass table
below.  Sources: AMD "CDNA3 ISA" chapter 7 (matrix arithmetic instructions, the MFMA table of
passes and the operand layouts) as tabulated by AMD's Matrix Instruction Calculator
(``--architecture cdna3 --detail-instruction``), and LLVM's ``SISchedule.td`` (``SIDPGFX940FullSpeedModel``:
``Write{2,4,8,16}PassMAI`` / ``Write{4,8}PassDGEMM``) and ``VOP3PInstructions.td`` (``is_gfx940_xdl``,
``is_dgemm``), which agree on every pass count.

Layouts (lane ``l`` of a wave64; ``G = 64 / M`` lane groups of ``M`` lanes; ``E`` = input elements
per lane, packed low bits first):

* A[b][i][k] is element ``e`` of lane ``M*g + i`` with ``b = g % B`` and ``k = (g // B) * E + e``
  (B[b][k][j] likewise with ``j``).  One rule covers the multi-block forms (``B == G``: ``k = e``),
  the reduction forms (``B == 1``) and ``f64_4x4x4_4b`` (``B = 4, G = 16``).
* D/C of the f32/i32 forms with M = 16 or 32: with ``q = i // 4``, lane ``M*(q % G) + j`` and register
  ``(M*N/64)*b + 4*(q // G) + i % 4``; with M = 4 (16 blocks): lane ``4*b + j``, register ``i``.
* D/C of the f64 forms: lane ``16*(i % 4) + 4*b + j`` (4x4x4, 4 blocks) or ``16*(i % 4) + j`` with
  f64 register ``i // 4`` (16x16x4).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

_NAME = re.compile(r"v_mfma_(f32|i32|f64)_(\d+)x(\d+)x(\d+)(?:_(\d+)b)?_(\w+)$")
_IN_BITS = {"f32": 32, "xf32": 32, "f16": 16, "bf16": 16, "i8": 8, "f64": 64}
_FP8 = ("fp8", "bf8")

# Passes (4 cycles each) per opcode, from the CDNA3 MFMA table (matrix calculator "Execution
# cycles" / 4; LLVM SISchedule.td for gfx940 gives the same numbers).
PASSES: dict[str, int] = {
    "v_mfma_f32_32x32x1_2b_f32": 16, "v_mfma_f32_16x16x1_4b_f32": 8, "v_mfma_f32_4x4x1_16b_f32": 2,
    "v_mfma_f32_32x32x2_f32": 16, "v_mfma_f32_16x16x4_f32": 8,
    "v_mfma_f32_16x16x8_xf32": 4, "v_mfma_f32_32x32x4_xf32": 8,
    "v_mfma_f32_32x32x4_2b_f16": 16, "v_mfma_f32_16x16x4_4b_f16": 8, "v_mfma_f32_4x4x4_16b_f16": 2,
    "v_mfma_f32_32x32x8_f16": 8, "v_mfma_f32_16x16x16_f16": 4,
    "v_mfma_f32_32x32x4_2b_bf16": 16, "v_mfma_f32_16x16x4_4b_bf16": 8, "v_mfma_f32_4x4x4_16b_bf16": 2,
    "v_mfma_f32_32x32x8_bf16": 8, "v_mfma_f32_16x16x16_bf16": 4,
    "v_mfma_i32_32x32x4_2b_i8": 16, "v_mfma_i32_16x16x4_4b_i8": 8, "v_mfma_i32_4x4x4_16b_i8": 2,
    "v_mfma_i32_32x32x16_i8": 8, "v_mfma_i32_16x16x32_i8": 4,
    "v_mfma_f64_16x16x4_f64": 8, "v_mfma_f64_4x4x4_4b_f64": 4,
    **{f"v_mfma_f32_16x16x32_{a}_{b}": 4 for a in _FP8 for b in _FP8},
    **{f"v_mfma_f32_32x32x16_{a}_{b}": 8 for a in _FP8 for b in _FP8},
}

Index = npt.NDArray[np.intp]


@dataclass(frozen=True)
class MfmaShape:
    """One MFMA opcode.  ``kind_a``/``kind_b`` are the input element formats ("f32", "xf32", "f16",
    "bf16", "i8", "fp8", "bf8", "f64"); ``unit`` is "xdl", "smfma" (the f32 forms) or "dgemm" (f64),
    LLVM's classes for the gfx940 dependency rules."""

    name: str
    out: str
    m: int
    n: int
    k: int
    blocks: int
    kind_a: str
    kind_b: str
    passes: int
    unit: str

    @property
    def in_bits(self) -> int:
        return 8 if self.kind_a in _FP8 else _IN_BITS[self.kind_a]

    @property
    def per_lane(self) -> int:
        """Input elements per lane (E)."""
        return self.k * self.blocks * self.m // 64

    @property
    def in_dwords(self) -> int:
        return max(1, self.per_lane * self.in_bits // 32)

    @property
    def out_dwords(self) -> int:
        return self.m * self.n * self.blocks // 64 * (2 if self.out == "f64" else 1)

    @property
    def busy_cycles(self) -> int:
        return 4 * self.passes

    @property
    def has_cbsz_abid(self) -> bool:
        """CBSZ/ABID broadcast A blocks: only the multi-block f32/f16/bf16/i8 forms (ISA MFMA table)."""
        return self.blocks > 1 and self.out != "f64"

    @property
    def has_blgp(self) -> bool:
        """BLGP swizzles B lanes on the f32 forms and the multi-block f16/bf16/i8 forms; on f64 it
        negates A, B, C.  The xf32, fp8, 16x16x16/32x32x8 f16/bf16 and 16x16x32/32x32x16 i8 forms
        have no BLGP (ISA MFMA table)."""
        return self.out == "f64" or self.kind_a == "f32" or self.blocks > 1

    @property
    def max_cbsz(self) -> int:
        return min(4, self.blocks.bit_length() - 1)


def is_mfma(name: str) -> bool:
    return name in PASSES


@cache
def shape(name: str) -> MfmaShape:
    match = _NAME.fullmatch(name)
    if match is None or name not in PASSES:
        raise KeyError(f"{name} is not a dense gfx942 MFMA")
    out, m, n, k, blocks, kinds = match.groups()
    kind_a, _, kind_b = kinds.partition("_")
    kind_b = kind_b or kind_a
    unit = "dgemm" if out == "f64" else "smfma" if kind_a == "f32" else "xdl"
    return MfmaShape(name, out, int(m), int(n), int(k), int(blocks or 1), kind_a, kind_b, PASSES[name], unit)


@cache
def input_layout(name: str) -> tuple[Index, Index]:
    """(lane, element) index arrays of shape [blocks, M, K]: A[b, i, k] is element ``element`` of
    lane ``lane`` (the same arrays serve B[b, k, j] read as [b, j, k])."""
    s = shape(name)
    b, i, k = np.meshgrid(np.arange(s.blocks), np.arange(s.m), np.arange(s.k), indexing="ij")
    g = (k // s.per_lane) * s.blocks + b
    return s.m * g + i, k % s.per_lane


@cache
def output_layout(name: str) -> tuple[Index, Index]:
    """(register, lane) index arrays of shape [blocks, M, N] for C and D, in output elements (one
    dword for f32/i32, a dword pair for f64)."""
    s = shape(name)
    b, i, j = np.meshgrid(np.arange(s.blocks), np.arange(s.m), np.arange(s.n), indexing="ij")
    if s.out == "f64":
        lane = 16 * (i % 4) + (4 * b if s.m == 4 else 0) + j
        return (i // 4 if s.m == 16 else np.zeros_like(i)), lane
    if s.m == 4:
        return i, 4 * b + j
    groups = 64 // s.m
    q = i // 4
    return s.m * s.n // 64 * b + 4 * (q // groups) + i % 4, s.m * (q % groups) + j


def blgp_lanes(blgp: int) -> Index:
    """Source lane of each lane's B operand under BLGP (CDNA3 ISA): 0 identity, 1/2 broadcast the
    first/second 32 lanes, 3 rotate down by 16 (lane l reads l+16), 4..7 broadcast lanes
    16*(blgp-4) .. +15."""
    lanes = np.arange(64)
    if blgp == 0:
        return lanes
    if blgp in (1, 2):
        return 32 * (blgp - 1) + lanes % 32
    if blgp == 3:
        return (lanes + 16) % 64
    return 16 * (blgp - 4) + lanes % 16


def broadcast_blocks(blocks: int, cbsz: int, abid: int) -> Index:
    """A block each block uses under CBSZ/ABID: block ``abid`` of every aligned group of 2^cbsz."""
    b = np.arange(blocks)
    return (b >> cbsz << cbsz) + abid
