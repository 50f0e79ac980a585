"""The own linker: LLVM's relocatable AMDGPU objects → a loadable HSA code object v5 (ET_DYN).

Invariant: ``link_hsaco`` either returns a complete shared object or raises ``LinkError`` naming the
object and the symbol or section at fault; it never reads outside its inputs and its output is a
pure function of them. For inputs ``ld.lld -shared`` accepts, the result has ld.lld's section and
segment layout (``ptx2gcn.link_layout``), the same dynamic and static symbols, the same GOT, the same
dynamic relocations (``R_AMDGPU_RELATIVE64`` for non-preemptible targets, ``R_AMDGPU_ABS64`` against
exported default-visibility symbols) and the same loaded bytes, following lld's ``ELF/Arch/AMDGPU.cpp``
and relocation scanner (read for reference, not copied).

Deliberate differences from ld.lld: an undefined symbol is an error (a code object imports
nothing); several ``NT_AMDGPU_METADATA`` notes (one per input object) are merged into one, since
loaders read a single metadata map; no ``.comment``; relocations inside SHF_MERGE sections are
rejected; R_AMDGPU_NONE is ignored (ld.lld rejects it). ``e_flags`` are merged by ld.lld's rules (same machine; xnack/sramecc "any" yields).
Not supported: COMMON symbols, SHT_REL, and any ld.lld option: this is its default ``-shared`` link.
"""

from __future__ import annotations

import bisect
import struct
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, cast

import msgpack  # pyright: ignore[reportMissingTypeStubs]

from ptx2gcn import elf
from ptx2gcn.diagnostics import Diagnostic, Ptx2GcnError, Severity, Span
from ptx2gcn.elf import ElfError, ElfFile, Note, Section, Symbol, parse_notes
from ptx2gcn.elf_writer import (SHT_GNU_HASH, FileHeader, StringTable, SymbolEntry, assemble, gnu_hash_order,
                                pack_dynamic, pack_note, pack_rela, pack_symbols)
from ptx2gcn.link_layout import (MergedSection, OutputSection, Piece, SyntheticSections, align_up,
                                 dynamic_entries, final_order, layout, output_name, rank, section_headers,
                                 split_pieces, synthetic_sections)

SHT_GROUP = 17
SHT_INIT_ARRAY, SHT_FINI_ARRAY, SHT_PREINIT_ARRAY = 14, 15, 16
SHT_LLVM_ADDRSIG = 0x6FFF4C03
SHF_MERGE = 0x10
SHF_STRINGS = 0x20
STV_HIDDEN = 2
SHF_GROUP = 0x200
SHF_EXCLUDE = 0x80000000
_KEPT_FLAGS = ~(SHF_GROUP | SHF_EXCLUDE) & 0xFFFFFFFFFFFFFFFF
_DROPPED_TYPES = {elf.SHT_NULL, elf.SHT_SYMTAB, elf.SHT_STRTAB, elf.SHT_RELA, elf.SHT_REL, SHT_GROUP,
                  SHT_LLVM_ADDRSIG}
_RELRO_TYPES = {SHT_INIT_ARRAY, SHT_FINI_ARRAY, SHT_PREINIT_ARRAY}
_LINKED_ONLY_TYPES = {elf.SHT_DYNAMIC, elf.SHT_DYNSYM, elf.SHT_HASH, SHT_GNU_HASH}

_ABSOLUTE = {elf.R_AMDGPU_ABS32, elf.R_AMDGPU_ABS64}
_PC_RELATIVE = {elf.R_AMDGPU_REL32, elf.R_AMDGPU_REL32_LO, elf.R_AMDGPU_REL32_HI, elf.R_AMDGPU_REL64,
                elf.R_AMDGPU_REL16}
_GOT_RELATIVE = {elf.R_AMDGPU_GOTPCREL, elf.R_AMDGPU_GOTPCREL32_LO, elf.R_AMDGPU_GOTPCREL32_HI}
_WIDTH = {elf.R_AMDGPU_ABS32: 4, elf.R_AMDGPU_ABS64: 8, elf.R_AMDGPU_REL32: 4, elf.R_AMDGPU_REL32_LO: 4,
          elf.R_AMDGPU_REL32_HI: 4, elf.R_AMDGPU_REL64: 8, elf.R_AMDGPU_REL16: 2, elf.R_AMDGPU_GOTPCREL: 4,
          elf.R_AMDGPU_GOTPCREL32_LO: 4, elf.R_AMDGPU_GOTPCREL32_HI: 4}
_HIGH_HALF = {elf.R_AMDGPU_REL32_HI, elf.R_AMDGPU_GOTPCREL32_HI}
_RELOC_NAMES = {getattr(elf, n): n for n in dir(elf) if n.startswith("R_AMDGPU_")}
_MASK64 = (1 << 64) - 1
# e_flags fields (AMDGPUUsage "ELF Header"): machine, and the v4+ target-feature settings.
_EF_MACH, _EF_GENERIC_VERSION = 0xFF, 0xFF000000
_EF_XNACK, _EF_XNACK_ANY = 0x300, 0x100
_EF_SRAMECC, _EF_SRAMECC_ANY = 0xC00, 0x400
_MAX_ALIGN = 1 << 16
_MAX_SECTION = 1 << 32


class LinkError(Ptx2GcnError):
    """The objects cannot be linked; the message names the object and the symbol or section."""

    @classmethod
    def of(cls, where: str, message: str) -> LinkError:
        return cls(Diagnostic(Severity.ERROR, Span.unknown(where), message))


def _reloc_name(kind: int) -> str:
    return _RELOC_NAMES.get(kind, f"type {kind}")


# -- inputs -------------------------------------------------------------------------------------

@dataclass(eq=False)
class InputSection:
    obj: InputObject
    header: Section
    data: bytearray
    output: OutputSection | None = None
    offset: int = 0
    """Offset inside ``output`` (of a plain section)."""
    merged: MergedSection | None = None
    """For a SHF_MERGE section: where its pieces went (it is member ``member`` there)."""
    member: int = 0
    pieces: list[Piece] = field(default_factory=lambda: [])
    piece_starts: list[int] = field(default_factory=lambda: [])
    """``pieces[i].offset``, for bisection."""

    @property
    def name(self) -> str:
        return self.header.name

    def address_of(self, offset: int) -> int:
        """The output address of byte ``offset`` of this section (through its piece, if merged)."""
        assert self.output is not None
        if self.merged is None:
            return self.output.addr + self.offset + offset
        index = max(bisect.bisect_right(self.piece_starts, offset) - 1, 0)
        start = self.merged.piece_offsets[self.member][index]
        return self.output.addr + self.merged.offset + start + offset - self.pieces[index].offset


@dataclass(eq=False)
class LinkSymbol:
    """A symbol after resolution: every reference to a global name shares one object."""

    name: str
    binding: int
    type: int
    size: int
    visibility: int
    section: InputSection | None
    value: int
    defined: bool
    where: str
    """The object that defines it (or first refers to it)."""

    @property
    def absolute(self) -> bool:
        return self.defined and self.section is None

    @property
    def exported(self) -> bool:
        """Goes into .dynsym: a global whose visibility is default or protected."""
        return self.binding != elf.STB_LOCAL and self.visibility in (elf.STV_DEFAULT, elf.STV_PROTECTED)

    @property
    def preemptible(self) -> bool:
        """Another module could interpose it, so references go through dynamic relocations."""
        return self.binding != elf.STB_LOCAL and self.visibility == elf.STV_DEFAULT

    def address(self) -> int:
        return self.value if self.section is None else self.section.address_of(self.value)

    def resolve(self, addend: int) -> int:
        """S + A. For a section symbol the addend picks the byte, which matters in merged sections."""
        if self.section is not None and self.type == elf.STT_SECTION:
            return self.section.address_of(self.value + addend)
        return self.address() + addend

    def adopt(self, other: LinkSymbol) -> None:
        """Take ``other``'s definition, keeping the most constraining visibility of both."""
        self.binding, self.type, self.size = other.binding, other.type, other.size
        self.section, self.value, self.defined, self.where = other.section, other.value, True, other.where


@dataclass(eq=False)
class InputObject:
    name: str
    elf: ElfFile
    sections: dict[int, InputSection] = field(default_factory=lambda: {})
    symbols: list[LinkSymbol] = field(default_factory=lambda: [])
    locals: list[LinkSymbol] = field(default_factory=lambda: [])
    """Named local symbols in live sections, in symbol-table order (for .symtab)."""


@contextmanager
def _reading(name: str) -> Iterator[None]:
    """Report an ``ElfError`` from parsing object ``name`` as a ``LinkError``."""
    try:
        yield
    except ElfError as error:
        raise LinkError.of(name, f"malformed object: {error}") from None


def _read_object(data: bytes, name: str) -> InputObject:
    with _reading(name):
        image = ElfFile(data)
        if image.type != elf.ET_REL:
            raise LinkError.of(name, f"not a relocatable object (ELF type {image.type})")
        if image.machine != elf.EM_AMDGPU:
            raise LinkError.of(name, f"wrong machine {image.machine}, expected EM_AMDGPU ({elf.EM_AMDGPU})")
        if image.osabi != elf.ELFOSABI_AMDGPU_HSA:
            raise LinkError.of(name, f"OS/ABI {image.osabi} is not AMDGPU HSA ({elf.ELFOSABI_AMDGPU_HSA})")
        obj = InputObject(name, image)
        for section in image.sections:
            dropped = section.type in _DROPPED_TYPES or section.flags & SHF_EXCLUDE
            if dropped or section.name == ".note.GNU-stack":
                continue
            _check_section(obj, section)
            obj.sections[section.index] = InputSection(obj, section, bytearray(image.section_data(section)))
        return obj


def _check_section(obj: InputObject, section: Section) -> None:
    if section.type in _LINKED_ONLY_TYPES:
        raise LinkError.of(obj.name, f"section {section.name}: type {section.type} belongs in a linked file, "
                           "not in a relocatable object")
    align = section.addralign
    if align & (align - 1) or align > _MAX_ALIGN:
        raise LinkError.of(obj.name, f"section {section.name}: alignment {align} is not a power of two "
                           f"up to {_MAX_ALIGN}")
    if section.size >= _MAX_SECTION:
        raise LinkError.of(obj.name, f"section {section.name}: size 0x{section.size:x} is too large")


def _min_visibility(a: int, b: int) -> int:
    """The more constraining of two visibilities (internal < hidden < protected < default)."""
    if a == elf.STV_DEFAULT:
        return b
    if b == elf.STV_DEFAULT:
        return a
    return min(a, b)


def _symbol_of(obj: InputObject, raw: Symbol) -> LinkSymbol:
    section: InputSection | None = None
    defined = raw.shndx != elf.SHN_UNDEF
    if raw.shndx == elf.SHN_COMMON:
        raise LinkError.of(obj.name, f"common symbol '{raw.name}' is not supported")
    if defined and raw.shndx != elf.SHN_ABS:
        if raw.shndx >= 0xFF00:
            raise LinkError.of(obj.name, f"symbol '{raw.name}' has unsupported section index 0x{raw.shndx:x}")
        section = obj.sections.get(raw.shndx)
        defined = section is not None
    name = section.name if section is not None and raw.type == elf.STT_SECTION else raw.name
    return LinkSymbol(name, raw.binding, raw.type, raw.size, raw.visibility, section, raw.value, defined,
                      obj.name)


def _resolve(obj: InputObject, table: dict[str, LinkSymbol]) -> None:
    """Fill ``obj.symbols``: locals are private; globals are merged into ``table``."""
    symtab = next((s for s in obj.elf.sections if s.type == elf.SHT_SYMTAB), None)
    raw_symbols = obj.elf.symbols(symtab) if symtab is not None else []
    first_global = symtab.info if symtab is not None else 0
    for index, raw in enumerate(raw_symbols):
        symbol = _symbol_of(obj, raw)
        if index == 0:
            symbol.defined = True  # the null symbol: S = 0
        if (index < first_global) != (raw.binding == elf.STB_LOCAL):
            side = "before" if index < first_global else "after"
            raise LinkError.of(obj.name, f"symbol '{raw.name}' (#{index}) has binding {raw.binding} but lies "
                               f"{side} the first global (#{first_global})")
        if index < first_global:
            if _keep_local(symbol, raw) and index:
                obj.locals.append(symbol)
            obj.symbols.append(symbol)
            continue
        obj.symbols.append(_merge_global(table, symbol))


def _keep_local(symbol: LinkSymbol, raw: Symbol) -> bool:
    """ld.lld's .symtab rule for locals: no section symbols, and no assembler temporaries (.L*) in
    mergeable sections (they are why the assembler kept such labels)."""
    if not symbol.defined or raw.type == elf.STT_SECTION or not raw.name:
        return False
    in_merge = symbol.section is not None and symbol.section.header.flags & SHF_MERGE
    return not (raw.name.startswith(".L") and in_merge)


def _merge_global(table: dict[str, LinkSymbol], new: LinkSymbol) -> LinkSymbol:
    old = table.setdefault(new.name, new)
    if old is new:
        return new
    old.visibility = _min_visibility(old.visibility, new.visibility)
    if not new.defined:
        return old
    if not old.defined or (old.binding == elf.STB_WEAK and new.binding != elf.STB_WEAK):
        old.adopt(new)
    elif new.binding != elf.STB_WEAK and old.binding != elf.STB_WEAK:
        raise LinkError.of(new.where, f"duplicate symbol '{new.name}' (also defined in {old.where})")
    return old


# -- output sections ----------------------------------------------------------------------------

def _output_section(outputs: dict[str, OutputSection], header: Section) -> OutputSection:
    """The output section an input section goes to (created on first use), its attributes merged."""
    name = output_name(header.name)
    out = outputs.get(name)
    if out is None:
        out = outputs[name] = OutputSection(name, header.type, header.flags & _KEPT_FLAGS,
                                            entsize=header.entsize)
        out.relro = bool(out.flags & elf.SHF_WRITE) and (
            name in (".data.rel.ro", ".bss.rel.ro") or header.type in _RELRO_TYPES)
    if out.type == elf.SHT_NOBITS and header.type != elf.SHT_NOBITS:
        out.type = header.type
    if out.entsize != header.entsize:
        out.entsize = 0
    out.flags |= header.flags & _KEPT_FLAGS
    return out


def _mergeable(section: InputSection) -> bool:
    """ld.lld merges non-empty SHF_MERGE sections with an entry size (strings or records)."""
    header = section.header
    if not header.flags & SHF_MERGE or not header.entsize or not header.size:
        return False
    if header.type != elf.SHT_PROGBITS:
        return False
    if header.size % header.entsize or header.flags & elf.SHF_WRITE:
        problem = ("is writable" if header.flags & elf.SHF_WRITE
                   else f"size is not a multiple of {header.entsize}")
        raise LinkError.of(section.obj.name, f"mergeable section {header.name} {problem}")
    try:
        section.pieces = split_pieces(bytes(section.data), header.entsize, bool(header.flags & SHF_STRINGS))
        section.piece_starts = [piece.offset for piece in section.pieces]
    except ValueError as error:
        raise LinkError.of(section.obj.name, f"mergeable section {header.name}: {error}") from None
    return True


def _merge_into(groups: dict[tuple[str, int, int, int], MergedSection], out: OutputSection,
                section: InputSection) -> MergedSection | None:
    """Add a mergeable section to its MergedSection; returns the group when it is new."""
    header = section.header
    strings = bool(header.flags & SHF_STRINGS)
    key = (out.name, header.flags, header.entsize, header.addralign if strings else 0)
    group = groups.get(key)
    created = group is None
    if group is None:
        group = groups[key] = MergedSection(max(header.addralign, 1))
    group.align = max(group.align, header.addralign, 1)
    section.merged, section.member, section.output = group, len(group.members), out
    group.members.append(section.pieces)
    return group if created else None


def _place_inputs(objects: Sequence[InputObject]) -> list[OutputSection]:
    """Group input sections into output sections (first-appearance order) and give them offsets;
    mergeable sections become one MergedSection each, where the first of them was."""
    outputs: dict[str, OutputSection] = {}
    groups: dict[tuple[str, int, int, int], MergedSection] = {}
    for obj in objects:
        for section in obj.sections.values():
            out = _output_section(outputs, section.header)
            if _mergeable(section):
                group = _merge_into(groups, out, section)
                if group is not None:
                    out.parts.append(group)
            else:
                section.output = out
                out.parts.append(section)
    for out in outputs.values():
        for part in out.parts:
            if isinstance(part, MergedSection):
                part.build()
                part.offset = align_up(out.size, part.align)
                out.size, out.align = part.offset + len(part.data), max(out.align, part.align)
            else:
                section = cast(InputSection, part)
                section.offset = align_up(out.size, section.header.addralign)
                out.size = section.offset + section.header.size
                out.align = max(out.align, section.header.addralign, 1)
    return list(outputs.values())


def _metadata_document(desc: bytes, where: str) -> dict[str, Any]:
    """A decoded NT_AMDGPU_METADATA map whose ``amdhsa.kernels``, if present, is a list."""
    try:
        document: object = msgpack.unpackb(desc, raw=False, strict_map_key=False)
    except (ValueError, TypeError, msgpack.UnpackException) as error:
        raise LinkError.of(where, f"unreadable AMDGPU metadata: {error}") from None
    kernels = cast(dict[str, Any], document).get("amdhsa.kernels", []) if isinstance(document, dict) else None
    if not isinstance(kernels, list):
        raise LinkError.of(where, "AMDGPU metadata is not a map with an amdhsa.kernels list")
    return cast(dict[str, Any], document)


def _merge_metadata(section: OutputSection) -> None:
    """Replace several NT_AMDGPU_METADATA notes in one note section by a single merged note."""
    notes: list[Note] = []
    for part in cast(list[InputSection], section.parts):
        with _reading(part.obj.name):
            notes += parse_notes(part.data)
    metadata = [n for n in notes if n.name == "AMDGPU" and n.type == elf.NT_AMDGPU_METADATA]
    if len(metadata) < 2:
        return
    where = f"section {section.name}"
    merged: dict[str, Any] = {}
    for note in metadata:
        document = _metadata_document(note.desc, where)
        for key, value in document.items():
            if key == "amdhsa.kernels":
                merged.setdefault(key, []).extend(value)
            elif merged.setdefault(key, value) != value:
                raise LinkError.of(where, f"conflicting AMDGPU metadata '{key}': "
                                   f"{merged[key]!r} vs {value!r}")
    desc = cast(bytes, msgpack.packb(merged, use_bin_type=True))
    others = [pack_note(n.name, n.type, n.desc) for n in notes if not any(n is m for m in metadata)]
    section.data = b"".join(others) + pack_note("AMDGPU", elf.NT_AMDGPU_METADATA, desc)
    section.size = len(section.data)


# -- relocation scanning ------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Fixup:
    """A relocation resolved at link time, patched into its section once addresses are known."""

    section: InputSection
    offset: int
    type: int
    symbol: LinkSymbol
    addend: int


@dataclass(frozen=True, slots=True)
class DynamicReloc:
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


def _scan(objects: Sequence[InputObject], table: dict[str, LinkSymbol]) -> Relocations:
    relocs = Relocations()
    for obj in objects:
        with _reading(obj.name):
            for rela in obj.elf.relocation_sections():
                target = _relocated_section(obj, rela)
                for reloc in obj.elf.relocations(rela) if target is not None else []:
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


def _apply(fixup: Fixup, data: bytearray, got: OutputSection | None, slots: dict[LinkSymbol, int]) -> None:
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
        struct.pack_into("<Q", data, fixup.offset, value & _MASK64)
    else:
        half = value >> 32 if kind in _HIGH_HALF else value
        struct.pack_into("<I", data, fixup.offset, half & 0xFFFFFFFF)


# -- the output file ----------------------------------------------------------------------------

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
                       symbol.address() & _MASK64, symbol.size)


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
    entries.append(SymbolEntry(strings.add("_DYNAMIC"), elf.STB_LOCAL << 4, STV_HIDDEN, dynamic.index,
                               dynamic.addr, 0))
    first_global = len(entries) + 1
    entries += [_symbol_entry(s, strings, s.binding) for s in defined if s.exported]
    return entries, first_global, strings


_FEATURES = ((_EF_XNACK, _EF_XNACK_ANY, "xnack"), (_EF_SRAMECC, _EF_SRAMECC_ANY, "sramecc"))


def _merged_flags(objects: Sequence[InputObject]) -> int:
    """The output e_flags, by ld.lld's rules: identical flags before code object v4; from v4 on the
    same machine, and per feature (xnack, sramecc) "any" yields to a specific setting, which must
    otherwise agree; from v6 on also the same generic version."""
    first = objects[0]
    abi = first.elf.abiversion
    if abi not in (0, 1, 2, 3, 4):
        raise LinkError.of(first.name, f"unknown AMDGPU code object ABI version {abi}")
    flags = first.elf.flags
    for obj in objects[1:]:
        other = obj.elf.flags
        if obj.elf.abiversion != abi:
            raise LinkError.of(obj.name, f"ABI version {obj.elf.abiversion} does not match {abi} of "
                               f"{first.name}")
        fixed = _EF_MACH | (_EF_GENERIC_VERSION if abi >= 4 else 0) if abi >= 2 else ~0
        if (other ^ flags) & fixed:
            raise LinkError.of(obj.name, f"e_flags 0x{other:x} do not match 0x{flags:x} of {first.name}")
        for mask, any_value, feature in _FEATURES:
            mine, theirs = flags & mask, other & mask
            if mine == any_value:
                flags = flags & ~mask | theirs
            elif theirs != any_value and theirs != mine or mine == 0 and theirs != 0:
                raise LinkError.of(obj.name, f"e_flags 0x{other:x}: the {feature} setting conflicts with "
                                   f"0x{flags:x} of {first.name}")
    return flags


def _fill_inputs(placed: Sequence[OutputSection], relocs: Relocations, got: OutputSection | None) -> None:
    for fixup in relocs.fixups:
        _apply(fixup, fixup.section.data, got, relocs.got_slots)
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
            rows.append((place, d.type, 0, d.symbol.resolve(d.addend) & _MASK64))
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
                struct.pack_into("<Q", got, offset, symbol.address() & _MASK64)
        s.got.data = bytes(got)


def _resolve_all(objects: Sequence[bytes], labels: Sequence[str]
                 ) -> tuple[list[InputObject], int, dict[str, LinkSymbol], list[OutputSection], Relocations]:
    """Read the objects, merge e_flags, resolve symbols, group sections and scan relocations (no
    addresses yet)."""
    inputs = [_read_object(bytes(data), label) for data, label in zip(objects, labels, strict=True)]
    flags = _merged_flags(inputs)
    table: dict[str, LinkSymbol] = {}
    for obj in inputs:
        with _reading(obj.name):
            _resolve(obj, table)
    placed = sorted(_place_inputs(inputs), key=rank)
    for section in placed:
        if section.type == elf.SHT_NOTE:
            _merge_metadata(section)
    relocs = _scan(inputs, table)
    for symbol in table.values():
        if not symbol.defined and symbol.binding != elf.STB_WEAK:
            raise LinkError.of(symbol.where, f"undefined symbol '{symbol.name}'")
    return inputs, flags, table, placed, relocs


def link_hsaco(objects: Sequence[bytes], names: Sequence[str] | None = None) -> bytes:
    """Link relocatable gfx9xx objects (from ``ptx2gcn.emit.target.emit_object``) into an HSACO.

    ``names`` label the objects in error messages (default ``<object N>``).
    """
    if not objects:
        raise LinkError.of("<link>", "no input objects")
    labels = list(names) if names is not None else [f"<object {i}>" for i in range(len(objects))]
    inputs, flags, table, placed, relocs = _resolve_all(objects, labels)
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
