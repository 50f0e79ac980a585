"""Cases of corpora/nvcc transpose.cu.

Part of ``corpora/cases/make_cases.py`` (see its docstring for the invariant)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from casegen import Buffer, CaseSpec, Scalar

from generators.common import NV, case, f32_inputs, rng


# == transpose.cu ====================================================================================
def transpose() -> Iterator[tuple[str, CaseSpec]]:
    src = NV + "transpose.ptx"
    w, h = 70, 45
    x = f32_inputs(40, w * h)
    for kernel in ("transpose_naive", "transpose_shared"):
        yield f"transpose/{kernel}", case(
            src, kernel, (3, 2), (32, 8),
            [
                ("odata", Buffer("f32", count=w * h)), ("idata", Buffer("f32", x)), ("width", Scalar("s32", w)),
                ("height", Scalar("s32", h)),
            ],
            {"odata": x.reshape(h, w).T.reshape(-1).copy()},
        )
    n = 64
    m = rng(41).integers(0, 65536, n * n).astype(np.uint16)
    yield "transpose/transpose_inplace_u16", case(
        src, "transpose_inplace_u16", (2, 2), (32, 8),
        [("m", Buffer("u16", m)), ("n", Scalar("s32", n))],
        {"m": m.reshape(n, n).T.reshape(-1).copy()},
    )
