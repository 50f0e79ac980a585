"""Robustness: random machine words that decode as gfx942 instructions, bound and executed on a wave
with random registers, raise only the emulator's own errors (located faults or unknown-instruction
errors), never IndexError/OverflowError/TypeError from inside the emulator."""

from __future__ import annotations

import dataclasses
import random
import struct
from collections.abc import Callable

import numpy as np
import pytest

from ptx2gcn.runtime.emulator.decoder import DecodeError, decode
from ptx2gcn.runtime.emulator.errors import EmulatorError
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import Program
from ptx2gcn.runtime.emulator.memory import DeviceMemory, Lds, Scratch
from ptx2gcn.runtime.emulator.semantics import bind
from ptx2gcn.runtime.emulator.wave import Mode, Wave, WorkGroup


@pytest.mark.parametrize("seed", [11, 12])
def test_random_instructions_fail_cleanly(seed: int) -> None:
    rng = random.Random(seed)
    values = np.random.default_rng(seed)
    executed = 0
    for _ in range(2500):
        code = b"".join(rng.getrandbits(32).to_bytes(4, "little") for _ in range(3))
        try:
            inst = decode(code, 0)
        except DecodeError:
            continue
        wave = Wave(0, WorkGroup((0, 0, 0), Lds(256)), DeviceMemory(), Scratch(64), Mode())
        wave.group.waves.append(wave)
        wave.v[:] = values.integers(0, 2**32, (512, 64), dtype=np.uint64).astype(np.uint32)
        for code_index in range(126):
            wave.s[code_index] = rng.getrandbits(32)
        wave.set_exec(rng.getrandbits(64))
        try:
            with np.errstate(all="ignore"):
                bind(inst, 0)(wave)
        except EmulatorError as error:
            assert "internal emulator error" not in str(error), str(error)
        executed += 1
    assert executed > 1200


SHELL = """
define amdgpu_kernel void @shell(ptr addrspace(1) %out) {
  store i32 1, ptr addrspace(1) %out
  ret void
}
"""


@pytest.mark.parametrize("seed", [21, 22, 23])
def test_random_programs_end_in_emulator_errors(kernel: Callable[[str], Program], seed: int) -> None:
    """Random words in place of a kernel's code: every launch finishes or raises an EmulatorError."""
    program = kernel(SHELL)
    entry = program.kernels["shell"].entry_address
    text = next(t for t in program.text if t.start <= entry < t.end)
    rng = random.Random(seed)
    outcomes: dict[str, int] = {}
    for _ in range(15):
        image = bytearray(program.image)
        for pc in range(entry, text.end - 3, 4):
            image[pc : pc + 4] = rng.getrandbits(32).to_bytes(4, "little")
        patched = dataclasses.replace(program, image=bytes(image))
        memory = DeviceMemory()
        out = memory.alloc(4)
        try:
            launch(patched, "shell", (1,), (64,), struct.pack("<Q", out), memory=memory, step_budget=2000)
            outcome = "finished"
        except EmulatorError as error:
            assert "internal emulator error" not in str(error), str(error)
            outcome = type(error).__name__
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert sum(outcomes.values()) == 15
