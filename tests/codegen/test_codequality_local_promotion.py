"""A dynamically indexed ``.local`` depot leaves scratch where LLVM can promote it (as clang's does).

nvcc addresses the depot with integer arithmetic on ``%SPL``; ``ptx2gcn.emit.lower_memory`` turns such
an address back into an in-bounds ``getelementptr`` on the depot's alloca (offset clamped with
``umin(offset, size - 1)``, a no-op for every in-bounds offset, so that LLVM keeps the GEP whole), and
AMDGPUPromoteAlloca then moves the depot to LDS as it does for clang's HIP code. Corpus kernel
``wide_types/packed_structs`` (``p.bytes[threadIdx.x % 3] ^= 0x5a`` on a 16-byte struct): no scratch,
and its corpus case still passes. A kernel with dynamic shared memory keeps its depot in scratch
(LLVM cannot budget LDS it does not know), as native does: ``dynamic_shared/address_spaces``.
"""

from __future__ import annotations

import re

from ptx2gcn.compiler import compile_assembly
from ptx2gcn.runtime.cases.case import load_case
from ptx2gcn.runtime.cases.run import run_case
from tests.conftest import CORPORA

WIDE = CORPORA / "nvcc" / "sm_80" / "wide_types.ptx"
DYNAMIC = CORPORA / "nvcc" / "sm_80" / "dynamic_shared.ptx"


def _field(asm: str, name: str) -> int:
    match = re.search(rf"\.{name}:\s+(\d+)", asm)
    assert match is not None, name
    return int(match.group(1))


def test_packed_struct_depot_leaves_scratch() -> None:
    asm = compile_assembly(WIDE, kernels=["packed_structs"])
    assert not re.search(r"scratch_(load|store)", asm)
    assert _field(asm, "private_segment_fixed_size") == 0
    assert _field(asm, "group_segment_fixed_size") > 0  # the depot, one per work-item, in LDS


def test_packed_struct_case_still_passes() -> None:
    run = run_case(load_case(CORPORA / "cases" / "wide_types" / "packed_structs" / "case.toml"), "emulator")
    report = run.check()
    assert report.ok, report.render()


def test_depot_stays_in_scratch_beside_dynamic_shared_memory() -> None:
    asm = compile_assembly(DYNAMIC, kernels=["address_spaces"])
    assert _field(asm, "private_segment_fixed_size") > 0
