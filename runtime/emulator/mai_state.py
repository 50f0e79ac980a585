"""Per-wave matrix-core state: the MFMA counters of ``--stats`` and the hazard tracker's book-keeping.

Invariant: a wave's ``mai`` slot is ``None`` until the wave runs a program that contains an MFMA;
then it holds one ``MaiState``.  ``clock`` counts issued wait states (one per instruction, N + 1
per ``s_nop N``) and only grows; ``ready`` maps a register-file row (0..511: v0..v255, a0..a255) to
the pending MFMA facts about it that the hazard rules need (see ``hazards``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ptx2gcn.runtime.emulator.wave import Wave


@dataclass(slots=True)
class MaiState:
    mfma_instructions: int = 0
    mfma_busy_cycles: int = 0
    clock: int = 0
    writes: dict[int, Any] = field(default_factory=dict)
    """row -> the last MFMA that wrote it (``hazards.Producer``)."""
    reads_c: dict[int, Any] = field(default_factory=dict)
    """row -> the last XDL MFMA that read it as SrcC (``hazards.Producer``)."""
    valu_writes: dict[int, int] = field(default_factory=dict)
    """row -> clock at which the last non-MFMA VALU wrote it."""
    valu_exec_write: int = -(1 << 30)
    """clock at which a VALU last wrote EXEC."""
    dgemm_issue: int = -(1 << 30)
    """clock at which the last f64 MFMA issued."""


def state_of(wave: Wave) -> MaiState:
    state = wave.mai
    if state is None:
        state = wave.mai = MaiState()
    return state
