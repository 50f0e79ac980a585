"""Disassembly of gfx942 memory instructions (DS, FLAT, GLOBAL, SCRATCH, MUBUF) as LLVM 22 spells them.

Invariant: each printer is a pure function of the decoded ``Instruction``: address operands, data
registers (VGPR or AGPR ranges sized by the data type), offsets and cache/format flags in LLVM's order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ptx2gcn.runtime.emulator.decoder import Instruction
from ptx2gcn.runtime.emulator.disasm_operands import (
    operand_text,
    register_range,
    scalar_text,
    src_types,
)
from ptx2gcn.runtime.emulator.opcodes import DType


def _vreg(index: int, dtype: DType | None, acc: bool = False) -> str:
    return register_range("a" if acc else "v", index, dtype.dwords if dtype is not None else 1)


def _offset_text(label: str, value: int) -> list[str]:
    return [f"{label}:{value}"] if value else []


def _flags(fields: Mapping[str, int], names: tuple[str, ...]) -> list[str]:
    return [name for name in names if fields.get(name)]


def swizzle_text(offset: int) -> str:
    """``offset:swizzle(...)`` of ds_swizzle_b32, in LLVM's macro spelling (QUAD_PERM, SWAP,
    REVERSE, BROADCAST, BITMASK_PERM, FFT, ROTATE); other values print as a decimal offset."""
    if offset & 0xFF00 == 0x8000:
        return "offset:swizzle(QUAD_PERM," + ",".join(str(offset >> (2 * i) & 3) for i in range(4)) + ")"
    if offset & 0x8000 == 0:
        masks = offset & 0x1F, (offset >> 5) & 0x1F, (offset >> 10) & 0x1F  # and, or, xor
        return f"offset:swizzle({_bitmask_swizzle(*masks)})"
    if offset & 0xE000 == 0xE000:
        return f"offset:swizzle(FFT,{offset & 0x1F})"
    if offset & 0xF000 == 0xC000:
        return f"offset:swizzle(ROTATE,{offset >> 10 & 1},{offset >> 5 & 0x1F})"
    return f"offset:{offset}"


def _bitmask_swizzle(and_mask: int, or_mask: int, xor_mask: int) -> str:
    if and_mask == 0x1F and or_mask == 0 and xor_mask.bit_count() == 1:
        return f"SWAP,{xor_mask}"
    if and_mask == 0x1F and or_mask == 0 and xor_mask > 0 and (xor_mask + 1) & xor_mask == 0:
        return f"REVERSE,{xor_mask + 1}"
    group = 0x20 - and_mask
    if group > 1 and group & (group - 1) == 0 and or_mask < group and xor_mask == 0:
        return f"BROADCAST,{group},{or_mask}"
    # Per lane-index bit (high to low): constant 0/1, passed through (p) or inverted (i).
    probe0, probe1 = or_mask ^ xor_mask, ((0x1F & and_mask) | or_mask) ^ xor_mask
    chars = []
    for bit in range(4, -1, -1):
        p0, p1 = probe0 >> bit & 1, probe1 >> bit & 1
        chars.append(("1" if p0 else "0") if p0 == p1 else ("p" if p0 == 0 else "i"))
    return 'BITMASK_PERM,"' + "".join(chars) + '"'


_DS_NO_ADDRESS = ("ds_append", "ds_consume", "ds_read_addtid", "ds_write_addtid", "ds_gws", "ds_nop")


def _ds(inst: Instruction) -> str:
    f, name = inst.fields, inst.opcode
    acc = bool(f.get("acc"))
    srcs = src_types(inst)
    operands = []
    if inst.info is not None and inst.info.dst is not None:
        operands.append(_vreg(f["vdst"], inst.info.dst, acc))
    if not name.startswith(_DS_NO_ADDRESS):
        operands.append(_vreg(f["addr"], None))
    operands += [_vreg(f[field], dtype, acc) for field, dtype in zip(("data0", "data1"), srcs)]
    parts = [f"{name} {', '.join(operands)}" if operands else name]
    if name == "ds_swizzle_b32":
        parts += [swizzle_text(f["offset0"] | f["offset1"] << 8)] if f["offset0"] | f["offset1"] else []
    elif name.startswith(("ds_write2", "ds_read2", "ds_wrxchg2")):
        parts += _offset_text("offset0", f["offset0"]) + _offset_text("offset1", f["offset1"])
    else:
        parts += _offset_text("offset", f["offset0"] | f["offset1"] << 8)
    # gfx942 has no GDS: LLVM ignores the bit except on the GWS instructions, which always show it.
    return " ".join(parts + (["gds"] if name.startswith("ds_gws") and f["gds"] else []))


def _flat_address(inst: Instruction) -> list[str]:
    f = inst.fields
    if inst.encoding == "FLAT":
        return [_vreg(f["vaddr"], DType.B64)]
    if inst.encoding == "GLOBAL":
        if f["saddr"] == 0x7F:
            return [_vreg(f["vaddr"], DType.B64), "off"]
        return [_vreg(f["vaddr"], None), scalar_text(f["saddr"], 2)]
    vaddr = _vreg(f["vaddr"], None) if f["sve"] else "off"
    return [vaddr, "off" if f["saddr"] == 0x7F else scalar_text(f["saddr"])]


def _flat(inst: Instruction) -> str:
    f, name = inst.fields, inst.opcode
    acc = bool(f["acc"])
    address = _flat_address(inst)
    srcs = src_types(inst)
    returns = inst.info is not None and inst.info.dst is not None and ("atomic" not in name or f["sc0"])
    operands = [_vreg(f["vdst"], inst.info.dst, acc)] if returns and inst.info is not None else []
    operands.append(address[0])
    if srcs:
        operands.append(_vreg(f["vdata"], srcs[0], acc))
    operands += address[1:]
    parts = [f"{name} {', '.join(operands)}"] + _offset_text("offset", f["offset"])
    return " ".join(parts + _flags(f, ("sc0", "nt", "sc1")))


def _mubuf(inst: Instruction) -> str:
    f, name = inst.fields, inst.opcode
    if name in ("buffer_wbl2", "buffer_inv"):
        return " ".join([name] + _flags(f, ("sc0", "sc1")))
    both = f["offen"] and f["idxen"]
    vaddr = _vreg(f["vaddr"], DType.B64 if both else None) if f["offen"] or f["idxen"] else "off"
    data = inst.info.dst if inst.info is not None and inst.info.dst is not None else DType.B32
    if inst.info is not None and "atomic" in name and inst.info.srcs or inst.info is not None and inst.info.srcs:
        data = inst.info.srcs[0]
    operands = [vaddr, scalar_text(f["srsrc"] * 4, 4), operand_text(f["soffset"], None, None)]
    if not f["lds"]:  # a load to LDS has no VGPR data operand
        operands.insert(0, _vreg(f["vdata"], data, bool(f["acc"])))
    parts = [f"{name} {', '.join(operands)}"] + _flags(f, ("idxen", "offen"))
    parts += _offset_text("offset", f["offset"])
    return " ".join(parts + _flags(f, ("sc0", "nt", "sc1", "lds")))


PRINTERS: dict[str, Callable[[Instruction], str]] = {
    "DS": _ds, "FLAT": _flat, "GLOBAL": _flat, "SCRATCH": _flat, "MUBUF": _mubuf,
}
