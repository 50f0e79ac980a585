"""numba-cuda's own test suite through ptx2gcn's ``libcuda.so.1`` (``ptx2gcn exec``) on a backend.

Each test module runs in its own process (unittest, verbose, under ``ptx2gcn exec``), so a sticky
kernel fault costs one module, not the rest of the suite; if the process dies, the test it died in is
recorded as ``crashed`` and the module's other tests run on in a new process. Every test's outcome is
read from unittest's verbose lines and compared with the pinned expected failures
(``numba_expected_failures.json``: test id or module prefix -> reason).

    python benchmarks/clients/numba_suite.py --python /tmp/venv/bin/python            # whole suite
    python benchmarks/clients/numba_suite.py --python ... cudapy.test_sync cudapy.test_atomics

``--python`` is an interpreter with numba-cuda installed (numba-cuda, cuda-bindings, cuda-core, an
NVRTC wheel such as ``nvidia-cuda-nvrtc``, and ``filecheck``; no NVIDIA driver or GPU). Exit status:
0 when every failure is pinned, 1 when a test failed that is not pinned (or a module crashed), 2 on
usage errors. Pinned failures that now pass are listed (remove them from the table).

Invariant: a test counts as passed only when unittest printed ``ok`` for it; skips are reported as
skips, never as passes; a test whose process died or timed out is ``crashed``, a failure.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXPECTED = HERE / "numba_expected_failures.json"
PACKAGES = ("cudapy", "cudadrv", "doc_examples", "nrt", "core", "nocuda")


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


BOOT = r"""
import sys, unittest
try:  # a few numba-cuda tests call pytest's skip helpers; unittest must see those as skips
    import pytest
    from _pytest.outcomes import Skipped

    def _skip(reason="", **_):
        raise unittest.SkipTest(reason)

    def _importorskip(*args, **kwargs):
        try:
            return _original(*args, **kwargs)
        except Skipped as error:
            raise unittest.SkipTest(str(error)) from None

    _original = pytest.importorskip
    pytest.skip, pytest.importorskip = _skip, _importorskip
except ImportError:
    pass

def ids(suite):
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from ids(test)
        else:
            yield test.id()

names = sys.argv[2:]
if sys.argv[1] == "list":
    print("\n".join(ids(unittest.defaultTestLoader.loadTestsFromNames(names))))
else:
    unittest.main(module=None, argv=["unittest", "-v", *names])
"""
"""Runs in the client's interpreter: ``list MODULE`` prints the module's test ids, ``run IDS...``
runs them verbosely (pytest's ``skip``/``importorskip`` raising ``unittest.SkipTest``)."""

_HEADER = re.compile(r"^(\w+) \(([\w.]+)\)", re.MULTILINE)
_OUTCOME = re.compile(r"(?:\.\.\. |\n)(ok|FAIL|ERROR|skipped|expected failure|unexpected success)\b")


def _exec_command(python: str, backend: str, *arguments: str) -> list[str]:
    return [sys.executable, "-m", "ptx2gcn", "exec", "--backend", backend, "--", python, "-c", BOOT, *arguments]


def parse(log: str) -> tuple[dict[str, str], str | None]:
    """(test id -> outcome, the id of a test that started but never reported, if any)."""
    outcomes: dict[str, str] = {}
    started: str | None = None
    headers = list(_HEADER.finditer(log))
    for index, header in enumerate(headers):
        end = headers[index + 1].start() if index + 1 < len(headers) else len(log)
        found = _OUTCOME.search(log, header.end(), end)
        test = header.group(2)
        if found:
            outcomes.setdefault(test, found.group(1))
        elif test not in outcomes:
            started = test
    return outcomes, started


def run_module(python: str, module: str, backend: str, timeout: float) -> ModuleRun:
    """Run every test of ``module``; when the process dies, the test it died in is recorded as
    ``crashed`` and the module's unreported tests run again in a new process. The client runs in an
    empty temporary folder: ``python -c`` puts the working directory first on ``sys.path``, and a
    checkout there (its ``ptx2gcn/``) would shadow the installed driver."""
    with tempfile.TemporaryDirectory(prefix="numba-suite-") as folder:
        return _run_module(python, module, backend, timeout, folder)


def _run_module(python: str, module: str, backend: str, timeout: float, folder: str) -> ModuleRun:
    start = time.monotonic()
    run = ModuleRun(module)
    name = f"numba.cuda.tests.{module}"
    remaining = [name]  # the whole module first; its test ids are listed only if a process dies
    while remaining:
        try:
            done = subprocess.run(_exec_command(python, backend, "run", *remaining), capture_output=True,
                                  text=True, timeout=timeout, cwd=folder)  # fmt: skip
            log, died = done.stderr + done.stdout, done.returncode not in (0, 1)
            why = f"exit status {done.returncode}"
        except subprocess.TimeoutExpired as error:
            log = error.stderr.decode(errors="replace") if isinstance(error.stderr, bytes) else (error.stderr or "")
            died, why = True, f"timed out after {timeout:.0f} s"
        run.log += log
        outcomes, started = parse(log)
        run.outcomes.update(outcomes)
        if not died:
            if not run.outcomes and "Failed to import test module" in log:
                run.crashed = "the module failed to import"
            break
        if remaining == [name]:
            listed = subprocess.run(_exec_command(python, backend, "list", name), capture_output=True, text=True,
                                    timeout=timeout, cwd=folder)  # fmt: skip
            remaining = [line for line in listed.stdout.split() if line.startswith(name + ".")]
        victim = started or next((t for t in remaining if t not in run.outcomes), None)
        if victim is None:
            break
        run.outcomes[victim] = "crashed"
        run.crashed = (run.crashed + "; " if run.crashed else "") + f"{victim.removeprefix(name + '.')}: {why}"
        remaining = [t for t in remaining if t not in run.outcomes]
    run.seconds = time.monotonic() - start
    return run


def pinned_reason(test: str, expected: dict[str, str]) -> str | None:
    """The reason ``test`` is expected to fail: its own entry or the longest pinned prefix."""
    best = None
    for key, reason in expected.items():
        if (test == key or test.startswith(key + ".")) and (best is None or len(key) > len(best[0])):
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
            failed = outcome in ("FAIL", "ERROR", "unexpected success", "crashed")
            reason = pinned_reason(short, expected)
            if failed and reason is None:
                summary.unexpected.append(f"{short}: {outcome}")
            elif not failed and outcome == "ok" and reason is not None and short in expected:
                summary.fixed.append(short)
        if run.crashed and not run.outcomes:
            summary.counts["module crashed"] += 1
            if pinned_reason(run.module, expected) is None:
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
        table = {r.module: {"crashed": r.crashed, "tests": r.outcomes} for r in runs}
        args.json.write_text(json.dumps(table, indent=1))
    print("\ntotals:", dict(summary.counts))
    for title, items in (("not pinned", summary.unexpected), ("crashed", summary.crashed),
                         ("pinned but passing now", summary.fixed)):  # fmt: skip
        if items:
            print(f"\n{title} ({len(items)}):")
            print("\n".join("  " + item for item in items))
    return 1 if summary.unexpected or summary.crashed else 0


if __name__ == "__main__":
    sys.exit(main())
