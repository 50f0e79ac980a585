"""The fatbin reader on synthetic containers written from the documented layout: fields, compression,
selection policy, options, in-memory images, malformed input (hand-picked and hypothesis-mutated)."""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptx2gcn.runtime.fatbin import (
    EntryKind,
    FatbinError,
    ImageKind,
    fatbin_from_pointer,
    parse_container,
    parse_ptxas_options,
    ptx_modules,
    read_fatbin,
    select_ptx,
    sniff_image,
)

Writer = Callable[..., bytes]
PTX = b".version 8.5\n.target sm_80\n.address_size 64\n\n.visible .entry k()\n{\nret;\n}\n"


@pytest.mark.parametrize("compression", ["none", "lz4", "zstd"])
def test_fields_and_payload(fatbin_writer: Writer, entry_spec: Any, compression: str) -> None:
    image = fatbin_writer(
        entry_spec(
            payload=PTX,
            arch=86,
            major=8,
            minor=5,
            options="--compile-only  ",
            identifier="dir/k.cu",
            compression=compression,
        )
    )
    fatbin = read_fatbin(image, "k.fatbin")
    (entry,) = fatbin.entries
    assert (entry.kind, entry.arch, entry.ptx_version, entry.offset) == (EntryKind.PTX, 86, (8, 5), 16)
    assert entry.options == "--compile-only  " and entry.identifier == "dir/k.cu"
    assert entry.compression == compression
    assert entry.payload() == PTX  # trailing NUL and padding stripped
    assert entry.ptx_text() == PTX.decode()


def test_entries_advance_by_header_plus_payload(fatbin_writer: Writer, entry_spec: Any) -> None:
    # The second entry has a longer header (identifier + options), the third a binary payload.
    image = fatbin_writer(
        entry_spec(payload=b"a"),
        entry_spec(payload=b"bb", identifier="x" * 40, options="-O3"),
        entry_spec(kind=2, payload=b"\x7fELF" + bytes(30), arch=90, major=1, minor=8),
    )
    entries = read_fatbin(image).entries
    assert [e.payload() for e in entries] == [b"a", b"bb", b"\x7fELF" + bytes(30) + bytes(-34 % 8)]
    assert entries[1].header_size > 64
    assert entries[2].offset == entries[1].offset + entries[1].header_size + entries[1].payload_size


def test_selection_policy(fatbin_writer: Writer, entry_spec: Any) -> None:
    def pick(*specs: Any) -> tuple[int, tuple[int, int], int]:
        entry = select_ptx(parse_container(fatbin_writer(*specs)))
        return entry.arch, entry.ptx_version, entry.flags & 0x300000

    older, newer = entry_spec(arch=90, major=8, minor=0), entry_spec(arch=75, major=8, minor=5)
    assert pick(older, newer) == (75, (8, 5), 0)  # newest ISA first
    assert pick(entry_spec(arch=75), entry_spec(arch=86)) == (86, (8, 0), 0)  # then highest target
    specific = entry_spec(arch=90, major=8, minor=7, flags=0x100011)
    assert pick(specific, entry_spec(arch=80)) == (80, (8, 0), 0)  # generic beats sm_90a
    assert pick(specific) == (90, (8, 7), 0x100000)  # ...but sm_90a is used when alone
    too_new = entry_spec(arch=100, major=99, minor=0)
    assert pick(too_new, entry_spec(arch=80)) == (80, (8, 0), 0)
    with pytest.raises(FatbinError, match=r"ISA 99.0, newer than ptx2gcn supports"):
        pick(too_new)
    lto = entry_spec(kind=8, flags=0x10011, payload=b"\x01\x02")
    with pytest.raises(FatbinError, match=r"no PTX .*ltoir sm_80.*compute_80,code=compute_80"):
        pick(lto)


def test_ptxas_options() -> None:
    opts = parse_ptxas_options(" -g --dont-merge-basicblocks --return-at-end ")
    assert opts.debug and not opts.compile_only
    assert opts.ignored == ("--dont-merge-basicblocks", "--return-at-end")
    opts = parse_ptxas_options("-maxrregcount=96 --compile-only  ")
    assert opts.compile_only and opts.max_registers == 96
    opts = parse_ptxas_options("-O1  --maxrregcount 32 --generate-line-info")
    assert (opts.opt_level, opts.max_registers, opts.line_info) == (1, 32, True)
    assert parse_ptxas_options("") == parse_ptxas_options("   ")


def test_in_memory_container_and_wrapper(fatbin_writer: Writer, entry_spec: Any) -> None:
    image = fatbin_writer(entry_spec(payload=PTX, compression="zstd"))
    buffer = ctypes.create_string_buffer(image, len(image))
    wrapper = ctypes.create_string_buffer(
        struct.pack("<IIQQ", 0x466243B1, 1, ctypes.addressof(buffer), 0), 24
    )
    for address in (ctypes.addressof(buffer), ctypes.addressof(wrapper)):
        (entry,) = fatbin_from_pointer(address).entries
        assert entry.payload() == PTX


def test_container_after_padding(fatbin_writer: Writer, entry_spec: Any) -> None:
    first = fatbin_writer(entry_spec(payload=b"one"))
    second = fatbin_writer(entry_spec(payload=b"two", compression="lz4"))
    fatbin = read_fatbin(first + bytes(8) + second)
    assert [e.payload() for e in fatbin.entries] == [b"one", b"two"]
    assert fatbin.containers[1].offset == len(first) + 8


# -- malformed input ---------------------------------------------------------------------------------
def _patched(image: bytes, offset: int, fmt: str, value: int) -> bytes:
    data = bytearray(image)
    struct.pack_into(fmt, data, offset, value)
    return bytes(data)


@pytest.mark.parametrize(
    ("offset", "fmt", "value", "message"),
    [
        (0, "<I", 0x12345678, r"offset 0x0: not a CUDA fatbin"),
        (4, "<H", 2, r"offset 0x0: unsupported fatbin container version 2"),
        (6, "<H", 8, r"offset 0x0: container header_size 8"),
        (8, "<Q", 1 << 40, r"offset 0x0: container of .* runs past the end"),
        (16 + 2, "<H", 0x0202, r"offset 0x10: unsupported entry version 0x0202"),
        (16 + 4, "<I", 12, r"offset 0x10: entry header_size 12"),
        (16 + 8, "<Q", 1 << 33, r"offset 0x10: entry of .* runs past the end of its container"),
        (16 + 0x10, "<I", 1 << 20, r"offset 0x10: compressed size 0x100000 does not fit"),
        (16 + 0x14, "<I", 0x400, r"offset 0x10: options descriptor at \+0x400"),
        (16 + 0x28, "<Q", 0xA011, r"offset 0x10: entry claims both LZ4 and zstd"),
        (16 + 0x38, "<Q", 0, r"offset 0x10: compressed entry has no uncompressed size"),
        (16 + 0x38, "<Q", 1 << 40, r"offset 0x10: uncompressed size 0x10000000000 is impossible for"),
    ],
)
def test_malformed_headers_name_the_offset(
    fatbin_writer: Writer, entry_spec: Any, offset: int, fmt: str, value: int, message: str
) -> None:
    image = fatbin_writer(entry_spec(payload=PTX, compression="lz4", options="-O3"))
    with pytest.raises(FatbinError, match=message) as info:
        read_fatbin(_patched(image, offset, fmt, value), "bad.fatbin")
    assert str(info.value).startswith("bad.fatbin: error: ")


@pytest.mark.parametrize("compression", ["lz4", "zstd"])
def test_truncated_compressed_payload(fatbin_writer: Writer, entry_spec: Any, compression: str) -> None:
    image = fatbin_writer(entry_spec(payload=PTX * 20, compression=compression))
    header_size, _, compressed_size = struct.unpack_from("<IQI", image, 16 + 4)
    (entry,) = read_fatbin(_patched(image, 16 + 0x10, "<I", compressed_size // 2)).entries
    with pytest.raises(
        FatbinError,
        match=rf"(?i)offset 0x{16 + header_size:x}: (corrupt {compression} payload|"
        rf"{compression} payload decompressed to)",
    ):
        entry.payload()


def test_garbled_zstd_payload(fatbin_writer: Writer, entry_spec: Any) -> None:
    image = bytearray(fatbin_writer(entry_spec(payload=PTX * 20, compression="zstd")))
    start = 16 + struct.unpack_from("<I", image, 16 + 4)[0]
    image[start : start + 4] = b"\0\0\0\0"  # frame magic gone
    (entry,) = read_fatbin(bytes(image)).entries
    with pytest.raises(FatbinError, match=rf"offset 0x{start:x}: corrupt zstd payload"):
        entry.payload()


def test_zstd_size_limit(fatbin_writer: Writer, entry_spec: Any) -> None:
    image = fatbin_writer(entry_spec(payload=PTX, compression="zstd"))
    with pytest.raises(FatbinError, match="exceeds the 2 GiB limit"):
        read_fatbin(_patched(image, 16 + 0x38, "<Q", (1 << 31) + 1))


def test_wrong_uncompressed_size(fatbin_writer: Writer, entry_spec: Any) -> None:
    image = fatbin_writer(entry_spec(payload=PTX, compression="zstd"))
    (entry,) = read_fatbin(_patched(image, 16 + 0x38, "<Q", len(PTX) - 5)).entries
    with pytest.raises(FatbinError, match="zstd payload decompressed to"):
        entry.payload()


def test_other_inputs_are_rejected_clearly() -> None:
    with pytest.raises(FatbinError, match="fatbin wrapper"):
        read_fatbin(struct.pack("<IIQQ", 0x466243B1, 1, 0x1000, 0))
    with pytest.raises(FatbinError, match="pre-CUDA-4 fatbin"):
        read_fatbin(struct.pack("<II", 0x1EE55A01, 0))
    with pytest.raises(FatbinError, match="only 2 bytes"):
        read_fatbin(b"ab")
    with pytest.raises(FatbinError, match="malformed ELF"):
        read_fatbin(b"\x7fELF" + bytes(10))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_fatbins_never_crash(fatbin_writer: Writer, entry_spec: Any, data: st.DataObject) -> None:
    compression = data.draw(st.sampled_from(["none", "lz4", "zstd"]))
    image = bytearray(
        fatbin_writer(
            entry_spec(payload=PTX, compression=compression, options="-O2"),
            entry_spec(kind=2, payload=b"\x7fELF" + bytes(20), arch=90),
        )
    )
    for _ in range(data.draw(st.integers(1, 6))):
        position = data.draw(st.integers(0, len(image) - 1))
        image[position] = data.draw(st.integers(0, 255))
    if data.draw(st.booleans()):
        image = image[: data.draw(st.integers(0, len(image)))]
    try:
        for entry in read_fatbin(bytes(image), "fuzz.fatbin").entries:
            entry.payload()
            if entry.kind == EntryKind.PTX:
                entry.ptx_text()
    except FatbinError as error:
        assert str(error).startswith("fuzz.fatbin: error: ")


def test_sniff_images(fatbin_writer: Writer, entry_spec: Any) -> None:
    amdgpu = b"\x7fELF\x02\x01\x01\x40\x03" + bytes(9) + struct.pack("<H", 224) + bytes(44)
    cases = {
        fatbin_writer(entry_spec()): ImageKind.FATBIN,
        struct.pack("<IIQQ", 0x466243B1, 1, 0x1000, 0): ImageKind.FATBIN_WRAPPER,
        amdgpu: ImageKind.ELF_AMDGPU,
        b"!<arch>\nfoo": ImageKind.ARCHIVE,
        b"//\n// Generated\n/* c */\n\t.version 8.5\n.target sm_80\0": ImageKind.PTX,
        b".target sm_80\n": ImageKind.UNKNOWN,
        b"\x7fEL": ImageKind.UNKNOWN,
        b"": ImageKind.UNKNOWN,
    }
    assert {data: sniff_image(data) for data in cases} == cases


def test_ptx_modules_strict_and_lenient(fatbin_writer: Writer, entry_spec: Any) -> None:
    with_ptx = fatbin_writer(entry_spec(payload=PTX, options="--compile-only"))
    sass_only = fatbin_writer(entry_spec(kind=2, payload=b"\x7fELF", arch=90))
    fatbin = read_fatbin(with_ptx + sass_only, "two.fatbin")
    with pytest.raises(FatbinError, match=rf"two.fatbin: error: offset 0x{len(with_ptx):x}: no PTX"):
        ptx_modules(fatbin)
    (module,) = ptx_modules(fatbin, strict=False)
    assert module.relocatable and module.ptx_text() == PTX.decode()
