"""Code objects from ``link_hsaco`` run in ptx2gcn's gfx942 emulator and compute what plain Python
models of the kernels say: GOT loads, PC-relative and indirect calls, recursion on the private stack,
RELATIVE64/ABS64 data pointers and cross-object references all have to be resolved right for that.
No LLVM tool is needed (the objects come from llvmlite)."""

from __future__ import annotations

import struct
from collections.abc import Callable

import numpy as np
import pytest

from ptx2gcn.link.elf import ElfFile
from ptx2gcn.link.linker import link_hsaco
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

MASK32 = 0xFFFFFFFF


def fact(n: int) -> int:
    return 1 if n <= 1 else n * fact(n - 1) & MASK32


def run(hsaco: bytes, kernel: str, block: int, kernarg: bytes, memory: DeviceMemory) -> None:
    launch(load(hsaco, kernel), kernel, 1, block, kernarg, memory=memory)


@pytest.mark.parametrize("sel", [0, 1])
def test_calls(sel: int, compile_kernel: Callable[..., bytes]) -> None:
    memory = DeviceMemory()
    out = memory.alloc(64 * 4)
    run(link_hsaco([compile_kernel("calls")]), "calls", 64, struct.pack("<QII", out, sel, 5), memory)
    # ftab = {twice, plus_one}, fconst = {plus_one, twice}; the result goes through twice again.
    first, second = [(lambda x: 2 * x, lambda x: x + 1), (lambda x: x + 1, lambda x: 2 * x)][sel]
    expected = [2 * second(first(fact(t))) & MASK32 for t in range(64)]
    assert np.frombuffer(memory.read(out, 64 * 4), dtype=np.uint32).tolist() == expected


@pytest.mark.parametrize(("k", "partial_sum"), [(0, 3 + 0 + 7 + 42 + 9), (1, 1 + 0x40400000 + 0 + 42 + 9)])
def test_globals(k: int, partial_sum: int, compile_kernel: Callable[..., bytes]) -> None:
    hsaco = link_hsaco([compile_kernel("globals")])
    program = load(hsaco, "globals")
    memory = DeviceMemory()
    base = program.map_into(memory)
    out = memory.alloc(32 * 4)
    launch(program, "globals", 1, 32, struct.pack("<QI", out, k), memory=memory)
    symbols = {s.name: s.value for s in ElfFile(hsaco).symtab}
    # s = table[k] + *ptrs[k] + *cptrs[k] + hidden_val + local_val, through float and back (f32 rounding).
    rounded = int(np.float32(partial_sum))
    zeros = np.frombuffer(memory.read(base + symbols["zeros"], 32 * 4), dtype=np.int32)
    assert zeros.tolist() == [rounded] * 32
    counter = struct.unpack("<I", memory.read(base + symbols["counter"], 4))[0]
    results = np.frombuffer(memory.read(out, 32 * 4), dtype=np.int32).tolist()
    assert counter == 32 and results[0] == 7 and sorted(results[1:]) == sorted(set(results[1:]))
    assert set(results[1:]) <= set(range(32))


def test_two_objects(compile_kernel: Callable[..., bytes]) -> None:
    hsaco = link_hsaco([compile_kernel("multi_main"), compile_kernel("multi_lib")])
    memory = DeviceMemory()
    out = memory.alloc(64 * 4)
    run(hsaco, "multi", 64, struct.pack("<Q", out), memory)
    # (lib_hidden_fn(lib_fn(t)) = 5t + 2) * lib_scale (3) + lib_hidden (11)
    results = np.frombuffer(memory.read(out, 64 * 4), dtype=np.int32).tolist()
    assert results == [(5 * t + 2) * 3 + 11 for t in range(64)]
    run(hsaco, "lib_kernel", 1, struct.pack("<Q", out), memory)
    assert struct.unpack("<i", memory.read(out, 4))[0] == 5 * 4 + 2  # through the lib_ptr function pointer


@pytest.mark.parametrize(("objects", "expected"), [(("weak_a",), lambda t: t + 1 + 10),
                                                   (("weak_a", "weak_b"), lambda t: 3 * t + 20)])
def test_weak_definitions(objects: tuple[str, ...], expected: Callable[[int], int],
                          compile_kernel: Callable[..., bytes]) -> None:
    """Alone, the weak definitions are used; with weak_b, its strong ones win."""
    memory = DeviceMemory()
    out = memory.alloc(64 * 4)
    hsaco = link_hsaco([compile_kernel(name) for name in objects])
    run(hsaco, "weak_user", 64, struct.pack("<Q", out), memory)
    results = np.frombuffer(memory.read(out, 64 * 4), dtype=np.int32).tolist()
    assert results == [expected(t) for t in range(64)]
