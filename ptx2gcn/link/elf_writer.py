"""Byte-level pieces of an ELF64 little-endian shared object: string tables, symbol entries,
SysV and GNU hash tables, relocation/dynamic entries, notes, the file/section/program headers, and
the hash functions those tables and ld.lld's layout use (SysV, GNU, XXH3-64).

Invariant: every function here is pure and deterministic (same arguments, same bytes) and knows
nothing about linking decisions; ``ptx2gcn.link.linker`` decides *what* goes into a table and this module
only encodes it, following the ELF gABI and the GNU hash-table format as ld.lld writes them
(bucket count, bloom-filter size and the symbol order that goes with them).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ptx2gcn.link.elf import DYN, EHDR, ELF_MAGIC, ELFCLASS64, ELFDATA2LSB, EM_AMDGPU, ET_DYN, PHDR, RELA, SHDR, SYM

EHDR_SIZE = EHDR.size
PHDR_SIZE = PHDR.size
SHDR_SIZE = SHDR.size
SYM_SIZE = SYM.size
RELA_SIZE = RELA.size
DYN_SIZE = DYN.size

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


# Records are NamedTuples for the start-up cost, as in ``ptx2gcn.link.elf``.
class SymbolEntry(NamedTuple):
    """One Elf64_Sym, with the name already placed in its string table."""

    name: int
    info: int
    other: int
    shndx: int
    value: int
    size: int

    def pack(self) -> bytes:
        return SYM.pack(self.name, self.info, self.other, self.shndx, self.value, self.size)


def pack_symbols(entries: Iterable[SymbolEntry]) -> bytes:
    """A symbol table: the null symbol, then ``entries`` in order."""
    return b"\0" * SYM_SIZE + b"".join(entry.pack() for entry in entries)


def pack_rela(entries: Iterable[tuple[int, int, int, int]]) -> bytes:
    """Elf64_Rela records from (offset, type, symbol index, addend)."""
    return b"".join(RELA.pack(offset, (symbol << 32) | kind, addend)
                   for offset, kind, symbol, addend in entries)


def pack_dynamic(entries: Iterable[tuple[int, int]]) -> bytes:
    """Elf64_Dyn records from (tag, value); the caller includes the DT_NULL terminator."""
    return b"".join(DYN.pack(tag, value) for tag, value in entries)


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


class SectionHeader(NamedTuple):
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
        return SHDR.pack(self.name, self.type, self.flags, self.addr, self.offset, self.size,
                         self.link, self.info, self.addralign, self.entsize)


class ProgramHeader(NamedTuple):
    type: int
    flags: int
    offset: int
    vaddr: int
    filesz: int
    memsz: int
    align: int

    def pack(self) -> bytes:
        return PHDR.pack(self.type, self.flags, self.offset, self.vaddr, self.vaddr, self.filesz,
                         self.memsz, self.align)


class FileHeader(NamedTuple):
    osabi: int
    abiversion: int
    flags: int
    phnum: int
    shoff: int
    shnum: int
    shstrndx: int

    def pack(self) -> bytes:
        ident = ELF_MAGIC + bytes([ELFCLASS64, ELFDATA2LSB, 1, self.osabi, self.abiversion]) + b"\0" * 7
        return EHDR.pack(ident, ET_DYN, EM_AMDGPU, 1, 0, EHDR_SIZE, self.shoff, self.flags, EHDR_SIZE,
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


# -- XXH3-64 (seed 0): the hash by which ld.lld shards the pieces of SHF_MERGE sections ------------
# Written from the XXH3 specification (https://github.com/Cyan4973/xxHash, doc/xxhash_spec.md) for
# the default secret and seed 0, which is what LLVM's ``xxh3_64bits`` computes.

_XXH_SECRET = bytes.fromhex(
    "b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671fcb79e64eccc0e578825ad07dccff7221"
    "b8084674f743248ee03590e6813a264c3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8"
    "a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364eac5ac8334d3ebc3c581a0fffa1363eb"
    "170ddd51b7f0da49d316552629d4689e2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e")
_M64 = (1 << 64) - 1
_P32_1, _P32_2, _P32_3 = 0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D
_P64_1, _P64_2, _P64_3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
_P64_4, _P64_5 = 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5
_PMX1, _PMX2 = 0x165667919E3779F9, 0x9FB21C651E98DF25


def _u64(data: bytes, at: int) -> int:
    return int.from_bytes(data[at:at + 8], "little")


def _u32(data: bytes, at: int) -> int:
    return int.from_bytes(data[at:at + 4], "little")


def _rotl64(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _M64


def _fold_mul(a: int, b: int) -> int:
    product = a * b
    return (product ^ (product >> 64)) & _M64


def _xxh64_avalanche(h: int) -> int:
    h = (h ^ (h >> 33)) * _P64_2 & _M64
    h = (h ^ (h >> 29)) * _P64_3 & _M64
    return h ^ (h >> 32)


def _xxh3_avalanche(h: int) -> int:
    h = (h ^ (h >> 37)) * _PMX1 & _M64
    return h ^ (h >> 32)


def _mix16(data: bytes, at: int, secret_at: int) -> int:
    return _fold_mul(_u64(data, at) ^ _u64(_XXH_SECRET, secret_at),
                     _u64(data, at + 8) ^ _u64(_XXH_SECRET, secret_at + 8))


def _xxh3_short(data: bytes) -> int:
    n, s = len(data), _XXH_SECRET
    if n > 8:
        low = (_u64(s, 24) ^ _u64(s, 32)) ^ _u64(data, 0)
        high = (_u64(s, 40) ^ _u64(s, 48)) ^ _u64(data, n - 8)
        swapped = int.from_bytes(low.to_bytes(8, "little"), "big")
        return _xxh3_avalanche((n + swapped + high + _fold_mul(low, high)) & _M64)
    if n >= 4:
        acc = (_u64(s, 8) ^ _u64(s, 16)) ^ (_u32(data, n - 4) | _u32(data, 0) << 32)
        acc ^= _rotl64(acc, 49) ^ _rotl64(acc, 24)
        acc = acc * _PMX2 & _M64
        acc = (acc ^ ((acc >> 35) + n)) * _PMX2 & _M64
        return acc ^ (acc >> 28)
    if n:
        combined = data[0] << 16 | data[n >> 1] << 24 | data[n - 1] | n << 8
        return _xxh64_avalanche(combined ^ (_u32(s, 0) ^ _u32(s, 4)))
    return _xxh64_avalanche(_u64(s, 56) ^ _u64(s, 64))


def _xxh3_medium(data: bytes) -> int:
    n = len(data)
    acc = n * _P64_1 & _M64
    if n <= 128:
        rounds = (n - 1) // 32 + 1  # pairs of 16-byte blocks taken from both ends
        for i in range(rounds):
            acc += _mix16(data, 16 * i, 32 * i) + _mix16(data, n - 16 * (i + 1), 32 * i + 16)
        return _xxh3_avalanche(acc & _M64)
    for i in range(8):
        acc += _mix16(data, 16 * i, 16 * i)
    acc = _xxh3_avalanche(acc & _M64)
    for i in range(8, n // 16):
        acc += _mix16(data, 16 * i, 16 * (i - 8) + 3)
    acc += _mix16(data, n - 16, 136 - 17)
    return _xxh3_avalanche(acc & _M64)


def _accumulate_stripe(acc: list[int], data: bytes, at: int, secret_at: int) -> None:
    for i in range(8):
        value = _u64(data, at + 8 * i)
        keyed = value ^ _u64(_XXH_SECRET, secret_at + 8 * i)
        acc[i ^ 1] = (acc[i ^ 1] + value) & _M64
        acc[i] = (acc[i] + (keyed & 0xFFFFFFFF) * (keyed >> 32)) & _M64


def _xxh3_long(data: bytes) -> int:
    n, secret_size = len(data), len(_XXH_SECRET)
    stripes_per_block = (secret_size - 64) // 8
    block = 64 * stripes_per_block
    acc = [_P32_3, _P64_1, _P64_2, _P64_3, _P64_4, _P32_2, _P64_5, _P32_1]
    blocks = (n - 1) // block
    for b in range(blocks):
        for stripe in range(stripes_per_block):
            _accumulate_stripe(acc, data, b * block + 64 * stripe, 8 * stripe)
        for i in range(8):
            acc[i] = (acc[i] ^ (acc[i] >> 47) ^ _u64(_XXH_SECRET, secret_size - 64 + 8 * i)) * _P32_1 & _M64
    for stripe in range((n - 1 - block * blocks) // 64):
        _accumulate_stripe(acc, data, blocks * block + 64 * stripe, 8 * stripe)
    _accumulate_stripe(acc, data, n - 64, secret_size - 64 - 7)
    result = n * _P64_1
    for i in range(4):
        result += _fold_mul(acc[2 * i] ^ _u64(_XXH_SECRET, 11 + 16 * i),
                            acc[2 * i + 1] ^ _u64(_XXH_SECRET, 19 + 16 * i))
    return _xxh3_avalanche(result & _M64)


def xxh3_64(data: bytes) -> int:
    """XXH3 64-bit hash with seed 0 and the default secret."""
    if len(data) <= 16:
        return _xxh3_short(data)
    if len(data) <= 240:
        return _xxh3_medium(data)
    return _xxh3_long(data)
