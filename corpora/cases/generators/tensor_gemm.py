"""Launch cases for corpora/src/cuda/tensor_gemm.cu (``corpora/cases/tensor_gemm/``): tensor-core GEMMs
with K loops (multi-warp wmma f16 -> f32, inline-asm mma.sync m16n8k16 f16/bf16 fed by ldmatrix), a
double-buffered ``cuda::pipeline`` cp.async GEMM and a ``cuda::barrier`` tile loop, modelled with numpy
from the CUDA source. Nothing imports ptx2gcn.

Small-integer data make every order of the tensor-core sums exact (bit-exact cases, which prove the
fragment layouts, the staging and the K loop). The ``_random`` cases use random f16/bf16 data; their
tolerance is the reference model's bound for a chain of mma steps (docs/tensor-cores.md, "What the
reference model accepts": per step ``b_i = b_{i-1} + (K+2)·2⁻²³·(|x_{i-1}| + b_{i-1} + Σ|a_k b_k|_i)``
with ``x`` the exact partial result, K = 16 per step), taken at its largest element as ``atol``, plus
``rtol = 2⁻²³`` for the f32 rounding of the exact expected value. Their inputs keep |x| ≥ 2⁻⁸ (no
subnormal f16/bf16: docs/tensor-cores.md, "Not done yet", on subnormals and the f16 MFMA path).
Invariant: like every generator of ``make_cases.py`` (which runs these), byte-identical output per run.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import numpy.typing as npt
from casegen import Buffer, CaseSpec, Scalar

from generators.tensor_core import _bf16_bits, _to_bf16

SRC = "nvcc/sm_{arch}/tensor_gemm.ptx"
F64 = npt.NDArray[np.float64]


def _case(arch: int, kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int], args: list,
          expect: dict, note: str, tolerance: dict | None = None) -> CaseSpec:
    return CaseSpec(SRC.format(arch=arch), kernel, grid, block, args, expect, tolerance or {}, note=note)


def _chain_bound(a: F64, b: F64, step: int = 16) -> F64:
    """The reference model's per-element bound on |D - A·B| for D accumulated from C = 0 by mma steps
    of ``step`` K elements each (K order), with A and B exact (module docstring)."""
    x = np.zeros((a.shape[0], b.shape[1]))
    bound = np.zeros_like(x)
    for k0 in range(0, a.shape[1], step):
        terms = np.abs(a[:, k0:k0 + step]) @ np.abs(b[k0:k0 + step])
        bound = bound + (step + 2) * 2.0**-23 * (np.abs(x) + bound + terms)
        x = x + a[:, k0:k0 + step] @ b[k0:k0 + step]
    return bound


def _random_16bit(rng: np.random.Generator, shape: tuple[int, int]) -> F64:
    """Uniform in ±[2⁻⁸, 2], as f64 (rounded to a 16-bit format by the caller)."""
    x = rng.uniform(-2.0, 2.0, shape)
    return np.where(np.abs(x) < 2.0**-8, np.copysign(2.0**-8, x), x)


def _wmma_gemm(rng: np.random.Generator, arch: int, random: bool) -> CaseSpec:
    """C = alpha·A·B, 128 threads (4 warps) per 32 x 32 tile of C, K steps of 16 staged in shared memory.
    M = N = K = 64 (grid 2 x 2) with small integers; 32 x 32 x 64 (one block) with random f16 data."""
    m, n, k = (32, 32, 64) if random else (64, 64, 64)
    alpha = 0.5
    if random:
        a = _random_16bit(rng, (m, k)).astype(np.float16).astype(np.float64)
        b = _random_16bit(rng, (k, n)).astype(np.float16).astype(np.float64)
    else:
        a, b = rng.integers(-4, 5, (m, k)).astype(np.float64), rng.integers(-4, 5, (k, n)).astype(np.float64)
    c = alpha * (a @ b)
    tolerance = {"C": (2.0**-23, alpha * float(_chain_bound(a, b).max()))} if random else None
    note = ("random f16 in ±[2^-8, 2], alpha = 0.5 (exact scaling): the model's chain bound" if random else
            "small integers, alpha = 0.5: every sum exact (bit exact)")
    return _case(arch, "wmma_gemm_f16_f32", (n // 32, m // 32, 1), (128, 1, 1), [
        ("A", Buffer("f16", a.astype(np.float16).reshape(-1))), ("B", Buffer("f16", b.astype(np.float16).reshape(-1))),
        ("C", Buffer("f32", count=m * n)), ("M", Scalar("s32", m)), ("N", Scalar("s32", n)), ("K", Scalar("s32", k)),
        ("alpha", Scalar("f32", alpha)),
    ], {"C": c.astype(np.float32).reshape(-1)}, f"M, N, K = {m}, {n}, {k}; {note}", tolerance)


def _mma_gemm(rng: np.random.Generator, arch: int, bf16: bool, random: bool) -> CaseSpec:
    """C = A·B, 64 threads (2 warps) per 16 x 16 tile of C, ldmatrix + mma.sync m16n8k16 per K step of
    16. M = N = 32, K = 64 (grid 2 x 2)."""
    m, n, k = 32, 32, 64
    if random:
        a, b = _random_16bit(rng, (m, k)), _random_16bit(rng, (k, n))
        if bf16:
            a = _to_bf16(a.astype(np.float32)).astype(np.float64)
            b = _to_bf16(b.astype(np.float32)).astype(np.float64)
        else:
            a, b = a.astype(np.float16).astype(np.float64), b.astype(np.float16).astype(np.float64)
    else:
        a, b = rng.integers(-8, 9, (m, k)).astype(np.float64), rng.integers(-8, 9, (k, n)).astype(np.float64)
    if bf16:
        inputs = [("A", Buffer("u16", _bf16_bits(a).reshape(-1))), ("B", Buffer("u16", _bf16_bits(b).reshape(-1)))]
    else:
        inputs = [("A", Buffer("f16", a.astype(np.float16).reshape(-1))),
                  ("B", Buffer("f16", b.astype(np.float16).reshape(-1)))]
    tolerance = {"C": (2.0**-23, float(_chain_bound(a, b).max()))} if random else None
    kind = "bf16 (as raw u16)" if bf16 else "f16"
    note = (f"random {kind} in ±[2^-8, 2]: the model's chain bound" if random else
            f"small-integer {kind}: every sum exact (bit exact)")
    kernel = "mma_ldmatrix_gemm_bf16" if bf16 else "mma_ldmatrix_gemm_f16"
    return _case(arch, kernel, (n // 16, m // 16, 1), (64, 1, 1), [
        *inputs, ("C", Buffer("f32", count=m * n)),
        ("M", Scalar("s32", m)), ("N", Scalar("s32", n)), ("K", Scalar("s32", k)),
    ], {"C": (a @ b).astype(np.float32).reshape(-1)}, f"M, N, K = {m}, {n}, {k}; {note}", tolerance)


def _pipeline_gemm(rng: np.random.Generator, arch: int) -> CaseSpec:
    """C = A·B in f32 through a two-stage block-scoped cuda::pipeline, 16 x 16 threads per 16 x 16 tile;
    M = N = 16, K = 64 (one block, four K tiles, so both stages are reused; the waits spin on mbarriers,
    so a bigger grid costs emulator time, not coverage)."""
    m, n, k = 16, 16, 64
    a, b = rng.integers(-8, 9, (m, k)), rng.integers(-8, 9, (k, n))
    return _case(arch, "pipeline_gemm_f32", (n // 16, m // 16, 1), (16, 16, 1), [
        ("A", Buffer("f32", a.astype(np.float32).reshape(-1))), ("B", Buffer("f32", b.astype(np.float32).reshape(-1))),
        ("C", Buffer("f32", count=m * n)),
        ("M", Scalar("s32", m)), ("N", Scalar("s32", n)), ("K", Scalar("s32", k)),
    ], {"C": (a @ b).astype(np.float32).reshape(-1)}, "small integers: every sum exact, fused or not")


def _barrier_tiles(rng: np.random.Generator, arch: int) -> CaseSpec:
    """out[b·256 + t] = Σ_i in[256·i + (5t mod 256)]·(i + 1) over n_tiles = 3 tiles, two blocks of 256."""
    tiles = 3
    data = rng.integers(-50, 50, tiles * 256).astype(np.float64)
    t = np.arange(256)
    acc = sum(data[256 * i + (5 * t) % 256] * (i + 1) for i in range(tiles))
    return _case(arch, "barrier_tiles", (2, 1, 1), (256, 1, 1), [
        ("in", Buffer("f32", data.astype(np.float32))), ("out", Buffer("f32", count=512)),
        ("n_tiles", Scalar("s32", tiles)),
    ], {"out": np.tile(acc, 2).astype(np.float32)}, "integer-valued floats: every partial sum exact")


def nvcc_tensor_gemm() -> Iterator[tuple[str, CaseSpec]]:
    rng = np.random.default_rng(320)
    for arch, suffix in ((80, ""), (90, "_sm90")):
        yield f"tensor_gemm/wmma_gemm_f16_f32{suffix}", _wmma_gemm(rng, arch, random=False)
        yield f"tensor_gemm/mma_ldmatrix_gemm_f16{suffix}", _mma_gemm(rng, arch, bf16=False, random=False)
        yield f"tensor_gemm/mma_ldmatrix_gemm_bf16{suffix}", _mma_gemm(rng, arch, bf16=True, random=False)
        yield f"tensor_gemm/pipeline_gemm_f32{suffix}", _pipeline_gemm(rng, arch)
        yield f"tensor_gemm/barrier_tiles{suffix}", _barrier_tiles(rng, arch)
    yield "tensor_gemm/wmma_gemm_f16_f32_random", _wmma_gemm(rng, 80, random=True)
    yield "tensor_gemm/mma_ldmatrix_gemm_f16_random", _mma_gemm(rng, 80, bf16=False, random=True)
    yield "tensor_gemm/mma_ldmatrix_gemm_bf16_random", _mma_gemm(rng, 80, bf16=True, random=True)


GENERATORS = [nvcc_tensor_gemm]
