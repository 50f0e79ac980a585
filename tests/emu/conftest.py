"""Fixtures for emulator tests: build kernels from LLVM IR (llvmlite + ld.lld-22) and run them.

``kernel(ir)`` compiles LLVM IR text for gfx942 (COV5) with ``ptx2gcn.emit.target`` and links it with
``ld.lld-22 -shared``; the result is loaded with the emulator's ``load``. ``one_instruction`` runs a
single instruction assembled by ``llvm-mc-22`` on a fresh wave, for per-family semantics tests.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from ptx2gcn.emit.target import emit_object, optimise
from ptx2gcn.options import CompileOptions
from ptx2gcn.runtime.emulator.decoder import decode
from ptx2gcn.runtime.emulator.loader import Program, load
from ptx2gcn.runtime.emulator.memory import DeviceMemory, Lds, Scratch
from ptx2gcn.runtime.emulator.semantics import bind
from ptx2gcn.runtime.emulator.wave import Mode, Wave, WorkGroup

_CACHE: dict[str, bytes] = {}


def link_hsaco(ir: str, lld: str) -> bytes:
    if ir not in _CACHE:
        options = CompileOptions()
        obj = emit_object(optimise(ir, options), options)
        with tempfile.TemporaryDirectory() as tmp:
            src, out = Path(tmp) / "k.o", Path(tmp) / "k.hsaco"
            src.write_bytes(obj)
            subprocess.run([lld, "-shared", str(src), "-o", str(out)], check=True, capture_output=True)
            _CACHE[ir] = out.read_bytes()
    return _CACHE[ir]


@pytest.fixture(scope="session")
def kernel(llvm_tool: Callable[[str], str]) -> Callable[[str], Program]:
    lld = llvm_tool("ld.lld-22")
    return lambda ir: load(link_hsaco(ir, lld), "test.hsaco")


@pytest.fixture(scope="session")
def hsaco(llvm_tool: Callable[[str], str]) -> Callable[[str], bytes]:
    lld = llvm_tool("ld.lld-22")
    return lambda ir: link_hsaco(ir, lld)


_ENCODING = re.compile(r"encoding: \[([^\]]*)\]")


def assemble(mc: str, text: str) -> bytes:
    """Machine code of one gfx942 instruction, from llvm-mc."""
    done = subprocess.run(
        [mc, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-show-encoding"],
        input=text,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, f"llvm-mc rejected {text!r}: {done.stderr}"
    match = _ENCODING.search(done.stdout)
    assert match, done.stdout + done.stderr
    return bytes(int(b, 16) for b in match.group(1).split(","))


def fresh_wave(lds_bytes: int = 1024, private: int = 256) -> Wave:
    group = WorkGroup((0, 0, 0), Lds(lds_bytes))
    wave = Wave(0, group, DeviceMemory(), Scratch(private), Mode())
    wave.set_exec((1 << 64) - 1)
    group.waves.append(wave)
    return wave


@pytest.fixture(scope="session")
def one_instruction(llvm_tool: Callable[[str], str]) -> Callable[[str, Wave], Wave]:
    """Assemble ``text`` with llvm-mc and execute it once on ``wave`` (returned)."""
    mc = llvm_tool("llvm-mc-22")
    cache: dict[str, bytes] = {}

    def run(text: str, wave: Wave) -> Wave:
        if text not in cache:
            cache[text] = assemble(mc, text)
        code = cache[text]
        inst = decode(code, 0)
        assert inst.size == len(code), (text, inst)
        wave.pc = inst.size
        with np.errstate(all="ignore"):  # as the executor runs handlers
            bind(inst, 0)(wave)
        return wave

    return run


def wave_with(**rows: object) -> Wave:
    """A fresh full-EXEC wave whose VGPRs ``v<n>=values`` are set (values truncated to 32 bits)."""
    wave = fresh_wave()
    for name, values in rows.items():
        wave.v[int(name[1:])] = np.asarray(values).astype(np.uint64).astype(np.uint32)
    return wave


@pytest.fixture(scope="session")
def make_wave() -> Callable[..., Wave]:
    return wave_with
