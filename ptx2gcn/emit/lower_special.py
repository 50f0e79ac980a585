"""Lowering of PTX special registers to AMDGPU intrinsics and COV5 hidden kernel arguments.

Invariant: ``%tid``/``%ctaid`` come from ``llvm.amdgcn.workitem.id.*``/``workgroup.id.*``;
``%ntid`` from ``hidden_group_size_*`` (u16 at implicit-argument offsets 12/14/16) and ``%nctaid``
from ``hidden_block_count_*`` (u32 at 0/4/8), both read through ``llvm.amdgcn.implicitarg.ptr``
(AMDGPUUsage "Code Object V5 Metadata", hidden arguments). ``%clock*`` read the shader cycle
counter (``s_memtime``), ``%globaltimer*`` the 100 MHz real-time counter scaled to nanoseconds.
Warp-geometry registers (``%laneid``, ``%warpid``, ``%nwarpid``, ``%lanemask_*``) come from the
Mode P lowering in ``ptx2gcn.emit.wave64_geometry``; registers with no gfx942 equivalent are
reported unsupported.
"""

from __future__ import annotations

from llvmlite import ir

from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_types import I16, I32, I64, pointer
from ptx2gcn.emit.wave64_geometry import read_warp_register
from ptx2gcn.ir.core import Op

_AXIS = {"x": 0, "y": 1, "z": 2}
WARP_LEVEL = frozenset({"laneid", "warpid", "nwarpid", "lanemask_eq", "lanemask_le", "lanemask_lt",
                        "lanemask_ge", "lanemask_gt"})
GLOBALTIMER_NS_PER_TICK = 10
"""``s_memrealtime`` counts at a constant 100 MHz on gfx9 (AMDGPUUsage), i.e. 10 ns per tick."""


def _hidden(cx: FnContext, offset: int, typ: ir.IntType) -> ir.Value:
    b = cx.builder
    base = cx.call("llvm.amdgcn.implicitarg.ptr", pointer(4), [])
    addr = b.gep(base, [cx.i64(offset)], inbounds=True, source_etype=ir.IntType(8))
    value = b.load(addr, typ=typ, align=typ.width // 8)
    value.set_metadata("invariant.load", cx.mod.module.add_metadata([]))
    return b.zext(value, I32) if typ.width < 32 else value


def _sized(cx: FnContext, op: Op, value: ir.Value) -> None:
    cx.define(op, cx.coerce(value, ir.IntType(op.result.type.bits)))


def _timer(cx: FnContext) -> ir.Value:
    ticks = cx.call("llvm.amdgcn.s.memrealtime", I64, [])
    return cx.builder.mul(ticks, cx.i64(GLOBALTIMER_NS_PER_TICK))


def _read(cx: FnContext, reg: str) -> ir.Value:
    name, _, axis = reg.partition(".")
    if name == "tid" and axis:
        return cx.call(f"llvm.amdgcn.workitem.id.{axis}", I32, [])
    if name == "ctaid" and axis:
        return cx.call(f"llvm.amdgcn.workgroup.id.{axis}", I32, [])
    if name == "ntid" and axis:
        return _hidden(cx, 12 + 2 * _AXIS[axis], I16)
    if name == "nctaid" and axis:
        return _hidden(cx, 4 * _AXIS[axis], I32)
    b = cx.builder
    if reg in ("clock", "clock64", "clock_hi"):
        cycles = cx.call("llvm.readcyclecounter", I64, [])
        return b.lshr(cycles, cx.i64(32)) if reg == "clock_hi" else cycles
    if reg in ("globaltimer", "globaltimer_lo"):
        return _timer(cx)
    if reg == "globaltimer_hi":
        return b.lshr(_timer(cx), cx.i64(32))
    if reg == "WARP_SZ":
        return cx.i32(32)
    if reg in WARP_LEVEL:
        return read_warp_register(cx, reg, _read)
    raise cx.unsupported(f"%{reg}", "this special register has no gfx942 equivalent yet")


def lower_special_reg(cx: FnContext, op: Op) -> None:
    reg = op.attrs["reg"]
    assert isinstance(reg, str)
    _sized(cx, op, _read(cx, reg))


LOWERINGS: dict[str, Lowering] = {"special_reg": lower_special_reg}
