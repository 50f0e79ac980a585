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


def _run(path: Path, kernel: str, args: bytes, memory: DeviceMemory, block: int) -> None:
    program = load(compile(path).data, path.name)
    launch(program, kernel, grid=(1, 1, 1), block=(block, 1, 1), kernarg=args, memory=memory)


def test_brx_idx_jump_table() -> None:
    """control_flow.cu ``indirect_branch``: brx.idx through a .branchtargets list in a device function."""
    n = 32
    idx = np.arange(n, dtype=np.uint32) * 7
    memory = DeviceMemory()
    p_idx, p_out = memory.alloc(4 * n), memory.alloc(4 * n)
    memory.write(p_idx, idx.tobytes())
    _run(NVCC / "control_flow.ptx", "indirect_branch", struct.pack("<QQ", p_idx, p_out), memory, n)
    table = np.array([10, 21, 32, 43])
    expected = table[idx & 3] + table[(idx >> 2) & 3]
    assert np.array_equal(np.frombuffer(memory.read(p_out, 4 * n), np.int32), expected)


def _fma(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """f32 fma (nvcc contracts x*x + y): the product is exact in f64; rounding the f64 sum to f32
    agrees with a single rounding for these inputs (no f32 tie is hit)."""
    return (x.astype(np.float64) * y + z).astype(np.float32)


def test_dense_switch() -> None:
    n = 64
    ops = np.arange(n, dtype=np.int32)
    a = np.linspace(-3.5, 4.25, n).astype(np.float32)
    b = np.linspace(2.0, -1.5, n).astype(np.float32)
    memory = DeviceMemory()
    ptrs = [memory.alloc(4 * n) for _ in range(4)]
    for ptr, data in zip(ptrs, (ops, a, b)):
        memory.write(ptr, data.tobytes())
    _run(NVCC / "control_flow.ptx", "dense_switch", struct.pack("<QQQQi", *ptrs, n), memory, n)
    with np.errstate(all="ignore"):
        cases = [a + b, a - b, a * b, a / b, np.fmin(a, b), np.fmax(a, b), np.sqrt(np.abs(a)), -a, _fma(a, a, b),
                 np.floor(a), np.ceil(b), a * np.float32(0.5), b * np.float32(2), np.where(a > b, a, 0),
                 np.trunc(a), np.zeros(n)]
    expected = np.array([cases[min(op & 15, 15)][i] for i, op in enumerate(ops)], np.float32)
    got = np.frombuffer(memory.read(ptrs[3], 4 * n), np.float32)
    assert np.array_equal(got, expected)


def test_dynamic_alloca() -> None:
    """wide_types.cu ``dynamic_alloca``: PTX alloca with a per-thread size on the private stack."""
    n = 64
    sizes = (np.arange(n, dtype=np.int32) * 5) % 64
    memory = DeviceMemory()
    p_sizes, p_out = memory.alloc(4 * n), memory.alloc(4 * n)
    memory.write(p_sizes, sizes.tobytes())
    _run(NVCC / "wide_types.ptx", "dynamic_alloca", struct.pack("<QQ", p_sizes, p_out), memory, n)
    expected = [sum(k * k for k in range(s, -1, -3)) for s in sizes]
    assert np.array_equal(np.frombuffer(memory.read(p_out, 4 * n), np.int32), np.array(expected, np.int32))
