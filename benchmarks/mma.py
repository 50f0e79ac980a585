"""Tensor-core lowering against native gfx942 MFMA code, on the emulator (issue #14).

Usage: ``.venv/bin/python benchmarks/mma.py [--n 128] [--seed 1]``

One f16 GEMM (``n x n x n``, f32 accumulation, A/B/C row-major) three ways:

* nvcc's ``wmma`` PTX (``benchmarks/assets/mma/gemm_wmma.cu`` → committed ``gemm_wmma.ptx``) recompiled
  by ptx2gcn with ``mma="mfma"`` (the MFMA fast path) and with ``mma="exact"`` (the portable VALU path);
* the same GEMM written for gfx942 with ``__builtin_amdgcn_mfma_f32_16x16x16f16`` and compiled by
  ``clang-22 -x hip`` (committed ``gemm_mfma.hsaco``; ``build_mfma.sh`` rebuilds it).

Each runs as a launch case on the emulator; its output is checked against numpy (small-integer data,
so every path must be bit-exact), then the script prints dynamic wave-instructions, MFMA
instructions and MFMA busy cycles, and each path's instruction ratio to the native kernel (target:
MFMA path ≤ 1.5×). The emulator counts no total cycles; wave-instructions stand in for them.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ptx2gcn.compiler import compile as compile_ptx
from ptx2gcn.options import CompileOptions
from ptx2gcn.runtime.backends.protocol import LaunchResult
from ptx2gcn.runtime.cache.jit_cache import CacheConfig, JitCache
from ptx2gcn.runtime.cases.case import load_case
from ptx2gcn.runtime.cases.run import run_case
from ptx2gcn.runtime.driver.state import Compiler

ASSETS = Path(__file__).resolve().parent / "assets" / "mma"
BLOCK = 128


def _case_text(source: str, kernel: str, n: int) -> str:
    tiles = (n // 16) ** 2
    grid = tiles * 32 // BLOCK if kernel == "gemm_wmma" else tiles * 64 // BLOCK
    return f"""{source}
kernel = "{kernel}"
grid = [{grid}, 1, 1]
block = [{BLOCK}, 1, 1]
[[args]]
name = "a"
buffer = "f16"
data = "a.npy"
[[args]]
name = "b"
buffer = "f16"
data = "b.npy"
[[args]]
name = "c"
buffer = "f32"
count = {n * n}
[[args]]
name = "n"
scalar = "s32"
value = {n}
[expect]
c = "c.expected.npy"
"""


def _compiler(mma: str) -> Compiler:
    def build(ptx: str, name: str, options: CompileOptions) -> bytes:
        return compile_ptx(ptx, options, name=name, mma=mma).data

    return build


def _run(workdir: Path, name: str, source: str, kernel: str, n: int,
         compiler: Compiler | None) -> LaunchResult:
    path = workdir / f"{name}.toml"
    path.write_text(_case_text(source, kernel, n), encoding="utf-8")
    no_cache = JitCache(CacheConfig(enabled=False))  # the compiler callable's mma is not in the key
    done = run_case(load_case(path), "emulator", compiler=compiler, cache=no_cache)
    report = done.check()
    if not report.ok:
        raise SystemExit(f"{name}: wrong result:\n{report.render()}")
    return done.launch


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=128, help="GEMM size (multiple of 64)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--paths", default="native,mfma,exact", help="comma-separated subset")
    args = parser.parse_args(argv)
    n: int = args.n
    if n % 64:
        parser.error("--n must be a multiple of 64")
    rng = np.random.default_rng(args.seed)
    a = rng.integers(-3, 4, (n, n)).astype(np.float16)
    b = rng.integers(-3, 4, (n, n)).astype(np.float16)
    expected = a.astype(np.float32) @ b.astype(np.float32)
    ptx = f'ptx = "{ASSETS / "gemm_wmma.ptx"}"'
    hsaco = f'hsaco = "{ASSETS / "gemm_mfma.hsaco"}"'
    runs: dict[str, tuple[str, str, Callable[[], Compiler | None]]] = {
        "native": (hsaco, "gemm_mfma", lambda: None),
        "mfma": (ptx, "gemm_wmma", lambda: _compiler("mfma")),
        "exact": (ptx, "gemm_wmma", lambda: _compiler("exact")),
    }
    results: dict[str, LaunchResult] = {}
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        np.save(workdir / "a.npy", a)
        np.save(workdir / "b.npy", b)
        np.save(workdir / "c.expected.npy", expected)
        for name in args.paths.split(","):
            source, kernel, compiler = runs[name]
            results[name] = _run(workdir, name, source, kernel, n, compiler())
    native = results.get("native")
    print(f"{n}x{n}x{n} f16 GEMM, f32 accumulate; outputs match numpy bit-exactly")
    print(f"{'path':<8} {'wave-instr':>11} {'MFMA':>7} {'MFMA busy cyc':>14} {'vs native':>10}")
    for name, launched in results.items():
        ratio = ""
        if native is not None and native.wave_instructions and launched.wave_instructions:
            ratio = f"{launched.wave_instructions / native.wave_instructions:.2f}x"
        print(f"{name:<8} {launched.wave_instructions or 0:>11} {launched.mfma_instructions or 0:>7} "
              f"{launched.mfma_busy_cycles or 0:>14} {ratio:>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
