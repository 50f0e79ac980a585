"""min/max ``.xorsign.abs`` on the emulator against the reference model, and the invalid
``.sat`` + ``.relu`` combination as a located error.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ptx2gcn.compiler import compile
from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.reference import run as reference
from tests.codegen.conftest import op_kernel

HALF = [0x0000, 0x8000, 0x3C00, 0xBC00, 0x3E00, 0xC200, 0x0001, 0x8001, 0x7BFF, 0x7C00, 0xFC00, 0x7E00,
        0xFE01]
BF16 = [0x0000, 0x8000, 0x3F80, 0xBF80, 0x3FC0, 0xC040, 0x0001, 0x8001, 0x7F7F, 0x7F80, 0xFF80, 0x7FC0,
        0xFFC1]
F32 = [0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x3FC00000, 0xC0400000, 0x00000001, 0x80000001,
       0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001]
_VALUES = {"f16": HALF, "bf16": BF16, "f32": F32}


def _lanes(t: str) -> tuple[np.ndarray, np.ndarray]:
    scalar = t.removesuffix("x2")
    values = _VALUES[scalar]
    pairs = list(itertools.product(values, repeat=2))
    a = np.array([p[0] for p in pairs], np.uint32)
    b = np.array([p[1] for p in pairs], np.uint32)
    if t.endswith("x2"):  # pair each lane with a shifted copy in the high half
        a, b = a | (np.roll(a, 5) << 16), b | (np.roll(b, 3) << 16)
    return a, b


@pytest.mark.parametrize("t", ["f16", "bf16", "f16x2", "bf16x2", "f32"])
@pytest.mark.parametrize("spelling", ["min.xorsign.abs", "max.xorsign.abs", "min.NaN.xorsign.abs",
                                      "max.NaN.xorsign.abs"])
def test_xorsign_abs(run_op, spelling: str, t: str) -> None:
    full = f"{spelling}.{t}"
    a, b = _lanes(t)
    width = {"f16": np.uint16, "bf16": np.uint16}.get(t, np.uint32)
    got = run_op(f"{full} %d, %a0, %a1", [t, t], t, a.astype(width), b.astype(width))
    expected = reference(full, a.astype(width), b.astype(width)).outputs[0]
    ok = expected.matches(got)
    assert ok.all(), [(f"{x:#x}", f"{y:#x}", f"got {int(g):#x}", f"want {int(w):#x}")
                      for x, y, g, w in zip(a[~ok], b[~ok], got[~ok], expected.bits[~ok], strict=True)][:8]


def test_xorsign_differs_from_plain_min() -> None:
    # the model's own sanity: min.xorsign.abs(-1, 2) is -1, min.xorsign.abs(-3, -2) is +2
    a = np.array([0xBC00, 0xC200], np.uint16)
    b = np.array([0x4000, 0xC000], np.uint16)
    assert [int(x) for x in reference("min.xorsign.abs.f16", a, b).outputs[0].bits] == [0xBC00, 0x4000]


@pytest.mark.parametrize("spelling", ["fma.rn.sat.relu.f16 %d, %a0, %a1, %a2",
                                      "fma.rn.ftz.sat.relu.f16x2 %d, %a0, %a1, %a2"])
def test_sat_with_relu_is_a_located_error(spelling: str) -> None:
    t = spelling.split()[0].rsplit(".", 1)[1]
    ptx = op_kernel(spelling, [t] * 3, t)
    line = ptx.splitlines().index(spelling + ";") + 1
    with pytest.raises(Ptx2GcnError) as caught:
        compile(ptx)
    text = caught.value.render()
    assert f":{line}:" in text and "'.relu' cannot be combined with modifier '.sat'" in text, text
