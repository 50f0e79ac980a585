"""NaN and bit-layout rules the PTX ISA states for f64: abs.f64 passes a NaN through unchanged
(9.7.3.9); rcp/rsqrt.approx.ftz.f64 read only a[63:32], clear d[31:0] and map input NaNs to
0x7fffffff00000000 (9.7.3.14/17). Expected values: hand-written bits and the reference model.
"""

from __future__ import annotations

import numpy as np
import pytest

from ptx2gcn.fuzz.known import FAILING_INPUTS
from ptx2gcn.reference import run as reference

F64 = np.array([0xFFFFFFFFFFFFFFFF, 0xFFF0000000000001, 0x7FF8000000000000, 0x7FF0000000000001,
                0xFFF0000000000000, 0x8000000000000000, 0xBFF0000000000000, 0x3FF0000000000001,
                0x000FFFFFFFFFFFFF, 0x0010000000000000, 0xB7F1069396DB6F0C, 0xBEA999E6F06A5F90,
                0x4010000000000000, 0x7FEFFFFFFFFFFFFF, 0x0000000100000000], dtype=np.uint64)


def test_abs_f64_passes_nan_through(run_op) -> None:
    got = run_op("abs.f64 %d, %a0", ["f64"], "f64", F64)
    nan = (F64 & np.uint64(0x7FFFFFFFFFFFFFFF)) > np.uint64(0x7FF0000000000000)
    want = np.where(nan, F64, F64 & np.uint64(0x7FFFFFFFFFFFFFFF))
    assert (got == want).all(), [f"{int(x):#x} -> {int(g):#x}" for x, g in zip(F64, got, strict=True)]


@pytest.mark.parametrize("spelling", ["rcp.approx.ftz.f64", "rsqrt.approx.ftz.f64"])
def test_gross_f64_approximations(run_op, spelling: str) -> None:
    extra = np.array([t[0] for t in FAILING_INPUTS.get(spelling, ())], dtype=np.uint64)
    rng = np.random.default_rng(64)
    values = np.concatenate([F64, extra, rng.integers(0, 2**63, 200, dtype=np.uint64),
                             rng.integers(0, 2**63, 50, dtype=np.uint64) | np.uint64(2**63)])
    got = run_op(f"{spelling} %d, %a0", ["f64"], "f64", values)
    assert not (got & np.uint64(0xFFFFFFFF)).any(), "d[31:0] must be zero"
    expected = reference(spelling, values).outputs[0]
    ok = expected.matches(got)
    assert ok.all(), [(f"{int(x):#x}", f"got {int(g):#x}", f"want {int(w):#x}")
                      for x, g, w in zip(values[~ok], got[~ok], expected.bits[~ok], strict=True)][:8]
    nan_in = (values >> np.uint64(32) & np.uint64(0x7FFFFFFF)) > np.uint64(0x7FF00000)
    assert (got[nan_in] == np.uint64(0x7FFFFFFF00000000)).all()


@pytest.mark.parametrize("instruction", [
    "add.f64 %d, %a0, 0d8000000000000000",
    "add.rm.f64 %d, 0d8000000000000000, %a0",
    "sub.f64 %d, %a0, 0d0000000000000000",
    "sub.rp.f64 %d, 0d8000000000000000, %a0",
    "mul.f64 %d, %a0, 0d3FF0000000000000",
    "mul.rz.f64 %d, 0dBFF0000000000000, %a0",
    "div.rn.f64 %d, %a0, 0dBFF0000000000000",
])
def test_f64_identity_constants_quiet_signalling_nans(run_op, instruction: str) -> None:
    """LLVM folds these to ``x`` or ``-x``, which would pass a signalling NaN through; PTX quiets it
    and keeps the payload (found by tests/conformance/test_metamorphic.py). Other values: the model."""
    spelling, operands = instruction.split(" ", 1)
    constant = next(int(p.strip()[2:], 16) for p in operands.split(",") if p.strip().startswith("0d"))
    got = run_op(instruction, ["f64"], "f64", F64)
    columns = [np.full(len(F64), constant, dtype=np.uint64) if p.strip().startswith("0d") else F64
               for p in operands.split(",")[1:]]
    expected = reference(spelling, *columns).outputs[0]
    ok = expected.matches(got)
    assert ok.all(), [(f"{int(x):#x}", f"got {int(g):#x}") for x, g in zip(F64[~ok], got[~ok], strict=True)]
    signalling = (F64 & np.uint64(0x7FF8000000000000)) == np.uint64(0x7FF0000000000000)
    signalling &= (F64 & np.uint64(0x000FFFFFFFFFFFFF)) != 0
    assert (got[signalling] & np.uint64(0x0008000000000000)).all(), "a signalling NaN came out unquieted"
