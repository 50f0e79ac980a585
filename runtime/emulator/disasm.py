"""Disassembly text of decoded gfx942 instructions, spelled as LLVM 22 (llvm-mc, llvm-objdump) spells it.

Invariant: ``disassemble(inst)`` is a pure function of the decoded ``Instruction`` (never of the raw
bytes again) and returns exactly LLVM's canonical instruction text: mnemonic with its form suffix
(``_e32``, ``_e64``, ``_dpp``, ``_sdwa``), a single space, operands separated by ``", "``, then the
modifiers separated by single spaces.  LLVM pads the mnemonic and modifiers with extra spaces in
some places; ``normalise_whitespace`` folds runs of blanks so texts compare equal (documented
difference: whitespace only).  ``objdump_line`` adds the ``// ADDR: WORDS`` comment of llvm-objdump.

Operand spelling rules live in ``disasm_operands`` (registers, inline constants, literals); the
per-encoding printers in ``disasm_scalar`` (SALU, SMEM), ``disasm_vector`` (VALU: e32, e64, DPP,
SDWA, VOP3P, MAI) and ``disasm_memory`` (DS, FLAT/GLOBAL/SCRATCH, MUBUF), merged into one table
here.  Where a field has no printable meaning LLVM prints a raw number, and so do we.
"""

from __future__ import annotations

from collections.abc import Callable

from ptx2gcn.runtime.emulator import disasm_memory, disasm_scalar, disasm_vector
from ptx2gcn.runtime.emulator.decoder import Instruction

__all__ = ["disassemble", "format_instruction", "normalise_whitespace", "objdump_line"]

Printer = Callable[[Instruction], str]

_PRINTERS: dict[str, Printer] = {**disasm_scalar.PRINTERS, **disasm_vector.PRINTERS, **disasm_memory.PRINTERS}


def normalise_whitespace(text: str) -> str:
    """Collapse runs of blanks to one space and strip the ends (LLVM pads some modifiers)."""
    return " ".join(text.split())


def disassemble(inst: Instruction) -> str:
    """LLVM's canonical text of ``inst`` (no address, no encoding comment)."""
    return _PRINTERS[inst.encoding](inst)


def objdump_line(inst: Instruction, code: bytes, base: int = 0) -> str:
    """llvm-objdump's line for ``inst`` decoded from ``code``: text, then ``// ADDR: WORDS`` with
    ADDR = ``base + inst.pc`` (whitespace-normalised; objdump's ``<sym+off>`` branch note omitted)."""
    words = " ".join(f"{int.from_bytes(code[inst.pc + i:inst.pc + i + 4], 'little'):08X}"
                     for i in range(0, inst.size, 4))
    return f"{normalise_whitespace(disassemble(inst))} // {base + inst.pc:012X}: {words}"


format_instruction = disassemble
"""Alias used by the executor's code table (same text)."""
