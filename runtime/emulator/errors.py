"""Errors the gfx942 emulator raises: every one names where it happened, none is a bare traceback.

Invariant: memory layers raise the context-free ``AccessFault`` (address, lane, what); the wave
executor catches it and re-raises ``EmulatorFault`` with kernel, work-group, wave, lane, PC and the
disassembled instruction (``KernelTrap``, a kind of ``EmulatorFault``, for an ``s_trap`` that ends
the dispatch). ``UnknownInstruction`` names the encoding and PC, ``KernelHang`` lists the
PCs the unfinished waves sit at, and ``LaunchError`` reports a bad launch (unknown kernel, wrong
kernarg size, block too large) before anything runs.
"""

from __future__ import annotations

from dataclasses import dataclass


class EmulatorError(RuntimeError):
    """Base class of everything the emulator raises about a kernel or a launch."""


class LaunchError(EmulatorError, ValueError):
    """The launch request itself is invalid (nothing was executed)."""


@dataclass(frozen=True, slots=True)
class FaultSite:
    """Where a fault happened, filled in by the executor."""

    kernel: str
    workgroup: tuple[int, int, int]
    wave: int
    pc: int
    instruction: str

    def describe(self) -> str:
        wg = ",".join(str(v) for v in self.workgroup)
        where = f"kernel {self.kernel!r}, work-group ({wg}), wave {self.wave}"
        return f"{where}, pc 0x{self.pc:x}: {self.instruction}"


class AccessFault(EmulatorError):
    """A memory access outside every mapping (raised by memory.py; lane -1 when not per lane)."""

    def __init__(self, space: str, address: int, size: int, lane: int = -1, why: str = "unmapped") -> None:
        self.space = space
        self.address = address
        self.size = size
        self.lane = lane
        self.why = why
        lane_text = f"lane {lane}: " if lane >= 0 else ""
        super().__init__(f"{lane_text}{space} access of {size} bytes at 0x{address:x}: {why}")


class WaveFault(EmulatorError):
    """Raised by an instruction's semantics (bad operand, trap); the executor adds the site."""

    def __init__(self, message: str, lane: int = -1) -> None:
        self.lane = lane
        super().__init__(f"lane {lane}: {message}" if lane >= 0 else message)


class WaveTrap(WaveFault):
    """``s_trap code`` ended the kernel (raised by the semantics; the executor adds the site)."""

    def __init__(self, message: str, code: int) -> None:
        self.code = code
        super().__init__(message)


class EmulatorFault(EmulatorError):
    """A kernel did something invalid: out-of-bounds access, bad operand, trap."""

    def __init__(self, site: FaultSite, message: str, lane: int = -1, address: int | None = None) -> None:
        self.site = site
        self.lane = lane
        self.address = address
        super().__init__(f"{site.describe()}: {message}")


class HazardFault(EmulatorFault):
    """An instruction read or overwrote a register before the wait states a matrix-core (MFMA)
    dependency requires: undefined on hardware, so always an error (``hazards``)."""


class KernelTrap(EmulatorFault):
    """The kernel executed ``s_trap code`` and the dispatch ended (``code`` 2 is ``llvm.trap``:
    PTX ``trap`` and CUDA's ``assert``; AMDGPUUsage "Trap Handler ABI")."""

    def __init__(self, site: FaultSite, message: str, code: int) -> None:
        self.code = code
        super().__init__(site, message)


class UnknownInstruction(EmulatorError):
    """The decoder or the semantics table has no entry for an instruction."""

    def __init__(self, pc: int, encoding: str, detail: str) -> None:
        self.pc = pc
        self.encoding = encoding
        super().__init__(f"pc 0x{pc:x}: unknown {encoding} instruction: {detail}")


class KernelHang(EmulatorError):
    """The step budget ran out: the kernel did not finish (deadlocked barrier, endless loop)."""

    def __init__(self, kernel: str, steps: int, waiting: list[str]) -> None:
        self.kernel = kernel
        self.steps = steps
        self.waiting = waiting
        shown = "; ".join(waiting[:8]) + (f"; ... {len(waiting) - 8} more" if len(waiting) > 8 else "")
        super().__init__(
            f"kernel {kernel!r} did not finish after {steps} wave-instructions: waves waiting at {shown}"
        )
