"""cvt into bf16 (from f64, f16 and integers, every rounding), .satfinite and tf32 on the emulator
against the reference model (``ptx2gcn.reference``: exact source value, one rounding).

The integer and f64 lanes include values whose rounding to f32 lands on a bf16 midpoint, where
LLVM's conversion through f32 rounds twice.
"""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.compiler import compile
from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.reference import run as reference
from tests.codegen.conftest import op_kernel

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


@pytest.mark.parametrize("spelling", ["cvt.rn.bf16.f64", "cvt.rz.bf16.f64", "cvt.rm.bf16.f64",
                                      "cvt.rp.bf16.f64", "cvt.rn.relu.bf16.f64"])
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


def _pair_kernel(spelling: str) -> str:
    """k(out.b16, in0.f32, in1.f32, n): ``spelling d, a, b`` into a 16-bit FP8 pair."""
    return op_kernel(f"{spelling} %d, %a0, %a1", ["f32", "f32"], "b16")


@pytest.mark.parametrize("spelling", ["cvt.rn.satfinite.e4m3x2.f32", "cvt.rn.satfinite.e5m2x2.f32",
                                      "cvt.rn.satfinite.relu.e4m3x2.f32", "cvt.rn.satfinite.relu.e5m2x2.f32"])
def test_fp8_pair_from_f32(run_op, spelling: str) -> None:
    rng = np.random.default_rng(8)
    values = np.concatenate([_floats("f32"), np.array(
        [448.0, 464.0, 463.9, 480.0, 57344.0, 61440.0, 61439.0, 2.0**-9, 2.0**-10, 1.5 * 2.0**-10, 2.0**-16,
         2.0**-17, 3 * 2.0**-18, 0.0625 + 2.0**-8, 1.0 + 2.0**-4, 1.0 + 3 * 2.0**-5, -0.0],
        np.float32).view(np.uint32),
        rng.uniform(-600, 600, 300).astype(np.float32).view(np.uint32),
        (rng.uniform(-1, 1, 300) * 2.0 ** rng.integers(-20, 18, 300)).astype(np.float32).view(np.uint32)])
    a, b = values, np.roll(values, 11)
    got = run_op(f"{spelling} %d, %a0, %a1", ["f32", "f32"], "b16", a, b)
    expected = reference(spelling, a, b).outputs[0]
    ok = expected.matches(got)
    assert ok.all(), [(f"{int(x):#x}", f"{int(y):#x}", f"got {int(g):#06x}", f"want {int(w):#06x}")
                      for x, y, g, w in zip(a[~ok], b[~ok], got[~ok], expected.bits[~ok], strict=True)][:8]


@pytest.mark.parametrize("spelling", ["cvt.rn.satfinite.e4m3x2.f16x2", "cvt.rn.satfinite.e5m2x2.f16x2",
                                      "cvt.rn.satfinite.relu.e4m3x2.f16x2"])
def test_fp8_pair_from_f16x2(run_op, spelling: str) -> None:
    halves = np.arange(0, 1 << 16, 7, dtype=np.uint32)
    packed = halves | (np.roll(halves, 101) << np.uint32(16))
    got = run_op(f"{spelling} %d, %a0", ["b32"], "b16", packed)
    expected = reference(spelling, packed).outputs[0]
    ok = expected.matches(got)
    assert ok.all(), [(f"{int(x):#x}", f"got {int(g):#06x}", f"want {int(w):#06x}")
                      for x, g, w in zip(packed[~ok], got[~ok], expected.bits[~ok], strict=True)][:8]


@pytest.mark.parametrize("spelling", ["cvt.rn.f16x2.e4m3x2", "cvt.rn.f16x2.e5m2x2",
                                      "cvt.rn.relu.f16x2.e4m3x2", "cvt.rn.relu.f16x2.e5m2x2"])
def test_fp8_pair_to_f16x2(run_op, spelling: str) -> None:
    pairs = np.arange(0, 1 << 16, dtype=np.uint32)[::3].astype(np.uint16)  # every byte value, both halves
    got = run_op(f"{spelling} %d, %a0", ["b16"], "b32", pairs)
    expected = reference(spelling, pairs).outputs[0]
    ok = expected.matches(got)
    assert ok.all(), [(f"{int(x):#x}", f"got {int(g):#010x}", f"want {int(w):#010x}")
                      for x, g, w in zip(pairs[~ok], got[~ok], expected.bits[~ok], strict=True)][:8]


def test_fp8_without_satfinite_is_a_located_error() -> None:
    ptx = _pair_kernel("cvt.rn.e4m3x2.f32")
    with pytest.raises(Ptx2GcnError) as caught:
        compile(ptx)
    assert "requires modifier '.satfinite'" in caught.value.render()
