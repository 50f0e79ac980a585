"""Throughput of IR construction and of the pass pipeline on the largest corpus PTX file.

Prints CPU time (``time.process_time``: the machine may be shared) and instructions/s for: parsing
(text → AST, for comparison), building (AST → verified-shape IR), verifying, printing + re-parsing
the IR text, and the default pipeline (which ends with a verification; benchmarks/verify.py
splits it off); then the ``ir`` stage of ``ptx2gcn.compiler`` (build +
verify). Target: building costs no more than parsing. Each step runs with Python's cyclic garbage collector paused, as
``ptx2gcn.compiler`` runs it (``ptx2gcn.compile_gc``).
Usage: ``.venv/bin/python benchmarks/ir.py [FILE.ptx] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from ptx2gcn.compile_gc import paused_gc
from ptx2gcn.frontend import ast, parse_ptx
from ptx2gcn.ir.parser import parse_module
from ptx2gcn.ir.printer import print_module
from ptx2gcn.ir.verify import verify
from ptx2gcn.options import CompileOptions
from ptx2gcn.pipeline import run_passes
from ptx2gcn.translate.builder import build_module

ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")


def _largest() -> Path:
    files = [p for p in (ROOT / "corpora").glob("**/*.ptx") if "invalid" not in p.parts]
    return max(files, key=lambda p: p.stat().st_size)


def _count(tree: ast.Module) -> int:
    def walk(block: ast.Block) -> int:
        total = 0
        for stmt in block.statements:
            if isinstance(stmt, ast.Instruction):
                total += 1
            elif isinstance(stmt, ast.Block):
                total += walk(stmt)
        return total

    return sum(walk(fn.body) for fn in tree.functions if fn.body is not None)


def _best(repeat: int, fn: Callable[[], T]) -> tuple[float, T]:
    best, result = float("inf"), None
    for _ in range(repeat):
        with paused_gc():
            start = time.process_time()
            result = fn()
            best = min(best, time.process_time() - start)
    return best, result  # type: ignore[return-value]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("file", nargs="?", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    path: Path = args.file or _largest()
    text = path.read_text()
    parse_s, tree = _best(args.repeat, lambda: parse_ptx(text, str(path)))
    count = _count(tree)
    build_s, module = _best(args.repeat, lambda: build_module(tree))
    verify_s, _ = _best(args.repeat, lambda: verify(module))
    ir_text = print_module(module)
    print_s, _ = _best(args.repeat, lambda: print_module(module))
    reparse_s, _ = _best(args.repeat, lambda: parse_module(ir_text, "bench.ir"))

    def pipeline() -> None:
        run_passes(build_module(tree), CompileOptions())

    pipe_s, _ = _best(args.repeat, pipeline)
    pipe_s = max(pipe_s - build_s, 1e-9)
    print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {count} instructions, "
          f"{len(text.splitlines())} lines, {sum(len(b.ops) for f in module.functions for b in f.blocks)} IR ops")
    for label, seconds in (("parse (PTX → AST)", parse_s), ("build (AST → IR)", build_s),
                           ("verify", verify_s), ("print IR", print_s), ("parse IR", reparse_s),
                           ("pipeline + final verify", pipe_s)):
        print(f"  {label:24s} {seconds * 1000:9.1f} ms CPU {count / seconds:12,.0f} instructions/s")
    print(f"  ir stage (build + verify) {(build_s + verify_s) * 1000:9.1f} ms CPU")
    print(f"  build / parse = {build_s / parse_s:.2f}")


if __name__ == "__main__":
    main()
