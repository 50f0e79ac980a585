"""Generated PTX kernels whose size stresses every walk of the compiler, and their compile costs.

Kernels (``KINDS``; ``size`` scales each):
- ``chain``: ``size`` blocks in a chain, each jumping to the next (``bra.uni``), with a register
  written before the chain and read after it;
- ``nest``: loops and branches nested ``size`` deep (loop, if, loop, if...), in LLVM's rotated
  loop layout every other level (body above the test, entered by ``bra.uni`` to the test);
- ``switch``: one ``brx.idx`` over a ``.branchtargets`` list of ``size`` labels;
- ``block``: one basic block of ``size`` instructions (dependent integer adds on a few registers,
  with a chain of generic addresses feeding loads and stores).

Usage: ``python benchmarks/stress_kernels.py [KIND=SIZE ...] [--stage llvm|compile]
[--timeout S] [--write DIR]``; default: the sizes of the issue (chain=100000, nest=10000,
switch=100000, block=1000000) through the whole compile. Each compile runs in its own process
(``python -m ptx2gcn compile``, with ``--emit llvm`` for ``--stage llvm``) and the script
prints its wall time, CPU time, peak resident memory (``ru_maxrss`` of the child) and the
first line of its error, if any: an error must be a located diagnostic, never an internal one.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HEADER = (".version 8.0\n.target sm_80\n.address_size 64\n"
          ".visible .entry stress(.param .u64 stress_p, .param .u32 stress_n)\n{\n"
          ".reg .u32 %r<8>; .reg .pred %p<4>; .reg .u64 %rd<8>;\n"
          "ld.param.u64 %rd1, [stress_p];\nld.param.u32 %r1, [stress_n];\n"
          "mov.u32 %r2, 7;\nmov.u32 %r3, 0;\n")
FOOTER = "st.global.u32 [%rd1], %r2;\nst.global.u32 [%rd1+4], %r3;\nret;\n}\n"


def chain(size: int) -> str:
    lines = [HEADER]
    for i in range(size):
        lines.append(f"$C{i}:\nadd.u32 %r3, %r3, {i & 7};\nbra.uni $C{i + 1};\n")
    lines.append(f"$C{size}:\n{FOOTER}")
    return "".join(lines)


def nest(size: int) -> str:
    """Level d is a loop when d is even (counted on %r4, rotated layout on odd loop levels) and a
    forward branch over the inner levels when d is odd."""
    head: list[str] = [HEADER]
    tail: list[str] = []
    for d in range(size):
        if d % 2:
            head.append(f"setp.eq.u32 %p1, %r1, {d};\n@%p1 bra $E{d};\nadd.u32 %r3, %r3, 1;\n")
            tail.append(f"$E{d}:\n")
        elif d % 4 == 0:
            head.append(f"mov.u32 %r4, 0;\n$H{d}:\nadd.u32 %r4, %r4, 1;\n")
            tail.append(f"setp.lt.u32 %p2, %r4, %r1;\n@%p2 bra.uni $H{d};\n")
        else:
            head.append(f"mov.u32 %r4, 0;\nbra.uni $T{d};\n$B{d}:\nadd.u32 %r4, %r4, 1;\n")
            tail.append(f"$T{d}:\nld.volatile.global.u32 %r5, [%rd1+8];\n"
                        f"setp.ne.u32 %p3, %r5, {d};\n@%p3 bra.uni $B{d};\n")
    return "".join(head) + "".join(reversed(tail)) + FOOTER


def switch(size: int) -> str:
    targets = ", ".join(f"$S{i}" for i in range(size))
    lines = [HEADER, f"$TS: .branchtargets {targets};\nbrx.idx %r1, $TS;\n"]
    for i in range(size):
        lines.append(f"$S{i}:\nadd.u32 %r3, %r3, {i};\nbra.uni $J;\n")
    lines.append(f"$J:\n{FOOTER}")
    return "".join(lines)


def block(size: int) -> str:
    lines = [HEADER, "cvta.global.u64 %rd2, %rd1;\n"]
    count = 2
    while count < size - 8:
        lines.append("add.u32 %r3, %r3, %r2;\nxor.b32 %r2, %r2, %r3;\n"
                     "add.s64 %rd2, %rd2, 4;\nld.u32 %r5, [%rd2];\n"
                     "add.u32 %r3, %r3, %r5;\nst.u32 [%rd2+4], %r3;\n")
        count += 6
    lines.append(FOOTER)
    return "".join(lines)


KINDS: dict[str, Callable[[int], str]] = {"chain": chain, "nest": nest, "switch": switch, "block": block}
SIZES = {"chain": 100_000, "nest": 10_000, "switch": 100_000, "block": 1_000_000}

def measure(path: Path, stage: str, timeout: float) -> tuple[float, float, int, int, str]:
    """(wall s, CPU s, peak RSS MiB, exit status, first error line) of compiling ``path`` in a
    child process (its own resource usage, from ``os.wait4``)."""
    out = path.with_suffix(".hsaco" if stage == "compile" else ".ll")
    command = [sys.executable, "-m", "ptx2gcn", "compile", str(path), "-o", str(out)]
    if stage == "llvm":
        command += ["--emit", "llvm"]
    with tempfile.TemporaryFile("w+") as stderr:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr)
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - start > timeout:
                child.kill()
            time.sleep(0.05)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        stderr.seek(0)
        lines = stderr.read().strip().splitlines()
    error = lines[0] if lines else ""
    if wall > timeout:
        error = f"killed after {timeout:.0f} s"
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024, child.returncode, error


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kinds", nargs="*", help="KIND=SIZE (default: the issue's four sizes)")
    parser.add_argument("--stage", choices=("llvm", "compile"), default="compile",
                        help="stop after LLVM IR (llvm) or make the code object (compile)")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--write", type=Path, help="also keep the generated files in this folder")
    args = parser.parse_args()
    wanted = [k.split("=") for k in args.kinds] or [[k, str(v)] for k, v in SIZES.items()]
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.write or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for kind, size in wanted:
            path = folder / f"stress_{kind}_{size}.ptx"
            path.write_text(KINDS[kind](int(size)))
            lines = path.read_text().count("\n")
            wall, cpu, rss, status, error = measure(path, args.stage, args.timeout)
            verdict = "ok" if status == 0 else f"exit {status}: {error}"
            print(f"{kind:7} {int(size):>9,}  {lines:>9,} lines  {wall:8.1f} s wall  {cpu:8.1f} s CPU  "
                  f"{rss:6,} MiB peak  {verdict}", flush=True)


if __name__ == "__main__":
    main()
