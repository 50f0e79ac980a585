"""Decoding what ptx2gcn itself emits for the PTX corpora gives exactly llvm-objdump's listing.

Slow (compiles hundreds of PTX files).  Each group of ``corpora/`` is compiled by ``ptx2gcn.compiler``
in a child process (a PTX file the compiler does not support is skipped; a child that dies on a file
is restarted after it, so a compiler crash cannot take pytest down), then every instruction of
every ``.text`` section is decoded and compared with ``llvm-objdump-22 -d --mcpu=gfx942``: same
addresses, sizes and text (whitespace-normalised, LLVM's ``/* ... */`` notes dropped).  Measured on
2026-11-30: 337 code objects, 288,075 instructions, 392 distinct opcodes, no difference.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ptx2gcn.link.elf import ElfFile
from ptx2gcn.runtime.emulator.decoder import decode_all
from ptx2gcn.runtime.emulator.disasm import disassemble, normalise_whitespace
from tests.emu.test_disasm_objdump import objdump_listing

CORPORA = Path(__file__).resolve().parents[2] / "corpora"

_COMPILE_EACH = """
import sys
from pathlib import Path
from ptx2gcn.compiler import compile
from ptx2gcn.diagnostics import Ptx2GcnError
out = Path(sys.argv[1])
for index, name in enumerate(sys.argv[2:]):
    try:
        data = compile(name, arch="gfx942", opt=3).data
    except Ptx2GcnError:
        print(index, "skip", flush=True)
        continue
    (out / f"{index}.hsaco").write_bytes(data)
    print(index, "ok", flush=True)
"""


def compile_all(files: list[Path], out: Path) -> tuple[list[Path], list[Path]]:
    """(code objects written, PTX files whose compilation killed the child process)."""
    remaining, written, crashed = list(files), [], []
    attempt = 0
    while remaining:
        attempt += 1
        directory = out / f"run{attempt}"
        directory.mkdir()
        result = subprocess.run([sys.executable, "-c", _COMPILE_EACH, str(directory), *map(str, remaining)],
                                capture_output=True, text=True, timeout=1800)
        done = [line.split() for line in result.stdout.splitlines() if line.strip()]
        written += [directory / f"{index}.hsaco" for index, status in done if status == "ok"]
        if result.returncode == 0:
            break
        crashed.append(remaining[len(done)])
        remaining = remaining[len(done) + 1:]
    return written, crashed


@pytest.mark.slow
@pytest.mark.parametrize(("group", "minimum"), [("nvcc/sm_80", 20000), ("triton", 2000), ("numba", 2000),
                                                ("zluda", 2000)])
def test_corpus_code_objects_match_objdump(llvm_tool: Callable[[str], str], tmp_path: Path, group: str,
                                           minimum: int) -> None:
    files = sorted((CORPORA / group).rglob("*.ptx"))
    assert files, group
    code_objects, crashed = compile_all(files, tmp_path)
    compared, mismatches = 0, []
    for path in code_objects:
        listing = objdump_listing(llvm_tool, path, drop_notes=True)
        elf = ElfFile(path.read_bytes())
        text = elf.section(".text")
        assert text is not None
        code = elf.section_data(text)
        for inst in decode_all(code, 0, len(code)):
            got = (normalise_whitespace(disassemble(inst)), inst.size)
            want = listing.get(text.addr + inst.pc)
            compared += 1
            if got != want:
                mismatches.append(f"{path.name} 0x{text.addr + inst.pc:x}: objdump {want}, ours {got}")
    assert not mismatches, "\n".join(mismatches[:40])
    assert compared >= minimum, f"only {compared} instructions compared (compiler crashed on {crashed})"
