"""MFMA dependency checking: a read or overwrite of a matrix-core result before its required wait
states is a fault, never silently "whatever the emulator happens to hold".

Invariant: in a program that contains an MFMA, every instruction's handler is wrapped by
``guard``; the wrapper checks the instruction against the pending MFMA facts of its wave
(``mai_state.MaiState``), runs it, records what it produced, and advances the wave's wait-state
clock by the instruction's wait states (1, or N + 1 for ``s_nop N``).  The number of wait states
between two instructions is the sum over the instructions strictly between them.  The required
numbers are the CDNA3 ISA's "required independent instructions" table as LLVM 22 implements it for
gfx940/gfx942 (``GCNHazardRecognizer::checkMAIHazards90A`` and ``checkMAIVALUHazards``, the
``GFX940_*_N_Pass*`` functions), with P the producer's passes (``mfma_shapes.PASSES``):

* MFMA result read by a VALU (``v_accvgpr_*`` included) or VMEM/FLAT/DS, or overwritten by one, or
  read as SrcA/SrcB by an MFMA: XDL P+3, f32 MFMA P+2; f64: 4x4 6 (VMEM/DS read 9), 16x16 11
  (VMEM/DS read 18).
* MFMA result read as SrcC by an MFMA: same registers exactly - 0 (forwarding), except 2 after a
  2-pass producer and 4 between two f64 4x4; overlapping otherwise - XDL producer P+1, f32 MFMA
  producer P (0 when the consumer is XDL); f64 producer 9 (16x16) / 4 (4x4) when the consumer is
  not XDL, else 0.
* A register an XDL MFMA reads as SrcC overwritten by a VALU/VMEM/DS: 1, 3, 7, 15 for 2, 4, 8,
  16 passes.
* VALU (not DOT) write of a register then read by an MFMA: 2; VALU write of EXEC then an MFMA: 4;
  f64 MFMA then ``v_fma_f64``/``v_fmac_f64``: 2.

Control flow is followed dynamically (what the wave executed), so a hazard on any path is found
on the path that runs.  Faults are ``HazardViolation`` (a ``WaveFault``; the executor reports it as
``errors.HazardFault`` with the kernel, wave, PC and instruction).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.errors import WaveFault
from ptx2gcn.runtime.emulator.mai_state import MaiState, state_of
from ptx2gcn.runtime.emulator.mfma_shapes import MfmaShape, is_mfma, shape
from ptx2gcn.runtime.emulator.register_usage import Rows, Usage, usage
from ptx2gcn.runtime.emulator.semantics_common import Handler
from ptx2gcn.runtime.emulator.wave import Wave

_LONGEST = 19
"""No rule needs more than 19 wait states: older facts are dropped."""
_WAR = {2: 1, 4: 3, 8: 7, 16: 15}


class HazardViolation(WaveFault):
    """An instruction used a register before the wait states an MFMA dependency requires."""

    def __init__(self, what: str, row: int | None, after: str, needed: int, had: int) -> None:
        self.register = _register_name(row) if row is not None else None
        self.needed = needed
        self.had = had
        target = f" {self.register}" if self.register else ""
        super().__init__(
            f"MFMA hazard: {what}{target} {had} wait state(s) after {after}; CDNA3 requires {needed} "
            f"(insert s_nop {needed - had - 1} or {needed - had} independent instructions)")


def _register_name(row: int) -> str:
    return f"a{row - 256}" if row >= 256 else f"v{row}"


def _described(p: Producer) -> str:
    return f"{p.text} (pc 0x{p.pc:x})"


@dataclass(frozen=True, slots=True)
class Producer:
    """An issued MFMA: where, when (the clock at its issue), and what it was."""

    pc: int
    text: str
    clock: int
    shape: MfmaShape
    d: Rows
    c: Rows


def _after_write(p: MfmaShape, consumer: str) -> int:
    """Wait states between an MFMA writing a register and a ``consumer`` ("valu", "mem", "ab",
    "waw") touching it."""
    if p.unit == "dgemm":
        if consumer == "mem":
            return 9 if p.passes == 4 else 18
        return 6 if p.passes == 4 else 11
    return p.passes + (3 if p.unit == "xdl" else 2)


def _srcc(p: Producer, consumer: MfmaShape, c: Rows) -> int:
    if c == p.d:
        if p.shape.unit == consumer.unit == "dgemm" and p.shape.m == consumer.m == 4:
            return 4
        return 2 if p.shape.passes == 2 else 0
    if p.shape.unit == "dgemm":
        return 0 if consumer.unit == "xdl" else 9 if p.shape.passes == 8 else 4
    if consumer.unit == "xdl" and p.shape.unit != "xdl":
        return 0
    return p.shape.passes + (1 if p.shape.unit == "xdl" else 0)


Need = Callable[[Producer, str], int]


def _need_read(p: Producer, kind: str) -> int:
    return _after_write(p.shape, kind)


def _need_overwrite(p: Producer, kind: str) -> int:
    return _after_write(p.shape, "waw")


def _need_war(p: Producer, kind: str) -> int:
    return _WAR[p.shape.passes]


def _check_rows(table: dict[int, Producer], rows: Rows, now: int, what: str, need: Need, kind: str) -> None:
    """Fault when a row of ``rows`` has a fact in ``table`` (pending MFMA writes, or XDL SrcC
    reads) fewer than ``need(fact, kind)`` wait states old; facts past every rule are dropped."""
    for row in rows:
        p = table.get(row)
        if p is None:
            continue
        had = now - p.clock - 1
        if had >= _LONGEST:
            del table[row]
            continue
        needed = need(p, kind)
        if had < needed:
            after = f"{_described(p)} read it as SrcC" if need is _need_war else _described(p)
            raise HazardViolation(what, row, after, needed, had)


def _check_mfma(state: MaiState, now: int, u: Usage, consumer: MfmaShape) -> None:
    for row in u.reads:
        written = state.valu_writes.get(row)
        if written is not None and now - written - 1 < 2:
            raise HazardViolation("MFMA read", row, "a VALU wrote it", 2, now - written - 1)
    if now - state.valu_exec_write - 1 < 4:
        raise HazardViolation("MFMA issued", None, "a VALU wrote EXEC", 4, now - state.valu_exec_write - 1)
    if state.writes:
        _check_rows(state.writes, u.ab, now, "read as SrcA/SrcB", _need_read, "ab")
        for row in u.c:
            p = state.writes.get(row)
            if p is not None and now - p.clock - 1 < _srcc(p, consumer, u.c):
                raise HazardViolation("read as SrcC", row, _described(p), _srcc(p, consumer, u.c),
                                      now - p.clock - 1)


def _check_other(state: MaiState, now: int, u: Usage) -> None:
    if state.writes:
        _check_rows(state.writes, u.reads, now, "read", _need_read, u.kind)
        _check_rows(state.writes, u.writes, now, "overwrote", _need_overwrite, u.kind)
    if state.reads_c:
        _check_rows(state.reads_c, u.writes, now, "overwrote", _need_war, u.kind)
    if u.is_fma64 and now - state.dgemm_issue - 1 < 2:
        raise HazardViolation("v_fma_f64 issued", None, "an f64 MFMA", 2, now - state.dgemm_issue - 1)


def _record_mfma(state: MaiState, u: Usage, producer: Producer) -> None:
    for row in u.writes:
        state.writes[row] = producer
    if producer.shape.unit == "xdl":
        for row in u.c:
            state.reads_c[row] = producer
    if producer.shape.unit == "dgemm":
        state.dgemm_issue = producer.clock


def _record_other(state: MaiState, u: Usage, now: int) -> None:
    if state.writes or state.reads_c:
        for row in u.writes:
            state.writes.pop(row, None)
            state.reads_c.pop(row, None)
    if u.kind == "valu" and not u.is_dot:
        valu_writes = state.valu_writes
        for row in u.writes:
            valu_writes[row] = now
        if u.writes_exec:
            state.valu_exec_write = now


def guard(inst: Instruction, pc: int, text: str, handler: Handler) -> Handler:
    """``handler`` with the MFMA dependency checks and book-keeping around it."""
    u = usage(inst)
    waits = u.wait_states
    if is_mfma(inst.opcode):
        consumer = shape(inst.opcode)

        def mfma(w: Wave) -> None:
            state = state_of(w)
            now = state.clock
            _check_mfma(state, now, u, consumer)
            handler(w)
            _record_mfma(state, u, Producer(pc, text, now, consumer, u.writes, u.c))
            state.clock = now + 1

        return mfma
    if u.kind == "other":
        def tick(w: Wave) -> None:
            handler(w)
            state_of(w).clock += waits

        return tick

    def run(w: Wave) -> None:
        state = w.mai if w.mai is not None else state_of(w)
        now = state.clock
        if state.writes or state.reads_c or u.is_fma64:
            _check_other(state, now, u)
        handler(w)
        _record_other(state, u, now)
        state.clock = now + 1

    return run


def needed(instructions: Iterable[Instruction]) -> bool:
    """Whether a program needs the checks: it contains an MFMA."""
    return any(is_mfma(inst.opcode) for inst in instructions)
