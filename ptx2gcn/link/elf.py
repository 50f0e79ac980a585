"""A small, strict ELF64 little-endian reader (the AMDGPU and host objects ptx2gcn handles).

Invariant: parsing never reads outside the given bytes; any structural inconsistency (a header or
table past the end, a bad string offset) raises ``ElfError`` with what and where, never
``IndexError``/``struct.error``. Nothing here knows about AMDGPU semantics beyond the constants
below; the linker (``ptx2gcn.link.linker``), the emulator loader and the fatbin reader build on it.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from functools import cached_property
from typing import NamedTuple

ELF_MAGIC = b"\x7fELF"
ELFCLASS64 = 2
ELFDATA2LSB = 1

ET_REL = 1
ET_EXEC = 2
ET_DYN = 3

EM_X86_64 = 62
EM_AARCH64 = 183
EM_AMDGPU = 224

ELFOSABI_AMDGPU_HSA = 64
ELFABIVERSION_AMDGPU_HSA_V5 = 3

# Section types
SHT_NULL = 0
SHT_PROGBITS = 1
SHT_SYMTAB = 2
SHT_STRTAB = 3
SHT_RELA = 4
SHT_HASH = 5
SHT_DYNAMIC = 6
SHT_NOTE = 7
SHT_NOBITS = 8
SHT_REL = 9
SHT_DYNSYM = 11
SHT_INIT_ARRAY = 14
SHT_FINI_ARRAY = 15
SHT_PREINIT_ARRAY = 16
SHT_GROUP = 17
SHT_LLVM_ADDRSIG = 0x6FFF4C03

# Section flags
SHF_WRITE = 0x1
SHF_ALLOC = 0x2
SHF_EXECINSTR = 0x4
SHF_MERGE = 0x10
SHF_STRINGS = 0x20
SHF_GROUP = 0x200
SHF_EXCLUDE = 0x80000000

# Program header types and flags
PT_NULL = 0
PT_LOAD = 1
PT_DYNAMIC = 2
PT_NOTE = 4
PT_PHDR = 6
PT_GNU_RELRO = 0x6474E552
PT_GNU_STACK = 0x6474E551
PF_X = 1
PF_W = 2
PF_R = 4

# Symbol binding / type / special sections
STB_LOCAL = 0
STB_GLOBAL = 1
STB_WEAK = 2
STT_NOTYPE = 0
STT_OBJECT = 1
STT_FUNC = 2
STT_SECTION = 3
STT_AMDGPU_HSA_KERNEL = 10
SHN_UNDEF = 0
SHN_ABS = 0xFFF1
SHN_COMMON = 0xFFF2
STV_DEFAULT = 0
STV_HIDDEN = 2
STV_PROTECTED = 3

# AMDGPU relocations (AMDGPUUsage "Relocation Records")
R_AMDGPU_NONE = 0
R_AMDGPU_ABS32_LO = 1
R_AMDGPU_ABS32_HI = 2
R_AMDGPU_ABS64 = 3
R_AMDGPU_REL32 = 4
R_AMDGPU_REL64 = 5
R_AMDGPU_ABS32 = 6
R_AMDGPU_GOTPCREL = 7
R_AMDGPU_GOTPCREL32_LO = 8
R_AMDGPU_GOTPCREL32_HI = 9
R_AMDGPU_REL32_LO = 10
R_AMDGPU_REL32_HI = 11
R_AMDGPU_RELATIVE64 = 13
R_AMDGPU_REL16 = 14

# Notes
NT_AMDGPU_METADATA = 32

# Record layouts (gABI, ELF64 little-endian); ``ptx2gcn.link.elf_writer`` packs with the same ones.
EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
SHDR = struct.Struct("<IIQQQQIIQQ")
PHDR = struct.Struct("<IIQQQQQQ")
SYM = struct.Struct("<IBBHQQ")
RELA = struct.Struct("<QQq")
REL = struct.Struct("<QQ")
DYN = struct.Struct("<qQ")


class ElfError(ValueError):
    """The bytes are not a well-formed ELF64 little-endian object."""


# The parsed records are NamedTuples: immutable, compared and hashed by value, like frozen dataclasses,
# and several times cheaper to define (a frozen, slotted dataclass costs ~0.4 ms of start-up in Python
# 3.11, paid by every `ptx2gcn compile` process). Nothing may rely on their being tuples, and records of
# different kinds are never compared (as tuples, two kinds with equal values would compare equal).


class Section(NamedTuple):
    index: int
    name: str
    type: int
    flags: int
    addr: int
    offset: int
    size: int
    link: int
    info: int
    addralign: int
    entsize: int


class Segment(NamedTuple):
    type: int
    flags: int
    offset: int
    vaddr: int
    paddr: int
    filesz: int
    memsz: int
    align: int


class Symbol(NamedTuple):
    name: str
    value: int
    size: int
    info: int
    other: int
    shndx: int

    @property
    def binding(self) -> int:
        return self.info >> 4

    @property
    def type(self) -> int:
        return self.info & 0xF

    @property
    def visibility(self) -> int:
        return self.other & 0x3

    @property
    def defined(self) -> bool:
        return self.shndx != SHN_UNDEF


class Relocation(NamedTuple):
    offset: int
    type: int
    symbol: int
    addend: int


class Note(NamedTuple):
    name: str
    type: int
    desc: bytes


class ElfFile:
    """A parsed view over ELF64 LE bytes (sections, segments, symbols, relocations, notes)."""

    def __init__(self, data: bytes | bytearray | memoryview) -> None:
        self.data = bytes(data)
        if len(self.data) < EHDR.size or self.data[:4] != ELF_MAGIC:
            raise ElfError("not an ELF file (bad magic or too short)")
        ident = self.data[:16]
        if ident[4] != ELFCLASS64 or ident[5] != ELFDATA2LSB:
            raise ElfError("only 64-bit little-endian ELF is supported")
        (_, self.type, self.machine, _version, self.entry, self.phoff, self.shoff, self.flags,
         ehsize, phentsize, self.phnum, shentsize, shnum, shstrndx) = EHDR.unpack_from(self.data, 0)
        self.osabi = ident[7]
        self.abiversion = ident[8]
        if ehsize < EHDR.size:
            raise ElfError(f"ELF header size {ehsize} is too small")
        if self.phnum and phentsize != PHDR.size:
            raise ElfError(f"program header entry size {phentsize}, expected {PHDR.size}")
        self.segments = [self._segment(i) for i in range(self.phnum)]
        self.sections: list[Section] = self._read_sections(shentsize, shnum, shstrndx) if self.shoff else []

    def _read_sections(self, shentsize: int, shnum: int, shstrndx: int) -> list[Section]:
        """The section headers, named; ``shnum``/``shstrndx`` may be escaped into section 0 (gABI)."""
        if shentsize != SHDR.size:
            raise ElfError(f"section header entry size {shentsize}, expected {SHDR.size}")
        if shnum == 0:
            first = SHDR.unpack_from(self._slice(self.shoff, SHDR.size, "section header 0"))
            shnum = first[5]
        raw = [self._raw_section(i) for i in range(shnum)]
        if shstrndx == 0xFFFF:
            shstrndx = raw[0][6]
        if not 0 <= shstrndx < shnum:
            raise ElfError(f"section name string table index {shstrndx} out of range")
        names = raw[shstrndx]
        return [Section(index, self._string(names[4], names[5], fields[0]), *fields[1:])
                for index, fields in enumerate(raw)]

    # -- raw access -------------------------------------------------------------------------
    def _slice(self, offset: int, size: int, what: str) -> bytes:
        if offset < 0 or size < 0 or offset + size > len(self.data):
            raise ElfError(f"{what} at 0x{offset:x}+0x{size:x} lies outside the file ({len(self.data)} bytes)")
        return self.data[offset:offset + size]

    def _raw_section(self, index: int) -> tuple[int, ...]:
        return SHDR.unpack(self._slice(self.shoff + index * SHDR.size, SHDR.size, f"section header {index}"))

    def _segment(self, index: int) -> Segment:
        raw = PHDR.unpack(self._slice(self.phoff + index * PHDR.size, PHDR.size, f"program header {index}"))
        return Segment(*raw)

    def _string(self, table_offset: int, table_size: int, offset: int) -> str:
        if offset >= table_size and offset != 0:
            raise ElfError(f"string offset {offset} outside its table (size {table_size})")
        start = table_offset + offset
        end = self.data.find(b"\0", start, table_offset + table_size)
        if end < 0:
            end = table_offset + table_size
        if end > len(self.data):
            raise ElfError("string table lies outside the file")
        return self.data[start:end].decode("utf-8", "replace")

    # -- sections ---------------------------------------------------------------------------
    def section(self, name: str) -> Section | None:
        for section in self.sections:
            if section.name == name:
                return section
        return None

    def section_data(self, section: Section) -> bytes:
        if section.type == SHT_NOBITS:
            return b""
        return self._slice(section.offset, section.size, f"section {section.name!r}")

    def string_at(self, strtab_index: int, offset: int) -> str:
        table = self.sections[strtab_index]
        return self._string(table.offset, table.size, offset)

    # -- symbols and relocations -----------------------------------------------------------------
    def symbols(self, section: Section) -> list[Symbol]:
        if not 0 <= section.link < len(self.sections):
            raise ElfError(f"symbol table {section.name!r} links to missing section {section.link}")
        data = self.section_data(section)
        strtab = self.sections[section.link]
        out: list[Symbol] = []
        for pos in range(0, len(data) - len(data) % SYM.size, SYM.size):
            name, info, other, shndx, value, size = SYM.unpack_from(data, pos)
            out.append(Symbol(self._string(strtab.offset, strtab.size, name), value, size, info, other, shndx))
        return out

    @cached_property
    def symtab(self) -> list[Symbol]:
        """Symbols of ``.symtab`` (or ``.dynsym`` when there is no static table)."""
        for kind in (SHT_SYMTAB, SHT_DYNSYM):
            for section in self.sections:
                if section.type == kind:
                    return self.symbols(section)
        return []

    @cached_property
    def dynsym(self) -> list[Symbol]:
        for section in self.sections:
            if section.type == SHT_DYNSYM:
                return self.symbols(section)
        return []

    def relocations(self, section: Section) -> list[Relocation]:
        data = self.section_data(section)
        out: list[Relocation] = []
        if section.type == SHT_RELA:
            for pos in range(0, len(data) - len(data) % RELA.size, RELA.size):
                offset, info, addend = RELA.unpack_from(data, pos)
                out.append(Relocation(offset, info & 0xFFFFFFFF, info >> 32, addend))
        elif section.type == SHT_REL:
            for pos in range(0, len(data) - len(data) % REL.size, REL.size):
                offset, info = REL.unpack_from(data, pos)
                out.append(Relocation(offset, info & 0xFFFFFFFF, info >> 32, 0))
        else:
            raise ElfError(f"section {section.name!r} holds no relocations")
        return out

    def relocation_sections(self) -> Iterator[Section]:
        return (s for s in self.sections if s.type in (SHT_RELA, SHT_REL))

    def dynamic_entries(self) -> list[tuple[int, int]]:
        for section in self.sections:
            if section.type == SHT_DYNAMIC:
                data = self.section_data(section)
                return [DYN.unpack_from(data, p) for p in range(0, len(data) - len(data) % DYN.size, DYN.size)]
        return []

    # -- notes ------------------------------------------------------------------------------
    def notes(self) -> list[Note]:
        """Notes from SHT_NOTE sections (or PT_NOTE segments when there are no section headers)."""
        blobs = [self.section_data(s) for s in self.sections if s.type == SHT_NOTE]
        if not self.sections:
            blobs = [self._slice(p.offset, p.filesz, "note segment") for p in self.segments if p.type == PT_NOTE]
        out: list[Note] = []
        for blob in blobs:
            out.extend(parse_notes(blob))
        return out

    # -- loaded image -----------------------------------------------------------------------
    def vaddr_to_offset(self, vaddr: int) -> int | None:
        """File offset of a virtual address, through sections (PIE/.so) or segments."""
        for section in self.sections:
            loaded = section.flags & SHF_ALLOC and section.type != SHT_NOBITS
            if loaded and section.addr <= vaddr < section.addr + section.size:
                return section.offset + (vaddr - section.addr)
        for segment in self.segments:
            if segment.type == PT_LOAD and segment.vaddr <= vaddr < segment.vaddr + segment.filesz:
                return segment.offset + (vaddr - segment.vaddr)
        return None


def parse_notes(blob: bytes) -> list[Note]:
    """Split an ELF note area (4-byte aligned name and descriptor) into notes."""
    out: list[Note] = []
    pos = 0
    while pos + 12 <= len(blob):
        namesz, descsz, ntype = struct.unpack_from("<III", blob, pos)
        pos += 12
        name_end = pos + namesz
        desc_start = pos + ((namesz + 3) & ~3)
        desc_end = desc_start + descsz
        if desc_end > len(blob):
            raise ElfError("note runs past the end of its section")
        name = blob[pos:name_end].rstrip(b"\0").decode("utf-8", "replace")
        out.append(Note(name, ntype, blob[desc_start:desc_end]))
        pos = desc_start + ((descsz + 3) & ~3)
    return out
