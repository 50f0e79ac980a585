"""numba-cuda's own test suite through ptx2gcn's ``libcuda.so.1`` (``ptx2gcn exec``) on a backend.

Each test module runs in its own process (``PYTHON -m unittest -v MODULE`` under ``ptx2gcn exec``),
so a sticky kernel fault or a crash costs one module, not the rest of the suite. Every test's
outcome is read from unittest's verbose lines and compared with the pinned expected failures
(``numba_expected_failures.json``: test id or module prefix -> reason).

    python benchmarks/clients/numba_suite.py --python /tmp/venv/bin/python            # whole suite
    python benchmarks/clients/numba_suite.py --python ... cudapy.test_sync cudapy.test_atomics

``--python`` is an interpreter with numba-cuda installed (numba-cuda, cuda-bindings, cuda-core, an
NVRTC wheel such as ``nvidia-cuda-nvrtc``, and ``filecheck``; no NVIDIA driver or GPU). Exit status:
0 when every failure is pinned, 1 when a test failed that is not pinned (or a module crashed), 2 on
usage errors. Pinned failures that now pass are listed (remove them from the table).

Invariant: a test counts as passed only when unittest printed ``ok`` for it; skips are reported as
skips, never as passes; a module whose process died or timed out reports its unreported tests as
failures of the module.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXPECTED = HERE / "numba_expected_failures.json"
PACKAGES = ("cudapy", "cudadrv", "doc_examples", "nrt", "core", "nocuda")
_RESULT = re.compile(
    r"^(?P<name>\w+) \((?P<id>[\w.]+)\)(?:\n[^\n]*?)? \.\.\. "
    r"(?P<outcome>ok|FAIL|ERROR|skipped|expected failure|unexpected success)",
    re.MULTILINE,
)


@dataclass
class ModuleRun:
    module: str
    outcomes: dict[str, str] = field(default_factory=dict[str, str])
    """Test id -> ok / FAIL / ERROR / skipped / expected failure / unexpected success."""
    crashed: str = ""
    """Why the module's process did not finish normally ('' when it did)."""
    seconds: float = 0.0
    log: str = ""


def discover(python: str) -> list[str]:
    """The test modules of the numba-cuda installed for ``python`` (``cudapy.test_x`` etc.)."""
    code = "import numba.cuda.tests as t, os; print(os.path.dirname(t.__file__))"
    root = Path(subprocess.run([python, "-c", code], check=True, capture_output=True, text=True).stdout.strip())
    return sorted(
        f"{package}.{path.stem}"
        for package in PACKAGES
        for path in (root / package).glob("test_*.py")
    )


def run_module(python: str, module: str, backend: str, timeout: float) -> ModuleRun:
    command = [
        sys.executable, "-m", "ptx2gcn", "exec", "--backend", backend, "--",
        python, "-m", "unittest", "-v", f"numba.cuda.tests.{module}",
    ]  # fmt: skip
    start = time.monotonic()
    run = ModuleRun(module)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=os.environ.copy())
        run.log = done.stderr + done.stdout
        if done.returncode not in (0, 1):
            run.crashed = f"exit status {done.returncode}"
    except subprocess.TimeoutExpired as error:
        run.log = (error.stderr or b"").decode(errors="replace") if isinstance(error.stderr, bytes) else ""
        run.crashed = f"timed out after {timeout:.0f} s"
    run.seconds = time.monotonic() - start
    for found in _RESULT.finditer(run.log):
        run.outcomes[found.group("id")] = found.group("outcome")
    if "Failed to import test module" in run.log and not run.outcomes:
        run.crashed = run.crashed or "the module failed to import"
    return run


def pinned_reason(test: str, expected: dict[str, str]) -> str | None:
    """The reason ``test`` is expected to fail: its own entry or the longest pinned prefix."""
    best = None
    for key, reason in expected.items():
        if test == key or test.startswith(key + "."):
            if best is None or len(key) > len(best[0]):
                best = (key, reason)
    return best[1] if best else None


@dataclass
class Summary:
    counts: Counter[str] = field(default_factory=Counter[str])
    unexpected: list[str] = field(default_factory=list[str])
    fixed: list[str] = field(default_factory=list[str])
    crashed: list[str] = field(default_factory=list[str])


def summarise(runs: list[ModuleRun], expected: dict[str, str]) -> Summary:
    summary = Summary()
    for run in runs:
        prefix = "numba.cuda.tests."
        for test, outcome in run.outcomes.items():
            short = test.removeprefix(prefix)
            summary.counts[outcome] += 1
            failed = outcome in ("FAIL", "ERROR", "unexpected success")
            reason = pinned_reason(short, expected)
            if failed and reason is None:
                summary.unexpected.append(f"{short}: {outcome}")
            elif not failed and outcome == "ok" and reason is not None and short in expected:
                summary.fixed.append(short)
        if run.crashed:
            reason = pinned_reason(run.module, expected)
            summary.counts["module crashed"] += 1
            if reason is None:
                summary.crashed.append(f"{run.module}: {run.crashed}")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--python", required=True, help="an interpreter with numba-cuda installed")
    parser.add_argument("--backend", default="emulator", choices=("emulator", "hip"))
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per module")
    parser.add_argument("--json", type=Path, help="write every test's outcome here")
    parser.add_argument("--logs", type=Path, help="folder for each module's output")
    parser.add_argument("modules", nargs="*", help="modules such as cudapy.test_sync (default: all)")
    args = parser.parse_args(argv)
    expected: dict[str, str] = json.loads(EXPECTED.read_text())
    modules = args.modules or discover(args.python)
    runs: list[ModuleRun] = []
    for module in modules:
        run = run_module(args.python, module, args.backend, args.timeout)
        runs.append(run)
        tally = Counter(run.outcomes.values())
        status = f" CRASHED ({run.crashed})" if run.crashed else ""
        print(f"{module}: {dict(tally)} {run.seconds:.0f}s{status}", flush=True)
        if args.logs:
            args.logs.mkdir(parents=True, exist_ok=True)
            (args.logs / f"{module}.log").write_text(run.log)
    summary = summarise(runs, expected)
    if args.json:
        args.json.write_text(json.dumps({r.module: {"crashed": r.crashed, "tests": r.outcomes} for r in runs}, indent=1))
    print("\ntotals:", dict(summary.counts))
    for title, items in (("not pinned", summary.unexpected), ("crashed", summary.crashed),
                         ("pinned but passing now", summary.fixed)):  # fmt: skip
        if items:
            print(f"\n{title} ({len(items)}):")
            print("\n".join("  " + item for item in items))
    return 1 if summary.unexpected or summary.crashed else 0


if __name__ == "__main__":
    sys.exit(main())
