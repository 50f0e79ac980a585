"""Directed rounding (MODE.FP_ROUND other than round-to-nearest-even) for f16/f32 results.

Invariant: an operation listed in ``ODD_EVALUATORS`` is evaluated in float64 *rounded to odd* (exact
product, TwoSum-corrected sums), which carries enough information to round correctly to f32/f16 in
any direction; ``round_directed`` then rounds that value toward +inf, -inf or zero. Operations not
listed, and every f64 result, are refused under a non-default rounding mode (``WaveFault``) rather
than silently rounded to nearest.

MODE round field values: 0 nearest even, 1 toward +inf, 2 toward -inf, 3 toward zero.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from ptx2gcn.runtime.emulator.semantics_fp import _round_to_odd_sum

A = Any
F64 = np.float64


def round_directed(exact: A, dtype: Any, mode: int) -> A:
    """Round float64 values (exact or rounded to odd) to ``dtype`` in MODE rounding ``mode``."""
    exact = np.asarray(exact, dtype=F64)
    nearest = exact.astype(dtype)
    if mode == 0:
        return nearest
    as64 = nearest.astype(F64)
    if mode == 1:
        step = as64 < exact
        target = dtype(np.inf)
    elif mode == 2:
        step = as64 > exact
        target = dtype(-np.inf)
    else:
        step = np.abs(as64) > np.abs(exact)
        target = dtype(0)
    return np.where(step, np.nextafter(nearest, target), nearest).astype(dtype)


def _add(a: A, b: A) -> A:
    return _round_to_odd_sum(np.asarray(a, F64), np.asarray(b, F64))


def _fma(a: A, b: A, c: A) -> A:
    return _round_to_odd_sum(np.asarray(a, F64) * np.asarray(b, F64), np.asarray(c, F64))


ODD_EVALUATORS: dict[str, Callable[..., A]] = {
    "add": _add,
    "sub": lambda a, b: _add(a, -np.asarray(b, F64)),
    "subrev": lambda a, b: _add(b, -np.asarray(a, F64)),
    "mul": lambda a, b: np.asarray(a, F64) * np.asarray(b, F64),
    "fma": _fma,
    "fmac": _fma,
    "mac": _fma,
    "mad": _fma,
    "cvt_f16_f32": lambda a: np.asarray(a, F64),
    "cvt_f32_f64": lambda a: np.asarray(a, F64),
    "cvt_f32_i32": lambda a: np.asarray(a, F64),
    "cvt_f32_u32": lambda a: np.asarray(a, F64),
    "cvt_f16_u16": lambda a: np.asarray(a, F64),
    "cvt_f16_i16": lambda a: np.asarray(a, F64),
}


def odd_evaluator(opcode: str) -> Callable[..., A] | None:
    """The round-to-odd float64 evaluator of ``v_<op>_<type>`` (None when directed rounding is refused)."""
    body = opcode.removeprefix("v_")
    if body.startswith("cvt_"):
        return ODD_EVALUATORS.get(body)
    return ODD_EVALUATORS.get(body.rsplit("_", 1)[0])
