"""CUDA fatbinary containers: parse the container header and every entry, decompress payloads.

(Import the reader through ``ptx2gcn.runtime.fatbin``, which re-exports this module's public names.)

Layout (``docs/fatbin-format.md``; public references: CUDA ``fatbinary_section.h``, LLVM
``clang/lib/CodeGen/CGCUDANV.cpp``, vosen/ZLUDA ``dark_api/src/fatbin.rs``): a 16-byte container
header (magic 0xBA55ED50) followed by entries, each a variable-size header (64 fixed bytes plus a tail
that may hold the identifier and the ptxas options string) and a payload (PTX text, an ELF cubin or
LTO-IR), optionally compressed with zstd or as a raw LZ4 block.

Invariant: parsing reads only inside the given bytes and checks every size and offset before using it;
any inconsistency raises ``FatbinError`` naming the source and the byte offset (absolute within the
source), never ``IndexError``/``struct.error``/a decompressor's exception, and never allocates more
than the payload can legitimately expand to. Entries are advanced by ``header_size + payload_size``,
never by an assumed fixed header size. Payloads are decompressed lazily (``FatbinEntry.payload()``)
but every header is validated eagerly.

Where containers come from (ELF sections, wrappers, process memory) is ``ptx2gcn.runtime.fatbin.image``;
which PTX entry to recompile is ``ptx2gcn.runtime.fatbin.select``.
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass, field
from enum import IntEnum, IntFlag
from typing import Any

from ptx2gcn.diagnostics import Ptx2GcnError, Span

CONTAINER_MAGIC = 0xBA55ED50
CONTAINER_VERSION = 1
ENTRY_VERSION = 0x0101

_CONTAINER = struct.Struct("<IHHQ")  # magic, version, header_size, fat_size
# kind, version, header_size, payload_size, compressed_size, options_desc_off, minor, major, arch,
# ident_off, ident_len, flags, reserved, uncompressed_size
_ENTRY = struct.Struct("<HHIQIIHHIIIQQQ")
_OPTIONS_DESC = struct.Struct("<II")

CONTAINER_HEADER_SIZE = _CONTAINER.size  # 16
ENTRY_FIXED_SIZE = _ENTRY.size  # 64

# A raw LZ4 block expands at most ~255:1 (one literal-length byte of 255 per output run); anything
# claiming more is corrupt, and must not make us allocate the claimed size.
_LZ4_MAX_RATIO = 255
_ZSTD_CHUNK = 1 << 20
# One decompressed entry may not exceed this (the largest PTX in CUDA 13 libraries is tens of MB); it
# bounds what a corrupt or hostile size field can make us allocate.
MAX_UNCOMPRESSED = 1 << 31


class FatbinError(Ptx2GcnError):
    """A malformed or unusable fatbin: the message names the source and the byte offset."""

    @classmethod
    def located(cls, source: str, offset: int | None, message: str) -> FatbinError:
        where = f"offset 0x{offset:x}: " if offset is not None else ""
        return cls(Ptx2GcnError.at(Span.unknown(source), f"{where}{message}").diagnostics)


class EntryKind(IntEnum):
    """What an entry's payload is."""

    PTX = 1
    ELF = 2
    LTO_IR = 8

    @property
    def label(self) -> str:
        return {EntryKind.PTX: "ptx", EntryKind.ELF: "elf", EntryKind.LTO_IR: "ltoir"}[self]


class EntryFlags(IntFlag):
    """The entry header's ``flags`` word (bits not listed here are kept as plain bits)."""

    ADDRESS_64 = 0x1
    DEBUG = 0x2
    HOST_LINUX = 0x10
    HOST_MACOS = 0x20
    HOST_WINDOWS = 0x40
    COMPRESSED_LZ4 = 0x2000
    COMPRESSED_ZSTD = 0x8000
    LTO_IR = 0x10000
    ARCH_SPECIFIC = 0x100000  # sm_90a
    FAMILY_SPECIFIC = 0x200000  # sm_120f
    ELF_SM100_PLUS = 0x1000000  # options descriptor points at an opaque blob, not text


@dataclass(frozen=True, slots=True)
class FatbinEntry:
    """One entry of a container. ``offset`` is absolute within the bytes the container came from."""

    source: str
    offset: int
    kind: int
    header_size: int
    payload_size: int
    compressed_size: int
    uncompressed_size: int
    ptx_version: tuple[int, int]
    arch: int
    flags: int
    options: str
    identifier: str
    image: bytes = field(repr=False, compare=False)
    """The bytes the entry was parsed from (shared, not copied: library fatbins reach hundreds of MB)."""

    @property
    def raw_payload(self) -> bytes:
        """The payload as stored (compressed when ``compression`` is not ``none``)."""
        start = self.offset + self.header_size
        return self.image[start : start + self.payload_size]

    @property
    def kind_label(self) -> str:
        return EntryKind(self.kind).label if self.kind in EntryKind._value2member_map_ else f"kind{self.kind}"

    @property
    def compression(self) -> str:
        if self.flags & EntryFlags.COMPRESSED_ZSTD:
            return "zstd"
        if self.flags & EntryFlags.COMPRESSED_LZ4:
            return "lz4"
        return "none"

    @property
    def arch_name(self) -> str:
        """``sm_80``, ``sm_90a`` (arch-specific) or ``sm_120f`` (family-specific)."""
        suffix = ""
        if self.flags & EntryFlags.ARCH_SPECIFIC:
            suffix = "a"
        elif self.flags & EntryFlags.FAMILY_SPECIFIC:
            suffix = "f"
        return f"sm_{self.arch}{suffix}"

    @property
    def is_ptx(self) -> bool:
        return self.kind == EntryKind.PTX

    def payload(self) -> bytes:
        """The payload, decompressed; PTX loses its trailing NUL padding."""
        data = _decompress(self)
        if self.kind == EntryKind.PTX:
            data = data.rstrip(b"\0")
        return data

    def ptx_text(self) -> str:
        """The PTX source of a PTX entry."""
        if self.kind != EntryKind.PTX:
            raise FatbinError.located(self.source, self.offset, f"entry is {self.kind_label}, not PTX")
        data = self.payload()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise FatbinError.located(
                self.source,
                self.offset + self.header_size,
                f"PTX payload is not UTF-8 text (byte {error.start})",
            ) from None


@dataclass(frozen=True, slots=True)
class Container:
    """One fatbin container and its entries. ``offset`` is absolute within its source bytes."""

    source: str
    offset: int
    header_size: int
    fat_size: int
    entries: tuple[FatbinEntry, ...]
    section: str = ""
    """The ELF section it was found in ('' for a standalone fatbin or a bare image)."""
    registered: bool = False
    """True when a version-1 ``.nvFatBinSegment`` wrapper points at it (a module the program loads)."""

    @property
    def size(self) -> int:
        return self.header_size + self.fat_size

    @property
    def relocatable(self) -> bool:
        """Code for separate compilation (``-rdc``): it must be compiled relocatable and linked."""
        return self.section == "__nv_relfatbin"


def parse_container(
    data: bytes,
    offset: int = 0,
    source: str = "<memory>",
    *,
    section: str = "",
    registered: bool = False,
    limit: int | None = None,
) -> Container:
    """Parse the container that starts at ``offset`` of ``data`` and ends by ``limit`` (default: the end)."""
    limit = len(data) if limit is None else min(limit, len(data))
    if offset < 0 or offset + CONTAINER_HEADER_SIZE > limit:
        raise FatbinError.located(
            source,
            offset,
            "truncated fatbin container header "
            f"(needs {CONTAINER_HEADER_SIZE} bytes, {max(limit - offset, 0)} left)",
        )
    magic, version, header_size, fat_size = _CONTAINER.unpack_from(data, offset)
    if magic != CONTAINER_MAGIC:
        raise FatbinError.located(
            source, offset, f"bad fatbin magic 0x{magic:08x} (expected 0x{CONTAINER_MAGIC:08x})"
        )
    if version != CONTAINER_VERSION:
        raise FatbinError.located(source, offset, f"unsupported fatbin container version {version}")
    if header_size < CONTAINER_HEADER_SIZE:
        raise FatbinError.located(source, offset, f"container header_size {header_size} is smaller than 16")
    end = offset + header_size + fat_size
    if end > limit:
        raise FatbinError.located(
            source,
            offset,
            f"container of 0x{header_size + fat_size:x} bytes runs past the end "
            f"of the data (0x{limit - offset:x} bytes left)",
        )
    entries: list[FatbinEntry] = []
    pos = offset + header_size
    while pos < end:
        entry = _parse_entry(data, pos, end, source)
        entries.append(entry)
        pos += entry.header_size + entry.payload_size
    return Container(source, offset, header_size, fat_size, tuple(entries), section, registered)


def parse_containers(data: bytes, start: int, end: int, source: str, *, section: str = "") -> list[Container]:
    """Containers stored back to back in ``data[start:end]``, each 8-aligned, zero padding between."""
    out: list[Container] = []
    pos = start
    while pos < end:
        aligned = start + ((pos - start + 7) & ~7)
        if any(data[pos : min(aligned, end)]):
            raise FatbinError.located(source, pos, "unexpected bytes between fatbin containers")
        pos = aligned
        while pos < end and not any(data[pos : min(pos + 8, end)]):
            pos += 8
        if pos >= end:
            break
        container = parse_container(data, pos, source, section=section, limit=end)
        out.append(container)
        pos += container.size
    return out


def _parse_entry(data: bytes, pos: int, end: int, source: str) -> FatbinEntry:
    if pos + ENTRY_FIXED_SIZE > end:
        raise FatbinError.located(
            source,
            pos,
            f"truncated entry header (needs {ENTRY_FIXED_SIZE} bytes, {end - pos} left in the container)",
        )
    (
        kind,
        version,
        header_size,
        payload_size,
        compressed_size,
        options_off,
        minor,
        major,
        arch,
        ident_off,
        ident_len,
        flags,
        _reserved,
        uncompressed_size,
    ) = _ENTRY.unpack_from(data, pos)
    if version != ENTRY_VERSION:
        raise FatbinError.located(source, pos, f"unsupported entry version 0x{version:04x} (expected 0x0101)")
    if header_size < ENTRY_FIXED_SIZE:
        raise FatbinError.located(
            source, pos, f"entry header_size {header_size} is smaller than {ENTRY_FIXED_SIZE}"
        )
    if pos + header_size + payload_size > end:
        raise FatbinError.located(
            source,
            pos,
            f"entry of 0x{header_size:x}+0x{payload_size:x} bytes runs past the end "
            f"of its container (0x{end - pos:x} bytes left)",
        )
    header = data[pos : pos + header_size]
    _check_compression(source, pos, flags, payload_size, compressed_size, uncompressed_size)
    opaque_options = kind == EntryKind.ELF and flags & EntryFlags.ELF_SM100_PLUS
    options = "" if opaque_options else _options(header, options_off, source, pos)
    identifier = _header_text(header, ident_off, ident_len, source, pos, "identifier")
    return FatbinEntry(
        source,
        pos,
        kind,
        header_size,
        payload_size,
        compressed_size,
        uncompressed_size,
        (major, minor),
        arch,
        flags,
        options,
        identifier,
        data,
    )


def _check_compression(
    source: str, pos: int, flags: int, payload_size: int, compressed_size: int, uncompressed_size: int
) -> None:
    lz4 = bool(flags & EntryFlags.COMPRESSED_LZ4)
    zstd = bool(flags & EntryFlags.COMPRESSED_ZSTD)
    if lz4 and zstd:
        raise FatbinError.located(source, pos, "entry claims both LZ4 and zstd compression")
    if not (lz4 or zstd):
        return
    if compressed_size == 0 or compressed_size > payload_size:
        raise FatbinError.located(
            source,
            pos,
            f"compressed size 0x{compressed_size:x} does not fit the payload of 0x{payload_size:x} bytes",
        )
    if uncompressed_size == 0:
        raise FatbinError.located(source, pos, "compressed entry has no uncompressed size")
    if lz4 and uncompressed_size > _LZ4_MAX_RATIO * compressed_size + 64:
        raise FatbinError.located(
            source,
            pos,
            f"uncompressed size 0x{uncompressed_size:x} is impossible for 0x{compressed_size:x} bytes of LZ4",
        )
    if uncompressed_size > MAX_UNCOMPRESSED:
        raise FatbinError.located(
            source, pos, f"uncompressed size 0x{uncompressed_size:x} exceeds the 2 GiB limit for one entry"
        )


def _header_text(header: bytes, off: int, length: int, source: str, pos: int, what: str) -> str:
    if off == 0:
        return ""
    if off + length > len(header):
        raise FatbinError.located(
            source,
            pos,
            f"{what} at +0x{off:x} (0x{length:x} bytes) lies outside the 0x{len(header):x}-byte entry header",
        )
    return header[off : off + length].split(b"\0", 1)[0].decode("utf-8", "replace")


def _options(header: bytes, desc_off: int, source: str, pos: int) -> str:
    if desc_off == 0:
        return ""
    if desc_off + _OPTIONS_DESC.size > len(header):
        raise FatbinError.located(
            source,
            pos,
            f"options descriptor at +0x{desc_off:x} lies outside the 0x{len(header):x}-byte entry header",
        )
    off, length = _OPTIONS_DESC.unpack_from(header, desc_off)
    if length == 0:
        return ""
    return _header_text(header, off, length, source, pos, "options string")


def _decompress(entry: FatbinEntry) -> bytes:
    where = entry.offset + entry.header_size
    codec = entry.compression
    if codec == "none":
        return entry.raw_payload
    raw = entry.raw_payload[: entry.compressed_size]
    if codec == "lz4":
        out = _lz4(raw, entry.uncompressed_size, entry.source, where)
    else:
        out = _zstd(raw, entry.uncompressed_size, entry.source, where)
    if len(out) != entry.uncompressed_size:
        raise FatbinError.located(
            entry.source,
            where,
            f"{codec} payload decompressed to 0x{len(out):x} bytes, "
            f"header says 0x{entry.uncompressed_size:x}",
        )
    return out


def _lz4(raw: bytes, size: int, source: str, where: int) -> bytes:
    import lz4.block  # pyright: ignore[reportMissingTypeStubs]

    block: Any = lz4.block  # no type information in lz4
    try:
        out: bytes = block.decompress(raw, uncompressed_size=size)
    except (block.LZ4BlockError, ValueError, MemoryError, OverflowError) as error:
        raise FatbinError.located(source, where, f"corrupt LZ4 payload: {error}") from None
    return out


def _zstd(raw: bytes, size: int, source: str, where: int) -> bytes:
    import zstandard

    # Read in bounded chunks: the frame header's content size is untrusted and must not size a buffer.
    out = bytearray()
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw), read_across_frames=False)
        with reader:
            while len(out) <= size:
                chunk = reader.read(min(_ZSTD_CHUNK, size + 1 - len(out)))
                if not chunk:
                    break
                out += chunk
    except (zstandard.ZstdError, ValueError, MemoryError) as error:
        raise FatbinError.located(source, where, f"corrupt zstd payload: {error}") from None
    return bytes(out)
