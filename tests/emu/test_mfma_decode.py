"""The decoder and disassembler on every dense gfx942 MFMA and the v_accvgpr_* moves, against llvm-mc-22.

Independent reference: ``llvm-mc-22 -mcpu=gfx942 -show-encoding`` assembles each line and prints its
canonical text; our ``disassemble(decode(bytes))`` must print the same text.  Every opcode is
tried with AGPR and VGPR C/D, AGPR A/B, an inline-constant C, and the cbsz/abid/blgp values the
CDNA3 MFMA table allows it (f64: blgp is the neg:[a,b,c] modifier); each line must be accepted.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable

import pytest

from ptx2gcn.runtime.emulator.decoder import decode
from ptx2gcn.runtime.emulator.disasm import disassemble, normalise_whitespace
from ptx2gcn.runtime.emulator.mfma_shapes import PASSES, shape
from ptx2gcn.runtime.emulator.opcodes import all_opcodes

_LINE = re.compile(r"^\s*(\S.*?)\s*;\s*encoding: \[([^\]]*)\]")


def _tuple(prefix: str, first: int, count: int) -> str:
    return f"{prefix}{first}" if count == 1 else f"{prefix}[{first}:{first + count - 1}]"


def mfma_lines(name: str) -> list[str]:
    s = shape(name)
    a, d = s.in_dwords, s.out_dwords
    lines = [
        f"{name} {_tuple('a', 0, d)}, {_tuple('v', 64, a)}, {_tuple('v', 66, a)}, {_tuple('a', 0, d)}",
        f"{name} {_tuple('v', 0, d)}, {_tuple('v', 64, a)}, {_tuple('v', 66, a)}, {_tuple('v', 32, d)}",
        f"{name} {_tuple('a', 32, d)}, {_tuple('a', 64, a)}, {_tuple('v', 70, a)}, {_tuple('a', 0, d)}",
        f"{name} {_tuple('v', 0, d)}, {_tuple('v', 64, a)}, {_tuple('a', 66, a)}, 0",
        f"{name} {_tuple('a', 0, d)}, {_tuple('v', 64, a)}, {_tuple('v', 66, a)}, 1.0",
    ]
    base = f"{name} {_tuple('a', 0, d)}, {_tuple('v', 64, a)}, {_tuple('v', 66, a)}, {_tuple('a', 0, d)}"
    if s.out == "f64":
        lines += [f"{base} neg:[1,0,0]", f"{base} neg:[0,1,1]"]
    else:
        if s.has_cbsz_abid:
            lines += [f"{base} cbsz:1 abid:1", f"{base} cbsz:{s.max_cbsz} abid:{(1 << s.max_cbsz) - 1}"]
        if s.has_blgp:
            lines += [f"{base} blgp:{b}" for b in (1, 3, 7)]
    return lines


ACCVGPR = ["v_accvgpr_read_b32 v1, a2", "v_accvgpr_read_b32 v255, a255", "v_accvgpr_write_b32 a3, v4",
           "v_accvgpr_write_b32 a0, 1.0", "v_accvgpr_write_b32 a7, -4", "v_accvgpr_write_b32 a1, s5",
           "v_accvgpr_mov_b32 a1, a2", "v_accvgpr_mov_b32 a0, a255"]


def llvm_texts(mc: str, lines: list[str]) -> list[tuple[str, bytes]]:
    """LLVM's canonical text and encoding of each line (all must be accepted)."""
    done = subprocess.run([mc, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-show-encoding"],
                          input="\n".join(lines) + "\n", capture_output=True, text=True)
    assert done.returncode == 0 and not done.stderr.strip(), f"llvm-mc rejected a line: {done.stderr}"
    found = [m for m in map(_LINE.match, done.stdout.splitlines()) if m]
    assert len(found) == len(lines), done.stdout
    return [(normalise_whitespace(m.group(1)), bytes(int(b, 16) for b in m.group(2).split(","))) for m in found]


def test_every_dense_mfma_opcode_is_in_the_opcode_table() -> None:
    names = {info.name for info in all_opcodes() if info.name.startswith("v_mfma")}
    assert names == set(PASSES)


@pytest.mark.parametrize("name", sorted(PASSES) + ["accvgpr"])
def test_decoder_agrees_with_llvm_mc(name: str, llvm_tool: Callable[[str], str]) -> None:
    lines = ACCVGPR if name == "accvgpr" else mfma_lines(name)
    for line, (expected, code) in zip(lines, llvm_texts(llvm_tool("llvm-mc-22"), lines)):
        inst = decode(code, 0)
        assert inst.size == len(code), line
        assert normalise_whitespace(disassemble(inst)) == expected, line
