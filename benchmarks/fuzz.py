"""Throughput of ``ptx2gcn fuzz`` on the emulator: programs per minute, by wall clock and per core
(process CPU time, which excludes waiting for a core on the shared machine), and where the time
goes (generation, reference model, compile, emulator).

Usage: ``.venv/bin/python benchmarks/fuzz.py [--count N] [--seed S]``

Target (issue): >= 60 programs/minute per core on the emulator.
"""

from __future__ import annotations

import argparse
import time

from ptx2gcn.compiler import compile as compile_ptx
from ptx2gcn.fuzz.device import launch_buffers
from ptx2gcn.fuzz.eval import expected_buffer
from ptx2gcn.fuzz.gen import generate
from ptx2gcn.fuzz.program import BLOCK, GRID
from ptx2gcn.fuzz.runner import FuzzConfig
from ptx2gcn.fuzz.text import ptx_text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args()
    options = FuzzConfig().gen_options()  # the pool minus known bugs and forms the compiler rejects
    stages = {"generate": 0.0, "model": 0.0, "compile": 0.0, "emulate": 0.0}
    wall, cpu = time.perf_counter(), time.process_time()
    for i in range(args.count):
        t = time.process_time()
        program = generate(args.seed * 1_000_003 + i, options)
        text = ptx_text(program)
        stages["generate"] += time.process_time() - t
        t = time.process_time()
        expected, _ = expected_buffer(program)
        stages["model"] += time.process_time() - t
        t = time.process_time()
        code = compile_ptx(text).data
        stages["compile"] += time.process_time() - t
        t = time.process_time()
        launch_buffers(code, "fuzz", [program.inputs, bytes(len(expected))], [], GRID, BLOCK)
        stages["emulate"] += time.process_time() - t
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(
        f"{args.count} programs: {60 * args.count / wall:.0f} programs/minute wall, "
        f"{60 * args.count / cpu:.0f} programs/minute per core (CPU time)"
    )
    for name, seconds in stages.items():
        print(f"  {name:9s} {1000 * seconds / args.count:7.1f} ms/program ({100 * seconds / cpu:.0f}%)")


if __name__ == "__main__":
    main()
