"""The video-instruction model (PTX ISA 9.7.18) on hand-computed lanes, one per rule of the
pseudocode: part selection and sign extension, optSaturate per destination size, optSecOp, optMerge,
shift clamp/wrap, vmad's negation/plus-one/scale, and the SIMD selectors, masks, merge, accumulate
and average."""

from __future__ import annotations

import pytest

from ptx2gcn.reference import ReferenceInputError, run, signature
from ptx2gcn.reference.video import operand_syntax

M32 = 0xFFFFFFFF


def one(spelling: str, *operands: int) -> int:
    return int(run(spelling, *operands).value)


@pytest.mark.parametrize(
    ("spelling", "operands", "expected"),
    [
        ("vadd.u32.u32.u32", (5, 7), 12),
        ("vadd.u32.u32.u32", (M32, 1), 0),  # 2^32 wraps in the low 32 bits
        ("vadd.u32.u32.u32.sat", (M32, 1), M32),  # .sat clamps the .s34 sum to U32_MAX
        ("vadd.s32.u32.s32.sat.asel=b0.bsel=h0", (0xFF, 0x8000), (255 - 32768) & M32),
        ("vsub.s32.s32.s32.sat", (0x80000000, 1), 0x80000000),  # INT_MIN - 1 clamps
        ("vabsdiff.u32.s32.s32", (0xFFFFFFFF, 1), 2),  # |-1 - 1|
        ("vabsdiff.s32.s32.s32.sat.dsel=h0", (0x7FFFFFFF, 0x80000000, 0x12345678), 0x12347FFF),
        ("vmin.s32.s32.s32.sat.add", (3, (-5) & M32, 10), 5),  # min(3, -5) + 10
        ("vmax.u32.u32.u32.min", (9, 4, 6), 6),  # min(max(9, 4), 6)
        ("vmax.s32.u32.s32.dsel=b3", (0x80, 0x7F, 0xAABBCCDD), 0x80BBCCDD),
        ("vshl.u32.u32.u32.clamp", (1, 40), 0),  # shift clamped to 32: 1 << 32 has zero low bits
        ("vshl.u32.u32.u32.wrap", (1, 33), 2),  # 33 & 31
        ("vshl.s32.s32.u32.sat.clamp", (1, 31), 0x7FFFFFFF),  # 2^31 clamps to S32_MAX
        ("vshr.s32.s32.u32.wrap", (0x80000000, 33), 0xC0000000),  # arithmetic, 33 & 31 = 1
        ("vshr.u32.u32.u32.clamp", (0x80000000, 99), 0),
        ("vset.u32.s32.lt", (M32, 0), 0),  # 4294967295 < 0 is false
        ("vset.s32.s32.lt", (M32, 0), 1),  # -1 < 0
        ("vset.s32.s32.lt.add", (M32, 0, 7), 8),
        ("vset.u32.u32.ne.dsel=b1.asel=h1", (0x00010000, 1, 0xFFFFFFFF), 0xFFFF00FF),  # 1 != 1 is 0
        ("vmad.u32.u32.u32", (3, 4, 5), 17),
        ("vmad.s32.u32.u32.neg=c", (3, 4, 5), 7),  # 12 - 5
        ("vmad.s32.s32.s32.neg=a", (3, 4, 5), (-7) & M32),  # -(12) + 5
        ("vmad.s32.s32.s32.neg=a.neg=b", (3, 4, 5), 17),  # two negations cancel
        ("vmad.u32.u32.u32.po.shr7", (1000, 1000, 0), (1000 * 1000 + 1) >> 7),
        ("vmad.u32.u32.u32.sat", (0x10000, 0x10000, 0), M32),  # 2^32 clamps to U32_MAX
        ("vmad.s32.s32.s32.shr15", ((-65536) & M32, 2, 0), (-4) & M32),  # arithmetic scale
        ("vadd2.u32.u32.u32", (0x00010002, 0x00030004, 0xDEADBEEF), 0x00040006),
        ("vadd2.u32.u32.u32.mask=h1", (0x00010002, 0x00030004, 0xDEADBEEF), 0x0004BEEF),
        ("vsub2.s32.s32.s32.sat", (0x80000000, 0x00010000, 0), 0x80000000),  # -32768 - 1 clamps
        ("vavrg2.s32.s32.s32", (0xFFFF0003, 0xFFFE0004, 0), 0xFFFE0004),  # avg(-1,-2) = -2, avg(3,4) = 4
        ("vmax2.u32.u32.u32.asel=h32.bsel=h10", (0x00010009, 0x00050002, 0), 0x00050009),
        ("vadd4.s32.s32.s32.sat", (0x7F7F7F7F, 0x01010101, 0), 0x7F7F7F7F),
        ("vsub4.u32.u32.u32.add", (0x05050505, 0x01010101, 100), 116),
        ("vmin4.u32.u32.u32.add.mask=b0", (0x05050505, 0x01010101, 100), 101),
        ("vabsdiff4.u32.u32.u32.asel=b7654.bsel=b3210", (0x01020304, 0x0A0A0A0A, 0), 0x09080706),
        ("vset2.u32.u32.eq.mask=h1", (0x00050005, 0x00050006, 0xAAAABBBB), 0x0001BBBB),
        ("vset4.s32.s32.gt.add", (0x01FF0180, 0x00000000, 10), 12),  # 1>0, -1>0 no, 1>0, -128>0 no
    ],
)
def test_hand_computed_lanes(spelling: str, operands: tuple[int, ...], expected: int) -> None:
    assert one(spelling, *operands) == expected


def test_operand_syntax_decorates_operands() -> None:
    syntax = operand_syntax("vmad.s32.s32.u32.sat.neg=a.asel=h1")
    assert syntax.spelling == "vmad.s32.s32.u32.sat"
    assert syntax.operand("a", "%r1") == "-%r1.h1" and syntax.operand("b", "%r2") == "%r2"
    simd = operand_syntax("vadd4.u32.u32.u32.mask=b31.bsel=b0246")
    assert simd.operand("d", "%r0") == "%r0.b31" and simd.operand("b", "%r2") == "%r2.b0246"


@pytest.mark.parametrize(
    "spelling",
    [
        "vadd.u32.u32",  # three types needed
        "vadd.u32.u32.u32.add.dsel=h0",  # secondary op and merge exclude each other
        "vadd.u32.u32.u32.asel=h2",  # no third half-word in a 32-bit operand
        "vshl.u32.u32.s32.wrap",  # the shift amount is .u32
        "vshl.u32.u32.u32",  # .clamp or .wrap is required
        "vmad.s32.s32.s32.po.neg=c",  # no negation in .po mode
        "vadd2.u32.u32.u32.sat.add",  # no saturation with the accumulate
        "vadd2.u32.u32.u32.asel=h4",  # half-words 0..3 only
        "vadd4.u32.u32.u32.mask=b01",  # masks list positions from high to low
        "vset2.u32.u32.lt.sat",
    ],
)
def test_invalid_forms_are_refused(spelling: str) -> None:
    with pytest.raises(ReferenceInputError):
        signature(spelling)


def test_operand_counts() -> None:
    assert len(signature("vadd.u32.u32.u32").sources) == 2
    assert len(signature("vadd.u32.u32.u32.max").sources) == 3
    assert len(signature("vadd.u32.u32.u32.dsel=b1").sources) == 3
    assert len(signature("vmad.u32.u32.u32").sources) == 3
    assert len(signature("vadd4.u32.u32.u32").sources) == 3
