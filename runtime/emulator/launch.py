"""Kernel launch: kernarg segment (explicit + hidden arguments), initial wave state, dispatch order.

Public API of the emulator (what the runtime and the driver API build on)::

    from ptx2gcn.runtime.emulator.loader import load  # load(hsaco_bytes, name) -> Program
    from ptx2gcn.runtime.emulator.memory import DeviceMemory  # alloc/free/read/write
    from ptx2gcn.runtime.emulator.launch import launch  # -> LaunchStats

    program = load(hsaco_bytes, "k.hsaco")                      # CodeObjectError if malformed
    memory = DeviceMemory()
    a = memory.alloc(4 * n, align=256)                          # device address (>= 4 GiB)
    memory.write(a, host_array.tobytes())
    stats = launch(program, "kernel", grid=(gx, gy, gz), block=(bx, by, bz),
                   kernarg=struct.pack("<Qi", a, n),            # explicit arguments only
                   dynamic_lds=0, memory=memory, trace=False, step_budget=20_000_000)
    result = memory.read(a, 4 * n)

``kernarg`` holds the explicit arguments laid out as the metadata says (``program.kernels[name].meta``
lists offsets and sizes); the hidden arguments are appended by ``launch``. Errors: ``LaunchError``
(bad request, nothing ran), ``EmulatorFault`` (the kernel faulted: kernel, work-group, wave, lane, PC,
instruction, address), ``UnknownInstruction``, ``KernelHang`` (step budget exhausted). Memory writes
done before a fault stay done (as on a GPU); the faulting instruction itself writes nothing.

Invariant: ``launch`` validates the whole request before running anything (``LaunchError``), then
executes work-groups one after another in x-fastest order (deterministic; a cooperative launch
interleaves them in that order), each placed on a compute
unit by ``placement`` (what ``HW_ID``/``XCC_ID`` read), and returns ``LaunchStats``. Each wave starts
exactly as AMDGPUUsage "Initial Kernel Execution State" says for
gfx942 (see ``docs/launch-abi.md``, "Initial wave state"): user SGPRs dense from s0 in ABI order,
then work-group ids / info, packed work-item ids in v0, EXEC = the wave's existing lanes, MODE from
COMPUTE_PGM_RSRC1. Hidden kernel arguments are written at the offsets the metadata gives.

``grid`` counts work-groups per dimension (CUDA's convention), ``block`` work-items per work-group;
so there are no partial work-groups and ``hidden_remainder_*`` are 0. Private memory per lane is
PRIVATE_SEGMENT_FIXED_SIZE, plus ``dynamic_stack`` bytes when the kernel uses a dynamic stack.

Not modelled (each fails loudly when reached, never silently): MFMA and other matrix ops, fp8/bf8
conversions, image/GWS/MUBUF data accesses (the MUBUF cache-control ops are no-ops), GPR index mode,
``*_load_lds_*`` DMA; timing and ``s_waitcnt`` hazards (memory completes in program order); a
work-group waiting for a later one (work-groups run one after another: ``KernelHang``), except in a
cooperative launch (``grid_sync``), where all work-groups are resident and take turns. LDS and
private memory are bounds-checked against the exact requested sizes, not the hardware's granules.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ptx2gcn.link.codeobject import Kernel, KernelDescriptor
from ptx2gcn.runtime.emulator.approx import ApproxPolicy, approx_from_environment
from ptx2gcn.runtime.emulator.errors import LaunchError
from ptx2gcn.runtime.emulator.executor import DEFAULT_STEP_BUDGET, Executor, RunCounters
from ptx2gcn.runtime.emulator.loader import Program
from ptx2gcn.runtime.emulator.memory import (
    PRIVATE_APERTURE_BASE,
    SHARED_APERTURE_BASE,
    DeviceMemory,
    Lds,
    Scratch,
)
from ptx2gcn.runtime.emulator.placement import placement
from ptx2gcn.runtime.emulator.wave import WAVE_SIZE, Mode, Wave, WorkGroup

Dim3 = tuple[int, int, int]
MAX_LDS_BYTES = 64 * 1024
MAX_BLOCK = 1024
DEFAULT_DYNAMIC_STACK = 16 * 1024
DISPATCH_PACKET_SIZE = 64
QUEUE_SIZE = 256
# hsa_packet_header: type KERNEL_DISPATCH (2), barrier bit (8), system-scope acquire (9:10) and release
# (11:12) fences, as the ROCm runtime submits kernel dispatches.
_AQL_DISPATCH_HEADER = 2 | 1 << 8 | 2 << 9 | 2 << 11


@dataclass(frozen=True, slots=True)
class LaunchStats:
    """What a launch did."""

    kernel: str
    workgroups: int
    waves: int
    wave_instructions: int
    seconds: float
    mfma_instructions: int = 0
    """MFMAs executed (wave-instructions)."""
    mfma_busy_cycles: int = 0
    """Matrix-core cycles those MFMAs keep their SIMD's MFMA unit busy: 4 per pass (CDNA3 ISA)."""

    @property
    def wave_instructions_per_second(self) -> float:
        return self.wave_instructions / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True, slots=True)
class Dispatch:
    """A validated launch request and the device addresses set up for it."""

    kernel: Kernel
    grid: Dim3
    block: Dim3
    lds_bytes: int
    private_bytes: int
    kernarg_address: int
    dispatch_packet: int
    queue: int
    dispatch_id: int = 0
    """The AQL dispatch id (the packet's index on its queue): user SGPRs hand it to the kernel."""

    @property
    def grid_dims(self) -> int:
        if self.grid[2] > 1 or self.block[2] > 1:
            return 3
        return 2 if self.grid[1] > 1 or self.block[1] > 1 else 1


def _dim3(value: tuple[int, ...] | int, what: str) -> Dim3:
    dims = (value, 1, 1) if isinstance(value, int) else tuple(value) + (1,) * (3 - len(value))
    if len(dims) != 3 or any(not isinstance(d, int) or d < 1 for d in dims):
        raise LaunchError(f"{what} must be 1 to 3 positive integers, got {value!r}")
    return (dims[0], dims[1], dims[2])


def _hidden_values(d: Dispatch, dynamic_lds: int, grid_sync: int = 0) -> dict[str, int]:
    values = {
        "hidden_grid_dims": d.grid_dims,
        "hidden_multigrid_sync_arg": grid_sync,
        "hidden_dynamic_lds_size": dynamic_lds,
        "hidden_private_base": PRIVATE_APERTURE_BASE >> 32,
        "hidden_shared_base": SHARED_APERTURE_BASE >> 32,
        "hidden_queue_ptr": d.queue,
    }
    for axis, name in enumerate("xyz"):
        values[f"hidden_block_count_{name}"] = d.grid[axis]
        values[f"hidden_group_size_{name}"] = d.block[axis]
        values[f"hidden_remainder_{name}"] = 0  # grid counts whole work-groups: no partial group
        values[f"hidden_global_offset_{name}"] = 0
    return values


def build_kernarg(kernel: Kernel, explicit: bytes, hidden: dict[str, int]) -> bytes:
    """The kernarg segment: ``explicit`` bytes, then each hidden argument at its metadata offset."""
    meta = kernel.meta
    explicit_end = max((a.offset + a.size for a in meta.explicit_args), default=0)
    hidden_start = min((a.offset for a in meta.args if a.hidden), default=meta.kernarg_segment_size)
    if not explicit_end <= len(explicit) <= max(hidden_start, explicit_end):
        raise LaunchError(
            f"kernel {meta.name!r}: kernarg has {len(explicit)} bytes; its explicit arguments "
            f"need {explicit_end} (at most {hidden_start} before the hidden arguments)"
        )
    segment = bytearray(max(meta.kernarg_segment_size, kernel.descriptor.kernarg_size, len(explicit)))
    segment[: len(explicit)] = explicit
    for arg in meta.args:
        if arg.hidden and arg.size in (1, 2, 4, 8):
            value = hidden.get(arg.value_kind, 0) & ((1 << 8 * arg.size) - 1)
            segment[arg.offset : arg.offset + arg.size] = value.to_bytes(arg.size, "little")
    return bytes(segment)


def _dispatch_packet(d: Dispatch, kernel_object: int) -> bytes:
    """hsa_kernel_dispatch_packet_t (64 bytes) as the CP would see it."""
    grid_size = tuple(g * b for g, b in zip(d.grid, d.block))
    return struct.pack(
        "<HHHHHHIIIIIQQQQ",
        _AQL_DISPATCH_HEADER,
        d.grid_dims,
        *d.block,
        0,
        *grid_size,
        d.private_bytes,
        d.lds_bytes,
        kernel_object,
        d.kernarg_address,
        0,
        0,
    )


def user_sgprs(kd: KernelDescriptor, d: Dispatch, kernarg: bytes) -> list[int]:
    """The user SGPRs from s0 on, in the order of AMDGPUUsage "Initial Kernel Execution State"
    (preloaded kernel arguments last), padded to USER_SGPR_COUNT; the same for every wave."""
    out: list[int] = []

    def pair(value: int) -> None:
        out.extend((value & 0xFFFFFFFF, value >> 32 & 0xFFFFFFFF))

    if kd.enable_sgpr_private_segment_buffer or kd.enable_sgpr_flat_scratch_init:
        raise LaunchError(
            f"kernel {d.kernel.name!r}: private segment buffer / flat scratch init are not "
            "supported on gfx942 (architected flat scratch)"
        )
    if kd.enable_sgpr_dispatch_ptr:
        pair(d.dispatch_packet)
    if kd.enable_sgpr_queue_ptr:
        pair(d.queue)
    if kd.enable_sgpr_kernarg_segment_ptr:
        pair(d.kernarg_address)
    if kd.enable_sgpr_dispatch_id:
        pair(d.dispatch_id)
    if kd.enable_sgpr_private_segment_size:
        out.append(d.private_bytes)
    first = kd.kernarg_preload_spec_offset
    out.extend(struct.unpack_from(f"<{kd.kernarg_preload_spec_length}I", kernarg, 4 * first))
    out = out[:16]
    out.extend([0] * (kd.rsrc2.user_sgpr_count - len(out)))
    return out


def system_sgprs(kd: KernelDescriptor, group_id: Dim3, first_wave: bool, waves: int) -> list[int]:
    """Work-group ids x/y/z and work-group info, as far as COMPUTE_PGM_RSRC2 enables them."""
    rsrc2 = kd.rsrc2
    out = [
        value
        for enabled, value in zip(
            (
                rsrc2.enable_sgpr_workgroup_id_x,
                rsrc2.enable_sgpr_workgroup_id_y,
                rsrc2.enable_sgpr_workgroup_id_z,
            ),
            group_id,
            strict=True,
        )
        if enabled
    ]
    if rsrc2.enable_sgpr_workgroup_info:
        out.append(int(first_wave) << 31 | waves)
    return out


@dataclass(frozen=True, slots=True)
class WaveTemplate:
    """What every work-group's wave ``index`` starts with: packed work-item ids in v0 and EXEC."""

    index: int
    workitem_ids: npt.NDArray[np.uint32]
    exec_bits: int


def wave_templates(block: Dim3, workitem_ids: int) -> list[WaveTemplate]:
    """v0 = x | y << 10 | z << 20 per lane (gfx942 packed work-item ids; y and z only when
    ENABLE_VGPR_WORKITEM_ID asks for them: 0 = x, 1 = x and y, 2 = x, y and z) and the lanes that exist."""
    bx, by, bz = block
    threads = bx * by * bz
    linear = np.arange(-(-threads // WAVE_SIZE) * WAVE_SIZE)
    y = linear // bx % by if workitem_ids >= 1 else 0
    z = linear // (bx * by) if workitem_ids >= 2 else 0
    ids = (linear % bx | y << 10 | z << 20).astype(np.uint32)
    ids[threads:] = 0
    return [
        WaveTemplate(
            i, ids[i * WAVE_SIZE : (i + 1) * WAVE_SIZE], (1 << min(WAVE_SIZE, threads - i * WAVE_SIZE)) - 1
        )
        for i in range(len(linear) // WAVE_SIZE)
    ]


def _make_waves(
    d: Dispatch,
    group: WorkGroup,
    memory: DeviceMemory,
    entry: int,
    user: list[int],
    templates: list[WaveTemplate],
    approx: ApproxPolicy,
) -> None:
    kd = d.kernel.descriptor
    rsrc1 = kd.rsrc1
    for template in templates:
        mode = Mode(
            rsrc1.float_round_mode_32,
            rsrc1.float_round_mode_16_64,
            rsrc1.float_denorm_mode_32,
            rsrc1.float_denorm_mode_16_64,
            rsrc1.enable_dx10_clamp,
            rsrc1.enable_ieee_mode,
        )
        wave = Wave(template.index, group, memory, Scratch(d.private_bytes), mode, pc=entry, approx=approx)
        initial = user + system_sgprs(kd, group.id, template.index == 0, len(templates))
        wave.s[: len(initial)] = initial
        wave.v[0] = template.workitem_ids
        wave.set_exec(template.exec_bits)
        group.waves.append(wave)


def _count_mfma(group: WorkGroup, totals: list[int]) -> list[int]:
    """``totals`` (MFMA instructions, busy cycles) plus those of ``group``'s waves."""
    for wave in group.waves:
        if wave.mai is not None:
            totals = [totals[0] + wave.mai.mfma_instructions, totals[1] + wave.mai.mfma_busy_cycles]
    return totals


def launch(  # noqa: C901
    program: Program,
    kernel_name: str,
    grid: tuple[int, ...] | int,
    block: tuple[int, ...] | int,
    kernarg: bytes,
    dynamic_lds: int = 0,
    memory: DeviceMemory | None = None,
    trace: bool = False,
    step_budget: int = DEFAULT_STEP_BUDGET,
    trace_sink: Callable[[str], None] = print,
    dynamic_stack: int = DEFAULT_DYNAMIC_STACK,
    dispatch_id: int = 0,
    approx: ApproxPolicy | None = None,
    grid_sync: int = 0,
) -> LaunchStats:
    """Run ``kernel_name`` of ``program`` over ``grid`` work-groups of ``block`` work-items;
    ``dispatch_id`` is what the kernel reads as its dispatch id (PTX ``%gridid``): a device numbers
    its launches. ``approx`` is the approximate-instruction policy (``ptx2gcn.runtime.emulator.approx``;
    None: the one ``PTX2GCN_EMU_APPROX``/``PTX2GCN_EMU_APPROX_SEED`` name, nominal when unset).

    ``grid_sync`` non-zero makes this a cooperative launch: every work-group of the grid is resident
    at once (their waves take turns, so one work-group may wait for another, as grid-wide barriers
    do), and ``hidden_multigrid_sync_arg`` holds ``grid_sync``, the address of the zeroed workspace
    the grid's barriers count in (docs/launch-abi.md, "Cooperative launches"). The caller checks
    that the grid could be co-resident on the device."""
    try:
        policy = approx_from_environment() if approx is None else approx
    except ValueError as error:
        raise LaunchError(str(error)) from None
    kernel = program.kernel(kernel_name)
    grid3, block3 = _dim3(grid, "grid"), _dim3(block, "block")
    if (
        any(g >= 1 << 32 for g in grid3)
        or grid3[0] * grid3[1] * grid3[2] * block3[0] * block3[1] * block3[2] >= 1 << 64
    ):
        raise LaunchError(f"kernel {kernel_name!r}: grid {grid3} is too large (work-group counts are 32-bit)")
    threads = block3[0] * block3[1] * block3[2]
    if (
        threads > min(MAX_BLOCK, kernel.meta.max_flat_workgroup_size)
        or block3[0] > 1024
        or block3[1] > 1024
        or block3[2] > 1024
    ):
        raise LaunchError(
            f"kernel {kernel_name!r}: block {block3} has {threads} work-items; at most "
            f"{min(MAX_BLOCK, kernel.meta.max_flat_workgroup_size)} allowed"
        )
    lds_bytes = kernel.descriptor.group_segment_fixed_size + dynamic_lds
    if dynamic_lds < 0 or lds_bytes > MAX_LDS_BYTES:
        raise LaunchError(
            f"kernel {kernel_name!r}: {lds_bytes} bytes of LDS requested; gfx942 has {MAX_LDS_BYTES}"
        )
    if memory is None:
        memory = DeviceMemory()
    private = kernel.descriptor.private_segment_fixed_size
    if kernel.descriptor.uses_dynamic_stack or kernel.meta.uses_dynamic_stack:
        private += dynamic_stack
    base = program.map_into(memory)
    queue = memory.alloc(QUEUE_SIZE, 64) if kernel.descriptor.enable_sgpr_queue_ptr else 0
    d = Dispatch(kernel, grid3, block3, lds_bytes, private, 0, 0, queue)
    segment = build_kernarg(kernel, kernarg, _hidden_values(d, dynamic_lds, grid_sync))
    kernarg_address = memory.alloc(len(segment), 64)
    memory.write(kernarg_address, segment)
    packet = memory.alloc(DISPATCH_PACKET_SIZE, 64)
    d = Dispatch(kernel, grid3, block3, lds_bytes, private, kernarg_address, packet, queue, dispatch_id)
    memory.write(packet, _dispatch_packet(d, base + kernel.descriptor_address))
    kd = kernel.descriptor
    if 4 * (kd.kernarg_preload_spec_offset + kd.kernarg_preload_spec_length) > len(segment):
        raise LaunchError(
            f"kernel {kernel_name!r}: preloaded kernel arguments lie outside the kernarg segment"
        )
    # With preloaded arguments the CP skips the 256-byte compatibility prologue (AMDGPUUsage
    # "Preloaded Kernel Arguments"); that prologue loads the same values for older firmware.
    entry = base + kernel.entry_address + (256 if kd.kernarg_preload_spec_length else 0)
    executor = Executor(program, base, kernel, trace_sink if trace else None)
    user, templates = user_sgprs(kd, d, segment), wave_templates(block3, kd.rsrc2.enable_vgpr_workitem_id)
    counters = RunCounters(step_budget)
    start = time.perf_counter()
    groups = 0
    waves = 0
    mfma = [0, 0]
    resident: list[WorkGroup] = []
    try:
        for gz in range(grid3[2]):
            for gy in range(grid3[1]):
                for gx in range(grid3[0]):
                    group = WorkGroup((gx, gy, gz), Lds(lds_bytes), placement=placement(groups))
                    _make_waves(d, group, memory, entry, user, templates, policy)
                    groups += 1
                    if grid_sync:
                        resident.append(group)
                        continue
                    executor.run_group(group, counters)
                    waves += len(group.waves)
                    mfma = _count_mfma(group, mfma)
        if resident:
            executor.run_groups(resident, counters)
            for group in resident:
                waves += len(group.waves)
                mfma = _count_mfma(group, mfma)
    finally:
        for address in (kernarg_address, packet, queue):
            if address:
                memory.free(address)
    return LaunchStats(kernel_name, groups, waves, counters.steps, time.perf_counter() - start, *mfma)
