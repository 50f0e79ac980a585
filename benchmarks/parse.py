"""Front-end speed: PTX lines per second, text → typed AST, on one core.

Usage: ``python benchmarks/parse.py [FILE] [--levers] [--profile] [--repeat N]``

Without FILE it takes the largest ``corpora/**/*.ptx``; when there is none it generates a large
unrolled kernel with nvcc (``/usr/local/cuda/bin/nvcc``). It prints the lines/s of the shipping
parser (``ptx2gcn.frontend.parse_ptx``), best of ``--repeat`` runs, in CPU time (``process_time``,
less disturbed by other processes on a shared machine) and wall time. ``--levers`` also measures
the design alternatives the parser was chosen from (see the table it prints); ``--profile`` prints
the top functions of one profiled parse. The main figure is also measured with Python's cyclic
garbage collector paused, as ``ptx2gcn.compiler`` runs the front end (``ptx2gcn.compile_gc``).
Target: >= 30,000 lines/s.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import importlib.resources
import io
import pstats
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from lark import Lark, Transformer

from ptx2gcn.compile_gc import paused_gc
from ptx2gcn.diagnostics import SourceFile
from ptx2gcn.frontend import parse_ptx
from ptx2gcn.frontend.builder import AstBuilder
from ptx2gcn.frontend.check import check_module
from ptx2gcn.frontend.parse import grammar_parser

REPO_ROOT = Path(__file__).resolve().parent.parent
NVCC = "/usr/local/cuda/bin/nvcc"
TARGET = 30_000


def largest_corpus_file() -> Path | None:
    files = [p for p in (REPO_ROOT / "corpora").glob("**/*.ptx")
             if not {"invalid", "regressions"} & set(p.relative_to(REPO_ROOT / "corpora").parts)]
    return max(files, key=lambda p: p.stat().st_size, default=None)


def generate_with_nvcc(statements: int = 6000) -> Path:
    """An unrolled kernel of ``statements`` fma/compare/select steps (~8 PTX lines each)."""
    lines = ["__global__ void big(float *o, const float *a, const float *b, int n) {",
             "  int i = blockIdx.x * blockDim.x + threadIdx.x; float acc = 0.f;"]
    for j in range(statements):
        lines.append(f"  acc = fmaf(a[i + {j}*n], b[(i*{j % 13 + 1}) & 1023], acc);"
                     f" if (acc > {j}.0f) acc *= 0.5f;")
    lines.append("  o[i] = acc; }")
    folder = Path(tempfile.mkdtemp(prefix="ptx2gcn-bench-"))
    (folder / "big.cu").write_text("\n".join(lines))
    subprocess.run([NVCC, "-ptx", "-arch=sm_90", "big.cu", "-o", "big.ptx"], cwd=folder, check=True)
    return folder / "big.ptx"


def best_of(run: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(best CPU seconds, best wall seconds) over ``repeat`` runs."""
    cpu, wall = float("inf"), float("inf")
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        run()
        cpu, wall = min(cpu, time.process_time() - c0), min(wall, time.perf_counter() - w0)
    return cpu, wall


class _TreeBuilder(AstBuilder, Transformer[object, object]):
    """The same callbacks run as a separate pass over a Lark tree (the "naive" design)."""


def _grammar(*dropped: str) -> str:
    """The shipped grammar without the rule alternatives of the ``dropped`` aliases (fast paths)."""
    text = importlib.resources.files("ptx2gcn.grammar").joinpath("ptx.lark").read_text()
    return "\n".join(line for line in text.splitlines()
                     if not any(line.rstrip().endswith(f"-> {alias}") for alias in dropped))


NO_FAST_PATH = ("simple_instruction", "simple_instructions")
NO_RUNS = ("simple_instructions",)


def lever_runs(text: str) -> list[tuple[str, Callable[[], object]]]:
    """Parsers differing in one design choice each, all producing the same AST."""
    source = SourceFile("bench.ptx", text)
    options = dict(parser="lalr", lexer="contextual", maybe_placeholders=False)

    def tree_then_transform(*dropped: str) -> Callable[[], object]:
        builder = _TreeBuilder()
        parser = Lark(_grammar(*dropped), **options)

        def run() -> object:
            builder.reset(source)
            return builder.transform(parser.parse(text))
        return run

    def inline(*dropped: str, **extra: object) -> Callable[[], object]:
        builder = AstBuilder()
        parser = Lark(_grammar(*dropped), transformer=builder, **options, **extra)

        def run() -> object:
            builder.reset(source)
            return parser.parse(text)
        return run

    runs = [
        ("tree, then Transformer pass (naive)", tree_then_transform(*NO_FAST_PATH)),
        ("tree + SIMPLE_OPERANDS token", tree_then_transform(*NO_RUNS)),
        ("inline transformer= callbacks", inline(*NO_FAST_PATH)),
        ("inline + SIMPLE_OPERANDS", inline(*NO_RUNS)),
        ("inline + SIMPLE_INSTRUCTIONS runs (shipped)", inline()),
        ("shipped + propagate_positions=True", inline(propagate_positions=True)),
    ]
    try:  # optional: measured only where lark-cython is installed (it is not a dependency)
        plugins = importlib.import_module("lark_cython").plugins
    except ImportError:
        return runs
    cython_parser = Lark(_grammar(), _plugins=plugins, **options)
    runs.append(("shipped grammar + lark-cython (tree only)", lambda: cython_parser.parse(text)))
    return runs


def main(argv: list[str] | None = None) -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("file", nargs="?", type=Path)
    args.add_argument("--levers", action="store_true", help="also measure the design alternatives")
    args.add_argument("--profile", action="store_true", help="print a profile of one parse")
    args.add_argument("--repeat", type=int, default=3)
    opts = args.parse_args(argv)
    path = opts.file or largest_corpus_file() or generate_with_nvcc()
    text = path.read_text()
    lines = text.count("\n") + 1
    load0 = time.perf_counter()
    grammar_parser()
    print(f"grammar load (Lark cache): {1000 * (time.perf_counter() - load0):.0f} ms")
    print(f"input: {path} ({lines} lines, {len(text) / 1e6:.1f} MB)")
    cpu, wall = best_of(lambda: parse_ptx(text, str(path)), opts.repeat)
    verdict = "meets" if lines / cpu >= TARGET else "below"
    print(f"parse_ptx: {lines / cpu:,.0f} lines/s CPU ({lines / wall:,.0f} wall), {verdict} target {TARGET:,}")
    with paused_gc():
        cpu, wall = best_of(lambda: parse_ptx(text, str(path)), opts.repeat)
        print(f"parse_ptx, GC paused as in compile(): {lines / cpu:,.0f} lines/s CPU ({lines / wall:,.0f} wall)")
        cpu, wall = best_of(lambda: check_module(parse_ptx(text, str(path))), opts.repeat)
    print(f"parse_ptx + check_module (compile()'s parse stage), GC paused: {cpu:.3f} s CPU, "
          f"{lines / cpu:,.0f} lines/s ({lines / wall:,.0f} wall)")
    if opts.levers:
        for name, run in lever_runs(text):
            cpu, wall = best_of(run, opts.repeat)
            print(f"  {name:45s} {lines / cpu:9,.0f} lines/s CPU ({lines / wall:,.0f} wall)")
    if opts.profile:
        profile = cProfile.Profile()
        profile.runcall(parse_ptx, text, str(path))
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(15)
        print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
