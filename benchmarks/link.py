"""Link time of ``ptx2gcn.link.linker.link_hsaco`` against ``ld.lld-22 -shared`` (a subprocess, as the
pipeline would otherwise run it) on the linker tests' kernels, plus one synthetic module with many
kernels.

Usage: ``.venv/bin/python benchmarks/link.py [--repeat N] [--kernels K]``

Objects are compiled once with ``ptx2gcn.emit.target``; the figures are medians over ``--repeat``
links of the same bytes (nothing is cached between links). On a shared machine they are noisy.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ptx2gcn.emit.target import emit_object, optimise
from ptx2gcn.link.linker import link_hsaco
from ptx2gcn.options import CompileOptions

KERNELS = Path(__file__).resolve().parent.parent / "tests" / "link" / "kernels"
CASES = {"vadd": ["vadd"], "globals": ["globals"], "calls": ["calls"], "debug_info": ["debug_info"],
         "two_objects": ["multi_main", "multi_lib"]}


def many_kernels(count: int) -> str:
    body = []
    for i in range(count):
        body.append(f"""define amdgpu_kernel void @k{i}(ptr addrspace(1) %p) {{
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %q = getelementptr i32, ptr addrspace(1) %p, i32 %tid
  %v = load i32, ptr addrspace(1) %q
  %w = add i32 %v, {i}
  store i32 %w, ptr addrspace(1) %q
  ret void
}}""")
    return "\n".join(body) + "\ndeclare i32 @llvm.amdgcn.workitem.id.x()\n"


def compile_ir(text: str) -> bytes:
    options = CompileOptions()
    return emit_object(optimise(text, options), options)


def median_ms(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def lld_action(lld: str, objects: list[bytes], folder: Path) -> Callable[[], object]:
    paths = []
    for index, data in enumerate(objects):
        path = folder / f"{id(objects)}_{index}.o"
        path.write_bytes(data)
        paths.append(str(path))
    out = str(folder / f"{id(objects)}.so")
    return lambda: subprocess.run([lld, "-shared", *paths, "-o", out], check=True, capture_output=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--kernels", type=int, default=200, help="kernels in the synthetic module")
    args = parser.parse_args()
    cases = {name: [compile_ir((KERNELS / f"{f}.ll").read_text()) for f in files]
             for name, files in CASES.items()}
    cases[f"{args.kernels}_kernels"] = [compile_ir(many_kernels(args.kernels))]
    lld = shutil.which("ld.lld-22")
    print(f"{'case':<14} {'input KiB':>9} {'link_hsaco ms':>14} {'ld.lld-22 ms':>13}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, objects in cases.items():
            ours = median_ms(lambda objects=objects: link_hsaco(objects), args.repeat)
            theirs = median_ms(lld_action(lld, objects, Path(tmp)), args.repeat) if lld else float("nan")
            size = sum(len(o) for o in objects) / 1024
            print(f"{name:<14} {size:>9.1f} {ours:>14.2f} {theirs:>13.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
