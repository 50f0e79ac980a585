"""Compile speed: ``ptx2gcn compile`` vs ``ptxas -arch=sm_90`` on the same PTX, whole processes.

Usage: ``python benchmarks/compile.py [FILES...] [--corpus] [--large] [--limit N] [--stride K]
[--repeat N] [-O N] [--profile N] [--imports N]``

Default: the large file (``corpora/large/*.ptx``) plus every corpus file that both tools accept
(``--corpus`` / ``--large`` select one part; ``--limit`` caps the corpus files, ``--stride`` takes
every K-th). For each file it runs ``python -m ptx2gcn compile FILE -o tmp`` and
``ptxas -arch=sm_90 FILE -o tmp`` as separate processes and keeps the best wall time and, separately,
the best CPU time (user + system of the child) over ``--repeat`` runs. It prints the per-file
ptx2gcn/ptxas ratios, the large file's ratio and the corpus median ratio (wall and CPU: the machine
may be shared, and CPU time is the steadier of the two), and where ptx2gcn's CPU time goes, from the
``--time-report`` line of the child with the best CPU time (the same process, so no noise from a
second run): start-up (interpreter, imports, command line, up to the compile call), the stages
parse, IR, passes, LLVM IR, LLVM opt, LLVM codegen, link, "other" (the rest of the compile call and
the output write: reading the code object back, freeing objects as the stages return) and "exit"
(the process's CPU after its report: interpreter shutdown).

The child processes run with Python's bytecode cache in a temporary folder (``PYTHONPYCACHEPREFIX``;
one warm-up import of the compile path fills it), as an installed package has its ``.pyc`` files:
otherwise an environment with ``PYTHONDONTWRITEBYTECODE`` set would charge every run ~0.2 s of
byte-compilation.
``--profile N`` prints, per file, the N functions with the most own CPU time in a cProfile run of
an in-process compile (cProfile slows Python code far more than LLVM: compare shares, not seconds),
and ``--imports N`` the N slowest imports of one ``python -X importtime -m ptx2gcn compile`` process.
Target: ratio <= 1.0 on the large file and on the corpus median.

It also prints a lower bound on that ratio for any compiler built as ptx2gcn must be (a Python
process using lark and llvmlite's LLVM at the same -O level): per file, the CPU of a process that
only starts the interpreter, imports lark and llvmlite and makes the gfx942 target machine
(``FLOOR_START_UP``, measured once), plus the file's own LLVM opt and LLVM codegen stages from its
report, over ptxas's CPU. Everything ptx2gcn does in Python comes on top of that bound. (llvmlite
0.50's LLVM is built with assertions; its instruction selection on the large file is ~1.5x Debian's
release ``llc-22`` on the same IR, with a byte-identical object.)
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ptx2gcn.compiler import STAGES, compile

REPO_ROOT = Path(__file__).resolve().parent.parent
PTXAS_CANDIDATES = ("ptxas", "/usr/local/cuda/bin/ptxas")
TIME_REPORT = "ptx2gcn compile: CPU seconds: "
"""How the line that ``ptx2gcn compile --time-report`` writes to stderr begins."""
PARTS = ("start-up", *STAGES, "other", "exit")
FLOOR_START_UP = ("import lark, llvmlite.binding as llvm; llvm.initialize_all_targets(); "
                  "llvm.initialize_all_asmprinters(); "
                  "llvm.Target.from_triple('amdgcn-amd-amdhsa').create_target_machine(cpu='gfx942')")
"""The least a cold Python + lark + llvmlite compiler process can do before it reads any PTX."""


def _ptxas() -> str | None:
    for candidate in PTXAS_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Run:
    """The best of ``--repeat`` runs of one command."""

    wall: float
    cpu: float
    report: dict[str, float] = field(default_factory=lambda: {})
    """The ``--time-report`` figures of the run with the best CPU time (empty for ptxas)."""


def _time_report(stderr: str) -> dict[str, float]:
    """The figures of a ``ptx2gcn compile --time-report`` line (``name=seconds`` pairs)."""
    for line in stderr.splitlines():
        if line.startswith(TIME_REPORT):
            pairs = (item.split("=") for item in line.removeprefix(TIME_REPORT).split())
            return {name: float(value) for name, value in pairs}
    return {}


def _timed(command: list[str], repeat: int, env: dict[str, str] | None = None) -> Run | str:
    """The best wall time and the best CPU time of ``command`` over ``repeat`` runs, or the first
    line of its error output when it fails."""
    best: Run | None = None
    for _ in range(repeat):
        cpu = _children_cpu()
        start = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True, env=env)
        run = Run(time.perf_counter() - start, _children_cpu() - cpu, _time_report(result.stderr))
        if result.returncode != 0:
            return (result.stderr.strip().splitlines() or [f"exit status {result.returncode}"])[0]
        if best is None or run.cpu < best.cpu:
            best = Run(min(run.wall, best.wall) if best else run.wall, run.cpu, run.report)
        else:
            best.wall = min(best.wall, run.wall)
    assert best is not None
    return best


def _print_profile(path: Path, opt: int, top: int) -> None:
    profile = cProfile.Profile()
    profile.runcall(compile, path, opt=opt)
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(top)
    print(f"--- cProfile of {path} (own time; cProfile inflates Python code) ---")
    print("\n".join(line for line in out.getvalue().splitlines() if line.strip()))


def _print_imports(command: list[str], env: dict[str, str], top: int) -> None:
    """The ``top`` slowest imports (cumulative microseconds) of one ptx2gcn process."""
    result = subprocess.run([sys.executable, "-X", "importtime", *command[1:]], capture_output=True,
                            text=True, env=env)
    rows: list[tuple[int, str]] = []
    for line in result.stderr.splitlines():
        fields = line.removeprefix("import time:").split("|")
        if len(fields) == 3 and fields[1].strip().isdigit():
            rows.append((int(fields[1]), fields[2].rstrip()))
    print(f"--- {top} slowest imports (cumulative; nested ones indented) ---")
    for micros, name in sorted(rows, reverse=True)[:top]:
        print(f"  {micros / 1e6:7.3f} s {name}")


def _files(args: argparse.Namespace) -> list[Path]:
    if args.files:
        return [Path(f) for f in args.files]
    chosen: list[Path] = []
    if not args.corpus_only:
        chosen += sorted((REPO_ROOT / "corpora" / "large").glob("*.ptx"))
    if not args.large_only:
        corpus = [p for p in sorted((REPO_ROOT / "corpora").rglob("*.ptx"))
                  if not {"invalid", "large", "zluda"} & set(p.parts)][::args.stride]
        chosen += corpus[:args.limit] if args.limit else corpus
    return chosen


@dataclass
class Part:
    """Sums and per-file ratios for one group of files (the large file, or the corpus)."""

    name: str
    wall: list[float] = field(default_factory=lambda: [0.0, 0.0])
    """[ptx2gcn, ptxas] wall seconds."""
    cpu: list[float] = field(default_factory=lambda: [0.0, 0.0])
    wall_ratios: list[float] = field(default_factory=lambda: [])
    cpu_ratios: list[float] = field(default_factory=lambda: [])
    floor_ratios: list[float] = field(default_factory=lambda: [])
    """Per file: (start-up floor + the file's LLVM opt and codegen CPU) / ptxas CPU."""
    parts: dict[str, float] = field(default_factory=lambda: dict.fromkeys(PARTS, 0.0))
    """ptx2gcn CPU seconds by part of the process (``PARTS``)."""

    def add(self, ours: Run, theirs: Run, floor: float) -> None:
        """Count one file; ``floor`` is the CPU seconds of ``FLOOR_START_UP``."""
        self.wall[0] += ours.wall
        self.wall[1] += theirs.wall
        self.cpu[0] += ours.cpu
        self.cpu[1] += theirs.cpu
        if theirs.wall > 0 and theirs.cpu > 0:
            self.wall_ratios.append(ours.wall / theirs.wall)
            self.cpu_ratios.append(ours.cpu / theirs.cpu)
            llvm = ours.report.get("llvm-opt", 0.0) + ours.report.get("llvm-codegen", 0.0)
            self.floor_ratios.append((floor + llvm) / theirs.cpu)
        stages = {stage: ours.report.get(stage, 0.0) for stage in STAGES}
        started, total = ours.report.get("start-up", 0.0), ours.report.get("total", ours.cpu)
        for stage, seconds in stages.items():
            self.parts[stage] += seconds
        self.parts["start-up"] += started
        self.parts["other"] += max(total - started - sum(stages.values()), 0.0)
        self.parts["exit"] += max(ours.cpu - total, 0.0)

    def report(self) -> None:
        if not self.cpu[0]:
            return
        print(f"\n{self.name}: {len(self.cpu_ratios) or '-'} file(s); ptx2gcn {self.wall[0]:.2f} s wall "
              f"{self.cpu[0]:.2f} s CPU, ptxas {self.wall[1]:.2f} s wall {self.cpu[1]:.2f} s CPU")
        if self.cpu_ratios:
            print(f"  ratio ptx2gcn/ptxas: median {statistics.median(self.wall_ratios):.2f} wall, "
                  f"{statistics.median(self.cpu_ratios):.2f} CPU; of the sums "
                  f"{self.wall[0] / self.wall[1]:.2f} wall, {self.cpu[0] / self.cpu[1]:.2f} CPU (target <= 1.0)")
            print(f"  lower bound for a Python + lark + llvmlite compiler (start-up floor + LLVM's own stages): "
                  f"median CPU ratio {statistics.median(self.floor_ratios):.2f}")
        whole = sum(self.parts.values())
        python = sum(self.parts[s] for s in ("parse", "ir", "passes", "llvm-ir", "link"))
        llvm = self.parts["llvm-opt"] + self.parts["llvm-codegen"]
        print("  where ptx2gcn's CPU time goes (the best child's --time-report; exit = its CPU after the report):")
        for part, seconds in self.parts.items():
            print(f"    {part:18} {seconds:8.3f} s  {100 * seconds / whole if whole else 0:5.1f} %")
        print(f"  Python stages {python:.3f} s vs LLVM {llvm:.3f} s (target: Python <= LLVM)")


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--corpus", dest="corpus_only", action="store_true", help="corpus files only")
    parser.add_argument("--large", dest="large_only", action="store_true", help="the large file only")
    parser.add_argument("--limit", type=int, default=0, help="at most N corpus files")
    parser.add_argument("--stride", type=int, default=1, help="every K-th corpus file")
    parser.add_argument("--repeat", type=int, default=1, help="runs per tool and file (best is kept)")
    parser.add_argument("-O", dest="opt", type=int, default=3)
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="print each file's top N functions")
    parser.add_argument("--imports", type=int, default=0, metavar="N", help="print the N slowest imports")
    return parser.parse_args()


def _start_up_floor(env: dict[str, str]) -> float:
    """CPU seconds of ``FLOOR_START_UP`` (best of 5)."""
    floor = _timed([sys.executable, "-c", FLOOR_START_UP], 5, env)
    if isinstance(floor, str):
        raise SystemExit(f"the start-up floor command failed: {floor}")
    print(f"start-up floor (python + lark + llvmlite + gfx942 target machine): {1000 * floor.cpu:.1f} ms CPU")
    return floor.cpu


def main() -> int:
    args = _arguments()
    ptxas = _ptxas()
    if ptxas is None:
        print("ptxas not found: only ptx2gcn's stage times are printed")
    parts = {"large": Part("large file"), "corpus": Part("corpus")}
    skipped: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = f"{tmp}/pycache"
        ours_command = [sys.executable, "-m", "ptx2gcn", "compile", "-O", str(args.opt), "-o", f"{tmp}/out.hsaco",
                        "--time-report"]
        # Fills the .pyc cache with the compile path (`compile --help` no longer imports it).
        subprocess.run([sys.executable, "-c", "import ptx2gcn.cli, ptx2gcn.commands.compile, ptx2gcn.compiler"],
                       capture_output=True, env=env, check=True)
        floor = _start_up_floor(env)
        files = _files(args)
        if args.imports and files:
            _print_imports([*ours_command, str(files[0])], env, args.imports)
        print(f"{'file':52} {'ptx2gcn s':>10} {'ptxas s':>8} {'ratio':>6} {'cpu ratio':>9}")
        for path in files:
            ours = _timed([*ours_command, str(path)], args.repeat, env)
            if isinstance(ours, str):
                skipped.append(f"{path}: {ours}")
                continue
            if args.profile:
                _print_profile(path, args.opt, args.profile)
            theirs = (_timed([ptxas, "-arch=sm_90", str(path), "-o", f"{tmp}/out.cubin"], args.repeat)
                      if ptxas else Run(0.0, 0.0))
            if isinstance(theirs, str):
                skipped.append(f"{path}: ptxas failed: {theirs}")
                continue
            parts["large" if "large" in path.parts else "corpus"].add(ours, theirs, floor)
            ratio = f"{ours.wall / theirs.wall:6.2f}" if theirs.wall else "     -"
            cpu_ratio = f"{ours.cpu / theirs.cpu:9.2f}" if theirs.cpu else "        -"
            name = str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)
            print(f"{name[-52:]:52} {ours.wall:10.3f} {theirs.wall:8.3f} {ratio} {cpu_ratio}", flush=True)
    for part in parts.values():
        part.report()
    if skipped:
        print(f"\nskipped {len(skipped)} file(s):")
        for line in skipped:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
