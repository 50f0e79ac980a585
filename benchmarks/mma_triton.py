"""PTX-layout ``mma`` (Triton) on the MFMA path, on the emulator (issue #14, docs/tensor-cores.md).

Usage: ``.venv/bin/python benchmarks/mma_triton.py [--mma auto] [--no-compile-time]``

Runs the Triton fp16 matmul launch case (``corpora/cases/triton/matmul_fp16_leaky_relu``) on the
emulator with a trace, checks its output against the case's expected memory, and prints the dynamic
wave-instructions, MFMAs and ``ds_bpermute_b32`` executed (wave-instructions, from the trace), then
the CPU seconds ``ptx2gcn compile()`` takes for Triton attention (``attention_fwd_kernel``, -O3).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ptx2gcn.compiler import compile as compile_ptx
from ptx2gcn.options import CompileOptions
from ptx2gcn.runtime.cache.jit_cache import CacheConfig, JitCache
from ptx2gcn.runtime.cases.case import load_case
from ptx2gcn.runtime.cases.run import run_case
from ptx2gcn.runtime.driver.state import Compiler

ROOT = Path(__file__).resolve().parent.parent
MATMUL = ROOT / "corpora" / "cases" / "triton" / "matmul_fp16_leaky_relu" / "case.toml"
ATTENTION = ROOT / "corpora" / "triton" / "sm_80" / "attention_fwd_kernel.ptx"


def _compiler(mma: str) -> Compiler:
    def build(ptx: str, name: str, options: CompileOptions) -> bytes:
        return compile_ptx(ptx, options, name=name, mma=mma).data

    return build


def matmul_counts(mma: str) -> dict[str, int]:
    """Dynamic counts of one launch of the matmul case (its output checked)."""
    counts = {"ds_bpermute_b32": 0, "v_mfma": 0}

    def sink(line: str) -> None:
        if line.startswith("wg("):
            text = line.split(": ", 1)[1]
            for key in counts:
                if text.startswith(key):
                    counts[key] += 1

    done = run_case(load_case(MATMUL), "emulator", trace=sink, compiler=_compiler(mma),
                    cache=JitCache(CacheConfig(enabled=False)))
    report = done.check()
    if not report.ok:
        raise SystemExit(f"matmul: wrong result:\n{report.render()}")
    return {"wave-instructions": done.launch.wave_instructions or 0, **counts}


def attention_seconds(mma: str) -> tuple[float, float]:
    """(wall, CPU of this process) seconds of ``compile()`` of Triton attention at -O3."""
    source = ATTENTION.read_text(encoding="utf-8")
    wall, cpu = time.perf_counter(), time.process_time()
    compile_ptx(source, CompileOptions(), name=ATTENTION.name, mma=mma)
    return time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mma", default="auto", choices=("auto", "exact", "mfma"))
    parser.add_argument("--no-compile-time", action="store_true", help="skip the attention compile")
    args = parser.parse_args(argv)
    counts = matmul_counts(args.mma)
    print(f"Triton matmul fp16 (M=100 N=60 K=40, 256 threads), --mma {args.mma}; output matches")
    for key, value in counts.items():
        print(f"  {key:<18} {value:>9}")
    if not args.no_compile_time:
        wall, cpu = attention_seconds(args.mma)
        print(f"Triton attention compile(): {wall:.1f} s wall, {cpu:.1f} s CPU of this process")
    return 0


if __name__ == "__main__":
    sys.exit(main())
