"""Fixtures for the runtime tests: nvcc builds of tests/runtime/data/*.cu, and a fatbin writer.

``cuda_build(name, *nvcc_args)`` runs nvcc once per distinct command in a session-wide temporary
folder and returns the output path; tests that need nvcc skip only when it is absent
(``PTX2GCN_REQUIRE_NVCC=1`` turns that into a failure). ``fatbin_writer`` builds synthetic containers
byte by byte from the layout in docs/fatbin-format.md, independently of the reader.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.runtime.toolchain import DATA, build_fake_hip, nvcc_run, require_nvcc


@pytest.fixture(scope="session")
def nvcc() -> str:
    return require_nvcc()


@pytest.fixture(scope="session")
def cuda_build(nvcc: str, tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """``cuda_build(output_name, *args)``: ``nvcc args -o <tmp>/output_name`` (sources under data/)."""
    root = tmp_path_factory.mktemp("cuda")
    done: dict[tuple[str, ...], Path] = {}

    def build(output: str, *args: str) -> Path:
        key = (output, *args)
        if key not in done:
            target = root / output
            nvcc_run(*args, "-o", str(target), cwd=DATA)
            done[key] = target
        return done[key]

    return build


@pytest.fixture(scope="session")
def fake_hip(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The fake libamdhip64 (data/fake_hip.c), built once per session."""
    return build_fake_hip(tmp_path_factory.mktemp("fakehip"))


@dataclass
class EntrySpec:
    """One synthetic fatbin entry (fields as fatbin-format.md names them)."""

    kind: int = 1
    payload: bytes = b".version 8.0\n.target sm_80\n.address_size 64\n"
    arch: int = 80
    major: int = 8
    minor: int = 0
    flags: int = 0x11
    options: str = ""
    identifier: str = ""
    compression: str = "none"  # none | lz4 | zstd


def _entry_bytes(spec: EntrySpec) -> bytes:
    import lz4.block
    import zstandard

    data = spec.payload + (b"\0" if spec.kind == 1 else b"")
    flags = spec.flags
    compressed_size = uncompressed_size = 0
    if spec.compression == "lz4":
        stored = lz4.block.compress(data, store_size=False)
        flags |= 0x2000
    elif spec.compression == "zstd":
        stored = zstandard.ZstdCompressor().compress(data)
        flags |= 0x8000
    else:
        stored = data
    if spec.compression != "none":
        compressed_size, uncompressed_size = len(stored), len(data)
    tail = b""
    ident_off = options_off = 0
    if spec.identifier:
        ident_off = 64 + len(tail)
        tail += spec.identifier.encode() + b"\0"
    if spec.options:
        tail += b"\0" * (-len(tail) % 8)
        options_off = 64 + len(tail)
        text_off = options_off + 8
        tail += struct.pack("<II", text_off, len(spec.options)) + spec.options.encode() + b"\0"
    tail += b"\0" * (-len(tail) % 8)
    header_size = 64 + len(tail)
    padded = stored + b"\0" * (-len(stored) % 8)
    header = struct.pack(
        "<HHIQIIHHIIIQQQ",
        spec.kind,
        0x0101,
        header_size,
        len(padded),
        compressed_size,
        options_off,
        spec.minor,
        spec.major,
        spec.arch,
        ident_off,
        len(spec.identifier),
        flags,
        0,
        uncompressed_size,
    )
    return header + tail + padded


def write_fatbin(*entries: EntrySpec) -> bytes:
    body = b"".join(_entry_bytes(e) for e in entries)
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body


@pytest.fixture(scope="session")
def fatbin_writer() -> Callable[..., bytes]:
    return write_fatbin


@pytest.fixture(scope="session")
def entry_spec() -> type[EntrySpec]:
    return EntrySpec
