"""The native baseline (benchmarks/native/): clang-22's HIP compile of a corpus CUDA source and ptx2gcn's
compile of its nvcc PTX run the same launch case on the emulator and both pass the case's own model.

These are the agreement checks behind ``benchmarks/codequality.py``: if the compatibility header maps a
CUDA spelling wrongly, or the runner launches a clang code object differently from a ptx2gcn one
(kernel argument ABI, hidden arguments), a native output fails its case here. Without clang-22 the
tests skip (fail under ``PTX2GCN_REQUIRE_LLVM_TOOLS=1``).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import REPO_ROOT


def _load_baseline() -> ModuleType:
    """``benchmarks/native/baseline.py`` (the benchmarks are scripts, not an installed package)."""
    name = "ptx2gcn_native_baseline"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "benchmarks" / "native" / "baseline.py")
        assert spec is not None and spec.loader is not None
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


baseline = _load_baseline()
KernelCase = baseline.KernelCase
compile_native, kernel_cases, measure_kernel = baseline.compile_native, baseline.kernel_cases, baseline.measure_kernel

# One kernel of each kind: grid-stride loop; LDS tree + barriers + warp shuffles; a by-value struct
# parameter and packed fields; non-inlined device calls; two kernels whose fma contraction must be
# nvcc's (a dot product, and squares shared with a loop test: CLANG_FLAGS, -fno-slp-vectorize).
KERNELS = ("vector_add/saxpy", "reduction/reduce_shared", "wide_types/packed_structs",
           "device_functions/integrate", "device_functions/integrate_const", "apps_numeric/mandelbrot")


def _case(name: str) -> KernelCase:
    source, kernel = name.split("/")
    return next(c for c in kernel_cases([source]) if c.kernel == kernel)


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("native")


@pytest.mark.parametrize("name", KERNELS)
def test_both_sides_agree(name: str, build_dir: Path, llvm_tool: Callable[[str], str]) -> None:
    comparison = measure_kernel(_case(name), build_dir, llvm_tool("clang-22"))
    assert comparison.ptx2gcn.error is None, comparison.ptx2gcn.error
    assert comparison.native.error is None, comparison.native.error
    assert comparison.ptx2gcn.wave_instructions > 0 and comparison.native.wave_instructions > 0
    assert comparison.native.code_bytes > 0 and comparison.native.vgprs > 0


def test_every_kernel_case_is_a_base_case() -> None:
    items = list(kernel_cases(["vector_add"]))
    assert {"saxpy", "add_3d", "vector_add_f32"} <= {c.kernel for c in items}
    assert not [c for c in items if c.kernel.endswith(("_sm75", "_sm90", "_lineinfo"))]


def test_source_clang_cannot_compile_is_reported(build_dir: Path, llvm_tool: Callable[[str], str]) -> None:
    # control_flow.cu holds inline PTX asm (brx.idx): clang's message names the source line.
    hsaco, error = compile_native("control_flow", build_dir, llvm_tool("clang-22"))
    assert hsaco is None and error is not None
    assert error.startswith("clang: corpora/src/cuda/control_flow.cu:"), error
