"""Compile speed: ``ptx2gcn compile`` vs ``ptxas -arch=sm_90`` on the same PTX, whole processes.

Usage: ``python benchmarks/compile.py [FILES...] [--corpus] [--large] [--limit N] [-O N]``

Default: the large file (``corpora/large/*.ptx``) plus every corpus file that both tools accept
(``--corpus`` / ``--large`` select one part; ``--limit`` caps the corpus files). For each file it
runs ``python -m ptx2gcn compile FILE -o tmp`` and ``ptxas -arch=sm_90 FILE -o tmp`` as separate
processes (wall time, best of ``--repeat``), prints the ptx2gcn/ptxas ratio per file and in total,
and, from an in-process ``ptx2gcn.compiler.compile`` of the same file, where ptx2gcn's CPU time
goes: parse, IR, passes, LLVM IR, LLVM opt, LLVM codegen, link, plus interpreter start-up and imports
(the whole process's CPU time minus the in-process stages). Wall and CPU ratios are both printed:
the machine may be shared, and CPU time is the steadier of the two. Target: ratio <= 1.0.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ptx2gcn.compiler import STAGES, compile
from ptx2gcn.diagnostics import Ptx2GcnError

REPO_ROOT = Path(__file__).resolve().parent.parent
PTXAS_CANDIDATES = ("ptxas", "/usr/local/cuda/bin/ptxas")


def _ptxas() -> str | None:
    for candidate in PTXAS_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(command: list[str], repeat: int) -> tuple[float, float] | None:
    """Best (wall, CPU) seconds of ``command`` over ``repeat`` runs; None when it fails. CPU time
    (user + system of the child) is the steadier measure on a shared machine."""
    best: tuple[float, float] | None = None
    for _ in range(repeat):
        cpu = _children_cpu()
        start = time.perf_counter()
        result = subprocess.run(command, capture_output=True)
        elapsed = (time.perf_counter() - start, _children_cpu() - cpu)
        if result.returncode != 0:
            return None
        best = elapsed if best is None or elapsed[0] < best[0] else best
    return best


def _files(args: argparse.Namespace) -> list[Path]:
    if args.files:
        return [Path(f) for f in args.files]
    chosen: list[Path] = []
    if not args.corpus_only:
        chosen += sorted((REPO_ROOT / "corpora" / "large").glob("*.ptx"))
    if not args.large_only:
        corpus = [p for p in sorted((REPO_ROOT / "corpora").rglob("*.ptx"))
                  if not {"invalid", "large", "zluda"} & set(p.parts)]
        chosen += corpus[:args.limit] if args.limit else corpus
    return chosen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--corpus", dest="corpus_only", action="store_true", help="corpus files only")
    parser.add_argument("--large", dest="large_only", action="store_true", help="the large file only")
    parser.add_argument("--limit", type=int, default=0, help="at most N corpus files")
    parser.add_argument("--repeat", type=int, default=1, help="runs per tool and file (best is kept)")
    parser.add_argument("-O", dest="opt", type=int, default=3)
    args = parser.parse_args()
    ptxas = _ptxas()
    if ptxas is None:
        print("ptxas not found: only ptx2gcn's stage times are printed")
    totals = {"ptx2gcn": 0.0, "ptxas": 0.0, "ptx2gcn cpu": 0.0, "ptxas cpu": 0.0}
    stages = dict.fromkeys(STAGES, 0.0)
    startup = 0.0
    skipped: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'file':52} {'ptx2gcn s':>10} {'ptxas s':>8} {'ratio':>6} {'cpu ratio':>9}")
        for path in _files(args):
            try:
                stage_times = compile(path, opt=args.opt).timings
            except Ptx2GcnError as error:
                skipped.append(f"{path}: {error.diagnostics[0].message}")
                continue
            ours = _timed([sys.executable, "-m", "ptx2gcn", "compile", str(path), "-O", str(args.opt),
                           "-o", f"{tmp}/out.hsaco"], args.repeat)
            ptxas_command = [ptxas or "", "-arch=sm_90", str(path), "-o", f"{tmp}/out.cubin"]
            theirs = _timed(ptxas_command, args.repeat) if ptxas else None
            if ours is None or (ptxas and theirs is None):
                skipped.append(f"{path}: {'ptx2gcn' if ours is None else 'ptxas'} failed")
                continue
            their_wall, their_cpu = theirs or (0.0, 0.0)
            totals["ptx2gcn"] += ours[0]
            totals["ptx2gcn cpu"] += ours[1]
            totals["ptxas"] += their_wall
            totals["ptxas cpu"] += their_cpu
            for stage, seconds in stage_times.items():
                stages[stage] += seconds
            startup += ours[1] - sum(stage_times.values())
            ratio = f"{ours[0] / their_wall:6.2f}" if their_wall else "     -"
            cpu_ratio = f"{ours[1] / their_cpu:9.2f}" if their_cpu else "        -"
            name = str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)
            print(f"{name[-52:]:52} {ours[0]:10.3f} {their_wall:8.3f} {ratio} {cpu_ratio}")
    print(f"\ntotal: ptx2gcn {totals['ptx2gcn']:.2f} s, ptxas {totals['ptxas']:.2f} s wall", end="")
    if totals["ptxas"] and totals["ptxas cpu"]:
        print(f"; ratio ptx2gcn/ptxas = {totals['ptx2gcn'] / totals['ptxas']:.2f} wall, "
              f"{totals['ptx2gcn cpu'] / totals['ptxas cpu']:.2f} CPU (target <= 1.0)")
    else:
        print()
    whole = sum(stages.values()) + startup
    print("where ptx2gcn's CPU time goes (in-process stages; start-up = process CPU minus stages):")
    for stage, seconds in [*stages.items(), ("start-up+imports", startup)]:
        print(f"  {stage:18} {seconds:8.2f} s  {100 * seconds / whole if whole else 0:5.1f} %")
    if skipped:
        print(f"skipped {len(skipped)} file(s):")
        for line in skipped:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
