"""``div.rn``/``rcp.rn`` f32/f64 are correctly rounded whatever ``v_rcp`` returns within its
documented bound: compiled PTX run on the emulator under the nominal and several adversarial
approximation policies (``ptx2gcn.runtime.emulator.approx``), compared bit for bit with the host's
IEEE division. The lanes stress the all-ones significands on which LLVM's own fdiv macro is one ULP
low (``tests/emu/test_division.py``), power-of-two and integer numerators, huge and tiny
denominators, and random bit patterns.
"""

from __future__ import annotations

import numpy as np
import pytest

import ptx2gcn
from ptx2gcn.fuzz.device import launch_buffers

KERNEL = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pq, .param .u32 n)
{
.reg .b32 %r<3>; .reg .b64 %rd<8>; .reg .T %f<4>;
ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pq];
mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mad.lo.u32 %r1, %r2, 64, %r1;
mul.wide.u32 %rd4, %r1, SIZE;
add.u64 %rd5, %rd1, %rd4; add.u64 %rd6, %rd2, %rd4; add.u64 %rd7, %rd3, %rd4;
ld.global.T %f1, [%rd5]; ld.global.T %f2, [%rd6];
OP
st.global.T [%rd7], %f3;
ret;
}
"""
OPS = {"div": "div.rn.T %f3, %f1, %f2;", "rcp": "rcp.rn.T %f3, %f2;"}
ALL_ONES = {
    "f32": [0x3FFFFFFF, 0x3F7FFFFF, 0x7F7FFFFF, 0x00FFFFFF, 0x007FFFFF, 0x4B7FFFFF],
    "f64": [0x3FFFFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF, 0x001FFFFFFFFFFFFF, 0x000FFFFFFFFFFFFF],
}
LANES = 512


def _lanes(t: str) -> tuple[np.ndarray, np.ndarray]:
    dtype, unsigned = (np.float32, np.uint32) if t == "f32" else (np.float64, np.uint64)
    info = np.finfo(dtype)
    rng = np.random.default_rng(9)
    a = rng.integers(0, np.iinfo(unsigned).max, LANES, dtype=unsigned, endpoint=True).view(dtype).copy()
    b = rng.integers(0, np.iinfo(unsigned).max, LANES, dtype=unsigned, endpoint=True).view(dtype).copy()
    half = LANES // 2
    signs = np.where(rng.random(half) < 0.5, -1, 1).astype(dtype)
    b[:half] = np.array(ALL_ONES[t], unsigned).view(dtype)[rng.integers(0, len(ALL_ONES[t]), half)] * signs
    quarter = half // 2
    a[:quarter] = np.ldexp(np.ones(quarter, dtype), rng.integers(info.minexp - info.nmant, info.maxexp, quarter))
    a[quarter:half] = rng.integers(1, 2**20, quarter).astype(dtype)
    return a, b


@pytest.mark.parametrize("policy", [("nominal", 0), ("adversarial", 1), ("adversarial", 2), ("adversarial", 3)],
                         ids=["nominal", "adversarial1", "adversarial2", "adversarial3"])
@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("t", ["f32", "f64"])
def test_division_is_correctly_rounded_under_any_rcp_within_its_bound(
    t: str, op: str, policy: tuple[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PTX2GCN_EMU_APPROX", policy[0])
    monkeypatch.setenv("PTX2GCN_EMU_APPROX_SEED", str(policy[1]))
    size = 4 if t == "f32" else 8
    ptx = KERNEL.replace("OP", OPS[op]).replace("SIZE", str(size)).replace(".T", "." + t)
    code = ptx2gcn.compile(ptx, arch="gfx942").data
    a, b = _lanes(t)
    _, _, raw = launch_buffers(code, "k", [a.tobytes(), b.tobytes(), bytes(a.nbytes)], [LANES], LANES // 64, 64)
    got = np.frombuffer(raw, a.dtype)
    with np.errstate(all="ignore"):
        want = (a if op == "div" else a.dtype.type(1)) / b
    unsigned = np.uint32 if t == "f32" else np.uint64
    bad = np.flatnonzero((got.view(unsigned) != want.view(unsigned)) & ~(np.isnan(got) & np.isnan(want)))
    assert bad.size == 0, [(hex(a.view(unsigned)[i]), hex(b.view(unsigned)[i]), hex(got.view(unsigned)[i]),
                            hex(want.view(unsigned)[i])) for i in bad[:5]]
