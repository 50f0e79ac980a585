"""Floating-point instructions with every rounding modifier, .ftz and .sat: emulator vs reference.

The edge values cover 0, -0, ±1, ±min/max normal, subnormals, ±inf, NaN, values one ulp apart
and pairs whose exact results fall between two floats (so that .rz/.rm/.rp differ from .rn).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ptx2gcn.reference import run as reference

F32 = np.array([0.0, -0.0, 1.0, -1.0, 1.5, 3.0, -7.25, 0.1, 1.0 + 2**-23, 1.0 - 2**-24, 2**-126, -(2**-126),
                2**-149, -(2**-149), 2**-127, 3.4028235e38, -3.4028235e38, np.inf, -np.inf, np.nan,
                16777217.0, 1e-30, 33.0], dtype=np.float32)
F64 = np.array([0.0, -0.0, 1.0, -1.0, 1.5, 3.0, 0.1, 1.0 + 2**-52, 2**-1022, 2**-1074, -(2**-1074),
                1.7976931348623157e308, -1.7976931348623157e308, np.inf, -np.inf, np.nan, 1e-300, 7.0],
               dtype=np.float64)
F16 = np.array([0.0, -0.0, 1.0, -1.0, 1.5, 3.0, 0.1, 65504.0, -65504.0, 6.1035e-05, 5.96e-08, np.inf, -np.inf,
                np.nan, 1.0009765625, 2049.0], dtype=np.float16)
VALUES = {"f32": F32, "f64": F64, "f16": F16}


def _bits(values: np.ndarray) -> np.ndarray:
    return values.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[values.dtype.itemsize])


def _check(run_op, spelling: str, operands: str, in_types: list[str], out_type: str, *inputs: np.ndarray) -> None:
    got = run_op(f"{spelling} %d, {operands}", in_types, out_type, *inputs)
    expected = reference(spelling, *inputs)
    ok = expected.outputs[0].matches(got)
    bad = np.flatnonzero(~ok)
    assert not bad.size, (f"{spelling}: {bad.size}/{ok.size} lanes differ; first: inputs "
                          f"{[x[bad[0]] for x in inputs]} got {int(got[bad[0]]):#x} "
                          f"expected {int(expected.outputs[0].bits[bad[0]]):#x}")


def _grid(t: str, arity: int) -> list[np.ndarray]:
    values = VALUES[t] if arity < 3 else VALUES[t][::2]
    return [np.array(x, dtype=VALUES[t].dtype) for x in zip(*itertools.product(values, repeat=arity))]


ROUNDINGS = ["rn", "rz", "rm", "rp"]


@pytest.mark.parametrize("rnd", ROUNDINGS)
@pytest.mark.parametrize("op", ["add", "sub", "mul"])
@pytest.mark.parametrize("t", ["f32", "f64"])
def test_arith_rounding(run_op, op: str, rnd: str, t: str) -> None:
    _check(run_op, f"{op}.{rnd}.{t}", "%a0, %a1", [t, t], t, *_grid(t, 2))


@pytest.mark.parametrize("spelling", ["add.f32", "add.ftz.f32", "mul.ftz.f32", "add.sat.f32", "mul.rz.ftz.sat.f32",
                                      "sub.rm.ftz.f32", "add.f16", "mul.rn.f16", "sub.ftz.f16", "add.sat.f16",
                                      "mul.ftz.sat.f16"])
def test_arith_modifiers(run_op, spelling: str) -> None:
    t = spelling.rsplit(".", 1)[1]
    _check(run_op, spelling, "%a0, %a1", [t, t], t, *_grid(t, 2))


@pytest.mark.parametrize("rnd", ROUNDINGS)
def test_fma_f32(run_op, rnd: str) -> None:
    _check(run_op, f"fma.{rnd}.f32", "%a0, %a1, %a2", ["f32"] * 3, "f32", *_grid("f32", 3))


def test_fma_f64_rn(run_op) -> None:
    _check(run_op, "fma.rn.f64", "%a0, %a1, %a2", ["f64"] * 3, "f64", *_grid("f64", 3))


def test_fma_f64_product_beyond_range_plus_inf(run_op) -> None:
    big = np.array([-1.7976931348623157e308], np.float64)
    _check(run_op, "fma.rn.f64", "%a0, %a1, %a2", ["f64"] * 3, "f64", big, big, np.array([-np.inf]))


def test_rcp_approx(run_op) -> None:
    _check(run_op, "rcp.approx.f32", "%a0", ["f32"], "f32", F32)


DIVISIONS = ["div.rn.f32", "div.rz.f32", "div.rm.f32", "div.rp.f32", "div.rn.f64", "div.rz.f64", "div.rp.f64",
             "div.rn.ftz.f32", "div.full.f32", "div.approx.f32", "rcp.rn.f32", "rcp.rz.f32", "rcp.rn.f64",
             "rcp.rm.f64"]
_HUGE = {"f32": 2.0 ** 126, "f64": 2.0 ** 1022}


def _division_lanes(spelling: str, huge: bool) -> list[np.ndarray]:
    """Operand lanes of a division; ``huge`` selects those whose divisor exceeds 2^126 (f32) / 2^1022 (f64)."""
    t = spelling.rsplit(".", 1)[1]
    lanes = _grid(t, 2) if spelling.startswith("div") else [VALUES[t]]
    divisor = np.abs(lanes[-1])
    with np.errstate(all="ignore"):
        quotient = np.abs(lanes[0].astype(np.float64) / lanes[-1]) if len(lanes) == 2 else 1.0 / divisor
    tiny = np.finfo(lanes[0].dtype).tiny
    subnormal = (quotient < tiny) & (quotient > 0) & (not spelling.startswith("div.approx"))
    extreme = ((divisor > _HUGE[t]) & np.isfinite(divisor)) | subnormal
    keep = extreme if huge else ~extreme
    return [x[keep] for x in lanes]


@pytest.mark.parametrize("spelling", DIVISIONS)
def test_div_rcp(run_op, spelling: str) -> None:
    t = spelling.rsplit(".", 1)[1]
    lanes = _division_lanes(spelling, huge=False)
    _check(run_op, spelling, "%a0, %a1" if len(lanes) == 2 else "%a0", [t] * len(lanes), t, *lanes)


@pytest.mark.parametrize("spelling", ["div.rn.f32", "rcp.rn.f64"])
def test_div_rcp_huge_divisor(run_op, spelling: str) -> None:
    t = spelling.rsplit(".", 1)[1]
    lanes = _division_lanes(spelling, huge=True)
    _check(run_op, spelling, "%a0, %a1" if len(lanes) == 2 else "%a0", [t] * len(lanes), t, *lanes)


def test_div_approx_huge_divisor_is_zero(run_op) -> None:
    lanes = _division_lanes("div.approx.f32", huge=True)
    _check(run_op, "div.approx.f32", "%a0, %a1", ["f32", "f32"], "f32", *lanes)


@pytest.mark.parametrize("spelling", ["sqrt.rn.f32", "sqrt.rz.f32", "sqrt.rp.f32", "sqrt.rn.f64", "sqrt.rm.f64",
                                      "sqrt.approx.f32", "rsqrt.approx.f32", "rcp.approx.ftz.f32",
                                      "sqrt.approx.ftz.f32", "abs.f32", "neg.f64", "abs.ftz.f32", "neg.f16",
                                      "abs.f16"])
def test_unary(run_op, spelling: str) -> None:
    t = spelling.rsplit(".", 1)[1]
    _check(run_op, spelling, "%a0", [t], t, VALUES[t])


@pytest.mark.parametrize("spelling", ["sin.approx.f32", "cos.approx.f32", "lg2.approx.f32", "ex2.approx.f32",
                                      "tanh.approx.f32", "ex2.approx.ftz.f32", "lg2.approx.ftz.f32"])
def test_approx(run_op, spelling: str) -> None:
    values = np.concatenate([F32, np.linspace(-3.14, 3.14, 41, dtype=np.float32),
                             np.array([-20.0, -5.0, 0.01, 0.5, 5.0, 20.0, 100.0], np.float32)])
    _check(run_op, spelling, "%a0", ["f32"], "f32", values)


@pytest.mark.parametrize("spelling", ["min.f32", "max.f32", "min.NaN.f32", "max.NaN.f32", "min.f64", "max.f64",
                                      "min.ftz.f32", "min.f16", "max.NaN.f16", "copysign.f32", "copysign.f64"])
def test_min_max_copysign(run_op, spelling: str) -> None:
    t = spelling.rsplit(".", 1)[1]
    _check(run_op, spelling, "%a0, %a1", [t, t], t, *_grid(t, 2))


@pytest.mark.parametrize("cmp", ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu",
                                 "num", "nan"])
def test_setp_float(run_op, cmp: str) -> None:
    _check(run_op, f"setp.{cmp}.f32", "%a0, %a1", ["f32", "f32"], "pred", *_grid("f32", 2))


def test_setp_ftz(run_op) -> None:
    _check(run_op, "setp.eq.ftz.f32", "%a0, %a1", ["f32", "f32"], "pred", *_grid("f32", 2))


@pytest.mark.parametrize("kind", ["finite", "infinite", "number", "notanumber", "normal", "subnormal"])
@pytest.mark.parametrize("t", ["f32", "f64"])
def test_testp(run_op, kind: str, t: str) -> None:
    _check(run_op, f"testp.{kind}.{t}", "%a0", [t], "pred", VALUES[t])


@pytest.mark.parametrize("rnd", ["rz", "rm", "rp"])
def test_fma_f64_directed(run_op, rnd: str) -> None:
    lanes = _grid("f64", 3)  # tiny and overflowing products included (lower_float_exact scales them)
    _check(run_op, f"fma.{rnd}.f64", "%a0, %a1, %a2", ["f64"] * 3, "f64", *lanes)


F16X2 = np.array([[1.0, -2.0], [0.5, 65504.0], [np.inf, -0.0], [np.nan, 3.0], [6e-8, -6e-5], [0.1, 0.2]],
                 np.float16)


@pytest.mark.parametrize("spelling", ["add.f16x2", "sub.rn.f16x2", "mul.f16x2", "mul.ftz.f16x2", "add.sat.f16x2",
                                      "min.f16x2", "max.NaN.f16x2"])
def test_packed_half2(run_op, spelling: str) -> None:
    pairs = [np.array(x) for x in zip(*itertools.product(range(len(F16X2)), repeat=2))]
    a = F16X2[pairs[0]].view(np.uint32).ravel()
    b = F16X2[pairs[1]].view(np.uint32).ravel()
    got = run_op(f"{spelling} %d, %a0, %a1", ["f16x2", "f16x2"], "f16x2", a, b)
    expected = reference(spelling, a, b)
    assert expected.outputs[0].matches(got).all(), spelling


def test_fma_f16x2(run_op) -> None:
    idx = [np.array(x) for x in zip(*itertools.product(range(len(F16X2)), repeat=3))]
    a, b, c = (F16X2[i].view(np.uint32).ravel() for i in idx)
    got = run_op("fma.rn.f16x2 %d, %a0, %a1, %a2", ["f16x2"] * 3, "f16x2", a, b, c)
    assert reference("fma.rn.f16x2", a, b, c).outputs[0].matches(got).all()


BF16 = np.array([0x0000, 0x8000, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7FC0, 0x0001, 0x807F, 0x7F7F, 0x4049, 0x3F81,
                 0x4B80, 0x3B80], np.uint16)


@pytest.mark.parametrize("spelling", ["add.bf16", "sub.rn.bf16", "mul.rn.bf16", "min.bf16", "max.NaN.bf16",
                                      "neg.bf16", "abs.bf16"])
def test_bf16(run_op, spelling: str) -> None:
    if spelling.startswith(("neg", "abs")):
        _check(run_op, spelling, "%a0", ["bf16"], "bf16", BF16)
        return
    a, b = (np.array(x, np.uint16) for x in zip(*itertools.product(BF16, repeat=2)))
    _check(run_op, spelling, "%a0, %a1", ["bf16", "bf16"], "bf16", a, b)


def test_fma_bf16(run_op) -> None:
    a, b, c = (np.array(x, np.uint16) for x in zip(*itertools.product(BF16[::2], repeat=3)))
    _check(run_op, "fma.rn.bf16", "%a0, %a1, %a2", ["bf16"] * 3, "bf16", a, b, c)


@pytest.mark.parametrize("spelling", ["ex2.approx.f16", "tanh.approx.f16", "ex2.approx.ftz.bf16"])
def test_half_approx(run_op, spelling: str) -> None:
    t = spelling.rsplit(".", 1)[1]
    values = F16.view(np.uint16) if t == "f16" else BF16
    _check(run_op, spelling, "%a0", [t], t, values)
