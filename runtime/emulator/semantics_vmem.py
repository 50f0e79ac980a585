"""Vector memory: GLOBAL, FLAT (apertures) and SCRATCH loads, stores and atomics; MUBUF cache ops.

Invariant: addresses are computed per active lane exactly as the CDNA3 ISA (and LLVM's gfx940
encodings) define them: GLOBAL ``saddr`` = 0x7F (``off``) means a 64-bit VGPR address, else SGPR
pair + 32-bit VGPR offset; SCRATCH ``sve`` says whether a VGPR offset is present and ``saddr`` =
0x7F means no SGPR; FLAT has no SADDR at all. FLAT lanes are routed by address: the shared
aperture goes to the work-group's LDS, the private aperture to the lane's scratch, the rest to
global memory. Loads complete before the instruction returns; atomics run lane by lane in
ascending lane order and return the pre-operation value when ``sc0`` is set. Cache-control
instructions (``buffer_wbl2``, ``buffer_inv``) are no-ops; other MUBUF accesses are unsupported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.memory import APERTURE_SIZE, PRIVATE_APERTURE_BASE, SHARED_APERTURE_BASE
from ptx2gcn.runtime.emulator.semantics_atomics import ATOMICS, AtomicOp
from ptx2gcn.runtime.emulator.semantics_common import (
    U32,
    U64,
    Builder,
    Handler,
    data_tuple,
    merge_d16,
    scalar_reader,
    unsupported,
)
from ptx2gcn.runtime.emulator.wave import Wave

Lanes = npt.NDArray[np.intp]
AddressFn = Callable[[Wave, Lanes], npt.NDArray[np.uint64]]
OFF = 0x7F


ALL_LANES: Lanes = np.arange(64)


def active_lanes(w: Wave) -> Lanes:
    """Active lane numbers; the shared ``ALL_LANES`` object when EXEC is full (callers test ``is``)."""
    return ALL_LANES if w.exec_full else np.flatnonzero(w.exec_mask)


def _vgpr64(w: Wave, row: int, lanes: Lanes) -> npt.NDArray[np.uint64]:
    if lanes is ALL_LANES:
        return np.ascontiguousarray(w.v[row : row + 2].T).view(U64).ravel()
    return w.v[row, lanes].astype(U64) | (w.v[row + 1, lanes].astype(U64) << U64(32))


def address_fn(inst: Instruction) -> AddressFn:
    f = inst.fields
    offset = f.get("offset", 0)
    vaddr, saddr = f["vaddr"], f.get("saddr", OFF)
    if inst.encoding == "FLAT":
        return lambda w, lanes: _vgpr64(w, vaddr, lanes) + U64(offset)
    if inst.encoding == "GLOBAL":
        if saddr == OFF:
            return lambda w, lanes: _vgpr64(w, vaddr, lanes) + U64(offset & (2**64 - 1))
        base = scalar_reader(inst, saddr, 64)
        return lambda w, lanes: U64(base(w)) + w.v[vaddr, lanes].astype(U64) + U64(offset & (2**64 - 1))
    # SCRATCH: a per-lane private offset
    base = scalar_reader(inst, saddr) if saddr != OFF else (lambda w: 0)
    if f.get("sve", 0):
        return lambda w, lanes: (
            (w.v[vaddr, lanes].astype(U64) + U64(base(w)) + U64(offset & (2**64 - 1))) & U64(0xFFFFFFFF)
        )
    return lambda w, lanes: np.full(lanes.size, (base(w) + offset) & 0xFFFFFFFF, dtype=U64)


Space = Any  # DeviceMemory | Lds | Scratch


def _route(
    inst: Instruction, w: Wave, addrs: npt.NDArray[np.uint64], lanes: Lanes
) -> list[tuple[Space, npt.NDArray[np.uint64], Lanes, npt.NDArray[np.intp]]]:
    """(memory, addresses in it, lanes, positions in ``lanes``) for each address space touched."""
    if inst.encoding == "GLOBAL":
        return [(w.memory, addrs, lanes, np.arange(lanes.size))]
    if inst.encoding == "SCRATCH":
        return [(w.scratch, addrs, lanes, np.arange(lanes.size))]
    shared = (addrs >= U64(SHARED_APERTURE_BASE)) & (addrs < U64(SHARED_APERTURE_BASE + APERTURE_SIZE))
    private = (addrs >= U64(PRIVATE_APERTURE_BASE)) & (addrs < U64(PRIVATE_APERTURE_BASE + APERTURE_SIZE))
    if not shared.any() and not private.any():
        return [(w.memory, addrs, lanes, np.arange(lanes.size))]
    out = []
    for space, select, base in (
        (w.group.lds, shared, SHARED_APERTURE_BASE),
        (w.scratch, private, PRIVATE_APERTURE_BASE),
        (w.memory, ~(shared | private), 0),
    ):
        positions = np.flatnonzero(select)
        if positions.size:
            out.append((space, addrs[positions] - U64(base), lanes[positions], positions))
    return out


# -- loads and stores -----------------------------------------------------------------------------
_LOAD_KIND = {
    "ubyte": (1, False),
    "sbyte": (1, True),
    "ushort": (2, False),
    "sshort": (2, True),
    "dword": (4, False),
    "dwordx2": (8, False),
    "dwordx3": (12, False),
    "dwordx4": (16, False),
    "ubyte_d16": (1, False),
    "sbyte_d16": (1, True),
    "short_d16": (2, False),
    "ubyte_d16_hi": (1, False),
    "sbyte_d16_hi": (1, True),
    "short_d16_hi": (2, False),
}
_STORE_KIND = {
    "byte": (1, 0),
    "short": (2, 0),
    "dword": (4, 0),
    "dwordx2": (8, 0),
    "dwordx3": (12, 0),
    "dwordx4": (16, 0),
    "byte_d16_hi": (1, 2),
    "short_d16_hi": (2, 2),
}


def extend(raw: npt.NDArray[np.uint8], width: int, signed: bool) -> npt.NDArray[np.uint32]:
    """Bytes of each lane -> dwords (n, max(1, width/4)), zero- or sign-extended below 4 bytes."""
    if width >= 4:
        return np.ascontiguousarray(raw).view(U32).reshape(raw.shape[0], width // 4)
    value = (
        raw[:, 0].astype(U32) if width == 1 else np.ascontiguousarray(raw).view(np.uint16)[:, 0].astype(U32)
    )
    if signed:
        sign = U32(1 << (8 * width - 1))
        value = (value ^ sign) - sign
    return value.reshape(-1, 1)


def _bind_load(inst: Instruction) -> Handler:
    kind = inst.opcode.split("_load_", 1)[1]
    if kind not in _LOAD_KIND:
        raise unsupported(inst, "no semantics for this load")
    width, signed = _LOAD_KIND[kind]
    d16 = "d16" in kind
    high = kind.endswith("_hi")
    dwords = max(1, width // 4)
    address, single, row = address_fn(inst), _single_space(inst), data_tuple(inst, "vdst", dwords)

    def run(w: Wave) -> None:
        lanes = active_lanes(w)
        if lanes.size == 0:
            return
        addrs = address(w, lanes)
        if single is not None:
            values = extend(single(w).load(addrs, width, lanes), width, signed)
        else:
            values = np.empty((lanes.size, dwords), dtype=U32)
            for space, sub_addrs, sub_lanes, positions in _route(inst, w, addrs, lanes):
                values[positions] = extend(space.load(sub_addrs, width, sub_lanes), width, signed)
        if lanes is ALL_LANES and not d16:
            w.v[row : row + dwords] = values.T
        elif d16:
            w.v[row, lanes] = merge_d16(w.v[row, lanes], values[:, 0] & U32(0xFFFF), high)
        else:
            w.v[row : row + dwords, lanes] = values.T

    return run


def _bind_store(inst: Instruction) -> Handler:
    kind = inst.opcode.split("_store_", 1)[1]
    if kind not in _STORE_KIND:
        raise unsupported(inst, "no semantics for this store")
    width, byte_offset = _STORE_KIND[kind]
    dwords = max(1, width // 4)
    address, single, data = address_fn(inst), _single_space(inst), data_tuple(inst, "vdata", dwords)

    def run(w: Wave) -> None:
        lanes = active_lanes(w)
        if lanes.size == 0:
            return
        addrs = address(w, lanes)
        rows = w.v[data : data + dwords] if lanes is ALL_LANES else w.v[data : data + dwords, lanes]
        raw = np.ascontiguousarray(rows.T).view(np.uint8)
        if width != 4 * dwords or byte_offset:
            raw = raw[:, byte_offset : byte_offset + width]
        if single is not None:
            single(w).store(addrs, raw, lanes)
            return
        for space, sub_addrs, sub_lanes, positions in _route(inst, w, addrs, lanes):
            space.store(sub_addrs, raw[positions], sub_lanes)

    return run


def _single_space(inst: Instruction) -> Callable[[Wave], Space] | None:
    """The memory of a GLOBAL or SCRATCH instruction (FLAT lanes are routed one by one: None)."""
    if inst.encoding == "GLOBAL":
        return lambda w: w.memory
    if inst.encoding == "SCRATCH":
        return lambda w: w.scratch
    return None


# -- atomics --------------------------------------------------------------------------------------
def _bind_atomic(inst: Instruction) -> Handler:
    name = inst.opcode.split("_atomic_", 1)[1]
    op: AtomicOp | None = ATOMICS.get(name)
    if op is None:
        raise unsupported(inst, "no semantics for this atomic")
    address = address_fn(inst)
    returns = bool(inst.fields.get("sc0", 0))
    width = op.bytes
    words = width // 4
    operands = words * (2 if op.two_operands else 1)
    data, dst = data_tuple(inst, "vdata", operands), data_tuple(inst, "vdst", words)

    def run(w: Wave) -> None:
        lanes = active_lanes(w)
        if lanes.size == 0:
            return
        addrs = address(w, lanes)
        sources = w.v[data : data + operands, lanes].T.astype(U64).tolist()
        values = [s[0] | (s[1] << 32 if words == 2 else 0) for s in sources]
        compares = (
            [s[words] | (s[words + 1] << 32 if words == 2 else 0) for s in sources]
            if op.two_operands
            else [0] * len(sources)
        )
        olds = [0] * lanes.size
        for space, sub_addrs, sub_lanes, positions in _route(inst, w, addrs, lanes):
            index = positions.tolist()
            results = space.rmw(
                sub_addrs,
                width,
                sub_lanes,
                lambda k, old, index=index: op.apply(old, values[index[k]], compares[index[k]]),
            )
            for k, old in zip(index, results):
                olds[k] = old
        if returns:
            old_array = np.array(olds, dtype=U64)
            w.v[dst, lanes] = (old_array & U64(0xFFFFFFFF)).astype(U32)
            if words == 2:
                w.v[dst + 1, lanes] = (old_array >> U64(32)).astype(U32)

    return run


def _nop(inst: Instruction) -> Handler:
    return lambda w: None


def builders(names: list[str]) -> dict[str, Builder]:
    table: dict[str, Builder] = {}
    for name in names:
        if not name.startswith(("global_", "flat_", "scratch_")):
            continue
        if "_load_lds_" in name:
            continue
        if "_atomic_" in name:
            table[name] = _bind_atomic
        elif "_load_" in name:
            table[name] = _bind_load
        elif "_store_" in name:
            table[name] = _bind_store
    table["buffer_wbl2"] = _nop
    table["buffer_inv"] = _nop
    return table
