"""How large a basic block, and how deep a loop nest, ptx2gcn hands to LLVM.

Invariant: ``check_block_sizes`` raises a located ``UnsupportedError`` for the first block of more
than ``MAX_BLOCK_OPS`` IR ops, ``check_loop_depth`` for the first function whose loops (backward
branches in block order) overlap more than ``MAX_LOOP_DEPTH`` deep; neither does anything else.
LLVM's AMDGPU back end is superlinear in the
size of a basic block (instruction selection and the machine scheduler work on whole blocks):
measured with ``llc-22 -O3`` on the ``block`` stress kernel (``benchmarks/stress_kernels.py``:
dependent integer ops and a chain of generic addresses), 10k instructions take 1.7 s CPU and 40k
52 s, so a million would take hours; the corpus' largest block (``corpora/large``, 97,850 IR ops
of unrolled arithmetic) compiles in about 12 s. The limit is twice that block: real kernels pass,
and an input that would keep LLVM busy for hours gets an error naming its line instead.
LLVM's loop passes are quadratic in loop nesting depth: the ``nest`` stress kernel with 1000 levels
(500 loops) takes 9.3 s CPU in ``opt-22 -O3`` and 4.9 s in ``llc-22``, and 10,000 levels did not
finish in 30 minutes; real kernels nest loops a handful deep.
"""

from __future__ import annotations

from ptx2gcn.diagnostics import UnsupportedError
from ptx2gcn.ir.core import Module

MAX_BLOCK_OPS = 200_000
MAX_LOOP_DEPTH = 1000


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


def check_loop_depth(module: Module, limit: int = MAX_LOOP_DEPTH) -> None:
    """Loops measured without a loop analysis: each backward branch (to a block at or before its
    own, in the function's block order) spans the blocks between; the most spans covering one
    block bounds the nesting depth of the loops there from above (one sweep, no recursion)."""
    for fn in module.functions:
        position = {block: i for i, block in enumerate(fn.blocks)}
        opens = [0] * (len(fn.blocks) + 1)
        for i, block in enumerate(fn.blocks):
            for succ in dict.fromkeys(block.successors()):
                header = position.get(succ)
                if header is not None and header <= i:
                    opens[header] += 1
                    opens[i + 1] -= 1
        depth = 0
        for i, change in enumerate(opens[:-1]):
            depth += change
            if depth > limit:
                block = fn.blocks[i]
                span = next((op.loc for op in block.ops if op.loc is not None), fn.loc)
                raise UnsupportedError.feature(
                    span, "loops nested too deeply",
                    f"{depth:,} loops of {fn.name} enclose this point, more than the {limit:,} "
                    "LLVM's loop optimisations handle in reasonable time (their cost grows with "
                    "the square of the depth)")
