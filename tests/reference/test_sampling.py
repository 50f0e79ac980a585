"""The operand sampler: types and shapes follow the signature, edge cases are present, seeds repeat."""

from __future__ import annotations

import numpy as np

from ptx2gcn.reference import run
from ptx2gcn.reference.ptxtypes import ptx_type
from ptx2gcn.reference.sampling import edge_values, operands_for


def test_operands_follow_the_signature() -> None:
    a, b, c = operands_for("addc.cc.u64", 50)
    assert a.dtype == np.uint64 and b.dtype == np.uint64 and c.dtype == np.bool_
    assert a.shape == (50,)
    assert all(x.shape == (32,) for x in operands_for("shfl.sync.bfly.b32", 5))


def test_edge_values_cover_the_special_cases() -> None:
    f32 = edge_values(ptx_type("f32"))
    assert {0, 0x80000000, 0x7F800000, 0xFF800000, 1, 0x7FFFFFFF} <= set(f32)
    assert {0x80000000, 0xFFFFFFFF, 0x7FFFFFFF} <= set(edge_values(ptx_type("s32")))
    e4m3 = edge_values(ptx_type("e4m3x2"))
    assert any(x & 0xFF == 0x7F for x in e4m3) and any(x >> 8 == 0x7E for x in e4m3)


def test_samples_reach_rare_lanes_and_repeat_with_the_seed() -> None:
    ops = operands_for("div.s32", 400, seed=3)
    assert not run("div.s32", *ops).defined.all()          # some divisions by zero / INT_MIN/-1
    again = operands_for("div.s32", 400, seed=3)
    assert all((x == y).all() for x, y in zip(ops, again, strict=True))
    nan_lanes = run("add.rn.f32", *operands_for("add.rn.f32", 400)).outputs[0].any_nan
    assert nan_lanes.any() and not nan_lanes.all()
