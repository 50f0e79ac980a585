# SPDX-License-Identifier: Apache-2.0
"""Driver shared by the Triton corpus scripts: compile kernels to PTX for explicit targets, without a GPU.

Invariant: ``main(specs)`` writes exactly ``<out>/sm_<arch>/<spec.name>.ptx`` for every spec and every
requested arch at or above ``spec.min_arch``, and nothing else. Run by ``corpora/regen.py`` with the
throwaway venv's Python (triton is not a project dependency).
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.compiler import compile as triton_compile


@dataclasses.dataclass(frozen=True)
class KernelSpec:
    name: str
    fn: Any
    """A ``@triton.jit`` function."""
    signature: dict[str, str]
    constexprs: dict[str, Any] = dataclasses.field(default_factory=dict)
    num_warps: int = 4
    num_stages: int = 3
    min_arch: int = 0


def compile_ptx(spec: KernelSpec, arch: int) -> str:
    signature = dict(spec.signature)
    for name in spec.constexprs:
        signature[name] = "constexpr"
    source = ASTSource(fn=spec.fn, signature=signature, constexprs=dict(spec.constexprs))
    options = {"num_warps": spec.num_warps, "num_stages": spec.num_stages}
    kernel = triton_compile(source, target=GPUTarget("cuda", arch, 32), options=options)
    return kernel.asm["ptx"]


def main(specs: list[KernelSpec]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--archs", default="80,90")
    args = parser.parse_args()
    for arch in (int(a) for a in args.archs.split(",")):
        for spec in specs:
            if arch < spec.min_arch:
                continue
            path = args.out / f"sm_{arch}" / f"{spec.name}.ptx"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(compile_ptx(spec, arch))
