"""Device functions return ``.param`` results in registers (``ptx2gcn.emit.return_slots``).

``codequality_return_slots.ptx`` is nvcc 13's PTX (``-arch=sm_80 -O3``) for::

    struct Trip { int a, b, c; };
    __device__ __noinline__ unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
    __device__ __noinline__ Trip split(int v) { return Trip{v & 7, v >> 3, v * 3}; }
    __device__ __noinline__ int twice(int v) { return 2 * v; }
    __device__ __noinline__ int thrice(int v) { return 3 * v; }
    typedef int (*op_t)(int);
    extern "C" __global__ void slots(const unsigned *in, unsigned *out) {
        unsigned t = threadIdx.x, v = in[t];
        Trip s = split((int)v);
        op_t f = (v & 1) ? twice : thrice;
        out[4 * t] = fib(v % 16);
        out[4 * t + 1] = s.a + s.b;
        out[4 * t + 2] = s.c;
        out[4 * t + 3] = f((int)v);
    }

The recursive ``fib`` must return its ``.param .b32`` result as an LLVM return value (no result
pointer, so no scratch store and reload per call); ``twice``/``thrice``, whose addresses are taken,
take both ``.param`` slots by value and return both (copy in, copy out); every result must match numpy.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import numpy as np

from ptx2gcn.compiler import compile as compile_ptx
from ptx2gcn.compiler import compile_llvm
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

PTX = Path(__file__).with_name("codequality_return_slots.ptx")
THREADS = 64


def _signature(llvm: str, name: str) -> tuple[str, int]:
    """(return type, number of arguments) of ``name`` in unoptimised LLVM IR."""
    match = re.search(rf'^define internal (\S+|\[[^]]*\]) @"?{re.escape(name)}"?\((.*)\)', llvm, re.MULTILINE)
    assert match is not None, name
    return match.group(1), match.group(2).count("addrspace(5)")


def test_direct_callee_returns_in_registers() -> None:
    llvm = compile_llvm(PTX, optimised=False)
    assert _signature(llvm, "_Z3fibj") == ("i32", 1)  # the argument only: no result pointer
    assert _signature(llvm, "_Z5spliti") == ("[3 x i32]", 1)  # a 12-byte struct in three VGPRs
    for taken in ("_Z5twicei", "_Z6thricei"):  # called through a pointer: both slots by value, both ways
        match = re.search(rf'^define internal \{{i32, i32\}} @"?{taken}"?\(i32 %"?p0"?, i32 %"?p1"?\)', llvm,
                          re.MULTILINE)
        assert match is not None, taken


def test_results_match_numpy() -> None:
    program = load(compile_ptx(PTX).data, "slots.hsaco")
    memory = DeviceMemory()
    values = np.random.default_rng(7).integers(0, 1000, THREADS).astype(np.uint32)
    in_addr, out_addr = memory.alloc(values.nbytes), memory.alloc(4 * values.nbytes)
    memory.write(in_addr, values.tobytes())
    launch(program, "slots", grid=(1, 1, 1), block=(THREADS, 1, 1), kernarg=struct.pack("<QQ", in_addr, out_addr),
           memory=memory)
    out = np.frombuffer(memory.read(out_addr, 4 * values.nbytes), np.uint32).reshape(THREADS, 4)
    fib = [0, 1]
    while len(fib) < 16:
        fib.append(fib[-1] + fib[-2])
    v = values.astype(np.int64)
    expected = np.stack([np.asarray(fib)[v % 16], (v & 7) + (v >> 3), 3 * v, np.where(v & 1, 2 * v, 3 * v)], axis=1)
    np.testing.assert_array_equal(out, expected.astype(np.uint32))
