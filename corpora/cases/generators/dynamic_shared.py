"""Cases of corpora/nvcc dynamic_shared.cu.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

from generators.common import NV, case, f32_inputs, rng


# == dynamic_shared.cu ===============================================================================
def dynamic_shared() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "dynamic_shared.ptx"
    grid, block = 3, 100
    x = f32_inputs(120, grid * block)
    yield "dynamic_shared/dyn_shared_float", case(
        src, "dyn_shared_float", grid, block,
        [("in", Buffer("f32", x)), ("out", Buffer("f32", count=grid * block))],
        {"out": x.reshape(grid, block)[:, ::-1].reshape(-1).copy()},
        shared_bytes=block * 4,
    )
    t = 90
    v = rng(121).integers(-1000, 1000, t).astype(np.int32)
    odd = int(np.count_nonzero(v & 1))
    out = np.array([int(v[(i + 1) % t]) + int(np.trunc(v[i] * 0.5)) + odd for i in range(t)], np.int32)
    yield "dynamic_shared/dyn_shared_carved", case(
        src, "dyn_shared_carved", 1, t,
        [("in", Buffer("s32", v)), ("out", Buffer("s32", count=t)), ("n_ints", Scalar("s32", t))],
        {"out": out},
        shared_bytes=((t * 4 + 15) & ~15) + t * 8,
    )
    t = 70
    x = f32_inputs(122, t * 4)
    yield "dynamic_shared/dyn_shared_float4", case(
        src, "dyn_shared_float4", 1, t,
        [("in", Buffer("f32", x)), ("out", Buffer("f32", count=t * 4))],
        {"out": x.reshape(t, 4)[np.arange(t) ^ 1].reshape(-1).copy()},
        shared_bytes=t * 16,
    )
    t = 72
    g = rng(123).integers(-(10**6), 10**6, t).astype(np.int32)
    out = []
    for i in range(t):
        if i & 1:
            out += [1, 0, 0, int(g[i])]
        elif i & 2:
            out += [0, 1, 0, int(g[i])]
        else:
            out += [0, 0, 1, (i & 3) + 1]
    yield "dynamic_shared/address_spaces", case(
        src, "address_spaces", 1, t,
        [("g", Buffer("s32", g)), ("out", Buffer("s32", count=t * 4))],
        {"out": np.array(out, np.int32)},
        shared_bytes=t * 4,
        note="the kernel has no static shared memory: the dynamic array's shared address is 0",
    )
