# SPDX-License-Identifier: Apache-2.0
"""Driver shared by the numba-cuda corpus scripts: compile Python kernels to PTX without a GPU.

Invariant: ``main(specs)`` writes exactly ``<out>/sm_<arch>/<spec.name>.ptx`` for every spec and every
requested arch at or above ``spec.min_arch``, and nothing else. numba-cuda compiles through NVVM
(``CUDA_HOME=/usr/local/cuda``; ``libnvvm.so`` from the toolkit) and asks NVRTC (pip package
``nvidia-cuda-nvrtc``) which targets exist. Run by ``corpora/regen.py`` with the throwaway venv's Python.

No GPU and no driver here: numba-cuda 0.30.4 compiles a ``@cuda.jit(device=True)`` function called from a
kernel with the *current device's* compute capability (``dispatcher.compile_device`` calls
``get_current_device()``), which needs the CUDA driver. The driver below substitutes a stand-in device
whose capability is the target being compiled for, and runs each target in a fresh process so that
device functions compiled for one target are never reused for another.

Determinism: numba-cuda keeps the code libraries linked into a kernel in a ``set`` of objects hashed by
identity (``CUDACodeLibrary._linking_libraries``), so the order of the module-level declarations in the
PTX changed from run to run. The driver makes that collection insertion-ordered, so the same source gives
the same PTX.
"""

from __future__ import annotations

import argparse
import dataclasses
import subprocess
import sys
from pathlib import Path
from typing import Any

import numba.cuda.dispatcher
from numba import cuda
from numba.cuda.codegen import CUDACodeLibrary


@dataclasses.dataclass(frozen=True)
class KernelSpec:
    name: str
    fn: Any
    """A plain Python function (not decorated)."""
    signature: Any
    """A numba signature: a tuple of argument types, or ``"void(float32[:], ...)"``."""
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    """Extra ``cuda.compile_ptx`` keywords: fastmath, lineinfo, device, abi, ..."""
    min_arch: int = 0


class _InsertionOrderedSet(dict[Any, None]):
    """The part of ``set`` that numba-cuda uses on ``_linking_libraries`` (add, iterate), in insertion order."""

    def add(self, item: Any) -> None:
        self[item] = None


_original_library_init = CUDACodeLibrary.__init__


def _library_init(self: CUDACodeLibrary, *args: Any, **kwargs: Any) -> None:
    _original_library_init(self, *args, **kwargs)
    self._linking_libraries = _InsertionOrderedSet()


@dataclasses.dataclass(frozen=True)
class _StandInDevice:
    compute_capability: tuple[int, int]


def main(specs: list[KernelSpec]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--archs", default="75,80,90")
    args = parser.parse_args()
    archs = [int(a) for a in args.archs.split(",")]
    if len(archs) > 1:
        for arch in archs:
            subprocess.run([sys.executable, sys.argv[0], "--out", str(args.out), "--archs", str(arch)], check=True)
        return
    arch = archs[0]
    cc = (arch // 10, arch % 10)
    numba.cuda.dispatcher.get_current_device = lambda: _StandInDevice(cc)
    CUDACodeLibrary.__init__ = _library_init
    for spec in specs:
        if arch < spec.min_arch:
            continue
        ptx, _ = cuda.compile_ptx(spec.fn, spec.signature, cc=cc, **spec.options)
        path = args.out / f"sm_{arch}" / f"{spec.name}.ptx"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(ptx)
