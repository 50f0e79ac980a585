"""Byte-level pieces of an ELF64 little-endian shared object: string tables, symbol entries,
SysV and GNU hash tables, dynamic entries, and the file/section/program headers.

Invariant: every function here is pure and deterministic (same arguments, same bytes) and knows
nothing about linking decisions; ``ptx2gcn.link`` decides *what* goes into a table and this module
only encodes it, following the ELF gABI and the GNU hash-table format as ld.lld writes them
(bucket count, bloom-filter size and the symbol order that goes with them).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ptx2gcn.elf import ELF_MAGIC, ELFCLASS64, ELFDATA2LSB, ET_DYN, EM_AMDGPU

EHDR_SIZE = 64
PHDR_SIZE = 56
SHDR_SIZE = 64
SYM_SIZE = 24
RELA_SIZE = 24
DYN_SIZE = 16

SHT_GNU_HASH = 0x6FFFFFF6

# Dynamic tags (gABI; DT_RELACOUNT and DT_GNU_HASH are GNU extensions).
DT_NULL = 0
DT_HASH = 4
DT_STRTAB = 5
DT_SYMTAB = 6
DT_RELA = 7
DT_RELASZ = 8
DT_RELAENT = 9
DT_STRSZ = 10
DT_SYMENT = 11
DT_GNU_HASH = 0x6FFFFEF5
DT_RELACOUNT = 0x6FFFFFF9

_GNU_HASH_SHIFT2 = 26

_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_SHDR = struct.Struct("<IIQQQQIIQQ")
_PHDR = struct.Struct("<IIQQQQQQ")
_SYM = struct.Struct("<IBBHQQ")
_RELA = struct.Struct("<QQq")
_DYN = struct.Struct("<qQ")


class StringTable:
    """An ELF string table: offset 0 is the empty string; identical strings are stored once."""

    def __init__(self) -> None:
        self._data = bytearray(b"\0")
        self._offsets: dict[str, int] = {"": 0}

    def add(self, text: str) -> int:
        found = self._offsets.get(text)
        if found is not None:
            return found
        offset = len(self._data)
        self._data += text.encode("utf-8") + b"\0"
        self._offsets[text] = offset
        return offset

    def __len__(self) -> int:
        return len(self._data)

    def data(self) -> bytes:
        return bytes(self._data)


@dataclass(frozen=True, slots=True)
class SymbolEntry:
    """One Elf64_Sym, with the name already placed in its string table."""

    name: int
    info: int
    other: int
    shndx: int
    value: int
    size: int

    def pack(self) -> bytes:
        return _SYM.pack(self.name, self.info, self.other, self.shndx, self.value, self.size)


def pack_symbols(entries: Iterable[SymbolEntry]) -> bytes:
    """A symbol table: the null symbol, then ``entries`` in order."""
    return b"\0" * SYM_SIZE + b"".join(entry.pack() for entry in entries)


def pack_rela(entries: Iterable[tuple[int, int, int, int]]) -> bytes:
    """Elf64_Rela records from (offset, type, symbol index, addend)."""
    return b"".join(_RELA.pack(offset, (symbol << 32) | kind, addend) for offset, kind, symbol, addend in entries)


def pack_dynamic(entries: Iterable[tuple[int, int]]) -> bytes:
    """Elf64_Dyn records from (tag, value); the caller includes the DT_NULL terminator."""
    return b"".join(_DYN.pack(tag, value) for tag, value in entries)


def sysv_hash(name: bytes) -> int:
    """The gABI ``elf_hash`` of a symbol name."""
    h = 0
    for byte in name:
        h = ((h << 4) + byte) & 0xFFFFFFFF
        g = h & 0xF0000000
        if g:
            h ^= g >> 24
        h &= ~g & 0xFFFFFFFF
    return h


def gnu_hash(name: bytes) -> int:
    """The GNU hash (Bernstein's h*33 + c, from 5381) of a symbol name."""
    h = 5381
    for byte in name:
        h = (h * 33 + byte) & 0xFFFFFFFF
    return h


def gnu_hash_bucket_count(defined: int) -> int:
    """Buckets for ``defined`` hashed symbols: a load factor of 4, at least one (as ld.lld)."""
    return max(defined // 4, 1)


def gnu_hash_order(names: Sequence[str]) -> list[int]:
    """Indices of ``names`` in the order GNU hashing needs: by bucket, then by insertion order.

    (ld.lld sorts by bucket, then by .dynstr offset, which is the order the names were added.)
    """
    buckets = gnu_hash_bucket_count(len(names))
    keyed = [(gnu_hash(name.encode("utf-8")) % buckets, index) for index, name in enumerate(names)]
    return [index for _, index in sorted(keyed)]


def _next_power_of_two_above(value: int) -> int:
    """The smallest power of two strictly greater than ``value`` (LLVM's ``NextPowerOf2``)."""
    power = 1
    while power <= value:
        power <<= 1
    return power


def build_gnu_hash(names: Sequence[str], first_index: int) -> bytes:
    """A .gnu.hash table for dynamic symbols ``first_index``.. whose names are ``names``.

    ``names`` must already be in ``gnu_hash_order``; symbol ``first_index + i`` is ``names[i]``.
    """
    buckets = gnu_hash_bucket_count(len(names))
    mask_words = _next_power_of_two_above(len(names) * 12 // 64) if names else 1
    hashes = [gnu_hash(name.encode("utf-8")) for name in names]
    bloom = [0] * mask_words
    for h in hashes:
        word = (h // 64) & (mask_words - 1)
        bloom[word] |= (1 << (h % 64)) | (1 << ((h >> _GNU_HASH_SHIFT2) % 64))
    bucket_starts = [0] * buckets
    chain: list[int] = []
    for position, h in enumerate(hashes):
        bucket = h % buckets
        last = position + 1 == len(hashes) or hashes[position + 1] % buckets != bucket
        chain.append(h | 1 if last else h & ~1)
        if position == 0 or hashes[position - 1] % buckets != bucket:
            bucket_starts[bucket] = first_index + position
    out = struct.pack("<IIII", buckets, first_index, mask_words, _GNU_HASH_SHIFT2)
    out += struct.pack(f"<{mask_words}Q", *bloom)
    out += struct.pack(f"<{buckets}I", *bucket_starts)
    out += struct.pack(f"<{len(chain)}I", *chain)
    return out


def build_sysv_hash(names: Sequence[str]) -> bytes:
    """A .hash table over a dynamic symbol table whose entry ``i`` is ``names[i]`` (0 = null)."""
    count = len(names)
    buckets = [0] * count
    chains = [0] * count
    for index, name in enumerate(names):
        if index == 0:
            continue
        bucket = sysv_hash(name.encode("utf-8")) % count
        chains[index] = buckets[bucket]
        buckets[bucket] = index
    return struct.pack(f"<II{count}I{count}I", count, count, *buckets, *chains)


@dataclass(frozen=True, slots=True)
class SectionHeader:
    name: int
    type: int
    flags: int
    addr: int
    offset: int
    size: int
    link: int
    info: int
    addralign: int
    entsize: int

    def pack(self) -> bytes:
        return _SHDR.pack(self.name, self.type, self.flags, self.addr, self.offset, self.size,
                          self.link, self.info, self.addralign, self.entsize)


@dataclass(frozen=True, slots=True)
class ProgramHeader:
    type: int
    flags: int
    offset: int
    vaddr: int
    filesz: int
    memsz: int
    align: int

    def pack(self) -> bytes:
        return _PHDR.pack(self.type, self.flags, self.offset, self.vaddr, self.vaddr, self.filesz,
                          self.memsz, self.align)


@dataclass(frozen=True, slots=True)
class FileHeader:
    osabi: int
    abiversion: int
    flags: int
    phnum: int
    shoff: int
    shnum: int
    shstrndx: int

    def pack(self) -> bytes:
        ident = ELF_MAGIC + bytes([ELFCLASS64, ELFDATA2LSB, 1, self.osabi, self.abiversion]) + b"\0" * 7
        return _EHDR.pack(ident, ET_DYN, EM_AMDGPU, 1, 0, EHDR_SIZE, self.shoff, self.flags, EHDR_SIZE,
                          PHDR_SIZE, self.phnum, SHDR_SIZE, self.shnum, self.shstrndx)


def assemble(header: FileHeader, phdrs: Sequence[ProgramHeader], pieces: Iterable[tuple[int, bytes]],
             shdrs: Sequence[SectionHeader]) -> bytes:
    """The file: header, program headers at 64, each (offset, bytes) piece, section headers at
    ``header.shoff`` (preceded by the null section header). Gaps are zero-filled."""
    out = bytearray(header.pack())
    out += b"".join(phdr.pack() for phdr in phdrs)
    for offset, data in pieces:
        if not data:
            continue
        if len(out) < offset:
            out += b"\0" * (offset - len(out))
        out[offset:offset + len(data)] = data
    if len(out) < header.shoff:
        out += b"\0" * (header.shoff - len(out))
    out[header.shoff:] = b"\0" * SHDR_SIZE + b"".join(shdr.pack() for shdr in shdrs)
    return bytes(out)


def pack_note(name: str, kind: int, desc: bytes) -> bytes:
    """One ELF note: sizes, type, then name and descriptor each padded to 4 bytes."""
    raw_name = name.encode("utf-8") + b"\0"
    return (struct.pack("<III", len(raw_name), len(desc), kind) + raw_name + b"\0" * (-len(raw_name) % 4)
            + desc + b"\0" * (-len(desc) % 4))
