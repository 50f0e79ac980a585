"""cuda.core's and cuda-python's (cuda.bindings') own examples, unmodified, through ptx2gcn's libcuda.

Each example runs in its own process, as its authors run it (``python example.py``), under
``ptx2gcn exec`` on a backend, in an empty temporary folder. The examples come from a checkout of
https://github.com/NVIDIA/cuda-python (``--checkout``: ``cuda_core/examples/*.py`` and
``cuda_bindings/examples/**/*.py``); they are not part of ptx2gcn. Pick the checkout that matches the
installed packages (docs/libcuda.md, "cuda-python's examples"). Outcomes are compared with the pinned
expected failures (``cuda_python_expected_failures.json``: example -> reason).

    python benchmarks/clients/cuda_python_examples.py --checkout ~/cuda-python --python /tmp/venv/bin/python
    python benchmarks/clients/cuda_python_examples.py --checkout ... cuda_core/vector_add.py

Examples are named ``cuda_core/NAME.py`` and ``cuda_bindings/FOLDER/NAME.py`` (their path under the
package's ``examples`` folder). The cuda.bindings examples import ``cuda.bindings._example_helpers``,
which lives in the checkout and is not in the wheels: when the client cannot import it, the checkout's
copy is made importable (``cuda.bindings.__path__`` gains the checkout's ``cuda/bindings``) before the
example runs; the example itself is run with ``runpy`` as ``__main__`` with its own folder first on
``sys.path``, as ``python example.py`` would. ``CUDA_BINDINGS_SKIP_EXAMPLE=100`` is set, as upstream's
test does, so an example whose system requirement is unmet exits 100: recorded as ``skipped`` with
the reason it printed. An example that needs a Python package the client lacks is ``skipped`` too
(``needs <package>``).

Exit status: 0 when every example that failed (or timed out) is pinned, 1 otherwise, 2 on usage
errors. Skips are listed with their reasons and fail nothing; pinned examples that now pass are listed
(remove them from the table).

Invariant: an example counts as passed only when its process exited 0; skips are never passes; a
timeout or a crash is a failure.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXPECTED = HERE / "cuda_python_expected_failures.json"
SKIP_STATUS = 100

BOOT = r"""
import os, runpy, sys
helpers, example = sys.argv[1], sys.argv[2]
try:
    import cuda.bindings._example_helpers  # noqa: F401
except ImportError:
    import cuda.bindings
    cuda.bindings.__path__.append(helpers)
sys.argv = sys.argv[2:]
sys.path[0] = os.path.dirname(os.path.abspath(example))
runpy.run_path(example, run_name="__main__")
"""
"""Runs in the client's interpreter: ``BOOT HELPERS_FOLDER EXAMPLE ARGS...``."""

EARLY_EXITS = ("requires compute capability",)
"""Text an example prints when it exits 0 without running anything (tma_tensor_map.py on a device
below 9.0): such a run is ``skipped``, not ``ok``."""

_MISSING = re.compile(
    r"ModuleNotFoundError: No module named '([\w.]+)'|(\w+) is not installed, this example requires|pip install (\w+)"
)


@dataclass
class ExampleRun:
    name: str
    outcome: str
    """ok / FAIL / skipped / timeout."""
    detail: str
    """The last line of the example's error output (why it failed or was skipped)."""
    seconds: float
    log: str


def discover(checkout: Path) -> dict[str, Path]:
    """Example name -> file, for every example in the checkout (tests and helper modules excluded)."""
    found: dict[str, Path] = {}
    for package, pattern in (("cuda_core", "*.py"), ("cuda_bindings", "**/*.py")):
        root = checkout / package / "examples"
        for path in sorted(root.glob(pattern)):
            relative = path.relative_to(root)
            if path.name.endswith("_test.py") or relative.parts[0] in ("common", "tests"):
                continue
            found[f"{package}/{relative.as_posix()}"] = path
    return found


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def classify(status: int | None, log: str) -> tuple[str, str]:
    """(outcome, detail) from the exit status (None: timed out) and the output."""
    if status is None:
        return "timeout", _last_line(log)
    if status == 0:
        early = next((line for line in log.splitlines() if any(text in line for text in EARLY_EXITS)), None)
        return ("skipped", early.strip()) if early else ("ok", "")
    missing = _MISSING.search(log)
    if missing:
        package = next(group for group in missing.groups() if group)
        return "skipped", f"needs {package.split('.')[0]}"
    if status == SKIP_STATUS:
        return "skipped", _last_line(log)
    return "FAIL", f"exit status {status}: {_last_line(log)}"


def run_example(python: str, checkout: Path, example: Path, backend: str, timeout: float) -> ExampleRun:
    helpers = checkout / "cuda_bindings" / "cuda" / "bindings"
    command = [sys.executable, "-m", "ptx2gcn", "exec", "--backend", backend, "--",
               python, "-c", BOOT, str(helpers), str(example)]  # fmt: skip
    environment = {**os.environ, "CUDA_BINDINGS_SKIP_EXAMPLE": str(SKIP_STATUS)}
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="cuda-python-example-") as folder:
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=folder,
                                  env=environment)  # fmt: skip
            status: int | None = done.returncode
            log = done.stdout + done.stderr
        except subprocess.TimeoutExpired as error:
            status = None
            log = "".join(x.decode(errors="replace") if isinstance(x, bytes) else (x or "")
                          for x in (error.stdout, error.stderr))  # fmt: skip
    outcome, detail = classify(status, log)
    return ExampleRun(example.name, outcome, detail, time.monotonic() - start, log)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--checkout", type=Path, required=True, help="a checkout of NVIDIA/cuda-python")
    parser.add_argument("--python", required=True, help="an interpreter with cuda-core, cuda-bindings, an NVRTC wheel")
    parser.add_argument("--backend", default="emulator", choices=("emulator", "hip"))
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per example")
    parser.add_argument("--json", type=Path, help="write every example's outcome here")
    parser.add_argument("--logs", type=Path, help="folder for each example's output")
    parser.add_argument("examples", nargs="*", help="examples such as cuda_core/vector_add.py (default: all)")
    args = parser.parse_args(argv)
    expected: dict[str, str] = json.loads(EXPECTED.read_text())
    available = discover(args.checkout)
    if not available:
        parser.error(f"no examples under {args.checkout} (cuda_core/examples, cuda_bindings/examples)")
    unknown = [name for name in args.examples if name not in available]
    if unknown:
        parser.error(f"unknown examples: {', '.join(unknown)}")
    chosen = args.examples or list(available)
    results: dict[str, ExampleRun] = {}
    for name in chosen:
        run = run_example(args.python, args.checkout, available[name], args.backend, args.timeout)
        results[name] = run
        print(f"{name}: {run.outcome} {run.seconds:.0f}s {run.detail}".rstrip(), flush=True)
        if args.logs:
            target = args.logs / (name.replace("/", "__") + ".log")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(run.log)
    if args.json:
        table = {name: {"outcome": r.outcome, "detail": r.detail, "seconds": round(r.seconds, 1)}
                 for name, r in results.items()}  # fmt: skip
        args.json.write_text(json.dumps(table, indent=1))
    counts: dict[str, int] = {}
    for run in results.values():
        counts[run.outcome] = counts.get(run.outcome, 0) + 1
    failed = [n for n, r in results.items() if r.outcome in ("FAIL", "timeout")]
    unpinned = [f"{n}: {results[n].outcome} ({results[n].detail})" for n in failed if n not in expected]
    fixed = [n for n, r in results.items() if r.outcome == "ok" and n in expected]
    skipped = [f"{n}: {r.detail}" for n, r in results.items() if r.outcome == "skipped"]
    print(f"\ntotals: {counts} of {len(results)} examples")
    for title, items in (("skipped", skipped), ("not pinned", unpinned), ("pinned but passing now", fixed)):
        if items:
            print(f"\n{title} ({len(items)}):")
            print("\n".join("  " + item for item in items))
    return 1 if unpinned else 0


if __name__ == "__main__":
    sys.exit(main())
