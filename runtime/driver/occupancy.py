"""Occupancy from a kernel's real gfx942 resource use: ``cuOccupancyMaxActiveBlocksPerMultiprocessor
(WithFlags)``, ``cuOccupancyMaxPotentialBlockSize(WithFlags)``, ``cuOccupancyAvailableDynamicSMemPerBlock``.

A CUDA "multiprocessor" is a gfx942 compute unit (CU). How many work-groups of ``blockSize``
work-items fit on one CU is the smallest of three limits, computed as LLVM's AMDGPU back end models
them (``AMDGPUBaseInfo.cpp``: ``getMaxWavesPerEU``, ``getVGPRAllocGranule``, ``getMaxWorkGroupsPerCU``)
for gfx942:

- waves: a CU has 4 SIMDs of at most 8 waves each; a wave's VGPRs (the code object's
  ``.vgpr_count``, which counts AGPRs too on gfx90a+: one 512-register file per lane) are allocated in
  granules of 8, so a SIMD holds ``min(8, 512 // roundup(vgprs, 8))`` waves; a work-group of
  ``ceil(blockSize / 64)`` waves (wave64) needs that many of the CU's wave slots;
- LDS: 64 KiB per CU, shared by the work-groups' static (``.group_segment_fixed_size``) and dynamic
  shared memory;
- barriers: a multi-wave work-group holds one of 16 barrier slots; at most 32 work-groups (the wave
  slots) otherwise.

Invariant: results are pure functions of the kernel's code-object metadata and the arguments; a
``blockSize`` above the kernel's maximum gives 0 blocks, as in CUDA.
"""

from __future__ import annotations

import ctypes

from ptx2gcn.runtime.backends.protocol import KernelInfo
from ptx2gcn.runtime.driver.args import integer, invalid
from ptx2gcn.runtime.driver.library import function_record
from ptx2gcn.runtime.driver.memory import backend_call
from ptx2gcn.runtime.driver.state import FunctionRecord

WAVE_SIZE = 64
SIMDS_PER_CU = 4
MAX_WAVES_PER_SIMD = 8
VGPRS_PER_LANE = 512
VGPR_GRANULE = 8
LDS_PER_CU = 64 * 1024
BARRIER_SLOTS = 16


def waves_per_simd(vgprs: int) -> int:
    allocated = max(VGPR_GRANULE, -(-vgprs // VGPR_GRANULE) * VGPR_GRANULE)
    return min(MAX_WAVES_PER_SIMD, VGPRS_PER_LANE // allocated)


def blocks_per_cu(info: KernelInfo, block_size: int, dynamic_shared: int) -> int:
    if block_size <= 0 or block_size > info.max_threads_per_block:
        return 0
    waves = -(-block_size // WAVE_SIZE)
    slots = SIMDS_PER_CU * waves_per_simd(info.registers)
    by_waves = slots // waves
    shared = info.shared_bytes + dynamic_shared
    if shared > LDS_PER_CU:
        return 0
    by_lds = LDS_PER_CU // shared if shared else by_waves
    by_barriers = SIMDS_PER_CU * MAX_WAVES_PER_SIMD if waves == 1 else BARRIER_SLOTS
    return max(0, min(by_waves, by_lds, by_barriers))


def resident_blocks(record: FunctionRecord, block_size: int, dynamic_shared: int) -> int:
    """Blocks of ``record``'s kernel that fit on one CU: the backend's own answer where it has one
    (``Occupancy``: hip asks ``hipModuleOccupancyMaxActiveBlocksPerMultiprocessor``), else the model
    above."""
    ask = getattr(record.module.context.backend, "max_active_blocks", None)
    if ask is None or block_size <= 0 or block_size > record.info.max_threads_per_block:
        return blocks_per_cu(record.info, block_size, dynamic_shared)
    answer: int = backend_call(lambda: ask(record.loaded, record.info.name, block_size, dynamic_shared))
    return answer


def _info(func: object) -> tuple[KernelInfo, int]:
    """The kernel's metadata and the number of CUs of its context's device."""
    record = function_record(func)
    return record.info, record.module.context.backend.properties.multiprocessors


def _flags(flags: object) -> None:
    if integer(flags, "flags") & ~0x1:  # CU_OCCUPANCY_DEFAULT 0, CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE 1
        raise invalid(f"flags = {flags} is not a CUoccupancy_flags value")


def max_active_blocks(func: object, blockSize: object, dynamicSMemSize: object) -> int:
    size = integer(blockSize, "blockSize", 32, signed=True)
    return resident_blocks(function_record(func), size, integer(dynamicSMemSize, "dynamicSMemSize", 64))


def max_active_blocks_with_flags(func: object, blockSize: object, dynamicSMemSize: object, flags: object) -> int:
    _flags(flags)
    return max_active_blocks(func, blockSize, dynamicSMemSize)


_SIZE_OF_BLOCK = ctypes.CFUNCTYPE(ctypes.c_size_t, ctypes.c_int)


def _dynamic_shared(callback: object, fixed: int) -> object:
    """Block size -> dynamic shared bytes: ``callback`` (a Python callable or a C function address)
    when given, else the fixed ``dynamicSMemSize``."""
    if callback is None or callback == 0:
        return lambda _size: fixed
    if callable(callback):
        return callback
    return _SIZE_OF_BLOCK(integer(callback, "blockSizeToDynamicSMemSize", 64))


def max_potential_block_size(
    func: object, blockSizeToDynamicSMemSize: object, dynamicSMemSize: object, blockSizeLimit: object
) -> tuple[int, int]:
    """(minGridSize, blockSize): the block size (a multiple of the wave size, up to the limit) with
    the most resident work-items per CU, and the grid that fills every CU with it."""
    info, units = _info(func)
    limit = integer(blockSizeLimit, "blockSizeLimit", 32, signed=True)
    ceiling = min(info.max_threads_per_block, limit) if limit > 0 else info.max_threads_per_block
    shared_of = _dynamic_shared(blockSizeToDynamicSMemSize, integer(dynamicSMemSize, "dynamicSMemSize", 64))
    best = (0, 0)
    for size in range(ceiling - ceiling % WAVE_SIZE or ceiling, 0, -WAVE_SIZE):
        blocks = blocks_per_cu(info, size, int(shared_of(size)))  # type: ignore[operator]
        if blocks * size > best[0] * best[1]:
            best = (blocks, size)
    return best[0] * units, best[1]


def max_potential_block_size_with_flags(
    func: object, blockSizeToDynamicSMemSize: object, dynamicSMemSize: object, blockSizeLimit: object, flags: object
) -> tuple[int, int]:
    _flags(flags)
    return max_potential_block_size(func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit)


def available_dynamic_shared(func: object, numBlocks: object, blockSize: object) -> int:
    """Dynamic shared memory per block that still lets ``numBlocks`` blocks reside on one CU."""
    info, _units = _info(func)
    blocks = integer(numBlocks, "numBlocks", 32, signed=True)
    size = integer(blockSize, "blockSize", 32, signed=True)
    if blocks <= 0 or blocks_per_cu(info, size, 0) < blocks:
        return 0
    return max(0, LDS_PER_CU // blocks - info.shared_bytes)
