"""State of one 64-lane wave and of its work-group: registers, EXEC, MODE, memories.

Invariant: SGPRs live in ``Wave.s`` indexed by their *operand codes* 0..127 (s0..s101, flat_scratch
102/103, xnack_mask 104/105, vcc 106/107, ttmp 108..123, m0 124, null 125, exec 126/127), as Python
ints in 0..2^32-1; anything that is not a register (inline constants, literals, apertures, SCC,
MODE) is kept out of that index space. ``exec_mask`` always equals the bits of ``s[126]|s[127]<<32``
as ``bool[64]`` and ``exec_full`` whether all lanes are set (every write to EXEC goes through
``set_exec``/``set_sreg*``). VGPRs and AGPRs are one ``uint32[512, 64]`` array: v0..v255 are rows
0..255, a0..a255 rows 256..511. ``Mode.is_default`` caches "round to nearest even, no denormal
flushing" for the float fast paths and is kept in step by ``Mode.set_raw``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np
import numpy.typing as npt

from ptx2gcn.runtime.emulator.approx import NOMINAL, ApproxPolicy
from ptx2gcn.runtime.emulator.memory import DeviceMemory, Lds, Scratch
from ptx2gcn.runtime.emulator.placement import Placement

WAVE_SIZE = 64
VCC_LO = 106
VCC_HI = 107
M0 = 124
NULL = 125
EXEC_LO = 126
EXEC_HI = 127
FLAT_SCRATCH_LO = 102
FLAT_SCRATCH_HI = 103
AGPR_BASE = 256
MASK32 = 0xFFFFFFFF
MASK64 = 0xFFFFFFFFFFFFFFFF

Mask = npt.NDArray[np.bool_]


def mask_of(bits: int) -> Mask:
    """``bool[64]``: lane i is set when bit i of ``bits`` is."""
    raw = np.frombuffer((bits & MASK64).to_bytes(8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little").view(np.bool_)


def bits_of(mask: Mask) -> int:
    """The 64-bit integer whose bit i is lane i of ``mask``."""
    return int.from_bytes(np.packbits(mask, bitorder="little").tobytes(), "little")


class WaveState(Enum):
    RUNNING = "running"
    SLEEPING = "sleeping"
    """Executed ``s_sleep``: yields to the other waves of the work-group, then runs on."""
    BARRIER = "barrier"
    DONE = "done"


@dataclass(slots=True)
class Mode:
    """The MODE hardware register (initial value from COMPUTE_PGM_RSRC1; ``s_setreg`` changes it)."""

    round_32: int = 0
    round_16_64: int = 0
    denorm_32: int = 3
    denorm_16_64: int = 3
    dx10_clamp: bool = True
    ieee: bool = True
    is_default: bool = field(default=True, init=False)
    """Cached: round to nearest even and no denormal flushing (the fast path of every float op)."""

    def __post_init__(self) -> None:
        self._update()

    def _update(self) -> None:
        self.is_default = (
            self.denorm_32 == 3 and self.denorm_16_64 == 3 and self.round_32 == 0 and self.round_16_64 == 0
        )

    other_bits: int = field(default=0, init=False)
    """MODE bits above IEEE (LOD_CLAMPED, DEBUG, EXCP_EN, FP16_OVFL...): kept, not interpreted."""

    @property
    def raw(self) -> int:
        """The MODE register bits (gfx9: FP_ROUND 3:0, FP_DENORM 7:4, DX10_CLAMP 8, IEEE 9)."""
        return (
            self.round_32
            | self.round_16_64 << 2
            | self.denorm_32 << 4
            | self.denorm_16_64 << 6
            | int(self.dx10_clamp) << 8
            | int(self.ieee) << 9
            | self.other_bits
        )

    def set_raw(self, raw: int) -> None:
        self.other_bits = raw & ~0x3FF & 0xFFFFFFFF
        self.round_32 = raw & 3
        self.round_16_64 = raw >> 2 & 3
        self.denorm_32 = raw >> 4 & 3
        self.denorm_16_64 = raw >> 6 & 3
        self.dx10_clamp = bool(raw >> 8 & 1)
        self.ieee = bool(raw >> 9 & 1)
        self._update()


@dataclass(eq=False)
class WorkGroup:
    """One work-group being executed: its id, LDS, and the waves that belong to it."""

    id: tuple[int, int, int]
    lds: Lds
    waves: list[Wave] = field(default_factory=lambda: [])
    placement: Placement = Placement()
    """The compute unit it runs on (``ptx2gcn.runtime.emulator.placement``)."""


@dataclass(eq=False, slots=True)
class Wave:
    """Architectural state of one wave64."""

    index: int
    group: WorkGroup
    memory: DeviceMemory
    scratch: Scratch
    mode: Mode
    pc: int = 0
    scc: int = 0
    state: WaveState = WaveState.RUNNING
    s: list[int] = field(default_factory=lambda: [0] * 128)
    v: npt.NDArray[np.uint32] = field(default_factory=lambda: np.zeros((512, WAVE_SIZE), dtype=np.uint32))
    exec_mask: Mask = field(default_factory=lambda: np.zeros(WAVE_SIZE, dtype=np.bool_))
    exec_full: bool = False
    """Cached: all 64 lanes are active (writes can skip the EXEC mask)."""
    trap_status: int = 0
    mai: Any = None
    """Matrix-core state (``mai_state.MaiState``), created by the first MFMA-related instruction."""
    approx: ApproxPolicy = NOMINAL
    """How approximate instructions pick their results (``ptx2gcn.runtime.emulator.approx``)."""

    @property
    def exec(self) -> int:
        return self.s[EXEC_LO] | self.s[EXEC_HI] << 32

    def set_exec(self, bits: int) -> None:
        self.s[EXEC_LO] = bits & MASK32
        self.s[EXEC_HI] = bits >> 32 & MASK32
        self._exec_changed()

    def _exec_changed(self) -> None:
        bits = self.s[EXEC_LO] | self.s[EXEC_HI] << 32
        self.exec_mask = mask_of(bits)
        self.exec_full = bits == MASK64

    def sreg64(self, code: int) -> int:
        return self.s[code] | self.s[code + 1] << 32

    def set_sreg(self, code: int, value: int) -> None:
        """Write one SGPR by operand code (EXEC halves keep ``exec_mask`` in step; null discards)."""
        if code == NULL:
            return
        self.s[code] = value & MASK32
        if code in (EXEC_LO, EXEC_HI):
            self._exec_changed()

    def set_sreg64(self, code: int, value: int) -> None:
        if code == NULL:
            return
        self.s[code] = value & MASK32
        self.s[code + 1] = value >> 32 & MASK32
        if code == EXEC_LO or code + 1 == EXEC_LO:
            self._exec_changed()

    @property
    def vcc(self) -> int:
        return self.s[VCC_LO] | self.s[VCC_HI] << 32

    def active_lanes(self) -> npt.NDArray[np.intp]:
        return np.flatnonzero(self.exec_mask)
