"""Real nvcc kernels from ``corpora/`` compiled and run on the emulator, checked against numpy."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from ptx2gcn.compiler import compile
from ptx2gcn.runtime.emulator.launch import launch
from ptx2gcn.runtime.emulator.loader import load
from ptx2gcn.runtime.emulator.memory import DeviceMemory

NVCC = Path(__file__).resolve().parents[2] / "corpora" / "nvcc" / "sm_80"


def test_tiled_matmul_16() -> None:
    """matmul_tiled<16>: LDS tiles, two barriers per step, partial tiles at the edges (M, N, K not multiples)."""
    m, n, k = 20, 18, 35
    rng = np.random.default_rng(3)
    a = rng.integers(-4, 5, (m, k)).astype(np.float32)  # small integers: every sum is exact in f32
    b = rng.integers(-4, 5, (k, n)).astype(np.float32)
    memory = DeviceMemory()
    pa, pb, pc = memory.alloc(a.nbytes), memory.alloc(b.nbytes), memory.alloc(4 * m * n)
    memory.write(pa, a.tobytes())
    memory.write(pb, b.tobytes())
    program = load(compile(NVCC / "matmul_tiled.ptx").data, "matmul")
    launch(program, "_Z12matmul_tiledILi16EEvPKfS1_Pfiii", grid=(2, 2, 1), block=(16, 16, 1),
           kernarg=struct.pack("<QQQiii", pa, pb, pc, m, n, k), memory=memory)
    c = np.frombuffer(memory.read(pc, 4 * m * n), np.float32).reshape(m, n)
    assert np.array_equal(c, a @ b)


def test_transpose_shared() -> None:
    width, height = 64, 32
    data = np.arange(width * height, dtype=np.float32).reshape(height, width)
    memory = DeviceMemory()
    src, dst = memory.alloc(data.nbytes), memory.alloc(data.nbytes)
    memory.write(src, data.tobytes())
    program = load(compile(NVCC / "transpose.ptx").data, "transpose")
    launch(program, "transpose_shared", grid=(width // 32, height // 32, 1), block=(32, 8, 1),
           kernarg=struct.pack("<QQii", dst, src, width, height), memory=memory)
    got = np.frombuffer(memory.read(dst, data.nbytes), np.float32).reshape(width, height)
    assert np.array_equal(got, data.T)
