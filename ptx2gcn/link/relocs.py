"""Relocations: each one classified (link-time fixup, GOT slot, or dynamic relocation) and applied.

Invariant: ``scan_relocations`` accepts exactly the relocations ld.lld's AMDGPU port resolves for a
default ``-shared`` link and classifies each as ld.lld does: PC- and GOT-relative ones and those
against non-preemptible absolute symbols are fixed at link time; ``R_AMDGPU_ABS64`` against a
preemptible symbol becomes a dynamic ``R_AMDGPU_ABS64``, against a section-relative one a
``R_AMDGPU_RELATIVE64``; each symbol reached through the GOT has one slot, in symbol-table order.
Anything else (an unknown type, an undefined or out-of-range target, a dynamic relocation in a
read-only section, a relocated merged or SHT_NOBITS section) is a ``LinkError`` naming the object,
section, offset and symbol. ``apply_fixup`` writes a value only after layout, and checks its range.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from ptx2gcn.link import elf
from ptx2gcn.link.elf import Section
from ptx2gcn.link.inputs import InputObject, InputSection, LinkError, LinkSymbol, reading
from ptx2gcn.link.layout import OutputSection

_ABSOLUTE = {elf.R_AMDGPU_ABS32, elf.R_AMDGPU_ABS64}
_PC_RELATIVE = {elf.R_AMDGPU_REL32, elf.R_AMDGPU_REL32_LO, elf.R_AMDGPU_REL32_HI, elf.R_AMDGPU_REL64,
                elf.R_AMDGPU_REL16}
_GOT_RELATIVE = {elf.R_AMDGPU_GOTPCREL, elf.R_AMDGPU_GOTPCREL32_LO, elf.R_AMDGPU_GOTPCREL32_HI}
_WIDTH = {elf.R_AMDGPU_ABS32: 4, elf.R_AMDGPU_ABS64: 8, elf.R_AMDGPU_REL32: 4, elf.R_AMDGPU_REL32_LO: 4,
          elf.R_AMDGPU_REL32_HI: 4, elf.R_AMDGPU_REL64: 8, elf.R_AMDGPU_REL16: 2, elf.R_AMDGPU_GOTPCREL: 4,
          elf.R_AMDGPU_GOTPCREL32_LO: 4, elf.R_AMDGPU_GOTPCREL32_HI: 4}
_HIGH_HALF = {elf.R_AMDGPU_REL32_HI, elf.R_AMDGPU_GOTPCREL32_HI}
_RELOC_NAMES = {getattr(elf, n): n for n in dir(elf) if n.startswith("R_AMDGPU_")}
MASK64 = (1 << 64) - 1


def _reloc_name(kind: int) -> str:
    return _RELOC_NAMES.get(kind, f"type {kind}")


# Immutable records are NamedTuples for the start-up cost, as in ``ptx2gcn.link.elf``.
class Fixup(NamedTuple):
    """A relocation resolved at link time, patched into its section once addresses are known."""

    section: InputSection
    offset: int
    type: int
    symbol: LinkSymbol
    addend: int


class DynamicReloc(NamedTuple):
    """A relocation left to the loader: RELATIVE64 (base + S + A) or ABS64 against an exported symbol."""

    type: int
    section: InputSection | None
    """Where it applies; ``None`` means the GOT."""
    offset: int
    symbol: LinkSymbol
    addend: int


@dataclass(eq=False)
class Relocations:
    fixups: list[Fixup] = field(default_factory=lambda: [])
    dynamic: list[DynamicReloc] = field(default_factory=lambda: [])
    needs_got: set[LinkSymbol] = field(default_factory=lambda: set())
    got_slots: dict[LinkSymbol, int] = field(default_factory=lambda: {})

    def assign_got(self, candidates: Sequence[LinkSymbol]) -> None:
        """GOT slots in symbol-table order (globals, then each object's locals), as ld.lld does."""
        for symbol in candidates:
            if symbol in self.needs_got and symbol not in self.got_slots:
                offset = 8 * len(self.got_slots)
                self.got_slots[symbol] = offset
                if symbol.preemptible:
                    self.dynamic.append(DynamicReloc(elf.R_AMDGPU_ABS64, None, offset, symbol, 0))
                elif not symbol.absolute:
                    self.dynamic.append(DynamicReloc(elf.R_AMDGPU_RELATIVE64, None, offset, symbol, 0))


def scan_relocations(objects: Sequence[InputObject], table: dict[str, LinkSymbol]) -> Relocations:
    relocs = Relocations()
    for obj in objects:
        with reading(obj.name):
            for rela in obj.elf.relocation_sections():
                target = _relocated_section(obj, rela)
                if target is None:
                    continue
                for reloc in obj.elf.relocations(rela):
                    _scan_one(relocs, target, reloc)
    relocs.assign_got([*table.values(), *(s for obj in objects for s in obj.symbols)])
    return relocs


def _relocated_section(obj: InputObject, rela: Section) -> InputSection | None:
    """The section ``rela`` applies to (``None`` for one the link drops, e.g. .note.GNU-stack)."""
    target = obj.sections.get(rela.info)
    problem = ""
    if target is None:
        if not 0 < rela.info < len(obj.elf.sections):
            problem = f"applies to missing section #{rela.info}"
    elif rela.type != elf.SHT_RELA:
        problem = "holds SHT_REL relocations, which are not supported"
    elif target.output is not None and target.output.data:
        problem = f"relocates the merged metadata note {target.name}"
    elif target.header.type == elf.SHT_NOBITS:
        problem = f"relocates {target.name}, which has no contents (SHT_NOBITS)"
    elif target.merged is not None:
        problem = f"relocates mergeable section {target.name}, which is not supported"
    if problem:
        raise LinkError.of(obj.name, f"section {rela.name} {problem}")
    return target


def _scan_one(relocs: Relocations, section: InputSection, reloc: elf.Relocation) -> None:
    """Classify one relocation: static fixup, GOT use, or dynamic relocation (ld.lld's rules)."""
    if reloc.type == elf.R_AMDGPU_NONE:
        return
    symbol = _checked_target(section, reloc)
    fixup = Fixup(section, reloc.offset, reloc.type, symbol, reloc.addend)
    if reloc.type in _GOT_RELATIVE:
        relocs.needs_got.add(symbol)
    elif not section.header.flags & elf.SHF_ALLOC:
        if reloc.type not in _ABSOLUTE:
            raise _reloc_error(fixup, "is not supported in a non-allocated section")
    elif reloc.type in _PC_RELATIVE:
        if symbol.preemptible or symbol.absolute:
            what = "preemptible (default visibility)" if symbol.preemptible else "absolute"
            raise _reloc_error(fixup, f"cannot be resolved at link time: the symbol is {what}")
    elif symbol.preemptible or not symbol.absolute:
        if reloc.type != elf.R_AMDGPU_ABS64:
            raise _reloc_error(fixup, "cannot be relocated at load time (only R_AMDGPU_ABS64 can)")
        if not section.header.flags & elf.SHF_WRITE:
            raise _reloc_error(fixup, f"needs a dynamic relocation, but section {section.name} is read-only")
        dyn = elf.R_AMDGPU_ABS64 if symbol.preemptible else elf.R_AMDGPU_RELATIVE64
        relocs.dynamic.append(DynamicReloc(dyn, section, reloc.offset, symbol, reloc.addend))
        return
    relocs.fixups.append(fixup)


def _checked_target(section: InputSection, reloc: elf.Relocation) -> LinkSymbol:
    """The defined symbol a supported, in-bounds relocation refers to."""
    obj, name = section.obj, _reloc_name(reloc.type)
    where = f"section {section.name}+0x{reloc.offset:x}"
    width = _WIDTH.get(reloc.type)
    if width is None:
        raise LinkError.of(obj.name, f"unsupported relocation {name} at {where}")
    if not 0 <= reloc.symbol < len(obj.symbols):
        raise LinkError.of(obj.name, f"{name} at {where} refers to missing symbol #{reloc.symbol}")
    if reloc.offset + width > section.header.size:
        raise LinkError.of(obj.name, f"{name} at {where} lies outside the section")
    symbol = obj.symbols[reloc.symbol]
    if not symbol.defined:
        raise LinkError.of(obj.name, f"undefined symbol '{symbol.name}' (referenced by {name} at {where})")
    return symbol


def _reloc_error(fixup: Fixup, problem: str) -> LinkError:
    return LinkError.of(fixup.section.obj.name, f"{_reloc_name(fixup.type)} against symbol "
                        f"'{fixup.symbol.name}' at section {fixup.section.name}+0x{fixup.offset:x} {problem}")


def apply_fixup(fixup: Fixup, data: bytearray, got: OutputSection | None, slots: dict[LinkSymbol, int]) -> None:
    kind, place = fixup.type, fixup.section.address_of(fixup.offset)
    if kind in _GOT_RELATIVE:
        assert got is not None
        value = got.addr + slots[fixup.symbol] + fixup.addend - place
    elif kind in _PC_RELATIVE:
        value = fixup.symbol.resolve(fixup.addend) - place
    else:
        value = fixup.symbol.resolve(fixup.addend)
    if kind == elf.R_AMDGPU_REL16:
        words = abs(value - 4) // 4 * (1 if value >= 4 else -1)  # C++ division truncates toward zero
        if not -0x8000 <= words < 0x8000:
            raise LinkError.of(fixup.section.obj.name, f"R_AMDGPU_REL16 to '{fixup.symbol.name}' at section "
                               f"{fixup.section.name}+0x{fixup.offset:x} is out of range ({words} words)")
        struct.pack_into("<h", data, fixup.offset, words)
    elif _WIDTH[kind] == 8:
        struct.pack_into("<Q", data, fixup.offset, value & MASK64)
    else:
        half = value >> 32 if kind in _HIGH_HALF else value
        struct.pack_into("<I", data, fixup.offset, half & 0xFFFFFFFF)
