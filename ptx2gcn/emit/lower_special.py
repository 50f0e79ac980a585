"""Lowering of PTX special registers to AMDGPU intrinsics, hardware registers and COV5 hidden
kernel arguments.

Invariant: every register in ``ptx2gcn.ir.opcodes.SPECIAL_REGS`` is lowered to a value PTX allows:

- ``%tid``/``%ctaid`` come from ``llvm.amdgcn.workitem.id.*``/``workgroup.id.*``; ``%ntid`` from
  ``hidden_group_size_*`` (u16 at implicit-argument offsets 12/14/16) and ``%nctaid`` from
  ``hidden_block_count_*`` (u32 at 0/4/8), read through ``llvm.amdgcn.implicitarg.ptr``
  (AMDGPUUsage "Code Object V5 Metadata", hidden arguments).
- ``%clock*`` read the shader cycle counter (``s_memtime``), ``%globaltimer*`` the 100 MHz real-time
  counter scaled to nanoseconds.
- ``%smid`` is the wave's compute unit: ``XCC_ID[3:0] << 8 | HW_ID[15:8]`` (HW_ID bits 15:8 are
  SE_ID[2:0], SH_ID, CU_ID[3:0] on gfx9; ``HW_REG_XCC_ID`` exists from gfx940 on, gfx90a has one
  die). ``%nsmid`` is the bound of that encoding (4096, or 256 on gfx90a): PTX only requires
  ``%smid < %nsmid`` and says the numbering need not be contiguous, and it is not (harvested CUs,
  unused SE/SH codes), so a CU id is never mistaken for another and never reaches ``%nsmid``.
- ``%dynamic_smem_size`` is ``hidden_dynamic_lds_size`` (u32 at offset 120). LLVM lists that hidden
  argument in the metadata (so a runtime fills it) only for kernels that use dynamic LDS, so the read
  also keeps a zero-sized dynamic LDS marker alive with ``llvm.fake.use`` (no instruction).
  ``%total_smem_size``/``%aggr_smem_size`` are the end of dynamic LDS (its base is the static size,
  aligned) rounded up to the LDS allocation granule (PTX: "in multiples of the allocation unit"; 512
  bytes, 1280 on gfx950); the Mode P barrier block, like NVIDIA's reserved shared memory, is part of it.
- ``%gridid`` is the AQL dispatch id (``llvm.amdgcn.dispatch.id``): unique per launch on a queue.
- A cluster is always one CTA (ptx2gcn never launches clusters; ``lower_cluster`` relies on the
  same): ``%clusterid``/``%nclusterid`` are ``%ctaid``/``%nctaid``, ``%cluster_ctaid``/
  ``%cluster_ctarank`` are 0, ``%cluster_nctaid``/``%cluster_nctarank`` 1, ``%is_explicit_cluster``
  false.
- ``%envreg1``/``%envreg2`` (driver-defined) are the high/low halves of the grid-sync workspace
  address that CUDA's cooperative groups read (nvcc's ``grid.sync()`` combines them into a pointer
  and traps when it is null): ptx2gcn passes that address as ``hidden_multigrid_sync_arg`` (u64 at
  implicit-argument offset 88), filled by the driver for cooperative launches and 0 otherwise
  (docs/launch-abi.md, "Cooperative launches"). The other ``%envregN`` (this driver defines none) and
  ``%pmN``/``%pmN_64`` (PTX: "behavior currently undefined") read 0.
- Warp-geometry registers (``%laneid``, ``%warpid``, ``%nwarpid``, ``%lanemask_*``) depend on the
  warp mapping: the pass ``wave64-lanes`` rewrites them (Mode P); one left here is ``unsupported``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn

from llvmlite import ir

from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_types import I8, I16, I32, I64, pointer
from ptx2gcn.ir.core import Op
from ptx2gcn.ir.opcodes import WARP_SPECIAL_REGS

_AXIS = {"x": 0, "y": 1, "z": 2}
GLOBALTIMER_NS_PER_TICK = 10
"""``s_memrealtime`` counts at a constant 100 MHz on gfx9 (AMDGPUUsage), i.e. 10 ns per tick."""

HIDDEN_MULTIGRID_SYNC_ARG = 88
"""Offset of ``hidden_multigrid_sync_arg`` (u64) from the implicit-argument pointer (COV5; LLVM
``AMDGPU::ImplicitArg::MULTIGRID_SYNC_ARG_OFFSET``)."""
HIDDEN_DYNAMIC_LDS_SIZE = 120
"""Offset of ``hidden_dynamic_lds_size`` (u32) from the implicit-argument pointer (COV5)."""
LDS_GRANULE = {"gfx90a": 512, "gfx942": 512, "gfx950": 1280}
"""LDS allocation granule in bytes (AMDGPUUsage, COMPUTE_PGM_RSRC2.LDS_SIZE: 128 dwords on gfx7 to
gfx942, 320 dwords on gfx950)."""
DYNAMIC_LDS_MARKER = "__ptx2gcn_dynamic_lds"

HW_REG_HW_ID = 4
HW_REG_XCC_ID = 20
"""``s_getreg_b32`` register ids (LLVM SIDefines.h, gfx9 numbering; XCC_ID from gfx940 on)."""
_CU_FIELDS = (8, 8)
"""HW_ID bits 15:8 as (offset, size): CU_ID[11:8], SH_ID[12], SE_ID[15:13]."""
_XCC_FIELD = (0, 4)
SINGLE_DIE_ARCHS = frozenset({"gfx90a"})
"""Targets without ``HW_REG_XCC_ID`` (one die per agent)."""


def nsmid(arch: str) -> int:
    """``%nsmid``: one more than the largest ``%smid`` the encoding can produce on ``arch``."""
    cu_bits = _CU_FIELDS[1] + (0 if arch in SINGLE_DIE_ARCHS else _XCC_FIELD[1])
    return 1 << cu_bits


def _getreg(cx: FnContext, reg: int, field: tuple[int, int]) -> ir.Value:
    offset, size = field
    return cx.call("llvm.amdgcn.s.getreg", I32, [cx.i32((size - 1) << 11 | offset << 6 | reg)])


def _smid(cx: FnContext) -> ir.Value:
    cu = _getreg(cx, HW_REG_HW_ID, _CU_FIELDS)
    if cx.mod.arch in SINGLE_DIE_ARCHS:
        return cu
    xcc = _getreg(cx, HW_REG_XCC_ID, _XCC_FIELD)
    return cx.builder.or_(cx.builder.shl(xcc, cx.i32(_CU_FIELDS[1])), cu)


def _hidden(cx: FnContext, offset: int, typ: ir.IntType) -> ir.Value:
    b = cx.builder
    base = cx.call("llvm.amdgcn.implicitarg.ptr", pointer(4), [])
    addr = b.gep(base, [cx.i64(offset)], inbounds=True, source_etype=I8)
    value = b.load(addr, typ=typ, align=typ.width // 8)
    value.set_metadata("invariant.load", cx.mod.module.add_metadata([]))
    return b.zext(value, I32) if typ.width < 32 else value


def _dynamic_lds_base(cx: FnContext) -> ir.Value:
    """The marker's address (where dynamic LDS starts), kept as a use of dynamic LDS so that LLVM
    emits ``hidden_dynamic_lds_size`` for every kernel that reaches this read."""
    module = cx.mod.module
    marker = module.globals.get(DYNAMIC_LDS_MARKER)
    if marker is None:
        marker = ir.GlobalVariable(module, ir.ArrayType(I8, 0), DYNAMIC_LDS_MARKER, 3)
        marker.linkage = "external"
        marker.align = 1
        marker.type = pointer(3)  # references print as opaque ``ptr addrspace(3)``
    fake_use = module.globals.get("llvm.fake.use")
    if fake_use is None:
        fake_use = ir.Function(module, ir.FunctionType(ir.VoidType(), [], var_arg=True), "llvm.fake.use")
    cx.builder.call(fake_use, [marker])
    return cx.builder.ptrtoint(marker, I32)


def _dynamic_smem_size(cx: FnContext) -> ir.Value:
    _dynamic_lds_base(cx)
    return _hidden(cx, HIDDEN_DYNAMIC_LDS_SIZE, I32)


def _total_smem_size(cx: FnContext) -> ir.Value:
    b = cx.builder
    end = b.add(_dynamic_lds_base(cx), _hidden(cx, HIDDEN_DYNAMIC_LDS_SIZE, I32))
    granule = LDS_GRANULE[cx.mod.arch]
    return b.mul(b.udiv(b.add(end, cx.i32(granule - 1)), cx.i32(granule)), cx.i32(granule))


def _timer(cx: FnContext) -> ir.Value:
    ticks = cx.call("llvm.amdgcn.s.memrealtime", I64, [])
    return cx.builder.mul(ticks, cx.i64(GLOBALTIMER_NS_PER_TICK))


_ONE_CTA_CLUSTER: dict[str, int] = {
    **{f"cluster_ctaid.{axis}": 0 for axis in _AXIS}, **{f"cluster_nctaid.{axis}": 1 for axis in _AXIS},
    "cluster_ctarank": 0, "cluster_nctarank": 1, "is_explicit_cluster": 0,
}
_ZERO = frozenset({*(f"envreg{i}" for i in range(32) if i not in (1, 2)), *(f"pm{i}" for i in range(8)),
                   *(f"pm{i}_64" for i in range(8))})


def _grid_geometry(cx: FnContext, name: str, axis: str) -> ir.Value | None:
    """``%tid``, ``%ctaid``, ``%ntid``, ``%nctaid`` and the cluster ids that equal them."""
    if name == "tid":
        return cx.call(f"llvm.amdgcn.workitem.id.{axis}", I32, [])
    if name in ("ctaid", "clusterid"):
        return cx.call(f"llvm.amdgcn.workgroup.id.{axis}", I32, [])
    if name == "ntid":
        return _hidden(cx, 12 + 2 * _AXIS[axis], I16)
    if name in ("nctaid", "nclusterid"):
        return _hidden(cx, 4 * _AXIS[axis], I32)
    return None


def _counter(cx: FnContext, reg: str) -> ir.Value | None:
    """The clocks and timers."""
    b = cx.builder
    if reg in ("clock", "clock64", "clock_hi"):
        cycles = cx.call("llvm.readcyclecounter", I64, [])
        return b.lshr(cycles, cx.i64(32)) if reg == "clock_hi" else cycles
    if reg in ("globaltimer", "globaltimer_lo"):
        return _timer(cx)
    if reg == "globaltimer_hi":
        return b.lshr(_timer(cx), cx.i64(32))
    return None


def read_special(cx: FnContext, reg: str) -> ir.Value:
    """Special register ``reg`` (``tid.x``, ``smid`` ...) as an LLVM integer (i32, or i64)."""
    name, _, axis = reg.partition(".")
    value = _grid_geometry(cx, name, axis) if axis else None
    if value is None:
        value = _counter(cx, reg)
    if value is not None:
        return value
    if reg in _ONE_CTA_CLUSTER:
        return cx.i32(_ONE_CTA_CLUSTER[reg])
    if reg in _ZERO:
        return cx.i32(0)
    if reg in WARP_SPECIAL_REGS:
        raise cx.unsupported(f"%{reg}", "warp-geometry registers are rewritten by the warp-mapping pass "
                             "wave64-lanes (warp mode P), which did not run")
    return _OTHER[reg](cx) if reg in _OTHER else _unknown(cx, reg)


def _unknown(cx: FnContext, reg: str) -> NoReturn:
    raise cx.unsupported(f"%{reg}", "this special register has no gfx942 equivalent yet")


_OTHER: dict[str, Callable[[FnContext], ir.Value]] = {
    "WARP_SZ": lambda cx: cx.i32(32),
    "smid": _smid,
    "nsmid": lambda cx: cx.i32(nsmid(cx.mod.arch)),
    "gridid": lambda cx: cx.call("llvm.amdgcn.dispatch.id", I64, []),
    "dynamic_smem_size": _dynamic_smem_size,
    "envreg1": lambda cx: _hidden(cx, HIDDEN_MULTIGRID_SYNC_ARG + 4, I32),
    "envreg2": lambda cx: _hidden(cx, HIDDEN_MULTIGRID_SYNC_ARG, I32),
    "total_smem_size": _total_smem_size,
    "aggr_smem_size": _total_smem_size,
}


def lower_special_reg(cx: FnContext, op: Op) -> None:
    reg = op.attrs["reg"]
    assert isinstance(reg, str)
    cx.define(op, cx.coerce(read_special(cx, reg), ir.IntType(op.result.type.bits)))


LOWERINGS: dict[str, Lowering] = {"special_reg": lower_special_reg}
