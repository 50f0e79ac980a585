"""Wave execution: pre-decoded handler table, per-work-group scheduling, barriers, step budget.

Invariant: a program's code is decoded once and every instruction is bound once to a handler
``(Wave) -> None`` with its operands resolved (``semantics.bind``); the inner loop only looks the
PC up, advances it past the instruction, and calls the handler (branches overwrite ``Wave.pc``).
Waves of a work-group run one at a time until they end, reach ``s_barrier``, execute ``s_sleep`` or
have run ``_CHUNK`` instructions (then the next wave gets a turn, so spin-waits between waves of a
group terminate); when every live wave waits at the barrier, all are released (ended waves do not
count, as on hardware). Work-groups run to completion one after another, so a work-group that waits
for a later one never finishes and ends in ``KernelHang``. Any failure inside an instruction
becomes an ``EmulatorFault`` naming kernel, work-group, wave, lane, PC and the disassembled
instruction; running out of the step budget raises ``KernelHang``. In a program that contains an
MFMA every handler is wrapped by ``hazards.guard`` (MFMA dependency checks; a violation is a
``HazardFault``); other programs run unwrapped.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ptx2gcn.link.codeobject import Kernel
from ptx2gcn.runtime.emulator.decoder import DecodeError, Instruction, decode
from ptx2gcn.runtime.emulator.disasm import disassemble
from ptx2gcn.runtime.emulator.encodings import classify
from ptx2gcn.runtime.emulator.errors import (
    AccessFault,
    EmulatorError,
    EmulatorFault,
    FaultSite,
    HazardFault,
    KernelHang,
    KernelTrap,
    UnknownInstruction,
    WaveFault,
    WaveTrap,
)
from ptx2gcn.runtime.emulator.hazards import HazardViolation, guard, needed
from ptx2gcn.runtime.emulator.loader import Program
from ptx2gcn.runtime.emulator.semantics import Handler, bind
from ptx2gcn.runtime.emulator.trace import Tracer
from ptx2gcn.runtime.emulator.wave import Wave, WaveState, WorkGroup

DEFAULT_STEP_BUDGET = 20_000_000
_CHUNK = 1 << 16
"""Wave-instructions a wave may run before the others of its group get a turn (spin-wait fairness)."""
_UNFINISHED = (WaveState.RUNNING, WaveState.SLEEPING)


@dataclass(slots=True)
class RunCounters:
    """Wave-instructions executed so far in one launch, against its budget."""

    budget: int
    steps: int = 0


@dataclass(frozen=True, slots=True)
class BoundInstruction:
    handler: Handler
    size: int
    text: str


class CodeTable:
    """Every instruction of a program's executable sections, decoded and bound, keyed by device PC.

    Bytes that do not decode (data in ``.text``, padding) get a handler that faults when executed.
    """

    def __init__(self, program: Program, base: int) -> None:
        self.entries: dict[int, BoundInstruction] = {}
        decoded: list[Instruction] = []
        for text in program.text:
            code = program.image[: text.end]
            pc = text.start
            while pc + 4 <= text.end:
                try:
                    inst = decode(code, pc)
                except DecodeError as error:
                    words = " ".join(f"{word:08X}" for word in error.words)
                    failure = UnknownInstruction(base + pc, _format_name(code, pc), f"[{words}] {error.why}")
                    self.entries[base + pc] = BoundInstruction(
                        _raise(failure), 4, f"<undecodable: {error.why}>"
                    )
                    pc += 4
                    continue
                self.entries[base + pc] = BoundInstruction(bind(inst, base + pc), inst.size, _text(inst))
                decoded.append(inst)
                pc += inst.size
        if needed(decoded):  # MFMA dependency checks (hazards), only for programs that have MFMAs
            for inst in decoded:
                entry = self.entries[base + inst.pc]
                handler = guard(inst, base + inst.pc, entry.text, entry.handler)
                self.entries[base + inst.pc] = BoundInstruction(handler, entry.size, entry.text)


def _format_name(code: bytes, pc: int) -> str:
    fmt = classify(int.from_bytes(code[pc : pc + 4], "little")) if pc + 4 <= len(code) else None
    return fmt.name if fmt is not None else "reserved-encoding"


def _text(inst: Instruction) -> str:
    try:
        return disassemble(inst)
    except Exception:
        return inst.opcode


def _raise(error: EmulatorError) -> Handler:
    def run(wave: Wave) -> None:
        raise error

    return run


_TABLES: weakref.WeakKeyDictionary[Program, dict[int, CodeTable]] = weakref.WeakKeyDictionary()


def code_table(program: Program, base: int) -> CodeTable:
    """The bound code of ``program`` placed at ``base`` (built once per program and base)."""
    per_base = _TABLES.setdefault(program, {})
    table = per_base.get(base)
    if table is None:
        table = per_base[base] = CodeTable(program, base)
    return table


class Executor:
    """Runs the work-groups of one launch of ``kernel``."""

    def __init__(
        self, program: Program, base: int, kernel: Kernel, trace: Callable[[str], None] | None
    ) -> None:
        self.kernel = kernel
        self.table = code_table(program, base).entries
        self.tracer = Tracer(trace) if trace is not None else None

    def _site(self, wave: Wave, pc: int) -> FaultSite:
        entry = self.table.get(pc)
        return FaultSite(
            self.kernel.name, wave.group.id, wave.index, pc, entry.text if entry else "<no instruction>"
        )

    def _run_wave(self, wave: Wave, limit: int) -> int:
        table = self.table
        steps = 0
        pc = wave.pc
        tracer = self.tracer
        running = WaveState.RUNNING
        try:
            while steps < limit and wave.state is running:
                pc = wave.pc
                try:
                    entry = table[pc]
                except KeyError:
                    raise EmulatorFault(
                        self._site(wave, pc),
                        f"pc 0x{pc:x} is not the start of a decoded instruction (jump outside the code?)",
                    ) from None
                wave.pc = pc + entry.size
                if tracer is None:
                    entry.handler(wave)
                else:
                    tracer.step(wave, pc, entry.text, entry.handler)
                steps += 1
        except AccessFault as fault:
            raise EmulatorFault(self._site(wave, pc), str(fault), fault.lane, fault.address) from None
        except HazardViolation as violation:
            raise HazardFault(self._site(wave, pc), str(violation)) from None
        except WaveTrap as trap:
            raise KernelTrap(self._site(wave, pc), str(trap), trap.code) from None
        except WaveFault as fault:
            raise EmulatorFault(self._site(wave, pc), str(fault), fault.lane) from None
        except EmulatorError:
            raise
        except Exception as exc:  # a defect in the emulator itself: still report where it happened
            raise EmulatorFault(
                self._site(wave, pc), f"internal emulator error {type(exc).__name__}: {exc}"
            ) from exc
        return steps

    def run_group(self, group: WorkGroup, counters: RunCounters) -> None:
        self.run_groups([group], counters)

    def run_groups(self, groups: list[WorkGroup], counters: RunCounters) -> None:
        """Run ``groups`` as resident together: their waves take turns in chunks, in order, until
        every wave is done; a work-group's barrier releases when all its live waves wait at it."""
        live_groups = list(groups)
        with np.errstate(all="ignore"):
            while live_groups:
                for group in live_groups:
                    for wave in group.waves:
                        if wave.state is WaveState.SLEEPING:
                            wave.state = WaveState.RUNNING
                        if wave.state is WaveState.RUNNING:
                            left = counters.budget - counters.steps
                            counters.steps += self._run_wave(wave, min(left, _CHUNK))
                            if counters.steps >= counters.budget and wave.state in _UNFINISHED:
                                self._hang(live_groups, counters)
                    live = [w for w in group.waves if w.state is not WaveState.DONE]
                    if live and all(w.state is WaveState.BARRIER for w in live):
                        for wave in live:
                            wave.state = WaveState.RUNNING
                live_groups = [g for g in live_groups if any(w.state is not WaveState.DONE for w in g.waves)]

    def _hang(self, groups: list[WorkGroup], counters: RunCounters) -> None:
        waiting = [
            f"work-group {group.id} wave {w.index} {w.state.value} at pc 0x{w.pc:x}"
            f" ({self.table[w.pc].text if w.pc in self.table else '?'})"
            for group in groups
            for w in group.waves
            if w.state is not WaveState.DONE
        ]
        raise KernelHang(self.kernel.name, counters.steps, waiting)
