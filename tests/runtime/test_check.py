"""``compare_outputs``: exact integers, bit-exact floats with NaN == NaN, rtol/atol, reports."""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.runtime.cases.check import Tolerance, compare_outputs


def test_integers_exact_and_first_mismatches_listed() -> None:
    want = np.arange(20, dtype=np.int32)
    got = want.copy()
    got[[3, 7, 11]] = [-3, 70, 0]
    report = compare_outputs({"out": want}, {"out": got})
    (check,) = report.outputs
    assert not report.ok and (check.mismatches, check.count) == (3, 20)
    assert [(m.index, m.expected, m.actual) for m in check.first] == [
        ((3,), 3, -3),
        ((7,), 7, 70),
        ((11,), 11, 0),
    ]
    assert "out: FAILED: 3 of 20 elements differ" in report.render()
    assert "[7] expected 7, got 70" in report.render()


def test_float_default_is_bit_exact_with_nan_equal() -> None:
    nan_a = np.frombuffer(bytes.fromhex("0000c07f"), np.float32)[0]
    nan_b = np.frombuffer(bytes.fromhex("0100c0ff"), np.float32)[0]  # other sign and payload
    want = np.array([1.0, nan_a, 0.0, np.inf], np.float32)
    assert compare_outputs({"y": want}, {"y": np.array([1.0, nan_b, 0.0, np.inf], np.float32)}).ok
    signed_zero = compare_outputs({"y": want}, {"y": np.array([1.0, nan_a, -0.0, np.inf], np.float32)})
    assert not signed_zero.ok and signed_zero.outputs[0].first[0].index == (2,)
    one_ulp = np.nextafter(np.float32(1.0), np.float32(2.0))
    assert not compare_outputs({"y": want}, {"y": np.array([one_ulp, nan_a, 0.0, np.inf], np.float32)}).ok
    assert not compare_outputs({"y": want}, {"y": np.array([1.0, 5.0, 0.0, np.inf], np.float32)}).ok


def test_tolerances() -> None:
    want = np.array([100.0, 0.0, -np.inf, np.nan, 1e-3], np.float64)
    close = np.array([100.0001, 1e-9, -np.inf, np.nan, 1e-3 + 1e-12], np.float64)
    assert compare_outputs({"y": want}, {"y": close}, {"y": Tolerance(rtol=1e-6, atol=1e-8)}).ok
    report = compare_outputs({"y": want}, {"y": close}, {"y": Tolerance(rtol=1e-7, atol=1e-8)})
    (check,) = report.outputs
    assert [m.index for m in check.first] == [(0,)]
    nonzero = compare_outputs({"y": want[[0, 4]]}, {"y": close[[0, 4]]}).outputs[0]
    assert nonzero.max_rel_error == pytest.approx(1e-6)
    assert check.max_abs_error == pytest.approx(1e-4)
    assert check.max_rel_error == float("inf")  # 1e-9 where 0 was expected
    infinite = np.array([100.0, 0.0, np.inf, np.nan, 1e-3])
    assert not compare_outputs({"y": want}, {"y": infinite}, {"y": Tolerance(rtol=10.0, atol=1e300)}).ok
    number_for_nan = np.array([100.0, 0.0, -np.inf, 1.0, 1e-3])
    assert not compare_outputs({"y": want}, {"y": number_for_nan}, {"y": Tolerance(atol=1e300)}).ok


def test_structural_problems() -> None:
    want = {"a": np.zeros(4, np.float32), "b": np.zeros(4, np.int32), "c": np.zeros(2, np.uint8)}
    report = compare_outputs(want, {"a": np.zeros(4, np.float64), "b": np.zeros(5, np.int32)})
    problems = {check.name: check.problem for check in report.outputs}
    assert problems == {
        "a": "dtype float64 differs from expected float32",
        "b": "shape (5,) differs from expected (4,)",
        "c": "no such output",
    }
    assert not report.ok
    assert compare_outputs({}, {}).ok


def test_multidimensional_indices() -> None:
    want = np.zeros((2, 3), np.int16)
    got = want.copy()
    got[1, 2] = 9
    (check,) = compare_outputs({"m": want}, {"m": got}).outputs
    assert check.first[0].index == (1, 2) and "[1,2] expected 0, got 9" in check.render()


def test_byte_order_is_not_a_difference() -> None:
    want = np.array([1.5, -0.0, np.nan], dtype=">f8")
    assert compare_outputs({"y": want}, {"y": np.array([1.5, -0.0, np.nan], dtype="<f8")}).ok
    assert not compare_outputs({"y": want}, {"y": np.array([1.5, 0.0, np.nan], dtype="<f8")}).ok
