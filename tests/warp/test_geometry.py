"""T1, T14, T24: %laneid, %warpid, %nwarpid, %lanemask_*, WARP_SZ under Mode P, odd block shapes."""

from __future__ import annotations

import numpy as np
import pytest

from tests.warp.conftest import SENTINEL, run, warp_kernel
from tests.warp.model import lanemask

IDENTITY = warp_kernel("""
mov.u32 %o0, %laneid; mov.u32 %o1, %warpid; mov.u32 %o2, %nwarpid; mov.u32 %o3, %f;
mov.u32 %o4, %lanemask_eq; mov.u32 %o5, %lanemask_lt; mov.u32 %o6, %lanemask_le;
mov.u32 %o7, %lanemask_ge; mov.u32 %o8, %lanemask_gt;
mov.u32 %t0, %tid.x; div.u32 %o9, %t0, WARP_SZ; mov.u32 %o10, WARP_SZ;
""", 11)


@pytest.mark.parametrize("block", [(96, 1, 1), (20, 3, 1), (64, 1, 1), (7, 3, 2), (40, 1, 1)])
def test_identity_and_lanemasks(block: tuple[int, int, int]) -> None:
    out = run(IDENTITY, block, [], 11, grid=2)
    size = block[0] * block[1] * block[2]
    flat = np.tile(np.arange(size), 2)
    assert (out[3] == flat).all()
    assert (out[0] == flat % 32).all()
    assert (out[1] == flat // 32).all()
    assert (out[2] == 32).all() and (out[2] > out[1]).all()
    for row, kind in zip(range(4, 9), ("eq", "lt", "le", "ge", "gt")):
        assert [int(x) for x in out[row]] == [lanemask(kind, int(f) % 32) for f in flat], kind
    tid_x = np.tile(np.arange(size) % block[0], 2)
    assert (out[9] == tid_x // 32).all()
    assert (out[10] == 32).all()
    assert SENTINEL not in out
