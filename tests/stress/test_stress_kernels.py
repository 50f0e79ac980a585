"""Generated kernels whose size stresses every walk of the compiler (``benchmarks/stress_kernels.py``):
a chain of blocks, deeply nested loops and branches, a very wide ``brx.idx`` and one huge block.
Each must build, pass the IR pipeline and become LLVM IR under a low recursion limit (no walk may
recurse on the input's size), or — the huge block, the 5000 nested loops — be refused with a
located error (``ptx2gcn.emit.size_limits``: LLVM would take hours).
The default suite runs small sizes; ``-m slow`` runs the issue's sizes in a child process whose
peak memory is bounded."""

from __future__ import annotations

import importlib.util
import inspect
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from ptx2gcn.compiler import to_ir
from ptx2gcn.diagnostics import UnsupportedError
from ptx2gcn.emit.module import emit_llvm
from ptx2gcn.emit.size_limits import MAX_BLOCK_OPS, MAX_LOOP_DEPTH, check_block_sizes, check_loop_depth

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "stress_kernels.py"
HEADROOM = 150
"""Frames allowed above the caller's: what a straight-line kernel needs, with room to spare."""


def _generators() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ptx2gcn_stress_kernels", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


KINDS: dict[str, Callable[[int], str]] = _generators().KINDS


def _to_llvm_under_low_limit(text: str) -> str:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + HEADROOM)
    try:
        return emit_llvm(to_ir(text, "stress.ptx"))
    finally:
        sys.setrecursionlimit(limit)


@pytest.mark.parametrize(("kind", "size"), [("chain", 3000), ("nest", 400), ("switch", 3000), ("block", 6000)])
def test_small_stress_kernels_need_no_deep_stack(kind: str, size: int) -> None:
    llvm_ir = _to_llvm_under_low_limit(KINDS[kind](size))
    assert "define amdgpu_kernel void @\"stress\"(" in llvm_ir


def test_a_block_over_the_limit_is_a_located_error() -> None:
    module = to_ir(KINDS["block"](400), "stress.ptx")
    with pytest.raises(UnsupportedError) as caught:
        check_block_sizes(module, limit=300)
    text = str(caught.value)
    assert text.startswith("stress.ptx:7:1: error: unsupported: basic block too large")
    check_block_sizes(module, limit=500)


def test_loops_nested_over_the_limit_are_a_located_error() -> None:
    module = to_ir(KINDS["nest"](40), "stress.ptx")  # 20 loops, each around the next
    check_loop_depth(module, limit=20)
    with pytest.raises(UnsupportedError) as caught:
        check_loop_depth(module, limit=19)
    assert "error: unsupported: loops nested too deeply: 20 loops of stress" in str(caught.value)
    check_loop_depth(to_ir(KINDS["chain"](50), "chain.ptx"), limit=0)


CHILD = r"""
import inspect, json, resource, sys, time
import importlib.util
spec = importlib.util.spec_from_file_location("stress", sys.argv[1])
stress = importlib.util.module_from_spec(spec); spec.loader.exec_module(stress)
from ptx2gcn.compiler import to_ir
from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.emit.module import emit_llvm
text = stress.KINDS[sys.argv[2]](int(sys.argv[3]))
sys.setrecursionlimit(len(inspect.stack(0)) + int(sys.argv[4]))
start = time.process_time()
try:
    emit_llvm(to_ir(text, "stress.ptx"))
    outcome = "ok"
except Ptx2GcnError as error:
    outcome = str(error).splitlines()[0]
print(json.dumps({"outcome": outcome, "cpu": time.process_time() - start,
                  "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))
"""


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "size", "max_mib"), [
    ("chain", 100_000, 2500), ("nest", 10_000, 2500), ("switch", 100_000, 2500), ("block", 1_000_000, 6000)])
def test_issue_sized_stress_kernels(kind: str, size: int, max_mib: int) -> None:
    done = subprocess.run([sys.executable, "-c", CHILD, str(SCRIPT), kind, str(size), str(HEADROOM)],
                          capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    print(kind, size, result)
    if kind == "block":
        assert result["outcome"].startswith("stress.ptx:7:1: error: unsupported: basic block too large"), result
        assert size > MAX_BLOCK_OPS
    elif kind == "nest":
        assert "error: unsupported: loops nested too deeply" in result["outcome"], result
        assert size // 2 > MAX_LOOP_DEPTH
    else:
        assert result["outcome"] == "ok", result
    assert result["rss_mib"] < max_mib, result
