"""How large a basic block ptx2gcn hands to LLVM.

Invariant: ``check_block_sizes`` raises a located ``UnsupportedError`` for the first block of more
than ``MAX_BLOCK_OPS`` IR ops, and does nothing else. LLVM's AMDGPU back end is superlinear in the
size of a basic block (instruction selection and the machine scheduler work on whole blocks):
measured with ``llc-22 -O3`` on the ``block`` stress kernel (``benchmarks/stress_kernels.py``:
dependent integer ops and a chain of generic addresses), 10k instructions take 1.7 s CPU and 40k
52 s, so a million would take hours; the corpus' largest block (``corpora/large``, 97,850 IR ops
of unrolled arithmetic) compiles in about 12 s. The limit is twice that block: real kernels pass,
and an input that would keep LLVM busy for hours gets an error naming its line instead.
"""

from __future__ import annotations

from ptx2gcn.diagnostics import UnsupportedError
from ptx2gcn.ir.core import Module

MAX_BLOCK_OPS = 200_000


def check_block_sizes(module: Module, limit: int = MAX_BLOCK_OPS) -> None:
    for fn in module.functions:
        for block in fn.blocks:
            if len(block.ops) > limit:
                span = next((op.loc for op in block.ops if op.loc is not None), fn.loc)
                raise UnsupportedError.feature(
                    span, "basic block too large",
                    f"{len(block.ops):,} instructions in one block of {fn.name}, more than the "
                    f"{limit:,} LLVM's AMDGPU back end compiles in reasonable time (its cost grows "
                    "faster than the block); split it with branches")
