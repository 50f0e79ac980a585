"""The constant evaluator against an independent numpy model and hand-computed PTX ISA examples."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ptx2gcn.ir.core import Op
from ptx2gcn.ir.evaluate import evaluate
from ptx2gcn.ir.types import I32, I64, PRED, IntType, Type

U32 = st.integers(0, 2**32 - 1)


def _eval(name: str, inputs: list[int], result: Type = I32, operand: Type = I32, **attrs: object) -> int | None:
    from ptx2gcn.ir.core import Value

    values = [Value(operand) for _ in inputs]
    op = Op(name, values, (result,), attrs)  # type: ignore[arg-type]
    out = evaluate(op, inputs)
    return None if out is None else out[0]


@settings(max_examples=200, deadline=None)
@given(U32, U32)
def test_wrapping_arithmetic_matches_numpy(a: int, b: int) -> None:
    x, y = np.uint32(a), np.uint32(b)
    with np.errstate(over="ignore"):
        assert _eval("add", [a, b], type="u32") == int(x + y)
        assert _eval("sub", [a, b], type="u32") == int(x - y)
        assert _eval("mul", [a, b], type="u32", mode="lo") == int(x * y)
    assert _eval("mul", [a, b], I64, type="u32", mode="wide") == int(np.uint64(a) * np.uint64(b))
    assert _eval("mul", [a, b], type="u32", mode="hi") == int((np.uint64(a) * np.uint64(b)) >> np.uint64(32))
    sa, sb = np.int64(np.int32(np.uint32(a))), np.int64(np.int32(np.uint32(b)))
    assert _eval("mul", [a, b], I64, type="s32", mode="wide") == int(np.uint64(np.int64(sa * sb)))
    assert _eval("mul", [a, b], type="s32", mode="hi") == int(np.uint32(np.int32((sa * sb) >> 32)))
    assert _eval("min", [a, b], type="s32") == int(np.uint32(min(np.int32(np.uint32(a)), np.int32(np.uint32(b)))))
    assert _eval("max", [a, b], type="u32") == max(a, b)


@settings(max_examples=200, deadline=None)
@given(U32, st.integers(0, 80))
def test_shifts_clamp_at_the_width(a: int, amount: int) -> None:
    clamped = min(amount, 32)
    expect_shl = int((np.uint64(a) << np.uint64(clamped)) & np.uint64(0xFFFFFFFF))
    assert _eval("shl", [a, amount], type="b32") == expect_shl
    assert _eval("shr", [a, amount], type="u32") == (a >> clamped)
    signed = int(np.int32(np.uint32(a)))
    assert _eval("shr", [a, amount], type="s32") == (signed >> min(clamped, 31)) & 0xFFFFFFFF


@settings(max_examples=200, deadline=None)
@given(U32, U32)
def test_comparisons_follow_the_type(a: int, b: int) -> None:
    sa, sb = int(np.int32(np.uint32(a))), int(np.int32(np.uint32(b)))
    assert _eval("setp", [a, b], PRED, type="s32", cmp="lt") == int(sa < sb)
    assert _eval("setp", [a, b], PRED, type="u32", cmp="lt") == int(a < b)
    assert _eval("setp", [a, b], PRED, type="s32", cmp="hi") == int(a > b)  # hi is unsigned always
    assert _eval("setp", [a, b], PRED, type="b32", cmp="ne") == int(a != b)


def test_saturation_only_for_s32() -> None:
    assert _eval("add", [0x7FFFFFFF, 1], type="s32", sat=True) == 0x7FFFFFFF
    assert _eval("sub", [0x80000000, 1], type="s32", sat=True) == 0x80000000
    assert _eval("add", [5, 6], type="s32", sat=True) == 11


def test_bit_field_examples() -> None:
    # bfe: bits [pos, pos+len) of a, sign-extended from the field's top bit for signed types.
    assert _eval("bfe", [0x12345678, 8, 8], type="u32") == 0x56
    assert _eval("bfe", [0x0000F000, 12, 4], type="s32") == 0xFFFFFFFF
    assert _eval("bfe", [0x0000F000, 12, 0], type="s32") == 0  # len 0: zero, sign bit 0
    assert _eval("bfe", [0x80000000, 31, 8], type="s32") == 0xFFFFFFFF  # field clipped at msb
    # bfi: insert the low len bits of a into b at pos.
    assert _eval("bfi", [0xF, 0x00000000, 4, 4], type="b32") == 0xF0
    assert _eval("bfi", [0xFF, 0x12345678, 28, 8], type="b32") == 0xF2345678
    assert _eval("popc", [0xF0F0], operand=I32, type="b32") == 8
    assert _eval("clz", [1], type="b32") == 31 and _eval("clz", [0], type="b32") == 32
    assert _eval("brev", [1], type="b32") == 0x80000000


def test_prmt_and_lop3_examples() -> None:
    a, b = 0x33221100, 0x77665544
    assert _eval("prmt", [a, b, 0x3210]) == a
    assert _eval("prmt", [a, b, 0x7654]) == b
    assert _eval("prmt", [0x00000080, 0, 0x4448]) == 0x000000FF  # byte 0 sign-replicated, then b bytes
    ta, tb, tc = 0xF0, 0xCC, 0xAA
    for lut_expr in (lambda x, y, z: x & y & z, lambda x, y, z: x ^ y ^ z, lambda x, y, z: (x | y) & ~z):
        lut = lut_expr(ta, tb, tc) & 0xFF
        x, y, z = 0x12345678, 0x0F0F0F0F, 0xFFFF0000
        assert _eval("lop3", [x, y, z], type="b32", lut=lut) == lut_expr(x, y, z) & 0xFFFFFFFF


def test_reinterpretation_and_packing() -> None:
    assert _eval("sext", [0x80], IntType(32), IntType(8)) == 0xFFFFFF80
    assert _eval("zext", [0x80], IntType(32), IntType(8)) == 0x80
    assert _eval("trunc", [0x12345678], IntType(16), IntType(32)) == 0x5678
    assert _eval("pack", [0x1111, 0x2222], I32, IntType(16)) == 0x22221111


def test_float_arithmetic_is_not_evaluated() -> None:
    from ptx2gcn.ir.types import F32

    assert _eval("add", [0x3F800000, 0x3F800000], F32, F32, type="f32") is None
