"""What the IR verifier costs on the real path: once after the pass pipeline (every compile) and
after every pass (``--verify-each``, what the test suite runs), against a whole ``compile()``.

For each file (default: the 104k-line corpus file and the small ``corpora/nvcc/sm_80/atomics.ptx``)
it prints CPU seconds (``time.process_time``: the machine may be shared; best of ``--repeat``) of:
the post-pipeline ``verify`` alone (on the module the pipeline produced), ``compile()`` with the
verifier once after the pipeline, and the ``passes`` stage with and without ``verify_each``; then the
post-pipeline verification's share of the compile. Runs with Python's cyclic garbage collector
paused, as ``compile()`` does.
Usage: ``.venv/bin/python benchmarks/verify.py [FILE.ptx ...] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from ptx2gcn.compile_gc import paused_gc
from ptx2gcn.compiler import compile, to_ir
from ptx2gcn.ir.verify import verify
from ptx2gcn.passes import PASSES
from ptx2gcn.pipeline import PIPELINE

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILES = (next((ROOT / "corpora" / "large").glob("*.ptx")), ROOT / "corpora" / "nvcc" / "sm_80" / "atomics.ptx")


def _cpu(fn: Callable[[], object]) -> float:
    """CPU seconds of one call of ``fn``, with the cyclic collector paused as ``compile()`` runs."""
    with paused_gc():
        start = time.process_time()
        fn()
        return time.process_time() - start


def _passes_stage(text: str, name: str, verify_each: bool) -> float:
    """CPU seconds of the ``passes`` stage (the pipeline and its verification) of one ``to_ir``."""
    from ptx2gcn.compiler import _Clock  # pyright: ignore[reportPrivateUsage]

    clock = _Clock()
    to_ir(text, name, clock, verify_each=verify_each)
    return clock.timings["passes"]


def measure(path: Path, repeat: int) -> None:
    text = path.read_text()
    name = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
    module = to_ir(text, name, verify_each=False)
    phase = PASSES[PIPELINE[-1]].ensures
    verify_s = min(_cpu(lambda: verify(module, phase)) for _ in range(repeat))
    compile_s = min(_cpu(lambda: compile(text, name=name, verify_each=False)) for _ in range(repeat))
    once_s = min(_passes_stage(text, name, False) for _ in range(repeat))
    each_s = min(_passes_stage(text, name, True) for _ in range(repeat))
    print(f"{name}: {len(text.splitlines())} lines")
    print(f"  verify after the pipeline   {verify_s * 1000:10.2f} ms CPU")
    print(f"  compile() (verifying once)  {compile_s * 1000:10.2f} ms CPU")
    print(f"  passes stage, verify once   {once_s * 1000:10.2f} ms CPU")
    print(f"  passes stage, verify each   {each_s * 1000:10.2f} ms CPU")
    print(f"  the post-pipeline verification is {verify_s / compile_s:.1%} of the compile; "
          f"verifying after each of the {len(PIPELINE)} passes costs {(each_s - once_s) * 1000:.1f} ms more")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for path in args.files or DEFAULT_FILES:
        measure(path, args.repeat)


if __name__ == "__main__":
    main()
