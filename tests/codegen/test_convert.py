"""cvt between type pairs with rounding, saturation, .ftz and .relu: emulator vs reference model."""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.reference import run as reference

F32 = np.array([0.0, -0.0, 0.5, 1.5, 2.5, -2.5, -0.5, 1.0 + 2**-23, 3.4028235e38, -3.4028235e38, np.inf,
                -np.inf, np.nan, 2**-149, -(2**-126), 65504.0, 65520.0, 1e10, -1e10, 2147483520.0,
                4294967296.0, 0.1, 1.00048828125, 1.0009765625, 3.0e-8, 123456.789], dtype=np.float32)
F64 = np.array([0.0, -0.0, 0.5, 1.5, -2.5, 1.0 + 2**-52, 1.7976931348623157e308, np.inf, -np.inf, np.nan,
                2**-1074, 1e-40, 3.4028235677973366e38, 3.4028235e38 * 1.0000001, 0.1, 9007199254740993.0,
                -9.3e18, 1.8446744073709552e19, 1.00000001], dtype=np.float64)
F16 = np.array([0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 65504.0, -65504.0, np.inf, np.nan, 6e-8, 0.1], dtype=np.float16)
INTS = {
    "s32": np.array([0, 1, -1, 2**31 - 1, -(2**31), 16777217, -16777217, 255, 256, -129, 70000], np.int64),
    "u32": np.array([0, 1, 2**32 - 1, 2**31, 16777217, 16777219, 65535, 65536, 300], np.int64),
    "s64": np.array([0, 1, -1, 2**63 - 1, -(2**63), 2**53 + 1, -(2**53) - 1, 2**24 + 1, 2**40 + 3], np.int64),
    "u64": np.array([0, 1, 2**64 - 1, 2**63, 2**53 + 1, 2**24 + 1, 2**62 + 2**10 + 1], np.uint64),
    "s16": np.array([0, 1, -1, 32767, -32768, 255], np.int64),
    "u16": np.array([0, 1, 65535, 255, 256], np.int64),
    "s8": np.array([0, 1, -1, 127, -128], np.int64),
    "u8": np.array([0, 1, 255, 128], np.int64),
}
BF16 = np.array([0x0000, 0x8000, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7FC0, 0x0001, 0x807F, 0x7F7F, 0x4049],
                np.uint16)  # bit patterns: ±0, ±1, ±inf, NaN, subnormals, max, 3.14
FLOATS = {"f32": F32, "f64": F64, "f16": F16, "bf16": BF16}
_STORAGE = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def _inputs(stype: str) -> np.ndarray:
    if stype in FLOATS:
        return FLOATS[stype]
    width = int(stype[1:])
    return (INTS[stype].astype(np.int64) if INTS[stype].dtype == np.int64 else INTS[stype]).astype(_STORAGE[width])


def _check(run_op, spelling: str, dtype: str, stype: str) -> None:
    values = _inputs(stype)
    got = run_op(f"{spelling} %d, %a0", [stype], dtype, values)
    expected = reference(spelling, values)
    ok = expected.outputs[0].matches(got)
    bad = np.flatnonzero(~ok)
    assert not bad.size, (f"{spelling}: {bad.size}/{ok.size} lanes differ; first input {values[bad[0]]!r} "
                          f"got {int(got[bad[0]]):#x} expected {int(expected.outputs[0].bits[bad[0]]):#x}")


FLOAT_TO_INT = [f"cvt.{r}.{d}.{s}" for r in ("rni", "rzi", "rmi", "rpi") for d in ("s32", "u32", "s64", "u64")
                for s in ("f32", "f64")] + ["cvt.rni.s16.f32", "cvt.rzi.u8.f64", "cvt.rni.s32.f16",
                                            "cvt.rzi.ftz.s32.f32", "cvt.rmi.u16.f16"]
INT_TO_FLOAT = [f"cvt.{r}.{d}.{s}" for r in ("rn", "rz", "rm", "rp") for d in ("f32", "f64")
                for s in ("s32", "u32", "s64", "u64")] + ["cvt.rn.f16.s32", "cvt.rz.f16.u32", "cvt.rn.f32.s16",
                                                          "cvt.rn.f64.u8"]
FLOAT_TO_FLOAT = ["cvt.f64.f32", "cvt.f32.f16", "cvt.f64.f16", "cvt.rn.f32.f64", "cvt.rz.f32.f64",
                  "cvt.rm.f32.f64", "cvt.rp.f32.f64", "cvt.rn.f16.f32", "cvt.rz.f16.f32", "cvt.rm.f16.f32",
                  "cvt.rp.f16.f32", "cvt.rn.f16.f64", "cvt.rni.f32.f32", "cvt.rzi.f32.f32", "cvt.rmi.f64.f64",
                  "cvt.rpi.f64.f64", "cvt.rni.f16.f16", "cvt.rn.ftz.f32.f64", "cvt.ftz.f64.f32", "cvt.sat.f32.f32",
                  "cvt.ftz.sat.f32.f32", "cvt.rn.sat.f16.f32", "cvt.rn.relu.f16.f32", "cvt.rn.bf16.f32",
                  "cvt.f32.bf16"]
INT_TO_INT = ["cvt.s64.s32", "cvt.u64.u32", "cvt.u32.u64", "cvt.s32.s16", "cvt.u16.u32", "cvt.s8.s32",
              "cvt.sat.u32.s32", "cvt.sat.s32.u32", "cvt.sat.s8.s32", "cvt.sat.u8.s64", "cvt.sat.s16.u64",
              "cvt.sat.u16.s16", "cvt.s32.u8", "cvt.u64.s16"]


def _types(spelling: str) -> tuple[str, str]:
    parts = spelling.split(".")
    return parts[-2], parts[-1]


@pytest.mark.parametrize("spelling", FLOAT_TO_INT + INT_TO_FLOAT + FLOAT_TO_FLOAT + INT_TO_INT)
def test_cvt(run_op, spelling: str) -> None:
    dtype, stype = _types(spelling)
    _check(run_op, spelling, dtype, stype)


@pytest.mark.parametrize("spelling", ["cvt.rz.bf16.f32", "cvt.rm.bf16.f32", "cvt.rp.bf16.f32"])
def test_cvt_directed_bf16(run_op, spelling: str) -> None:
    _check(run_op, spelling, "bf16", "f32")
