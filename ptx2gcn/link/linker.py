"""The own linker: LLVM's relocatable AMDGPU objects → a loadable HSA code object v5 (ET_DYN).

Invariant: ``link_hsaco`` either returns a complete shared object or raises ``LinkError`` naming the
object and the symbol or section at fault; it never reads outside its inputs and its output is a
pure function of them. For inputs ``ld.lld -shared`` accepts, the result has ld.lld's section and
segment layout (``ptx2gcn.link.layout``), the same dynamic and static symbols, the same GOT, the same
dynamic relocations (``R_AMDGPU_RELATIVE64`` for non-preemptible targets, ``R_AMDGPU_ABS64`` against
exported default-visibility symbols) and the same loaded bytes, following lld's ``ELF/Arch/AMDGPU.cpp``
and relocation scanner (read for reference, not copied).

Deliberate differences from ld.lld: an undefined symbol is an error (a code object imports
nothing); several ``NT_AMDGPU_METADATA`` notes (one per input object) are merged into one, since
loaders read a single metadata map; no ``.comment``; relocations inside SHF_MERGE sections are
rejected; R_AMDGPU_NONE is ignored (ld.lld rejects it). ``e_flags`` are merged by ld.lld's rules
(same machine; xnack/sramecc "any" yields).
Not supported: COMMON symbols, SHT_REL, and any ld.lld option: this is its default ``-shared`` link.

The steps, one module each: read and check the objects (``ptx2gcn.link.inputs``), resolve symbols
(``ptx2gcn.link.symbols``), group sections (``ptx2gcn.link.sections``), scan relocations
(``ptx2gcn.link.relocs``), lay out the file (``ptx2gcn.link.layout``); this module sizes and fills
the symbol tables and linker-made sections and writes the file (``ptx2gcn.link.elf_writer``).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from ptx2gcn.link import elf
from ptx2gcn.link.elf_writer import (
    FileHeader,
    StringTable,
    SymbolEntry,
    assemble,
    gnu_hash_order,
    pack_dynamic,
    pack_rela,
    pack_symbols,
)
from ptx2gcn.link.inputs import InputObject, InputSection, LinkError, LinkSymbol, merged_flags, read_object, reading
from ptx2gcn.link.layout import (
    MergedSection,
    OutputSection,
    SyntheticSections,
    dynamic_entries,
    final_order,
    layout,
    rank,
    section_headers,
    synthetic_sections,
)
from ptx2gcn.link.relocs import MASK64, Relocations, apply_fixup, scan_relocations
from ptx2gcn.link.sections import merge_metadata, place_inputs
from ptx2gcn.link.symbols import resolve_symbols
from ptx2gcn.options import CompileOptions

__all__ = ["LinkError", "link_hsaco"]


@dataclass(eq=False)
class _DynamicSymbols:
    symbols: list[LinkSymbol]
    """In .dynsym order (entry i + 1), sorted for the GNU hash table."""
    strings: StringTable
    index: dict[LinkSymbol, int]


def _dynamic_symbols(table: dict[str, LinkSymbol]) -> _DynamicSymbols:
    exported = [symbol for symbol in table.values() if symbol.defined and symbol.exported]
    strings = StringTable()
    for symbol in exported:
        strings.add(symbol.name)
    ordered = [exported[i] for i in gnu_hash_order([symbol.name for symbol in exported])]
    return _DynamicSymbols(ordered, strings, {symbol: i + 1 for i, symbol in enumerate(ordered)})


def _symbol_entry(symbol: LinkSymbol, strings: StringTable, binding: int) -> SymbolEntry:
    section = symbol.section
    shndx = elf.SHN_ABS if section is None or section.output is None else section.output.index
    return SymbolEntry(strings.add(symbol.name), (binding << 4) | symbol.type, symbol.visibility, shndx,
                       symbol.address() & MASK64, symbol.size)


def _static_symbols(objects: Sequence[InputObject], table: dict[str, LinkSymbol],
                    synthetic: SyntheticSections) -> tuple[list[SymbolEntry], int, StringTable]:
    """.symtab entries as ld.lld orders them: the local symbols grouped by defining object (its own
    locals, then its globals that hidden visibility makes local), then _DYNAMIC, then the globals."""
    strings = StringTable()
    defined = [s for s in table.values() if s.defined]
    by_object: dict[str, list[LinkSymbol]] = {}
    for symbol in [*(s for obj in objects for s in obj.locals), *(s for s in defined if not s.exported)]:
        by_object.setdefault(symbol.where, []).append(symbol)
    entries = [_symbol_entry(s, strings, elf.STB_LOCAL) for group in by_object.values() for s in group]
    dynamic = synthetic.dynamic
    entries.append(SymbolEntry(strings.add("_DYNAMIC"), elf.STB_LOCAL << 4, elf.STV_HIDDEN, dynamic.index,
                               dynamic.addr, 0))
    first_global = len(entries) + 1
    entries += [_symbol_entry(s, strings, s.binding) for s in defined if s.exported]
    return entries, first_global, strings



def _fill_inputs(placed: Sequence[OutputSection], relocs: Relocations, got: OutputSection | None) -> None:
    for fixup in relocs.fixups:
        apply_fixup(fixup, fixup.section.data, got, relocs.got_slots)
    for section in placed:
        if section.nobits or section.data:
            continue
        data = bytearray(section.size)
        for part in cast(list[InputSection | MergedSection], section.parts):
            data[part.offset:part.offset + len(part.data)] = part.data
        section.data = bytes(data)


def _fill_synthetic(s: SyntheticSections, dyn: _DynamicSymbols, relocs: Relocations) -> None:
    s.dynsym.data = pack_symbols(_symbol_entry(symbol, dyn.strings, symbol.binding) for symbol in dyn.symbols)
    rows: list[tuple[int, int, int, int]] = []
    for d in relocs.dynamic:
        if d.section is not None:
            place = d.section.address_of(d.offset)
        else:
            assert s.got is not None
            place = s.got.addr + d.offset
        if d.type == elf.R_AMDGPU_RELATIVE64:
            rows.append((place, d.type, 0, d.symbol.resolve(d.addend) & MASK64))
        else:
            rows.append((place, d.type, dyn.index[d.symbol], d.addend))
    rows.sort(key=lambda row: (row[1] != elf.R_AMDGPU_RELATIVE64, row[2], row[0]))
    if s.rela is not None:
        s.rela.data = pack_rela((o, t, i, a if a < 1 << 63 else a - (1 << 64)) for o, t, i, a in rows)
    s.dynamic.data = pack_dynamic(dynamic_entries(s))
    if s.got is not None:
        got = bytearray(s.got.size)
        for symbol, offset in relocs.got_slots.items():
            if symbol.absolute and not symbol.preemptible:
                struct.pack_into("<Q", got, offset, symbol.address() & MASK64)
        s.got.data = bytes(got)


def _resolve_all(objects: Sequence[bytes], labels: Sequence[str]
                 ) -> tuple[list[InputObject], int, dict[str, LinkSymbol], list[OutputSection], Relocations]:
    """Read the objects, merge e_flags, resolve symbols, group sections and scan relocations (no
    addresses yet)."""
    inputs = [read_object(bytes(data), label) for data, label in zip(objects, labels, strict=True)]
    flags = merged_flags(inputs)
    table: dict[str, LinkSymbol] = {}
    for obj in inputs:
        with reading(obj.name):
            resolve_symbols(obj, table)
    placed = sorted(place_inputs(inputs), key=rank)
    for section in placed:
        if section.type == elf.SHT_NOTE:
            merge_metadata(section)
    relocs = scan_relocations(inputs, table)
    for symbol in table.values():
        if not symbol.defined and symbol.binding != elf.STB_WEAK:
            raise LinkError.of(symbol.where, f"undefined symbol '{symbol.name}'")
    return inputs, flags, table, placed, relocs


EF_AMDGPU_MACH: dict[str, int] = {"gfx90a": 0x03F, "gfx942": 0x04C, "gfx950": 0x04F}
"""``EF_AMDGPU_MACH_AMDGCN_*`` of each supported arch (AMDGPUUsage, "AMDGPU ELF Header"), the low byte
of ``e_flags``; ``tests/link/test_errors.py`` checks each against what LLVM writes."""


def link_hsaco(objects: Sequence[bytes], names: Sequence[str] | None = None,
               options: CompileOptions | None = None) -> bytes:
    """Link relocatable gfx9xx objects (from ``ptx2gcn.emit.target.emit_object``) into an HSACO.

    ``names`` label the objects in error messages (default ``<object N>``). ``options``: the
    compilation's ``CompileOptions``; the objects must be for its ``arch`` (an object built for
    another processor is a ``LinkError``, never a code object the loader refuses later).
    """
    if not objects:
        raise LinkError.of("<link>", "no input objects")
    labels = list(names) if names is not None else [f"<object {i}>" for i in range(len(objects))]
    inputs, flags, table, placed, relocs = _resolve_all(objects, labels)
    if options is not None and flags & 0xFF != EF_AMDGPU_MACH[options.arch]:
        raise LinkError.of(labels[0], f"built for e_flags machine 0x{flags & 0xFF:03x}, not for --arch "
                           f"{options.arch} (0x{EF_AMDGPU_MACH[options.arch]:03x})")
    dyn = _dynamic_symbols(table)
    # Names and counts do not depend on addresses, so every size is known before layout.
    symtab_count = 2 + sum(len(obj.locals) for obj in inputs) + sum(1 for s in table.values() if s.defined)
    relative = sum(1 for d in relocs.dynamic if d.type == elf.R_AMDGPU_RELATIVE64)
    synthetic = synthetic_sections([symbol.name for symbol in dyn.symbols], dyn.strings.data(),
                                   len(relocs.dynamic), relative, len(relocs.got_slots), symtab_count)
    sections = final_order(placed, synthetic)
    shstrtab = StringTable()
    for section in sections:
        shstrtab.add(section.name)
    synthetic.shstrtab.data, synthetic.shstrtab.size = shstrtab.data(), len(shstrtab)
    synthetic.strtab.size = len(_static_symbols(inputs, table, synthetic)[2])
    plan = layout(sections)
    _fill_inputs(placed, relocs, synthetic.got)
    _fill_synthetic(synthetic, dyn, relocs)
    entries, first_global, strings = _static_symbols(inputs, table, synthetic)
    synthetic.symtab.data, synthetic.symtab.info = pack_symbols(entries), first_global
    synthetic.strtab.data = strings.data()
    first = inputs[0].elf
    header = FileHeader(first.osabi, first.abiversion, flags, len(plan.phdrs), plan.shoff,
                        len(sections) + 1, synthetic.shstrtab.index)
    pieces = [(section.offset, section.data) for section in sections if not section.nobits]
    return assemble(header, plan.phdrs, pieces, section_headers(sections, shstrtab))
