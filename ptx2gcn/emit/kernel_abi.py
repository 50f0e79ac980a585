"""The kernel ABI: CUDA's parameter buffer as the kernarg segment, plus launch-bound attributes.

Invariant: kernel parameter i is LLVM argument i, ``ptr addrspace(4) byref([size x i8]) align A``
with PTX's size and alignment, so the AMDGPU back end places it at ``align_up(end of previous, A)``
in the kernarg segment, which is exactly how CUDA lays out its parameter buffer (each ``.param`` at
the next multiple of its alignment, ``.align N .b8 x[M]`` structs included). A CUDA launch's
argument buffer can therefore be copied unchanged to the start of the kernarg segment; the COV5
hidden arguments follow, placed and described in the metadata by LLVM.
A scalar parameter of 1, 2, 4 or 8 bytes with its natural alignment that the kernel only ever reads
whole (every use a plain ``ld`` of its full size at offset 0) is instead LLVM argument i of type
``iN``: the same place in the kernarg segment (natural alignment = PTX alignment), but the back end
then loads all such arguments at the kernel's entry, merged into wide ``s_load``s, as it does for
clang's kernels, instead of wherever LLVM sank each load (``value_params``).
``.maxntid``/``.reqntid`` → ``amdgpu-flat-work-group-size``; ``.minnctapersm`` (with a known block
size) → ``amdgpu-waves-per-eu``; ``.maxnreg`` and the ``max_registers`` option (CUDA's
``CU_JIT_MAX_REGISTERS``; the lower of the two) → ``amdgpu-num-vgpr``. A CUDA register and a gfx942
VGPR are both 32 bits per thread, so the ceiling is a VGPR count; LLVM counts that attribute in
pairs on targets with a unified VGPR/AGPR file (every ``SUPPORTED_ARCHS`` target: it doubles the
value), so the attribute is half the ceiling, and ceilings below ``MIN_REGISTERS`` act as that floor
(LLVM cannot allocate some kernels in fewer; ptxas too raises tiny limits to what it needs).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from ptx2gcn.ir.core import Function, Param
from ptx2gcn.ir.types import FloatType, IntType, PtrType

WAVE_SIZE = 64
EUS_PER_CU = 4
MAX_WAVES_PER_EU = 8
MIN_REGISTERS = 32
"""The lowest register ceiling applied (smaller ``.maxnreg``/``max_registers`` act as this)."""


@dataclass(frozen=True, slots=True)
class ParamSlot:
    """Where one kernel parameter lives in the CUDA parameter buffer."""

    name: str
    offset: int
    size: int
    align: int


def align_up(value: int, align: int) -> int:
    return (value + align - 1) // align * align


def param_layout(params: list[Param]) -> list[ParamSlot]:
    """CUDA's parameter-buffer layout (the reference the LLVM layout must reproduce)."""
    slots: list[ParamSlot] = []
    offset = 0
    for param in params:
        align = max(param.align, 1)
        offset = align_up(offset, align)
        slots.append(ParamSlot(param.name, offset, param.size, align))
        offset += param.size
    return slots


def byref_attribute(param: Param) -> str:
    return f"byref([{max(param.size, 1)} x i8]) align {max(param.align, 1)}"


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _block_size(fn: Function) -> int | None:
    for key in ("reqntid", "maxntid"):
        dims = fn.directives.get(key)
        if dims:
            return prod(dims)
    return None


def register_ceiling(fn: Function, max_registers: int | None) -> int | None:
    """The VGPR ceiling of kernel ``fn``: the lower of ``.maxnreg`` and ``max_registers``, at least
    ``MIN_REGISTERS``; None when neither is given."""
    limits = [n for n in (*fn.directives.get("maxnreg", ()), max_registers) if n]
    return max(min(limits), MIN_REGISTERS) if limits else None


def kernel_attributes(fn: Function, max_registers: int | None = None) -> dict[str, str]:
    """LLVM string attributes for kernel ``fn`` from its performance directives and the
    ``max_registers`` option."""
    attrs = {"uniform-work-group-size": "true"}
    ceiling = register_ceiling(fn, max_registers)
    if ceiling is not None:
        attrs["amdgpu-num-vgpr"] = str(ceiling // 2)  # LLVM doubles it (unified VGPR/AGPR file)
    block = _block_size(fn)
    if block is not None:
        low = block if "reqntid" in fn.directives else 1
        attrs["amdgpu-flat-work-group-size"] = f"{low},{block}"
        blocks = fn.directives.get("minnctapersm")
        if blocks:
            waves = _ceil_div(blocks[0] * _ceil_div(block, WAVE_SIZE), EUS_PER_CU)
            attrs["amdgpu-waves-per-eu"] = str(min(max(waves, 1), MAX_WAVES_PER_EU))
    return attrs


_ORDERED = ("sem", "scope", "volatile")


def value_params(fn: Function) -> dict[int, int]:
    """Index → byte size of the kernel parameters passed as ``iN`` values (module docstring)."""
    if fn.kind != "kernel" or not fn.blocks:
        return {}
    found: dict[int, int] = {}
    for index, (arg, param) in enumerate(zip(fn.blocks[0].args, fn.params, strict=False)):
        if param.size not in (1, 2, 4, 8) or param.align != param.size or not isinstance(arg.type, PtrType):
            continue
        loads = list(arg.users())
        if loads and all(op.name == "ld" and len(op.results) == 1 and isinstance(op.result.type, (IntType, FloatType))
                         and op.result.type.bits == 8 * param.size and not any(k in op.attrs for k in _ORDERED)
                         for op in loads):
            found[index] = param.size
    return found
