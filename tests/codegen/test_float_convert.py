"""cvt into bf16 (from f64, f16 and integers, every rounding), .satfinite and tf32 on the emulator
against the reference model (``ptx2gcn.reference``: exact source value, one rounding).

The integer and f64 lanes include values whose rounding to f32 lands on a bf16 midpoint, where
LLVM's conversion through f32 rounds twice.
"""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.reference import run as reference

_STORAGE = {"s32": np.uint32, "u32": np.uint32, "s64": np.uint64, "u64": np.uint64, "f64": np.uint64,
            "f32": np.uint32, "f16": np.uint16, "bf16": np.uint16, "s16": np.uint16, "u8": np.uint8}


def _ints(t: str) -> np.ndarray:
    bits = int(t[1:])
    rng = np.random.default_rng(bits)
    hard = [0, 1, 3, 255, 2**30 + 2**22 + 1, 2**30 + 2**22, 2**30 + 2**22 - 1, 2**24 + 1, 2**31 - 1]
    if bits == 64:
        hard += [2**62 + 2**54 + 1, 2**63 - 1, 2**62 + 2**54, 2**40 + 2**32 + 1]
    values = [v for v in hard if v < 2 ** (bits - (t[0] == "s"))]
    if t[0] == "s":
        values += [-v for v in values] + [-(2 ** (bits - 1))]
    mask = (1 << bits) - 1
    raw = np.array([v & mask for v in values], dtype=np.uint64)
    random = rng.integers(0, 2**63, 200, dtype=np.uint64) >> np.uint64(rng.integers(0, 40))
    return np.concatenate([raw, random & np.uint64(mask)]).astype(_STORAGE[t])


def _floats(t: str) -> np.ndarray:
    rng = np.random.default_rng(7)
    if t == "f64":
        hard = np.array([1.0 + 2**-8 + 2**-40, 1.0 + 2**-8, 1.0 + 2**-8 - 2**-40, 3.3895313892515355e38,
                         3.4e38, -3.4e39, 1e-40, 9.2e-41, 5e-324, np.inf, -np.inf, np.nan, -0.0, 0.0],
                        np.float64).view(np.uint64)
        random = rng.integers(0x3000000000000000, 0x5000000000000000, 300, dtype=np.uint64)
        return np.concatenate([hard, random, random | np.uint64(0x8000000000000000)])
    if t == "f32":
        hard = np.array([3.3895e38, 3.39e38, 3.4028235e38, -3.4028235e38, np.inf, -np.inf, np.nan, 1.0,
                         1.0 + 2**-8, 1.0 + 2**-9 + 2**-20, 65504.0, 65519.0, 65520.0, 1e-40, -0.0],
                        np.float32).view(np.uint32)
        random = rng.integers(0, 2**32, 400, dtype=np.uint64).astype(np.uint32)
        return np.concatenate([hard, random])
    return np.arange(0, 1 << 16, 37, dtype=np.uint16)  # f16 / bf16 sources: a sweep


def _check(run_op, spelling: str, src: str, dst: str, values: np.ndarray) -> None:
    register = {"tf32": "b32"}.get(dst, dst)
    got = run_op(f"{spelling} %d, %a0", [src], register, values)
    expected = reference(spelling, values).outputs[0]
    ok = expected.matches(got)
    assert ok.all(), [(f"{int(v):#x}", f"got {int(g):#x}", f"want {int(w):#x}")
                      for v, g, w in zip(values[~ok], got[~ok], expected.bits[~ok], strict=True)][:8]


@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
@pytest.mark.parametrize("src", ["s32", "u32", "s64", "u64"])
def test_int_to_bf16_rounds_once(run_op, mode: str, src: str) -> None:
    _check(run_op, f"cvt.{mode}.bf16.{src}", src, "bf16", _ints(src))


@pytest.mark.parametrize("spelling", ["cvt.rn.bf16.f64", "cvt.rz.bf16.f64", "cvt.rm.bf16.f64", "cvt.rp.bf16.f64",
                                      "cvt.rn.relu.bf16.f64"])
def test_f64_to_bf16_rounds_once(run_op, spelling: str) -> None:
    _check(run_op, spelling, "f64", "bf16", _floats("f64"))


@pytest.mark.parametrize("spelling", ["cvt.rn.satfinite.bf16.f32", "cvt.rn.relu.satfinite.bf16.f32",
                                      "cvt.rz.satfinite.bf16.f32", "cvt.rn.satfinite.f16.f32",
                                      "cvt.rz.relu.satfinite.f16.f32"])
def test_satfinite(run_op, spelling: str) -> None:
    _check(run_op, spelling, "f32", spelling.rsplit(".", 2)[1], _floats("f32"))


@pytest.mark.parametrize("spelling", ["cvt.rna.tf32.f32", "cvt.rna.satfinite.tf32.f32", "cvt.rn.tf32.f32",
                                      "cvt.rz.tf32.f32", "cvt.rn.satfinite.tf32.f32"])
def test_tf32(run_op, spelling: str) -> None:
    rng = np.random.default_rng(32)
    values = np.concatenate([_floats("f32"), (rng.integers(0, 2**19, 300, dtype=np.uint32) << np.uint32(13))
                             | np.uint32(0x1000), np.array([0x7F7FFFFF, 0x7F7FF000, 0xFF7FF000, 0x00001000,
                                                            0x00003000, 0x7F800001], np.uint32)])
    _check(run_op, spelling, "f32", "tf32", values)
