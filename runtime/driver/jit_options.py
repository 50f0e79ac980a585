"""``cuModuleLoadDataEx``'s JIT options → the one ``CompileOptions`` value a module is compiled with.

``compile_options(table, base)`` is the driver API's front door for options (the command line and
``ptx2gcn.compile`` are the others): the context's ``CompileOptions`` with the fields the given JIT
options set replaced, built once per module load. What each CUDA JIT option does here:

- ``CU_JIT_OPTIMIZATION_LEVEL`` (CUDA: 0..4, 4 the default) → ``opt``, levels above 3 as 3 (LLVM's
  highest).
- ``CU_JIT_GENERATE_LINE_INFO`` → ``locations`` (PTX lines as ``!dbg`` in the LLVM IR).
- ``CU_JIT_MAX_REGISTERS`` → ``max_registers``: each kernel's VGPR ceiling (0: none);
  ``CU_FUNC_ATTRIBUTE_NUM_REGS`` then reports at most that (``ptx2gcn.emit.kernel_abi``).
- ``CU_JIT_FTZ``, ``CU_JIT_PREC_DIV``, ``CU_JIT_PREC_SQRT``, ``CU_JIT_FMA``: no effect, as in CUDA,
  where they apply only to LTO-IR; PTX carries ``.ftz``/``.approx``/``.rn`` on each instruction.
- The log buffers (``CU_JIT_INFO_LOG_BUFFER``… and their sizes) are filled by
  ``ptx2gcn.runtime.driver.module``; ``CU_JIT_WALL_TIME``, ``CU_JIT_LOG_VERBOSE`` and every other
  option (NVIDIA targets, thread limits, cache modes, LTO, symbol tables) are accepted
  and have no effect on AMDGPU code.

Invariant: the result is a valid ``CompileOptions`` (its own checks ran) or a ``CudaError``
``CUDA_ERROR_INVALID_VALUE`` naming the option whose value is not an integer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from ptx2gcn.options import CompileOptions
from ptx2gcn.runtime.driver.args import integer
from ptx2gcn.runtime.driver.enums import CUjit_option

HIGHEST_LEVEL = 3
"""LLVM's highest optimisation level; CUDA's 4 (its default) maps here."""


def compile_options(table: Mapping[CUjit_option, object], base: CompileOptions) -> CompileOptions:
    """``base`` with the fields that the JIT options in ``table`` set."""
    fields: dict[str, object] = {}
    level = table.get(CUjit_option.CU_JIT_OPTIMIZATION_LEVEL)
    if level is not None:
        fields["opt"] = min(HIGHEST_LEVEL, integer(level, "CU_JIT_OPTIMIZATION_LEVEL", 32))
    line_info = table.get(CUjit_option.CU_JIT_GENERATE_LINE_INFO)
    if line_info is not None:
        fields["locations"] = integer(line_info, "CU_JIT_GENERATE_LINE_INFO", 32) != 0
    registers = table.get(CUjit_option.CU_JIT_MAX_REGISTERS)
    if registers is not None:
        fields["max_registers"] = integer(registers, "CU_JIT_MAX_REGISTERS", 32) or None
    return replace(base, **fields) if fields else base  # type: ignore[arg-type]
