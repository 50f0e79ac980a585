"""The dispatch table's deferred modules (``ptx2gcn.emit.lowerings.DEFERRED``): their op names are
exactly the ones the modules define, no eagerly imported module defines them too, and an op lowered
through a stand-in gives the same LLVM IR as through the real lowering it then installs."""

from __future__ import annotations

import importlib

from ptx2gcn.compiler import compile_llvm
from ptx2gcn.deferred import deferred_entries
from ptx2gcn.emit import lowerings

EAGER = ("lower_values", "lower_int", "lower_int_bits", "lower_int_logic", "lower_float", "lower_convert",
         "lower_memory", "lower_control", "lower_special", "lower_target")
"""The lowering modules ``lowerings`` imports up front."""

PACK_PTX = """\
.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [p];
    cvta.to.global.u64 %rd2, %rd1;
    ld.global.u32 %r1, [%rd2];
    cvt.pack.sat.u16.s32 %r2, %r1, %r1;
    st.global.u32 [%rd2], %r2;
    ret;
}
"""


def test_deferred_names_are_the_modules_own() -> None:
    for module, names in lowerings.DEFERRED.items():
        assert sorted(names) == sorted(importlib.import_module(module).LOWERINGS), module


def test_no_eager_module_defines_a_deferred_op() -> None:
    eager: set[str] = set()
    for name in EAGER:
        module = importlib.import_module(f"ptx2gcn.emit.{name}")
        eager |= set(module.LOWERINGS) | set(getattr(module, "INT_FORMS", {}))
    deferred = {name for names in lowerings.DEFERRED.values() for name in names}
    assert not eager & deferred
    assert deferred <= set(lowerings.LOWERINGS)


def test_a_stand_in_lowers_like_the_real_lowering_it_installs() -> None:
    real = importlib.import_module("ptx2gcn.emit.lower_pack").LOWERINGS["cvt_pack"]
    lowerings.LOWERINGS.update(deferred_entries(lowerings.LOWERINGS, "ptx2gcn.emit.lower_pack", "LOWERINGS",
                                                ["cvt_pack"]))
    through_stand_in = compile_llvm(PACK_PTX, optimised=False)
    assert lowerings.LOWERINGS["cvt_pack"] is real
    assert compile_llvm(PACK_PTX, optimised=False) == through_stand_in
    assert "llvm.smin.i32" in through_stand_in
