"""LDS instructions (DS): reads, writes, read2/write2, atomics, and the lane-permute ops that use the
LDS crossbar without memory (``ds_bpermute_b32``, ``ds_permute_b32``, ``ds_swizzle_b32``).

Invariant: addresses are ``VGPR[addr] + offset`` (``offset1:offset0`` as one 16-bit offset, or for
read2/write2 two offsets scaled by the element size, times 64 for ``st64``), bounds-checked against
the work-group's LDS. Permutes read every source lane before writing, inactive source lanes read 0,
and only active lanes are written (CDNA3 ISA DS_BPERMUTE_B32 / DS_PERMUTE_B32 / DS_SWIZZLE_B32).
``ds_cmpst`` takes the compare value from ``data0`` and the new value from ``data1``.
``ds_append``/``ds_consume`` add/subtract popcount(EXEC) to/from the 32-bit LDS counter at
``M0[15:0] + offset`` once per wave and return the pre-operation value to every active lane (CDNA3
ISA DS_APPEND/DS_CONSUME; LLVM puts the counter's LDS address in M0, ``SelectDSAppendConsume``).
GDS and GWS (``gds`` bit, ``ds_gws_*``) are not emulated: they fault when executed.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.semantics_atomics import ATOMICS
from ptx2gcn.runtime.emulator.semantics_common import U32, U64, Builder, Handler, data_tuple, merge_d16, unsupported
from ptx2gcn.runtime.emulator.semantics_vmem import extend
from ptx2gcn.runtime.emulator.wave import M0, Wave

_READ = {
    "b32": (4, False),
    "b64": (8, False),
    "b96": (12, False),
    "b128": (16, False),
    "u8": (1, False),
    "i8": (1, True),
    "u16": (2, False),
    "i16": (2, True),
}
_WRITE = {
    "b32": (4, 0),
    "b64": (8, 0),
    "b96": (12, 0),
    "b128": (16, 0),
    "b8": (1, 0),
    "b16": (2, 0),
    "b8_d16_hi": (1, 2),
    "b16_d16_hi": (2, 2),
}
# DS atomic names -> names in ATOMICS (32-bit; "_u64"/"_b64"/"_i64" select the 64-bit variant).
_DS_ATOMIC = {
    "add": "add",
    "sub": "sub",
    "rsub": "rsub",
    "inc": "inc",
    "dec": "dec",
    "min_i": "smin",
    "max_i": "smax",
    "min_u": "umin",
    "max_u": "umax",
    "and": "and",
    "or": "or",
    "xor": "xor",
    "wrxchg": "swap",
    "mskor": "mskor",
    "wrap": "wrap",
    "cmpst": "cmpswap",
    "add_f": "add_f32",
    "min_f": "min_f32",
    "max_f": "max_f32",
    "pk_add_f": "pk_add_f16",
    "pk_add_bf": "pk_add_bf16",
}
# 64-bit float DS atomics map to these ATOMICS names.
_DS_ATOMIC64_FLOAT = {"add_f": "add_f64", "min_f": "min_f64", "max_f": "max_f64"}


def _offset(inst: Instruction) -> int:
    return inst.fields["offset0"] | inst.fields["offset1"] << 8


def _addresses(w: Wave, row: int, lanes: npt.NDArray[np.intp], offset: int) -> npt.NDArray[np.uint64]:
    return (w.v[row, lanes].astype(U64) + U64(offset)) & U64(0xFFFFFFFF)


def _bind_read(inst: Instruction) -> Handler:
    kind = inst.opcode.removeprefix("ds_read_")
    high = kind.endswith("_d16_hi")
    d16 = "_d16" in kind
    kind = kind.removesuffix("_hi").removesuffix("_d16")
    if kind not in _READ:
        raise unsupported(inst, "no semantics for this LDS read")
    width, signed = _READ[kind]
    dwords = max(1, width // 4)
    offset, addr, row = _offset(inst), inst.fields["addr"], data_tuple(inst, "vdst", dwords)

    def run(w: Wave) -> None:
        lanes = np.flatnonzero(w.exec_mask)
        if not lanes.size:
            return
        values = extend(w.group.lds.load(_addresses(w, addr, lanes, offset), width, lanes), width, signed).T
        if d16:  # 16-bit result into one half, the other half preserved
            w.v[row, lanes] = merge_d16(w.v[row, lanes], values[0] & U32(0xFFFF), high)
        else:
            w.v[row : row + dwords, lanes] = values

    return run


def _bind_write(inst: Instruction) -> Handler:
    kind = inst.opcode.removeprefix("ds_write_")
    if kind not in _WRITE:
        raise unsupported(inst, "no semantics for this LDS write")
    width, skip = _WRITE[kind]
    dwords = max(1, width // 4)
    offset, addr, data = _offset(inst), inst.fields["addr"], data_tuple(inst, "data0", dwords)

    def run(w: Wave) -> None:
        lanes = np.flatnonzero(w.exec_mask)
        if lanes.size:
            raw = np.ascontiguousarray(w.v[data : data + dwords, lanes].T).view(np.uint8)[
                :, skip : skip + width
            ]
            w.group.lds.store(_addresses(w, addr, lanes, offset), raw, lanes)

    return run


def _bind_pair(inst: Instruction) -> Handler:
    """ds_read2/write2[st64]_b32/b64: two elements at offset0 and offset1 (scaled)."""
    name = inst.opcode
    width = 8 if name.endswith("b64") else 4
    scale = width * (64 if "st64" in name else 1)
    f = inst.fields
    offsets = (f["offset0"] * scale, f["offset1"] * scale)
    addr = f["addr"]
    dwords = width // 4
    acc = 256 if f.get("acc", 0) else 0
    if name.startswith("ds_read2"):
        row = f["vdst"] + acc

        def read(w: Wave) -> None:
            lanes = np.flatnonzero(w.exec_mask)
            if lanes.size:
                # Both addresses and both loads come first: vdst may overlap the address VGPR
                # (``ds_read2_b32 v[0:1], v0 offset1:1``), and the hardware reads its sources once.
                loaded = [w.group.lds.load(_addresses(w, addr, lanes, offset), width, lanes) for offset in offsets]
                for i, raw in enumerate(loaded):
                    w.v[row + i * dwords : row + (i + 1) * dwords, lanes] = extend(raw, width, False).T

        return read
    sources = (f["data0"] + acc, f["data1"] + acc)
    exchange = name.startswith("ds_wrxchg2")  # also returns both old elements, into vdst
    row = f["vdst"] + acc

    def write(w: Wave) -> None:
        lanes = np.flatnonzero(w.exec_mask)
        if lanes.size:
            # Sources (addresses, data) are read before any result is written back (wrxchg2's vdst may
            # overlap them).
            addresses = [_addresses(w, addr, lanes, offset) for offset in offsets]
            data = [np.ascontiguousarray(w.v[source : source + dwords, lanes].T).view(np.uint8) for source in sources]
            olds = []
            for where, raw in zip(addresses, data, strict=True):
                if exchange:
                    olds.append(extend(w.group.lds.load(where, width, lanes), width, False).T)
                w.group.lds.store(where, raw, lanes)
            for i, old in enumerate(olds):
                w.v[row + i * dwords : row + (i + 1) * dwords, lanes] = old

    return write


def _bind_nop(inst: Instruction) -> Handler:
    return lambda w: None


def _atomic_name(name: str) -> tuple[str, bool, bool] | None:
    """``ds_add_rtn_u32`` -> ("add", returns, 64-bit)."""
    body = name.removeprefix("ds_")
    returns = "_rtn_" in body
    body = body.replace("_rtn", "")
    base, _, type_name = body.rpartition("_")
    wide = type_name.endswith("64")
    if base in ("min", "max"):
        base = f"{base}_{type_name[0] if type_name[0] in 'iu' else 'f'}"
    elif base == "add" and type_name.startswith("f"):
        base = "add_f"
    elif base == "pk_add":
        base = "pk_add_bf" if type_name == "bf16" else "pk_add_f"
    if wide and base in _DS_ATOMIC64_FLOAT:
        return _DS_ATOMIC64_FLOAT[base], returns, False
    mapped = _DS_ATOMIC.get(base)
    if mapped is None or (wide and mapped.endswith(("f32", "f16", "bf16"))):
        return None
    return mapped, returns, wide


def _bind_atomic(inst: Instruction) -> Handler:
    parsed = _atomic_name(inst.opcode)
    if parsed is None:
        raise unsupported(inst, "no semantics for this LDS atomic")
    mapped, returns, wide = parsed
    op = ATOMICS[f"{mapped}_x2" if wide else mapped]
    f = inst.fields
    offset, addr = _offset(inst), f["addr"]
    data0, data1, dst = f["data0"], f["data1"], f["vdst"]
    width = op.bytes
    words = width // 4

    def operand(w: Wave, row: int, lanes: npt.NDArray[np.intp]) -> list[int]:
        low = w.v[row, lanes].astype(U64)
        if words == 2:
            low = low | w.v[row + 1, lanes].astype(U64) << U64(32)
        return [int(v) for v in low.tolist()]

    def run(w: Wave) -> None:
        lanes = np.flatnonzero(w.exec_mask)
        if not lanes.size:
            return
        addrs = _addresses(w, addr, lanes, offset)
        first = operand(w, data0, lanes)
        if op.two_operands:  # DS cmpst: data0 is the compare value, data1 the new value
            second = operand(w, data1, lanes)
            olds = w.group.lds.rmw(addrs, width, lanes, lambda k, old: op.apply(old, second[k], first[k]))
        else:
            olds = w.group.lds.rmw(addrs, width, lanes, lambda k, old: op.apply(old, first[k], 0))
        if returns:
            values = np.array(olds, dtype=U64)
            w.v[dst, lanes] = (values & U64(0xFFFFFFFF)).astype(U32)
            if words == 2:
                w.v[dst + 1, lanes] = (values >> U64(32)).astype(U32)

    return run


def _bind_append(inst: Instruction) -> Handler:
    step = 1 if inst.opcode == "ds_append" else -1
    offset, dst = _offset(inst), inst.fields["vdst"]

    def run(w: Wave) -> None:
        lanes = np.flatnonzero(w.exec_mask)
        if not lanes.size:
            return
        address = np.array([(int(w.s[M0]) & 0xFFFF) + offset], dtype=U64)
        count = step * int(lanes.size)
        (old,) = w.group.lds.rmw(address, 4, lanes[:1], lambda _, value: value + count)
        w.v[dst, lanes] = U32(old)

    return run


def _gds_guard(build: Builder) -> Builder:
    """``build``, refusing the GDS form (the ``gds`` bit) of any DS instruction."""

    def guarded(inst: Instruction) -> Handler:
        if inst.fields.get("gds", 0):
            raise unsupported(inst, "GDS (global data share) is not emulated")
        return build(inst)

    return guarded


@cache
def swizzle_source_lanes(pattern: int) -> npt.NDArray[np.intp]:
    """DS_SWIZZLE_B32 offset -> source lane of each lane (quad-permute or bit-mask mode)."""
    lanes = np.arange(64)
    if pattern & 0x8000:
        select = [(pattern >> (2 * i)) & 3 for i in range(4)]
        return np.array([(lane & ~3) | select[lane & 3] for lane in range(64)])
    and_mask, or_mask, xor_mask = pattern & 0x1F, (pattern >> 5) & 0x1F, (pattern >> 10) & 0x1F
    return (lanes & 0x20) | ((((lanes & 0x1F) & and_mask) | or_mask) ^ xor_mask)


def _bind_permute(inst: Instruction) -> Handler:
    f = inst.fields
    name = inst.opcode
    acc = 256 if f.get("acc", 0) else 0  # data and result in AGPRs (rows 256..); the address is a VGPR
    offset, addr, data, dst = _offset(inst), f["addr"], f["data0"] + acc, f["vdst"] + acc
    if name == "ds_swizzle_b32":  # the swizzled value is the ``addr`` operand (no data operand)
        source = swizzle_source_lanes(offset)

        def swizzle(w: Wave) -> None:
            values = np.where(w.exec_mask, w.v[addr], U32(0))
            np.copyto(w.v[dst], values[source], where=w.exec_mask)

        return swizzle
    if name == "ds_bpermute_b32":

        def bpermute(w: Wave) -> None:
            values = np.where(w.exec_mask, w.v[data], U32(0))
            index = ((w.v[addr].astype(U64) + U64(offset)) >> U64(2)) & U64(63)
            np.copyto(w.v[dst], values[index.astype(np.intp)], where=w.exec_mask)

        return bpermute

    def permute(w: Wave) -> None:
        lanes = np.flatnonzero(w.exec_mask)
        result = np.zeros(64, dtype=U32)
        index = ((w.v[addr, lanes].astype(U64) + U64(offset)) >> U64(2)) & U64(63)
        result[index.astype(np.intp)] = w.v[data, lanes]
        np.copyto(w.v[dst], result, where=w.exec_mask)

    return permute


def builders(names: list[str]) -> dict[str, Builder]:
    table: dict[str, Builder] = {}
    for name in names:
        if not name.startswith("ds_"):
            continue
        if name == "ds_nop":
            table[name] = _bind_nop
        elif name.startswith(("ds_read2", "ds_write2", "ds_wrxchg2")):
            table[name] = _bind_pair
        elif (
            name.startswith("ds_read_")
            and name.removeprefix("ds_read_").removesuffix("_hi").removesuffix("_d16") in _READ
        ):
            table[name] = _bind_read
        elif name.startswith("ds_write_") and name.removeprefix("ds_write_") in _WRITE:
            table[name] = _bind_write
        elif name in ("ds_swizzle_b32", "ds_bpermute_b32", "ds_permute_b32"):
            table[name] = _bind_permute
        elif _atomic_name(name) is not None:
            table[name] = _bind_atomic
        elif name in ("ds_append", "ds_consume"):
            table[name] = _bind_append
    return {name: _gds_guard(build) for name, build in table.items()}
