"""PTX-layout ``mma`` (Triton) on the MFMA path, on the emulator (issue #14, docs/tensor-cores.md).

Usage: ``.venv/bin/python benchmarks/mma_triton.py [--cases matmul_fp16_leaky_relu,...] [--mma auto]
[--no-compile-time]``

Runs Triton launch cases (``corpora/cases/triton/<case>``) on the emulator with a trace, checks each
output against the case's expected memory, and prints the dynamic wave-instructions, MFMAs and
``ds_bpermute_b32`` executed (wave-instructions) three times: without the passes ``mma-mfma-layout``
and ``ldmatrix-mfma-layout`` (every mma moves C in, D out and its A/B operands with lane permutes, as
before them), with the first (accumulators stay in the stacked MFMA layout), and with both (the
default pipeline: ldmatrix also loads the MFMA operands). Then the seconds ``ptx2gcn compile()``
takes for Triton attention (-O3) without the two passes and with them.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ptx2gcn.compiler import compile as compile_ptx
from ptx2gcn.options import CompileOptions
from ptx2gcn.pipeline import PIPELINE
from ptx2gcn.runtime.cache.jit_cache import CacheConfig, JitCache
from ptx2gcn.runtime.cases.case import load_case
from ptx2gcn.runtime.cases.run import run_case
from ptx2gcn.runtime.driver.state import Compiler

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "corpora" / "cases" / "triton"
ATTENTION = ROOT / "corpora" / "triton" / "sm_80" / "attention_fwd_kernel.ptx"
COUNTED = ("ds_bpermute_b32", "v_mfma")
NEW = ("mma-mfma-layout", "ldmatrix-mfma-layout")
CONFIGS: dict[str, tuple[str, ...] | None] = {
    "before": tuple(name for name in PIPELINE if name not in NEW),
    "+ mma-mfma-layout": tuple(name for name in PIPELINE if name != NEW[1]),
    "+ ldmatrix (default)": None,
}


def _compiler(mma: str, passes: tuple[str, ...] | None) -> Compiler:
    def build(ptx: str, name: str, options: CompileOptions) -> bytes:
        return compile_ptx(ptx, options, name=name, mma=mma, passes=passes).data

    return build


def case_counts(case: str, mma: str, passes: tuple[str, ...] | None = None) -> dict[str, int]:
    """Dynamic counts of one launch of ``case`` (its output checked)."""
    counts = dict.fromkeys(COUNTED, 0)

    def sink(line: str) -> None:
        if line.startswith("wg("):
            text = line.split(": ", 1)[1]
            for key in COUNTED:
                if text.startswith(key):
                    counts[key] += 1

    done = run_case(load_case(CASES / case / "case.toml"), "emulator", trace=sink, compiler=_compiler(mma, passes),
                    cache=JitCache(CacheConfig(enabled=False)))
    report = done.check()
    if not report.ok:
        raise SystemExit(f"{case}: wrong result:\n{report.render()}")
    return {"wave-instructions": done.launch.wave_instructions or 0, **counts}


def attention_seconds(mma: str, passes: tuple[str, ...] | None) -> tuple[float, float]:
    """(wall, CPU of this process) seconds of ``compile()`` of Triton attention at -O3."""
    source = ATTENTION.read_text(encoding="utf-8")
    wall, cpu = time.perf_counter(), time.process_time()
    compile_ptx(source, CompileOptions(), name=ATTENTION.name, mma=mma, passes=passes)
    return time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="matmul_fp16_leaky_relu,matmul_bf16,matmul_tf32,attention_fwd_kernel")
    parser.add_argument("--mma", default="auto", choices=("auto", "exact", "mfma"))
    parser.add_argument("--no-compile-time", action="store_true", help="skip the attention compile")
    args = parser.parse_args(argv)
    print(f"Triton launch cases on the emulator, --mma {args.mma}; every output matches its expected memory")
    print(f"{'case':<24} {'pipeline':<24} {'wave-instr':>11} {'ds_bpermute':>12} {'MFMA':>7}")
    for case in args.cases.split(","):
        for label, passes in CONFIGS.items():
            counts = case_counts(case, args.mma, passes)
            print(f"{case:<24} {label:<24} {counts['wave-instructions']:>11} {counts['ds_bpermute_b32']:>12} "
                  f"{counts['v_mfma']:>7}")
    if not args.no_compile_time:
        for label in ("before", "+ ldmatrix (default)", "before", "+ ldmatrix (default)"):
            wall, cpu = attention_seconds(args.mma, CONFIGS[label])
            print(f"Triton attention compile(), {label}: {wall:.1f} s wall, {cpu:.1f} s CPU of this process")
    return 0


if __name__ == "__main__":
    sys.exit(main())
