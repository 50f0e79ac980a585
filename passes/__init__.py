"""IR passes, one per module, installed as ``ptx2gcn.passes``; ``PASSES`` is the registry.

Invariant: every module in this package except ``__init__`` defines exactly one ``Pass``
subclass, and ``PASSES`` maps each pass's kebab-case ``name`` to its class (a test checks both).
"""

from __future__ import annotations

from ptx2gcn.ir.passbase import Pass
from ptx2gcn.passes.constant_fold import ConstantFold
from ptx2gcn.passes.cse import CommonSubexpressionElimination
from ptx2gcn.passes.dce import DeadCodeElimination
from ptx2gcn.passes.infer_address_spaces import InferAddressSpaces
from ptx2gcn.passes.ldmatrix_mfma_layout import LdmatrixMfmaLayout
from ptx2gcn.passes.mma_accumulators import MmaAccumulators
from ptx2gcn.passes.mma_mfma_layout import MmaMfmaLayout
from ptx2gcn.passes.wave64_barrier_check import Wave64BarrierCheck
from ptx2gcn.passes.wave64_cta_barrier import Wave64CtaBarrier
from ptx2gcn.passes.wave64_fences import Wave64Fences
from ptx2gcn.passes.wave64_lanes import Wave64Lanes
from ptx2gcn.passes.wave64_match import Wave64Match
from ptx2gcn.passes.wave64_mma_uniformity import Wave64MmaUniformity
from ptx2gcn.passes.wave64_named_barrier import Wave64NamedBarrier
from ptx2gcn.passes.wave64_shuffle import Wave64Shuffle
from ptx2gcn.passes.wave64_vote import Wave64Vote
from ptx2gcn.passes.wave64_warp_barrier import Wave64WarpBarrier

PASSES: dict[str, type[Pass]] = {
    cls.name: cls
    for cls in (DeadCodeElimination, ConstantFold, CommonSubexpressionElimination, InferAddressSpaces,
                Wave64BarrierCheck, Wave64Lanes, Wave64Shuffle, Wave64Vote, Wave64Match, Wave64WarpBarrier,
                Wave64CtaBarrier, Wave64NamedBarrier, Wave64Fences, Wave64MmaUniformity, MmaAccumulators,
                MmaMfmaLayout, LdmatrixMfmaLayout)
}

__all__ = ["PASSES", "Pass"]
