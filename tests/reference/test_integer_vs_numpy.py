"""Integer ops over every width and signedness against numpy's fixed-width arithmetic (wrapping
add/sub/mul, C-style truncating fmod, min/max), driven by hypothesis."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ptx2gcn.reference import run

DTYPES = {"u16": np.uint16, "s16": np.int16, "u32": np.uint32, "s32": np.int32,
          "u64": np.uint64, "s64": np.int64}


def arrays(name: str) -> st.SearchStrategy[np.ndarray]:
    dtype = np.dtype(DTYPES[name])
    info = np.iinfo(dtype)
    edges = st.sampled_from([info.min, info.max, 0, 1, -1 if info.min < 0 else 2])
    values = st.one_of(st.integers(int(info.min), int(info.max)), edges)
    return st.lists(values, min_size=1, max_size=40).map(lambda xs: np.array(xs, dtype=dtype))


def same(result: np.ndarray, expected: np.ndarray) -> bool:
    return bool((result == expected.view(result.dtype)).all())


@pytest.mark.parametrize("name", list(DTYPES))
def test_wrapping_ops(name: str) -> None:
    @settings(max_examples=40, deadline=None, derandomize=True)
    @given(arrays(name), arrays(name))
    def check(a: np.ndarray, b: np.ndarray) -> None:
        n = min(a.size, b.size)
        a, b = a[:n], b[:n]
        with np.errstate(over="ignore"):
            assert same(run(f"add.{name}", a, b).value, a + b)
            assert same(run(f"sub.{name}", a, b).value, a - b)
            assert same(run(f"mul.lo.{name}", a, b).value, a * b)
        assert same(run(f"min.{name}", a, b).value, np.minimum(a, b))
        assert same(run(f"max.{name}", a, b).value, np.maximum(a, b))
        nonzero = b != 0
        if np.issubdtype(a.dtype, np.signedinteger):
            info = np.iinfo(a.dtype)
            nonzero &= ~((a == info.min) & (b == -1))
        a, b = a[nonzero], b[nonzero]
        if a.size:
            rem = np.fmod(a, b)
            assert same(run(f"rem.{name}", a, b).value, rem)
            assert same(run(f"div.{name}", a, b).value, (a - rem) // b)

    check()
