"""Find fatbin containers in what a user or a program hands us: a standalone ``.fatbin``, an ELF host
object / executable / shared library, a bare in-memory image, or a pointer into process memory.

Sources (``docs/fatbin-format.md``): ELF files keep containers in ``.nv_fatbin`` (whole
programs) and ``__nv_relfatbin`` (``-rdc`` relocatable device code), and 24-byte registration
wrappers (``__fatBinC_Wrapper_t``, magic 0x466243B1) in ``.nvFatBinSegment``. A version-1 wrapper
names the container a translation unit registers; its pointer is a link-time virtual address, which
a static reader maps to a file offset through the section headers (in ``ET_REL`` objects it is a
relocation instead).

Invariant: every function here either returns a ``Fatbin`` whose containers all parsed, or raises
``FatbinError`` naming the source and offset; process memory is read only through
``fatbin_from_pointer`` and only within the sizes the headers declare.
"""

from __future__ import annotations

import ctypes
import struct
from dataclasses import dataclass, replace
from pathlib import Path

from ptx2gcn.link.elf import ELF_MAGIC, EM_AARCH64, EM_X86_64, ET_REL, SHT_NOBITS, ElfError, ElfFile, Section
from ptx2gcn.runtime.fatbin.container import (
    CONTAINER_HEADER_SIZE,
    CONTAINER_MAGIC,
    Container,
    FatbinEntry,
    FatbinError,
    parse_container,
    parse_containers,
)

WRAPPER_MAGIC = 0x466243B1
OLD_FATBIN_MAGIC = 0x1EE55A01  # CUDA < 4 "fatDeviceText" (vosen/ZLUDA: not handled either)
_WRAPPER = struct.Struct("<IIQQ")  # magic, version, data, filename_or_fatbins
_CONTAINER_HEAD = struct.Struct("<IHHQ")
EM_CUDA = 190
_RELATIVE_RELOCATIONS = {EM_X86_64: 8, EM_AARCH64: 1027}  # R_X86_64_RELATIVE, R_AARCH64_RELATIVE
FATBIN_SECTIONS = (".nv_fatbin", "__nv_relfatbin")
WRAPPER_SECTION = ".nvFatBinSegment"


@dataclass(frozen=True, slots=True)
class Wrapper:
    """One ``.nvFatBinSegment`` record: 1 = a translation unit's module, 2 = device-linked (nvlink)."""

    offset: int
    """File offset of the record."""
    version: int
    data: int
    """The container's link-time address (0 in an unlinked object, where a relocation names it)."""
    prelinked: int
    container_offset: int | None
    """File offset of the container it names, when that could be resolved."""


@dataclass(frozen=True, slots=True)
class Fatbin:
    """Every container found in one source, in file order."""

    source: str
    containers: tuple[Container, ...]
    wrappers: tuple[Wrapper, ...] = ()

    @property
    def entries(self) -> tuple[FatbinEntry, ...]:
        return tuple(entry for container in self.containers for entry in container.entries)


def read_fatbin_file(path: str | Path) -> Fatbin:
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise FatbinError.located(str(path), None, f"cannot read: {error.strerror or error}") from None
    return read_fatbin(data, str(path))


def read_fatbin(data: bytes, source: str = "<memory>") -> Fatbin:
    """Containers in a standalone fatbin image or an ELF file, chosen by the leading magic."""
    if data[:4] == ELF_MAGIC:
        return _from_elf(data, source)
    magic = struct.unpack_from("<I", data)[0] if len(data) >= 4 else None
    if magic == CONTAINER_MAGIC:
        return Fatbin(source, tuple(parse_containers(data, 0, len(data), source)))
    if magic == WRAPPER_MAGIC:
        raise FatbinError.located(
            source,
            0,
            "this is a fatbin wrapper (__fatBinC_Wrapper_t), which holds "
            "pointers into a process; pass the ELF file it came from, or its address "
            "to fatbin_from_pointer",
        )
    if magic == OLD_FATBIN_MAGIC:
        raise FatbinError.located(
            source,
            0,
            "this is a pre-CUDA-4 fatbin (magic 0x1ee55a01), which ptx2gcn does not read; rebuild "
            "with a current nvcc",
        )
    shown = f"0x{magic:08x}" if magic is not None else f"only {len(data)} bytes"
    raise FatbinError.located(
        source,
        0,
        f"not a CUDA fatbin or ELF file (magic {shown}; a fatbin starts with 0x{CONTAINER_MAGIC:08x})",
    )


def fatbin_from_pointer(address: int, source: str | None = None) -> Fatbin:
    """The container at ``address`` in this process (a wrapper is followed to its container), as given
    to ``cuModuleLoadData``/``cuModuleLoadFatBinary``. The caller vouches that the address is mapped."""
    name = source or f"<memory 0x{address:x}>"
    if address == 0:
        raise FatbinError.located(name, None, "null fatbin pointer")
    magic = struct.unpack("<I", ctypes.string_at(address, 4))[0]
    if magic == WRAPPER_MAGIC:
        _magic, version, data, _prelinked = _WRAPPER.unpack(ctypes.string_at(address, _WRAPPER.size))
        if version not in (1, 2) or data == 0:
            raise FatbinError.located(
                name, 0, f"fatbin wrapper version {version} with data pointer 0x{data:x}"
            )
        address = data
        magic = struct.unpack("<I", ctypes.string_at(address, 4))[0]
    if magic != CONTAINER_MAGIC:
        raise FatbinError.located(
            name, 0, f"bad fatbin magic 0x{magic:08x} (expected 0x{CONTAINER_MAGIC:08x})"
        )
    _magic, _version, header_size, fat_size = _CONTAINER_HEAD.unpack(
        ctypes.string_at(address, CONTAINER_HEADER_SIZE)
    )
    if header_size < CONTAINER_HEADER_SIZE or fat_size > 1 << 40:
        raise FatbinError.located(
            name, 0, f"implausible container sizes (header 0x{header_size:x}, entries 0x{fat_size:x})"
        )
    image = ctypes.string_at(address, header_size + fat_size)
    return Fatbin(name, (parse_container(image, 0, name),))


# -- ELF --------------------------------------------------------------------------------------------
def _from_elf(data: bytes, source: str) -> Fatbin:
    try:
        elf = ElfFile(data)
    except ElfError as error:
        raise FatbinError.located(source, None, f"malformed ELF file: {error}") from None
    if elf.machine == EM_CUDA:
        raise FatbinError.located(
            source,
            None,
            "this is a CUDA cubin (SASS for one NVIDIA GPU), not a fatbin; "
            "ptx2gcn needs PTX: rebuild with -gencode arch=compute_XX,code=compute_XX",
        )
    containers: list[Container] = []
    for name in FATBIN_SECTIONS:
        section = elf.section(name)
        if section is not None and section.type != SHT_NOBITS:
            _section_bounds(elf, section, source)
            containers += parse_containers(
                data, section.offset, section.offset + section.size, source, section=name
            )
    wrappers = _wrappers(elf, source)
    containers = _mark_registered(elf, data, source, containers, wrappers)
    if not containers:
        raise FatbinError.located(
            source,
            None,
            "no CUDA fatbin in this ELF file (no .nv_fatbin or "
            "__nv_relfatbin section): was it built with nvcc?",
        )
    return Fatbin(source, tuple(containers), tuple(wrappers))


def _section_bounds(elf: ElfFile, section: Section, source: str) -> None:
    if section.offset + section.size > len(elf.data):
        raise FatbinError.located(
            source,
            section.offset,
            f"section {section.name} (0x{section.size:x} bytes) runs past the end of the file",
        )


def _wrappers(elf: ElfFile, source: str) -> list[Wrapper]:
    section = elf.section(WRAPPER_SECTION)
    if section is None or section.type == SHT_NOBITS:
        return []
    _section_bounds(elf, section, source)
    out: list[Wrapper] = []
    relocated = _wrapper_relocations(elf, section)
    for pos in range(0, section.size - section.size % _WRAPPER.size, _WRAPPER.size):
        at = section.offset + pos
        magic, version, data, prelinked = _WRAPPER.unpack_from(elf.data, at)
        if magic != WRAPPER_MAGIC:
            raise FatbinError.located(
                source, at, f"bad fatbin wrapper magic 0x{magic:08x} in {WRAPPER_SECTION}"
            )
        target = relocated.get(pos + 8) if data == 0 else elf.vaddr_to_offset(data)
        out.append(Wrapper(at, version, data, prelinked, target))
    return out


def _wrapper_relocations(elf: ElfFile, section: Section) -> dict[int, int]:
    """Wrapper field offset (within the section) → file offset of the container it points at, for
    pointers left as relocations: section-relative ones in ``ET_REL`` objects, ``R_*_RELATIVE``
    dynamic ones in PIE/.so files linked without the value stored in place (lld's default)."""
    out: dict[int, int] = {}
    relative = _RELATIVE_RELOCATIONS.get(elf.machine)
    for rel_section in elf.relocation_sections():
        try:
            if elf.type == ET_REL and rel_section.info == section.index:
                out.update(_static_targets(elf, rel_section))
            elif elf.type != ET_REL and relative is not None:
                for rel in elf.relocations(rel_section):
                    target = elf.vaddr_to_offset(rel.addend)
                    inside = section.addr <= rel.offset < section.addr + section.size
                    if rel.type == relative and inside and target is not None:
                        out[rel.offset - section.addr] = target
        except (ElfError, IndexError):
            continue  # unreadable relocations only cost us the "registered" marks
    return out


def _static_targets(elf: ElfFile, rel_section: Section) -> dict[int, int]:
    out: dict[int, int] = {}
    symbols = elf.symbols(elf.sections[rel_section.link])
    for rel in elf.relocations(rel_section):
        if 0 <= rel.symbol < len(symbols) and 0 < symbols[rel.symbol].shndx < len(elf.sections):
            target = elf.sections[symbols[rel.symbol].shndx]
            out[rel.offset] = target.offset + symbols[rel.symbol].value + rel.addend
    return out


def _mark_registered(
    elf: ElfFile, data: bytes, source: str, containers: list[Container], wrappers: list[Wrapper]
) -> list[Container]:
    by_offset = {c.offset: i for i, c in enumerate(containers)}
    for wrapper in wrappers:
        if wrapper.version != 1 or (wrapper.data == 0 and wrapper.container_offset is None):
            continue
        offset = wrapper.container_offset
        if offset is None:
            raise FatbinError.located(
                source,
                wrapper.offset,
                f"fatbin wrapper points at 0x{wrapper.data:x}, which no section of the file holds",
            )
        if offset not in by_offset:  # a container kept outside the fatbin sections
            holder = next((s.name for s in elf.sections if s.offset <= offset < s.offset + s.size), "")
            containers.append(parse_container(data, offset, source, section=holder))
            by_offset[offset] = len(containers) - 1
        index = by_offset[offset]
        containers[index] = replace(containers[index], registered=True)
    return containers
