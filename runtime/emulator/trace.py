"""Instruction trace: each executed instruction with the registers it changed.

Invariant: tracing observes only; a traced run computes exactly what an untraced run does. One line
per executed wave-instruction, ``wg(x,y,z) w<wave> <pc>: <disassembly>``, then one indented line per
changed register: SGPRs and SCC as hex values, VGPRs as ``v<n>: [lane]=old->new`` for up to
``MAX_LANES`` changed lanes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ptx2gcn.runtime.emulator.wave import Wave

MAX_LANES = 4
_SGPR_NAMES = {
    102: "flat_scratch_lo",
    103: "flat_scratch_hi",
    104: "xnack_mask_lo",
    105: "xnack_mask_hi",
    106: "vcc_lo",
    107: "vcc_hi",
    124: "m0",
    126: "exec_lo",
    127: "exec_hi",
}


def sgpr_name(code: int) -> str:
    if code in _SGPR_NAMES:
        return _SGPR_NAMES[code]
    return f"ttmp{code - 108}" if 108 <= code <= 123 else f"s{code}"


def vgpr_name(row: int) -> str:
    return f"v{row}" if row < 256 else f"a{row - 256}"


class Tracer:
    """Runs handlers one at a time, writing the trace to ``sink``."""

    def __init__(self, sink: Callable[[str], None]) -> None:
        self.sink = sink

    def step(self, wave: Wave, pc: int, text: str, handler: Callable[[Wave], None]) -> None:
        s_before = list(wave.s)
        scc_before = wave.scc
        v_before = wave.v.copy()
        gx, gy, gz = wave.group.id
        self.sink(f"wg({gx},{gy},{gz}) w{wave.index} {pc:#x}: {text}")
        handler(wave)
        for code, (old, new) in enumerate(zip(s_before, wave.s)):
            if old != new:
                self.sink(f"    {sgpr_name(code)}: {old:#010x} -> {new:#010x}")
        if scc_before != wave.scc:
            self.sink(f"    scc: {scc_before} -> {wave.scc}")
        for row in np.flatnonzero((v_before != wave.v).any(axis=1)).tolist():
            lanes = np.flatnonzero(v_before[row] != wave.v[row])
            shown = ", ".join(
                f"[{lane}]={int(v_before[row, lane]):#x}->{int(wave.v[row, lane]):#x}"
                for lane in lanes[:MAX_LANES].tolist()
            )
            more = f", ... {lanes.size - MAX_LANES} more lanes" if lanes.size > MAX_LANES else ""
            self.sink(f"    {vgpr_name(row)}: {shown}{more}")
