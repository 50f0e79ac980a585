"""Where a work-group runs: a deterministic model of MI300X's compute units, for ``HW_ID`` and
``XCC_ID`` (and so PTX ``%smid``, which the compiler reads as ``XCC_ID[3:0] << 8 | HW_ID[15:8]``).

The model: an MI300X has 8 XCCs (accelerator dies) of 38 active compute units each (304 in all).
The command processor hands work-groups to the XCCs round-robin in dispatch order (AMD's MI300X
tuning guides describe this: consecutive work-groups land on different XCDs); within one XCC, its
work-groups go to its CUs in turn. So work-group number ``n`` (x fastest, as the emulator dispatches)
runs on XCC ``n % 8``, CU ``(n // 8) % 38`` of that XCC. A CU's index ``c`` is encoded as gfx9's
HW_ID fields: shader engine ``c // 10`` (SE_ID, bits 15:13), shader array 0 (SH_ID, bit 12),
``c % 10`` (CU_ID, bits 11:8) -- 10 CUs per shader engine, the last one harvested to 8.

Real hardware schedules by free resources, not strictly in turn, and harvests different CUs on each
die; this model only promises what PTX promises about ``%smid`` (``< %nsmid``, constant for a CTA,
varies across CTAs) and is the same in every run.

Invariant: ``placement(n)`` depends only on ``n``; every work-group of a launch gets one, and every
wave of a work-group reads the same XCC and CU fields.
"""

from __future__ import annotations

from dataclasses import dataclass

XCCS = 8
CUS_PER_XCC = 38
CUS_PER_SHADER_ENGINE = 10


@dataclass(frozen=True, slots=True)
class Placement:
    """A work-group's compute unit: its XCC and the HW_ID bits 15:8 (SE_ID, SH_ID, CU_ID)."""

    xcc: int = 0
    hw_id_cu: int = 0


def placement(workgroup_number: int) -> Placement:
    """The compute unit of the ``workgroup_number``-th work-group of a launch (see the module doc)."""
    cu = workgroup_number // XCCS % CUS_PER_XCC
    shader_engine, cu_id = divmod(cu, CUS_PER_SHADER_ENGINE)
    return Placement(workgroup_number % XCCS, shader_engine << 5 | cu_id)
