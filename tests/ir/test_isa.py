"""The opcode table is well-formed: kinds, attributes, flags and documentation are consistent."""

from __future__ import annotations

from ptx2gcn.ir.opcodes import ISA, OPS, SEMANTICS, TARGET_OPS, UNSUPPORTED, has_side_effects, is_mergeable
from ptx2gcn.translate.lowering import LOWERINGS, PURE

KINDS = {"T", "W", "M", "D", "S", "R", "pred", "i32", "i64", "int", "float", "ptr", "any", "*"}
FLAGS = {"side_effects", "reads_memory", "convergent", "commutative", "terminator", "volatile"}


def test_rows_are_consistent() -> None:
    for name, row in OPS.items():
        assert row.name == name
        # PTX rows cite the PTX ISA; the target ops (what the warp-mapping passes produce) AMDGPUUsage.
        assert row.url.startswith("https://llvm.org/docs/AMDGPUUsage" if name in TARGET_OPS else ISA), name
        assert set(row.operands) <= KINDS and set(row.results) <= KINDS, name
        assert "*" not in row.operands[:-1] and "*" not in row.results[:-1], name
        assert row.required <= row.attrs.keys(), name
        assert row.flags <= FLAGS, name
        assert ("terminator" in row.flags) == (name in ("br", "cbr", "switch", "ret", "exit", "unreachable"))


def test_documented_ops_exist() -> None:
    assert set(SEMANTICS) <= set(OPS)


def test_collectives_are_never_merged_or_dropped() -> None:
    for name, row in OPS.items():
        if "convergent" in row.flags:
            assert not is_mergeable(name, {}) and has_side_effects(name, {}), name


def test_lowered_and_unsupported_are_disjoint() -> None:
    assert not set(LOWERINGS) & set(UNSUPPORTED)
    assert set(LOWERINGS) >= PURE
    # Guarded instances of these become selects: they must not touch memory or other lanes.
    assert not PURE & {"ld", "st", "atom", "red", "call", "bar", "shfl", "vote", "bra", "ret", "exit"}
