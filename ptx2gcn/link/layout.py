"""Output sections of a shared object: which exist, their order, and their placement, as ld.lld
does it.

Invariant: ``MergedSection`` stores the pieces of SHF_MERGE input sections (strings or fixed-size
records) once each, in ld.lld's 32 hash-chosen shards, so their offsets match ld.lld's;
``final_order`` puts input-derived and linker-made sections in ld.lld's order (notes,
dynamic-linking tables, read-only data, code, RELRO, data, bss, non-allocated); ``layout`` takes
that order with final sizes and assigns every address, file offset and program header exactly by
ld.lld's rules for a default ``-shared`` link (max/common page size 4 KiB): the first PT_LOAD holds
the ELF and program
headers; a new PT_LOAD starts where the segment permissions change or RELRO ends; the first
section of a later PT_LOAD advances to ``align(dot, page) + dot % page`` so no file padding is
needed; file offsets stay congruent to addresses modulo the page; ``.relro_padding`` stretches the
RELRO segment to a page boundary without moving the following segment. Contents are not touched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from ptx2gcn.link import elf
from ptx2gcn.link.elf_writer import (
    DT_GNU_HASH,
    DT_HASH,
    DT_NULL,
    DT_RELA,
    DT_RELACOUNT,
    DT_RELAENT,
    DT_RELASZ,
    DT_STRSZ,
    DT_STRTAB,
    DT_SYMENT,
    DT_SYMTAB,
    DYN_SIZE,
    EHDR_SIZE,
    PHDR_SIZE,
    RELA_SIZE,
    SHT_GNU_HASH,
    SYM_SIZE,
    ProgramHeader,
    SectionHeader,
    StringTable,
    build_gnu_hash,
    build_sysv_hash,
    xxh3_64,
)

PAGE_SIZE = 0x1000
# ld.lld's output names for input sections: ".text.foo" goes to ".text", and so on.
_OUTPUT_PREFIXES = (".text", ".data.rel.ro", ".data", ".rodata", ".bss.rel.ro", ".bss")


def align_up(value: int, alignment: int) -> int:
    return value if alignment <= 1 else (value + alignment - 1) // alignment * alignment


@dataclass(eq=False)
class OutputSection:
    """One section of the output file; ``data`` is filled in once addresses are known."""

    name: str
    type: int
    flags: int
    align: int = 1
    size: int = 0
    entsize: int = 0
    relro: bool = False
    padding: bool = False
    """The ``.relro_padding`` section: its size is whatever reaches the next page boundary."""
    link: OutputSection | None = None
    info: int = 0
    data: bytes = b""
    addr: int = 0
    offset: int = 0
    index: int = 0
    """Section header index (1-based; assigned by ``layout``)."""
    parts: list[object] = field(default_factory=lambda: [])
    """The input sections placed here (opaque to this module)."""

    @property
    def alloc(self) -> bool:
        return bool(self.flags & elf.SHF_ALLOC)

    @property
    def nobits(self) -> bool:
        return self.type == elf.SHT_NOBITS

    @property
    def segment_flags(self) -> int:
        writable = elf.PF_W if self.flags & elf.SHF_WRITE else 0
        return elf.PF_R | writable | (elf.PF_X if self.flags & elf.SHF_EXECINSTR else 0)


# Immutable records are NamedTuples for the start-up cost, as in ``ptx2gcn.link.elf``.
class Piece(NamedTuple):
    """One string (with its terminator) or record of a mergeable input section."""

    offset: int
    """Where it starts in its input section."""
    data: bytes
    hash: int
    """XXH3-64 of the string without its terminator, or of the record."""


def split_pieces(data: bytes, entsize: int, strings: bool) -> list[Piece]:
    """Cut a mergeable section into pieces as ld.lld does; ``ValueError`` if a string is unterminated."""
    if not strings:
        records = (data[at:at + entsize] for at in range(0, len(data), entsize))
        return [Piece(index * entsize, record, xxh3_64(record)) for index, record in enumerate(records)]
    nul = bytes(entsize)
    if data[-entsize:] != nul:
        raise ValueError("the last string is not null-terminated")
    pieces: list[Piece] = []
    start = 0
    while start < len(data):
        end = data.find(nul, start)
        while (end - start) % entsize:
            end = data.find(nul, end + 1)
        pieces.append(Piece(start, data[start:end + entsize], xxh3_64(data[start:end])))
        start = end + entsize
    return pieces


_SHARDS = 32


@dataclass(eq=False)
class MergedSection:
    """ld.lld's MergeNoTailSection: each distinct piece once; a piece goes to shard (hash bits 27-31),
    in first-seen order, each piece aligned to ``align``; non-empty shards are concatenated, aligned."""

    align: int
    members: list[list[Piece]] = field(default_factory=lambda: [])
    """The pieces of each input section merged here, in input order."""
    offset: int = 0
    """Offset inside the output section."""
    data: bytes = b""
    piece_offsets: list[list[int]] = field(default_factory=lambda: [])
    """``piece_offsets[m][i]``: where piece i of member m ended up, from the start of ``data``."""

    def build(self) -> None:
        shards: list[dict[bytes, int]] = [{} for _ in range(_SHARDS)]
        sizes = [0] * _SHARDS
        placed: list[list[tuple[int, int]]] = []
        for pieces in self.members:
            row: list[tuple[int, int]] = []
            for piece in pieces:
                shard = (piece.hash & 0xFFFFFFFF) >> 27
                at = shards[shard].get(piece.data)
                if at is None:
                    at = shards[shard][piece.data] = align_up(sizes[shard], self.align)
                    sizes[shard] = at + len(piece.data)
                row.append((shard, at))
            placed.append(row)
        starts, end = [0] * _SHARDS, 0
        for shard in range(_SHARDS):
            if sizes[shard]:
                end = align_up(end, self.align)
            starts[shard], end = end, end + sizes[shard]
        data = bytearray(end)
        for shard, table in enumerate(shards):
            for blob, at in table.items():
                data[starts[shard] + at:starts[shard] + at + len(blob)] = blob
        self.data = bytes(data)
        self.piece_offsets = [[starts[shard] + at for shard, at in row] for row in placed]


def output_name(name: str) -> str:
    for prefix in _OUTPUT_PREFIXES:
        if name == prefix or name.startswith(prefix + "."):
            return prefix
    return name


def rank(section: OutputSection) -> int:
    """ld.lld's order class: notes, other read-only, read-only data, code, RELRO, data, bss, the rest."""
    if not section.alloc:
        return 7
    if section.flags & elf.SHF_EXECINSTR:
        return 3
    if not section.flags & elf.SHF_WRITE:
        return 0 if section.type == elf.SHT_NOTE else 2 if section.type == elf.SHT_PROGBITS else 1
    if section.relro:
        return 4
    return 6 if section.nobits else 5


@dataclass(eq=False)
class SyntheticSections:
    """The linker-made sections (sizes fixed before layout; ``ptx2gcn.link.linker`` fills most contents after)."""

    dynsym: OutputSection
    gnu_hash: OutputSection
    hash: OutputSection
    dynstr: OutputSection
    rela: OutputSection | None
    dynamic: OutputSection
    got: OutputSection | None
    padding: OutputSection
    symtab: OutputSection
    shstrtab: OutputSection
    strtab: OutputSection
    relative_relocs: int


def synthetic_sections(dynamic_names: Sequence[str], dynstr: bytes, dynamic_relocs: int, relative_relocs: int,
                       got_slots: int, static_symbols: int) -> SyntheticSections:
    """Sections for a .dynsym of ``dynamic_names`` (in GNU-hash order), ``dynamic_relocs`` entries of
    .rela.dyn (``relative_relocs`` of them RELATIVE), ``got_slots`` GOT entries and a .symtab of
    ``static_symbols`` entries (null included). .rela.dyn and .got exist only when non-empty."""
    alloc, writable = elf.SHF_ALLOC, elf.SHF_ALLOC | elf.SHF_WRITE
    names = list(dynamic_names)
    strings = OutputSection(".dynstr", elf.SHT_STRTAB, alloc, size=len(dynstr), data=dynstr)
    dynsym = OutputSection(".dynsym", elf.SHT_DYNSYM, alloc, 8, SYM_SIZE * (len(names) + 1), SYM_SIZE,
                           link=strings, info=1)
    gnu_data, sysv_data = build_gnu_hash(names, 1), build_sysv_hash(["", *names])
    gnu = OutputSection(".gnu.hash", SHT_GNU_HASH, alloc, 8, len(gnu_data), link=dynsym, data=gnu_data)
    sysv = OutputSection(".hash", elf.SHT_HASH, alloc, 4, len(sysv_data), 4, link=dynsym, data=sysv_data)
    rela = None
    if dynamic_relocs:
        rela = OutputSection(".rela.dyn", elf.SHT_RELA, alloc, 8, RELA_SIZE * dynamic_relocs, RELA_SIZE,
                             link=dynsym)
    dynamic = OutputSection(".dynamic", elf.SHT_DYNAMIC, writable, 8, entsize=DYN_SIZE, relro=True, link=strings)
    got = OutputSection(".got", elf.SHT_PROGBITS, writable, 8, 8 * got_slots, relro=True) if got_slots else None
    padding = OutputSection(".relro_padding", elf.SHT_NOBITS, writable, relro=True, padding=True)
    strtab = OutputSection(".strtab", elf.SHT_STRTAB, 0)
    symtab = OutputSection(".symtab", elf.SHT_SYMTAB, 0, 8, SYM_SIZE * static_symbols, SYM_SIZE, link=strtab)
    shstrtab = OutputSection(".shstrtab", elf.SHT_STRTAB, 0)
    synthetic = SyntheticSections(dynsym, gnu, sysv, strings, rela, dynamic, got, padding, symtab, shstrtab,
                                  strtab, relative_relocs)
    dynamic.size = DYN_SIZE * len(dynamic_entries(synthetic))
    return synthetic


def dynamic_entries(s: SyntheticSections) -> list[tuple[int, int]]:
    """The .dynamic entries (tag, value) in ld.lld's order, from the sections' current addresses."""
    entries: list[tuple[int, int]] = []
    if s.rela is not None:
        entries += [(DT_RELA, s.rela.addr), (DT_RELASZ, s.rela.size), (DT_RELAENT, RELA_SIZE)]
        if s.relative_relocs:
            entries.append((DT_RELACOUNT, s.relative_relocs))
    entries += [(DT_SYMTAB, s.dynsym.addr), (DT_SYMENT, SYM_SIZE), (DT_STRTAB, s.dynstr.addr),
                (DT_STRSZ, s.dynstr.size), (DT_GNU_HASH, s.gnu_hash.addr), (DT_HASH, s.hash.addr),
                (DT_NULL, 0)]
    return entries


def final_order(placed: Sequence[OutputSection], s: SyntheticSections) -> list[OutputSection]:
    """All output sections in file order: ``placed`` (input-derived) by ``rank``, stable, with the
    linker-made sections where ld.lld puts them."""
    by_rank: dict[int, list[OutputSection]] = {}
    for section in placed:
        by_rank.setdefault(rank(section), []).append(section)
    early = [x for x in (s.dynsym, s.gnu_hash, s.hash, s.dynstr, s.rela) if x is not None]
    relro_tail = [x for x in (s.dynamic, s.got, s.padding) if x is not None]
    groups = [by_rank.get(0, []), early, *(by_rank.get(r, []) for r in (1, 2, 3, 4)), relro_tail,
              *(by_rank.get(r, []) for r in (5, 6, 7)), [s.symtab, s.shstrtab, s.strtab]]
    return [section for group in groups for section in group]


class Layout(NamedTuple):
    phdrs: tuple[ProgramHeader, ...]
    shoff: int


def _plan_loads(alloc: Sequence[OutputSection]) -> list[list[OutputSection]]:
    """Split allocated sections into PT_LOADs; the first (read-only) one also holds the headers."""
    loads: list[list[OutputSection]] = [[]]
    flags, relro = elf.PF_R, False
    for section in alloc:
        if section.segment_flags != flags or (relro and not section.relro):
            loads.append([])
        loads[-1].append(section)
        flags, relro = section.segment_flags, section.relro
    return loads


def _note_groups(alloc: Sequence[OutputSection]) -> list[list[OutputSection]]:
    """Runs of adjacent elf.SHT_NOTE sections with equal alignment, one elf.PT_NOTE each."""
    groups: list[list[OutputSection]] = []
    previous: OutputSection | None = None
    for section in alloc:
        if section.type == elf.SHT_NOTE:
            if previous is None or previous.align != section.align:
                groups.append([])
            groups[-1].append(section)
            previous = section
        else:
            previous = None
    return groups


def _assign_addresses(alloc: Sequence[OutputSection], loads: list[list[OutputSection]], start: int) -> None:
    first_of_load = {id(load[0]): load[0] for load in loads[1:] if load}
    owner: dict[int, OutputSection | None] = {}
    for load in loads:
        for section in load:
            owner[id(section)] = load[0] if load is not loads[0] else None
    dot = offset = start
    for section in alloc:
        is_first = id(section) in first_of_load
        if is_first:
            dot = align_up(dot, PAGE_SIZE) + dot % PAGE_SIZE
        dot = align_up(dot, section.align)
        section.addr = dot
        if section.padding:
            section.size = align_up(dot, PAGE_SIZE) - dot
        else:
            dot += section.size
        if is_first:
            offset += (section.addr - offset) % PAGE_SIZE
        elif not section.nobits:
            first = owner[id(section)]
            offset = section.addr if first is None else first.offset + section.addr - first.addr
        section.offset = offset
        if not section.nobits:
            offset += section.size


def _span(first: OutputSection, last: OutputSection) -> tuple[int, int]:
    """(filesz, memsz) of a segment running from ``first`` to ``last``."""
    filesz = last.offset - first.offset + (0 if last.nobits else last.size)
    return filesz, last.addr + last.size - first.addr


def _segment(kind: int, flags: int, first: OutputSection, last: OutputSection, align: int) -> ProgramHeader:
    filesz, memsz = _span(first, last)
    return ProgramHeader(kind, flags, first.offset, first.addr, filesz, memsz, align)


def _program_headers(alloc: Sequence[OutputSection], loads: list[list[OutputSection]],
                     notes: list[list[OutputSection]], phnum: int) -> list[ProgramHeader]:
    headers_size = EHDR_SIZE + phnum * PHDR_SIZE
    phdrs = [ProgramHeader(elf.PT_PHDR, elf.PF_R, EHDR_SIZE, EHDR_SIZE, phnum * PHDR_SIZE, phnum * PHDR_SIZE, 8)]
    filesz = memsz = headers_size
    if loads[0]:
        last = loads[0][-1]
        filesz, memsz = last.offset + (0 if last.nobits else last.size), last.addr + last.size
    phdrs.append(ProgramHeader(elf.PT_LOAD, elf.PF_R, 0, 0, filesz, memsz, PAGE_SIZE))
    for load in loads[1:]:
        phdrs.append(_segment(elf.PT_LOAD, load[0].segment_flags, load[0], load[-1], PAGE_SIZE))
    dynamic = next((section for section in alloc if section.type == elf.SHT_DYNAMIC), None)
    if dynamic is not None:
        phdrs.append(_segment(elf.PT_DYNAMIC, dynamic.segment_flags, dynamic, dynamic, dynamic.align))
    relro = [section for section in alloc if section.relro]
    if relro:
        phdrs.append(_segment(elf.PT_GNU_RELRO, elf.PF_R, relro[0], relro[-1], 1))
    phdrs.append(ProgramHeader(elf.PT_GNU_STACK, elf.PF_R | elf.PF_W, 0, 0, 0, 0, 0))
    for group in notes:
        phdrs.append(_segment(elf.PT_NOTE, elf.PF_R, group[0], group[-1], group[0].align))
    return phdrs


def layout(sections: Sequence[OutputSection]) -> Layout:
    """Number the sections, assign addresses and offsets, and build the program headers."""
    for index, section in enumerate(sections, start=1):
        section.index = index
    alloc = [section for section in sections if section.alloc]
    loads = _plan_loads(alloc)
    notes = _note_groups(alloc)
    has_dynamic = any(section.type == elf.SHT_DYNAMIC for section in alloc)
    has_relro = any(section.relro for section in alloc)
    phnum = 1 + len(loads) + int(has_dynamic) + int(has_relro) + 1 + len(notes)
    _assign_addresses(alloc, loads, EHDR_SIZE + phnum * PHDR_SIZE)
    headers_end = EHDR_SIZE + phnum * PHDR_SIZE
    offset = max((s.offset + (0 if s.nobits else s.size) for s in alloc), default=headers_end)
    for section in sections:
        if not section.alloc:
            section.offset = align_up(offset, section.align)
            offset = section.offset + section.size
    phdrs = _program_headers(alloc, loads, notes, phnum)
    assert len(phdrs) == phnum
    return Layout(tuple(phdrs), align_up(offset, 8))


def section_headers(sections: Sequence[OutputSection], names: StringTable) -> list[SectionHeader]:
    """Section headers 1.. for ``sections`` (after ``layout``), names taken from ``names``."""
    return [SectionHeader(names.add(s.name), s.type, s.flags, s.addr if s.alloc else 0, s.offset, s.size,
                          s.link.index if s.link is not None else 0, s.info, s.align, s.entsize)
            for s in sections]
