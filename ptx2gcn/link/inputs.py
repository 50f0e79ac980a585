"""The linker's inputs: relocatable AMDGPU objects read, checked and given link-time records.

Invariant: ``read_object`` returns an ``InputObject`` only for a well-formed little-endian ELF64
``ET_REL`` for ``EM_AMDGPU`` / the AMDGPU HSA OS ABI, holding the sections the link keeps (symbol,
string, relocation, group and address-significance tables, SHF_EXCLUDE sections and
``.note.GNU-stack`` are dropped) with power-of-two alignments up to 64 KiB and sizes below 4 GiB;
``merged_flags`` accepts objects whose ``e_flags`` ld.lld would link together. Any other input is a
``LinkError`` naming the object (``reading`` turns the reader's ``ElfError`` into one). Nothing here
assigns addresses: ``InputSection.address_of`` and ``LinkSymbol.address`` are valid only after
``ptx2gcn.link.layout.layout``.
"""

from __future__ import annotations

import bisect
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from ptx2gcn.diagnostics import Diagnostic, Ptx2GcnError, Severity, Span
from ptx2gcn.link import elf
from ptx2gcn.link.elf import ElfError, ElfFile, Section
from ptx2gcn.link.elf_writer import SHT_GNU_HASH
from ptx2gcn.link.layout import MergedSection, OutputSection, Piece

_DROPPED_TYPES = {elf.SHT_NULL, elf.SHT_SYMTAB, elf.SHT_STRTAB, elf.SHT_RELA, elf.SHT_REL, elf.SHT_GROUP,
                  elf.SHT_LLVM_ADDRSIG}
_LINKED_ONLY_TYPES = {elf.SHT_DYNAMIC, elf.SHT_DYNSYM, elf.SHT_HASH, SHT_GNU_HASH}
_MAX_ALIGN = 1 << 16
_MAX_SECTION = 1 << 32
# e_flags fields (AMDGPUUsage "ELF Header"): machine, and the v4+ target-feature settings.
_EF_MACH, _EF_GENERIC_VERSION = 0xFF, 0xFF000000
_EF_XNACK, _EF_XNACK_ANY = 0x300, 0x100
_EF_SRAMECC, _EF_SRAMECC_ANY = 0xC00, 0x400
_FEATURES = ((_EF_XNACK, _EF_XNACK_ANY, "xnack"), (_EF_SRAMECC, _EF_SRAMECC_ANY, "sramecc"))


class LinkError(Ptx2GcnError):
    """The objects cannot be linked; the message names the object and the symbol or section."""

    @classmethod
    def of(cls, where: str, message: str) -> LinkError:
        return cls(Diagnostic(Severity.ERROR, Span.unknown(where), message))



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
def reading(name: str) -> Generator[None, None, None]:
    """Report an ``ElfError`` from parsing object ``name`` as a ``LinkError``."""
    try:
        yield
    except ElfError as error:
        raise LinkError.of(name, f"malformed object: {error}") from None


def read_object(data: bytes, name: str) -> InputObject:
    with reading(name):
        image = ElfFile(data)
        if image.type != elf.ET_REL:
            raise LinkError.of(name, f"not a relocatable object (ELF type {image.type})")
        if image.machine != elf.EM_AMDGPU:
            raise LinkError.of(name, f"wrong machine {image.machine}, expected EM_AMDGPU ({elf.EM_AMDGPU})")
        if image.osabi != elf.ELFOSABI_AMDGPU_HSA:
            raise LinkError.of(name, f"OS/ABI {image.osabi} is not AMDGPU HSA ({elf.ELFOSABI_AMDGPU_HSA})")
        obj = InputObject(name, image)
        for section in image.sections:
            dropped = section.type in _DROPPED_TYPES or section.flags & elf.SHF_EXCLUDE
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


def merged_flags(objects: Sequence[InputObject]) -> int:
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

