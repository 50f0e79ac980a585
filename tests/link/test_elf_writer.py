"""The ELF encoders in ``ptx2gcn.link.elf_writer``: hash functions against published values, and the hash
tables checked by lookups written here from the format descriptions (gABI "Hash Table"; the GNU hash
section as described in binutils/glibc ``dl-lookup.c``), independent of how the tables were built."""

from __future__ import annotations

import ctypes
import os
import random
import struct
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ptx2gcn.link.elf import parse_notes
from ptx2gcn.link.elf_writer import (
    StringTable,
    build_gnu_hash,
    build_sysv_hash,
    gnu_hash,
    gnu_hash_order,
    pack_note,
    sysv_hash,
    xxh3_64,
)


@pytest.mark.parametrize(("name", "expected"), [(b"", 0x00001505), (b"printf", 0x156B2BB8),
                                                (b"exit", 0x7C967E3F), (b"syscall", 0xBAC212A0),
                                                (b"flapenguin.me", 0x8AE9F18E)])
def test_gnu_hash_values(name: bytes, expected: int) -> None:
    assert gnu_hash(name) == expected


@pytest.mark.parametrize(("name", "expected"), [(b"", 0), (b"printf", 0x077905A6), (b"exit", 0x0006CF04),
                                                (b"syscall", 0x0B09985C)])
def test_sysv_hash_values(name: bytes, expected: int) -> None:
    assert sysv_hash(name) == expected


def gnu_lookup(table: bytes, names: list[str], wanted: str) -> int | None:
    """Dynamic-symbol index of ``wanted`` through a .gnu.hash table (``names[i]`` is symbol i)."""
    nbuckets, symoffset, bloom_size, shift = struct.unpack_from("<IIII", table)
    bloom = struct.unpack_from(f"<{bloom_size}Q", table, 16)
    buckets = struct.unpack_from(f"<{nbuckets}I", table, 16 + 8 * bloom_size)
    chain_start = 16 + 8 * bloom_size + 4 * nbuckets
    h = gnu_hash(wanted.encode())
    word = bloom[(h // 64) % bloom_size]
    if not (word >> (h % 64)) & (word >> ((h >> shift) % 64)) & 1:
        return None
    index = buckets[h % nbuckets]
    if index < symoffset:
        return None
    while True:
        value = struct.unpack_from("<I", table, chain_start + 4 * (index - symoffset))[0]
        if value | 1 == h | 1 and names[index] == wanted:
            return index
        if value & 1:
            return None
        index += 1


def sysv_lookup(table: bytes, names: list[str], wanted: str) -> int | None:
    nbucket, nchain = struct.unpack_from("<II", table)
    buckets = struct.unpack_from(f"<{nbucket}I", table, 8)
    chains = struct.unpack_from(f"<{nchain}I", table, 8 + 4 * nbucket)
    index = buckets[sysv_hash(wanted.encode()) % nbucket]
    while index:
        if names[index] == wanted:
            return index
        index = chains[index]
    return None


names_strategy = st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz_.0123456789", min_size=1, max_size=12),
                          min_size=1, max_size=60, unique=True)


@settings(max_examples=60, deadline=None)
@given(names=names_strategy, absent=st.text(alphabet="ABCDEFGH", min_size=1, max_size=8))
def test_hash_tables_find_every_symbol(names: list[str], absent: str) -> None:
    ordered = [names[i] for i in gnu_hash_order(names)]
    assert sorted(ordered) == sorted(names)
    dynsym = ["", *ordered]  # entry 0 is the null symbol
    gnu, sysv = build_gnu_hash(ordered, 1), build_sysv_hash(dynsym)
    for index, name in enumerate(dynsym[1:], start=1):
        assert gnu_lookup(gnu, dynsym, name) == index
        assert sysv_lookup(sysv, dynsym, name) == index
    assert gnu_lookup(gnu, dynsym, absent) is None
    assert sysv_lookup(sysv, dynsym, absent) is None


def test_gnu_hash_table_shape() -> None:
    # Hand-computed: 9 symbols -> 9 // 4 = 2 buckets; bloom words = next power of two above 9*12//64 = 1 -> 2.
    names = [f"k{i}" for i in range(9)]
    table = build_gnu_hash([names[i] for i in gnu_hash_order(names)], 1)
    assert struct.unpack_from("<IIII", table) == (2, 1, 2, 26)
    assert len(table) == 16 + 2 * 8 + 2 * 4 + 9 * 4


def test_string_table() -> None:
    table = StringTable()
    assert [table.add(s) for s in ("a", "bc", "a", "")] == [1, 3, 1, 0]
    assert table.data() == b"\0a\0bc\0" and len(table) == 6


def test_pack_note_round_trips() -> None:
    blob = pack_note("AMDGPU", 32, b"\x81\xa1x\x01") + pack_note("GNU", 1, b"abcde")
    assert len(blob) % 4 == 0
    notes = parse_notes(blob)
    expected = [("AMDGPU", 32, b"\x81\xa1x\x01"), ("GNU", 1, b"abcde")]
    assert [(n.name, n.type, n.desc) for n in notes] == expected


# -- XXH3-64 against LLVM's own implementation (libLLVM-22, the one ld.lld uses) --------------------

LIBLLVM_CANDIDATES = ("/usr/lib/llvm-22/lib/libLLVM.so.22.1", "/usr/lib/llvm-22/lib/libLLVM-22.so",
                      "/usr/lib/x86_64-linux-gnu/libLLVM.so.22.1", "/usr/lib/x86_64-linux-gnu/libLLVM-22.so")


@pytest.fixture(scope="module")
def llvm_xxh3() -> Callable[[bytes], int]:
    for path in LIBLLVM_CANDIDATES:
        if os.path.exists(path):
            function = ctypes.CDLL(path)._ZN4llvm11xxh3_64bitsENS_8ArrayRefIhEE
            # ArrayRef<uint8_t> is {pointer, size}: passed in two integer registers (x86-64 SysV).
            function.restype, function.argtypes = ctypes.c_uint64, [ctypes.c_char_p, ctypes.c_size_t]
            return lambda data: int(function(data, len(data)))
    message = "libLLVM-22 not found (Debian package llvm-22)"
    if os.environ.get("PTX2GCN_REQUIRE_LLVM_TOOLS"):
        pytest.fail(message)
    pytest.skip(message)


def test_xxh3_known_value() -> None:
    assert xxh3_64(b"") == 0x2D06800538D394C2


def test_xxh3_matches_llvm_at_every_length_class(llvm_xxh3: Callable[[bytes], int]) -> None:
    # Lengths cover 0, 1-3, 4-8, 9-16, 17-128, 129-240 and the long path (one and several blocks).
    rng = random.Random(20261130)
    for length in [*range(0, 260), 511, 1024, 1025, 2048, 4096, 10000]:
        data = rng.randbytes(length)
        assert xxh3_64(data) == llvm_xxh3(data), length
