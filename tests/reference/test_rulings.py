"""The model's rulings where the PTX ISA text is terse (ptx2gcn/reference/README.md, "Rulings"):
strict where the text fixes bits, permissive exactly where it leaves a NaN payload or a zero's sign
open. Expected values are hand-derived from the quoted sentences."""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.reference import ReferenceInputError, run, signature

U64 = np.uint64
NEG_ZERO32, POS_ZERO32 = 0x80000000, 0x00000000


def test_abs_f64_passes_a_nan_through_unchanged() -> None:
    # 9.7.3.9: "For abs.f64, NaN input is passed through unchanged"
    for nan in (0xFFFFFFFFFFFFFFFF, 0xFFF0000000000001, 0x7FF4000000000000):
        r = run("abs.f64", U64(nan))
        assert bool(r.outputs[0].matches(U64(nan)))
        assert not bool(r.outputs[0].matches(U64(nan & ~(1 << 63)) if nan >> 63 else U64(nan | 1 << 63)))


def test_abs_f32_of_a_nan_is_any_nan() -> None:
    r = run("abs.f32", np.uint32(0xFFC00001))
    for nan in (0x7FFFFFFF, 0xFFC00001, 0x7FC00000):
        assert bool(r.outputs[0].matches(np.uint32(nan)))
    assert not bool(r.outputs[0].matches(np.uint32(0x7F800000)))  # infinity is not a NaN


@pytest.mark.parametrize("op", ["rcp", "rsqrt"])
def test_gross_f64_nan_input_has_the_fixed_encoding(op: str) -> None:
    r = run(f"{op}.approx.ftz.f64", U64(0x7FF8000000000001))
    assert bool(r.outputs[0].matches(U64(0x7FFFFFFF00000000)))
    assert not bool(r.outputs[0].matches(U64(0x7FF8000000000000)))


def test_rsqrt_gross_f64_of_a_negative_is_any_nan_with_a_zero_low_word() -> None:
    for x in (0xFFF0000000000000, 0xC000000000000000):  # -inf, -2.0
        out = run("rsqrt.approx.ftz.f64", U64(x)).outputs[0]
        assert bool(out.matches(U64(0x7FF8000000000000)))
        assert bool(out.matches(U64(0x7FFFFFFF00000000)))
        assert not bool(out.matches(U64(0x7FF8000000000001)))  # d[31:0] must be zero


def test_gross_f64_low_word_is_zero() -> None:
    out = run("rcp.approx.ftz.f64", U64(0x4000000000000000)).outputs[0]  # 1/2 = 0x3fe0000000000000
    assert bool(out.matches(U64(0x3FE0000000000000)))
    assert not bool(out.matches(U64(0x3FE0000000000001)))


@pytest.mark.parametrize("spelling", ["fma.rn.f64", "mad.rn.f64", "fma.rz.f64"])
def test_zero_times_inf_plus_nan_is_any_nan(spelling: str) -> None:
    inf, nan = U64(0x7FF0000000000000), U64(0x7FFFFFFFFFFFFFFF)
    out = run(spelling, inf, U64(0), nan).outputs[0]
    assert bool(out.matches(U64(0xFFF8000000000000))) and bool(out.matches(nan))
    assert not bool(out.matches(U64(0x3FF0000000000000)))


def test_one_nan_operand_with_a_valid_product_keeps_its_payload() -> None:
    nan = U64(0x7FF8000000001234)
    out = run("fma.rn.f64", U64(0x3FF0000000000000), U64(0x4000000000000000), nan).outputs[0]
    assert bool(out.matches(nan)) and bool(out.matches(U64(0xFFF8000000001234)))  # sign is free
    assert not bool(out.matches(U64(0x7FF8000000000000)))


def test_sat_of_negative_zero_accepts_either_zero() -> None:
    # -0.0 + -0.0 = -0.0 exactly; .sat clamps to [0.0, 1.0], which -0.0 is already in
    out = run("add.sat.f32", np.uint32(NEG_ZERO32), np.uint32(NEG_ZERO32)).outputs[0]
    assert bool(out.matches(np.uint32(POS_ZERO32))) and bool(out.matches(np.uint32(NEG_ZERO32)))
    # a negative non-zero result clamps to +0.0 only; NaN is flushed to +0.0 only
    neg = run("add.sat.f32", np.float32(-1.0), np.float32(0.5)).outputs[0]
    assert bool(neg.matches(np.uint32(POS_ZERO32))) and not bool(neg.matches(np.uint32(NEG_ZERO32)))
    nan = run("mul.sat.f32", np.float32(np.inf), np.float32(0.0)).outputs[0]
    assert bool(nan.matches(np.uint32(POS_ZERO32))) and not bool(nan.matches(np.uint32(NEG_ZERO32)))


def test_fma_rm_of_a_positive_tiny_result_is_plus_zero() -> None:
    # 0x058eb069 * 2^-149 is positive and far below the smallest subnormal; + (-0) keeps it positive,
    # so rounding toward -inf gives +0 (IEEE 754 6.3: the sign of the exact result)
    for spelling in ("fma.rm.f32", "mad.rm.f32"):
        out = run(spelling, np.uint32(0x058EB069), np.uint32(0x00000001), np.uint32(NEG_ZERO32)).outputs[0]
        assert bool(out.matches(np.uint32(POS_ZERO32))) and not bool(out.matches(np.uint32(NEG_ZERO32)))
    # an exact zero sum in .rm is -0
    out = run("fma.rm.f32", np.float32(1.0), np.float32(1.0), np.float32(-1.0)).outputs[0]
    assert bool(out.matches(np.uint32(NEG_ZERO32))) and not bool(out.matches(np.uint32(POS_ZERO32)))


@pytest.mark.parametrize(
    "spelling",
    ["max.ftz.bf16", "min.ftz.NaN.bf16x2", "abs.ftz.bf16", "neg.ftz.bf16x2", "fma.rn.sat.relu.f16",
     "fma.rn.ftz.sat.relu.f16x2"],
)
def test_invalid_spellings_are_refused(spelling: str) -> None:
    with pytest.raises(ReferenceInputError):
        signature(spelling)


@pytest.mark.parametrize("spelling", ["max.ftz.f16", "abs.ftz.f16x2", "max.NaN.bf16", "fma.rn.relu.bf16"])
def test_their_valid_neighbours_are_forms(spelling: str) -> None:
    assert signature(spelling).sources
