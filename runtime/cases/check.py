"""Compare a kernel's outputs with expected arrays: ``compare_outputs(expected, actual, tolerances)``.

Rules: integers compare exactly. Floats compare bit for bit by default (so ``+0.0 != -0.0``), except
that any NaN equals any NaN (NaN payloads are not portable between GPUs and references). With a
tolerance ``{rtol, atol}`` a float matches when ``|actual - expected| <= atol + rtol * |expected|``,
infinities must match exactly and NaN still equals only NaN. Shapes and dtypes must agree.

Invariant: ``CheckReport.ok`` is True exactly when every expected output is present and matches; each
failing output names the first mismatching indices with both values, the mismatch count and (floats)
the largest absolute and relative error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

import numpy as np
import numpy.typing as npt

MAX_LISTED = 8


@dataclass(frozen=True, slots=True)
class Tolerance:
    rtol: float = 0.0
    atol: float = 0.0

    @property
    def exact(self) -> bool:
        return self.rtol == 0.0 and self.atol == 0.0


@dataclass(frozen=True, slots=True)
class Mismatch:
    index: tuple[int, ...]
    expected: object
    actual: object


@dataclass(frozen=True, slots=True)
class OutputCheck:
    name: str
    ok: bool
    count: int = 0
    """Number of elements compared."""
    mismatches: int = 0
    first: tuple[Mismatch, ...] = ()
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    problem: str = ""
    """Why the output could not be compared element-wise (missing, shape, dtype), else ''."""

    def render(self) -> str:
        if self.ok:
            return f"{self.name}: ok ({self.count} elements)"
        if self.problem:
            return f"{self.name}: FAILED: {self.problem}"
        lines = [f"{self.name}: FAILED: {self.mismatches} of {self.count} elements differ"]
        if self.max_abs_error is not None:
            lines[0] += f" (max abs error {self.max_abs_error:.6g}, max rel error {self.max_rel_error:.6g})"
        for item in self.first:
            where = ",".join(map(str, item.index))
            lines.append(f"  [{where}] expected {item.expected!r}, got {item.actual!r}")
        if self.mismatches > len(self.first):
            lines.append(f"  ... {self.mismatches - len(self.first)} more")
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class CheckReport:
    outputs: tuple[OutputCheck, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.outputs)

    def render(self) -> str:
        return "\n".join(check.render() for check in self.outputs)


def compare_outputs(
    expected: Mapping[str, npt.ArrayLike],
    actual: Mapping[str, npt.ArrayLike],
    tolerances: Mapping[str, Tolerance] | None = None,
) -> CheckReport:
    tolerances = tolerances or {}
    return CheckReport(
        tuple(
            _compare(name, np.asarray(want), actual.get(name), tolerances.get(name, Tolerance()))
            for name, want in expected.items()
        )
    )


def _compare(
    name: str, want: npt.NDArray[np.generic], got_like: npt.ArrayLike | None, tolerance: Tolerance
) -> OutputCheck:
    if got_like is None:
        return OutputCheck(name, False, problem="no such output")
    # Compare values, not storage: bring both to native byte order first.
    want, got = _native(np.asarray(want)), _native(np.asarray(got_like))
    if got.dtype != want.dtype:
        return OutputCheck(name, False, problem=f"dtype {got.dtype} differs from expected {want.dtype}")
    if got.shape != want.shape:
        return OutputCheck(name, False, problem=f"shape {got.shape} differs from expected {want.shape}")
    if want.dtype.kind == "f":
        bad = _float_mismatches(want, got, tolerance)
    elif want.dtype.kind in "iub":
        bad = want != got
    else:
        return OutputCheck(name, False, problem=f"cannot compare dtype {want.dtype}")
    count = int(want.size)
    mismatches = int(np.count_nonzero(bad))
    abs_err, rel_err = _errors(want, got) if want.dtype.kind == "f" else (None, None)
    if mismatches == 0:
        return OutputCheck(name, True, count, 0, (), abs_err, rel_err)
    indices = islice(zip(*np.nonzero(bad.reshape(want.shape)), strict=False), MAX_LISTED)
    first = tuple(
        Mismatch(tuple(int(i) for i in index), want[index].item(), got[index].item()) for index in indices
    )
    return OutputCheck(name, False, count, mismatches, first, abs_err, rel_err)


def _native(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    return array.astype(array.dtype.newbyteorder("="), copy=False)


def _float_mismatches(
    want: npt.NDArray[np.generic], got: npt.NDArray[np.generic], tolerance: Tolerance
) -> npt.NDArray[np.bool_]:
    both_nan = np.isnan(want) & np.isnan(got)
    if tolerance.exact:
        bits = np.dtype(f"<u{want.dtype.itemsize}")
        same_bits = want.view(bits) == got.view(bits)
        exact: npt.NDArray[np.bool_] = ~(same_bits | both_nan)
        return exact
    wide_want, wide_got = want.astype(np.float64), got.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(wide_got - wide_want) <= tolerance.atol + tolerance.rtol * np.abs(wide_want)
    infinite = np.isinf(wide_want) | np.isinf(wide_got)
    close = np.where(infinite, wide_want == wide_got, close)
    differ: npt.NDArray[np.bool_] = ~(close | both_nan)
    return differ


def _errors(want: npt.NDArray[np.generic], got: npt.NDArray[np.generic]) -> tuple[float, float]:
    """Largest absolute and relative error over the elements where both values are finite."""
    wide_want, wide_got = want.astype(np.float64), got.astype(np.float64)
    finite = np.isfinite(wide_want) & np.isfinite(wide_got)
    if not finite.any():
        return 0.0, 0.0
    diff = np.abs(wide_got[finite] - wide_want[finite])
    scale = np.abs(wide_want[finite])
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(scale > 0, diff / scale, np.where(diff > 0, np.inf, 0.0))
    return float(diff.max()), float(rel.max())
