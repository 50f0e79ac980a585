"""Mode P's own costs stay at their ideal instruction counts (``benchmarks/mode_p.py``, docs/mode-p.md
"Costs"): every warp collective of the benchmark's table is compiled and its instructions counted; the
ideal counts are the table's, derived by hand from the CDNA3 ISA. A lowering that gets more expensive
(a shuffle that falls back to ``ds_bpermute``, a vote that re-materialises its mask) fails here."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import pytest

from tests.conftest import REPO_ROOT

KNOWN_GAPS = {"shfl.up 1": 1}
"""Rows LLVM does not reach the ideal for, with the gap (docs/mode-p.md, "Costs")."""


def _load() -> ModuleType:
    """``benchmarks/mode_p.py`` (the benchmarks are scripts, not an installed package)."""
    name = "ptx2gcn_bench_mode_p"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "benchmarks" / "mode_p.py")
        assert spec is not None and spec.loader is not None
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


mode_p = _load()


@pytest.mark.parametrize("row", mode_p.IDEAL, ids=lambda row: row.name)
def test_collective_costs_its_ideal_count(row: object) -> None:
    assert mode_p.cost(row.body) == row.ideal + KNOWN_GAPS.get(row.name, 0), row.name
