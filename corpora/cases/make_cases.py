#!/usr/bin/env python3
"""Generate the corpus launch cases: ``corpora/cases/<collection>/<kernel>/case.toml`` + ``.npy`` files.

The generators live in ``generators/``, one module per collection of corpus kernels (an nvcc source
file, the Triton or the numba kernels), plus ``derived`` (modules with one rejected kernel, split)
and ``variants`` (other builds and targets of the same sources); ``generators/common.py`` holds the
shared helpers. Each generator reads like the CUDA / Triton / numba source it models (quoted in its
docstring) and computes the expected outputs with numpy or plain Python, independently of ptx2gcn:
nothing here imports the compiler or runs a kernel. Inputs come from
``numpy.random.default_rng(seed)`` with a fixed seed per case, so two runs write byte-identical files.

Invariant: every folder under ``corpora/cases/`` that holds a ``case.toml`` is written by exactly one
generator in ``GENERATORS``; ``--check`` regenerates into a temporary folder and reports any
difference. ``GENERATORS`` runs in a fixed order: an ``.npy`` array equal to one an earlier case
wrote is stored once and referenced (``casegen.CaseSpec.write``), so the order decides which folder
holds it.

Usage: ``.venv/bin/python corpora/cases/make_cases.py [--only SUBSTRING] [--check]``.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generators import (
    approximate_math,
    apps_integer,
    apps_numeric,
    async_copy,
    atomics,
    control_flow,
    cooperative_groups,
    derived,
    device_functions,
    doubles,
    dynamic_shared,
    extra,
    half_bf16,
    int_intrinsics,
    math_float,
    matmul_tiled,
    more_float,
    numba,
    reduction,
    scan_sort,
    stencil_constant,
    tensor_core,
    tensor_gemm,
    transpose,
    triton,
    variants,
    vector_add,
    warp_intrinsics,
    wide_types,
)
from generators.common import CASES, CORPUS, Generator
from generators.derived import DERIVED, write_derived

GENERATORS: list[Generator] = [
    vector_add.vector_add,
    reduction.reduction,
    matmul_tiled.matmul_tiled,
    transpose.transpose,
    scan_sort.scan_sort,
    stencil_constant.stencil_constant,
    atomics.atomics,
    device_functions.device_functions,
    control_flow.control_flow,
    int_intrinsics.int_intrinsics,
    dynamic_shared.dynamic_shared,
    wide_types.wide_types,
    warp_intrinsics.warp_intrinsics,
    cooperative_groups.cooperative_groups,
    apps_integer.apps_integer,
    apps_numeric.apps_numeric,
    triton.triton_kernels,
    numba.numba_kernels,
    doubles.doubles,
    math_float.math_float,
    half_bf16.half_bf16,
    triton.triton_matmul,
    extra.extra_kernels,
    more_float.more_float_kernels,
    approximate_math.approximate_math,
    derived.split_modules,
    variants.build_variants,
    variants.other_targets,
    triton.triton_attention,
    half_bf16.half_math,
    numba.numba_random_walk,
    numba.numba_fastmath,
    atomics.atomics_exact_allocations,
    *tensor_core.GENERATORS,
    *async_copy.GENERATORS,
    *tensor_gemm.GENERATORS,
]
"""Every generator, in the order its cases are written (see the invariant)."""


def generate(root: Path, only: str | None) -> list[str]:
    write_derived(root)
    written = []
    pool: dict[str, Path] = {}
    for fn in GENERATORS:
        for name, spec in fn():
            folder = root / name
            skip = bool(only) and only not in name
            spec.write(folder, os.path.relpath(CORPUS / spec.source, CASES / name), pool, dry_run=skip)
            if not skip:
                written.append(name)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="only cases whose name contains this")
    parser.add_argument("--check", action="store_true", help="regenerate into a temporary folder and compare")
    args = parser.parse_args(argv)
    if not args.check:
        names = generate(CASES, args.only)
        print(f"wrote {len(names)} cases")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "corpora" / "cases"
        names = generate(root, args.only)
        bad = []
        for name in names:
            cmp = filecmp.dircmp(root / name, CASES / name)
            if cmp.left_only or cmp.right_only or cmp.diff_files or cmp.funny_files:
                bad.append(name)
        for stale in sorted(CASES.glob("*/*/case.toml")):
            name = stale.parent.relative_to(CASES).as_posix()
            if not args.only and name not in names:
                bad.append(f"{name} (no generator writes it any more)")
        for target in DERIVED:
            relative = target.removeprefix("cases/")
            if not filecmp.cmp(root / relative, CASES / relative, shallow=False):
                bad.append(relative)
        print(f"{len(names)} cases, {len(bad)} differ" + "".join(f"\n  {b}" for b in bad))
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
