"""Program control (SOPP) and scalar memory (SMEM): branches, end, barrier, waits, traps, s_load.

Invariant: a handler runs with ``Wave.pc`` already advanced past its instruction, so a taken branch
sets ``pc = pc + 4 * simm16`` (CDNA3: "PC = PC + signext(SIMM16 * 4) + 4"). Waits, priorities,
cache invalidations and messages are functional no-ops (memory completes in program order);
``s_sleep`` yields to the other waves of the work-group; ``s_memtime``/``s_memrealtime`` read a
monotonic host clock at 100 MHz; ``s_trap`` and ``s_sethalt 1`` stop the kernel with a located
fault (``s_trap 3``, the debug trap, is a no-op: no debugger is ever attached). Scalar loads read
device memory through the same bounds checks as vector loads, at the dword-aligned address.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.errors import WaveFault, WaveTrap
from ptx2gcn.runtime.emulator.semantics_common import (
    Builder,
    Handler,
    check_sgprs,
    scalar_reader,
    scalar_writer,
    unsupported,
)
from ptx2gcn.runtime.emulator.wave import Wave, WaveState

Cond = Callable[[Wave], bool]
_CONDITIONS: dict[str, Cond] = {
    "s_branch": lambda w: True,
    "s_cbranch_scc0": lambda w: w.scc == 0,
    "s_cbranch_scc1": lambda w: w.scc == 1,
    "s_cbranch_vccz": lambda w: w.vcc == 0,
    "s_cbranch_vccnz": lambda w: w.vcc != 0,
    "s_cbranch_execz": lambda w: w.exec == 0,
    "s_cbranch_execnz": lambda w: w.exec != 0,
}
_NOPS = (
    "s_nop",
    "s_waitcnt",
    "s_setprio",
    "s_sendmsg",
    "s_icache_inv",
    "s_incperflevel",
    "s_decperflevel",
    "s_ttracedata",
    "s_wakeup",
    "s_setkill",
    "s_dcache_inv",
    "s_dcache_wb",
    "s_dcache_inv_vol",
    "s_dcache_wb_vol",
    "s_dcache_discard",
    "s_dcache_discard_x2",
    "s_atc_probe",
    "s_atc_probe_buffer",
    "buffer_wbl2",
    "buffer_inv",
    "s_cbranch_cdbgsys",
    "s_cbranch_cdbguser",
    "s_cbranch_cdbgsys_or_user",
    "s_cbranch_cdbgsys_and_user",
)


def _simm16(inst: Instruction) -> int:
    imm = inst.fields["simm16"]
    return imm - (1 << 16) if imm & 0x8000 else imm


def _bind_branch(inst: Instruction) -> Handler:
    cond = _CONDITIONS[inst.opcode]
    offset = 4 * _simm16(inst)
    if inst.opcode == "s_branch":

        def jump(w: Wave) -> None:
            w.pc += offset

        return jump

    def branch(w: Wave) -> None:
        if cond(w):
            w.pc += offset

    return branch


def _end(w: Wave) -> None:
    w.state = WaveState.DONE


def _barrier(w: Wave) -> None:
    w.state = WaveState.BARRIER


def _nop(w: Wave) -> None:
    return None


def _sleep(w: Wave) -> None:
    w.state = WaveState.SLEEPING  # a scheduling hint: let the other waves of the group run


DEBUG_TRAP = 3
"""``s_trap 3`` is ``llvm.debugtrap`` (PTX ``brkpt``). AMDGPUUsage "Trap Handler ABI": "If debugger
not enabled then behaves as a no-operation" -- and the emulator never has a debugger attached."""


def _bind_trap(inst: Instruction) -> Handler:
    code = inst.fields.get("simm16", 0) & 0xFF
    if code == DEBUG_TRAP:
        return _nop

    def trap(w: Wave) -> None:
        w.trap_status = code
        raise WaveTrap(f"s_trap {code}: the kernel trapped (llvm.trap / abort / assert)", code)

    return trap


def _bind_sethalt(inst: Instruction) -> Handler:
    halt = inst.fields["simm16"] & 1

    def sethalt(w: Wave) -> None:
        if halt:
            raise WaveFault("s_sethalt 1: the wave halted itself (debugger break / brkpt)")

    return sethalt


def _bind_simple(inst: Instruction) -> Handler:
    if inst.opcode in ("s_endpgm", "s_endpgm_saved", "s_endpgm_ordered_ps_done"):
        return _end
    if inst.opcode == "s_barrier":
        return _barrier
    if inst.opcode == "s_sleep":
        return _sleep
    return _nop


# -- SMEM -----------------------------------------------------------------------------------------
def _smem_address(inst: Instruction) -> Callable[[Wave], int]:
    f = inst.fields
    base = scalar_reader(inst, f["sbase"] * 2, 64)
    if f["imm"]:
        imm = f["offset"]
        if f.get("soe", 0):
            soffset = scalar_reader(inst, f["soffset"])
            return lambda w: (base(w) + imm + soffset(w)) & ~3
        return lambda w: (base(w) + imm) & ~3
    register = scalar_reader(inst, f["offset"] & 0x7F)
    return lambda w: (base(w) + register(w)) & ~3


def _dwords(inst: Instruction) -> int:
    name = inst.opcode
    return int(name.rsplit("x", 1)[1]) if "dwordx" in name else 1


def _smem_operands(inst: Instruction) -> tuple[Callable[[Wave], int], int, int]:
    """(address function, dword count, first SGPR of the data) of a scalar load or store."""
    if "buffer" in inst.opcode or "scratch" in inst.opcode:
        raise unsupported(inst, "buffer/scratch scalar memory is not used by gfx942 kernels from LLVM")
    address, count, sdata = _smem_address(inst), _dwords(inst), inst.fields["sdata"]
    check_sgprs(inst, sdata, count)
    return address, count, sdata


def _bind_sload(inst: Instruction) -> Handler:
    address, count, sdata = _smem_operands(inst)

    def load(w: Wave) -> None:
        values = w.memory.scalar_load(address(w), 4 * count).view(np.uint32).tolist()
        for i, value in enumerate(values):
            w.set_sreg(sdata + i, value)

    return load


def _bind_sstore(inst: Instruction) -> Handler:
    address, count, sdata = _smem_operands(inst)

    def store(w: Wave) -> None:
        data = np.array(w.s[sdata : sdata + count], dtype=np.uint32)
        w.memory.scalar_load(address(w), 4 * count)[:] = data.view(np.uint8)

    return store


_START = time.perf_counter_ns()


def _bind_time(inst: Instruction) -> Handler:
    """s_memtime / s_memrealtime: 64-bit counters, modelled as the host's monotonic clock at 100 MHz
    (the emulator has no cycle model; only monotonicity is meaningful)."""
    write = scalar_writer(inst, inst.fields["sdata"], 64)
    return lambda w: write(w, (time.perf_counter_ns() - _START) // 10)


def builders() -> dict[str, Builder]:
    table: dict[str, Builder] = {name: _bind_branch for name in _CONDITIONS}
    for name in ("s_endpgm", "s_endpgm_saved", "s_endpgm_ordered_ps_done", "s_barrier", "s_sleep", *_NOPS):
        table[name] = _bind_simple
    table["s_trap"] = _bind_trap
    table["s_sethalt"] = _bind_sethalt
    for n in ("", "x2", "x4", "x8", "x16"):
        table[f"s_load_dword{n}"] = _bind_sload
    for n in ("", "x2", "x4"):
        table[f"s_store_dword{n}"] = _bind_sstore
    table["s_memtime"] = _bind_time
    table["s_memrealtime"] = _bind_time
    return table
