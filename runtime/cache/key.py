"""JIT cache keys: everything a compiled module depends on, and the address it is stored under.

A key holds the PTX bytes, the target arch, the whole ``CompileOptions`` value (``for_options``),
the ptx2gcn version, the compiler's identity and the LLVM version: every input that changes the
code object (ZLUDA's cache missed some and served stale binaries after driver updates,
lshqqytiger/ZLUDA#82). The version alone is not
enough: an upgraded wheel with the same version number, or an edited editable install, compiles
differently. ``compiler_identity()`` is a SHA-256 over the compiler's own sources -- every ``.py``
of the ``ptx2gcn`` package and its subpackages (front end, IR, emitters, linker...), of
``ptx2gcn.passes`` and ``ptx2gcn.grammar``, and the grammar's ``.lark`` files; not
``ptx2gcn.runtime``, which loads code objects but does not make them -- each file as its path
relative to its package root and its bytes. It is computed once per process, on the first key
(about 5 ms for 1.5 MB of sources), and never again, so a hit stays cheap; sources edited while a
process runs take effect in the next process (as the imported modules do).

The entry's *address* (``CacheKey.digest``) is SHA-256 over those fields with the PTX represented by
its length and CRC-32; the entry stores the full PTX and a hit requires the stored PTX to equal the
key's byte for byte (``ptx2gcn.runtime.cache.store``). Identity is therefore exact, not probabilistic,
while a lookup costs one CRC-32 pass (~0.15 ms/MB, hardware-assisted in zlib) plus one compare
instead of a cryptographic hash of the whole PTX (SHA-256 ~0.5 ms/MB, blake2b ~0.7 ms/MB here):
that is what keeps a 5 MB module's hit within 2 ms (``benchmarks/cache.py``). Two different PTX
texts with the same address (a CRC-32 collision at equal length) merely replace each other's entry.

Invariant: equal inputs give equal keys and addresses in every process and on every machine (no
per-process hash seeds); keys that differ in any field compare unequal.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import threading
import zlib
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from ptx2gcn.options import CompileOptions
from ptx2gcn.version import __version__


class PtxChecksums:
    """A bounded content → CRC-32 memo. A bytes object caches its own hash, so loading the same
    buffer again costs a dict lookup; an equal copy costs one SipHash pass and one compare."""

    def __init__(self, max_bytes: int = 256 << 20) -> None:
        self._memo: OrderedDict[bytes, int] = OrderedDict()
        self._bytes = 0
        self._max = max_bytes
        self._lock = threading.Lock()

    def crc32(self, data: bytes) -> int:
        with self._lock:
            found = self._memo.get(data)
            if found is not None:
                self._memo.move_to_end(data)
                return found
        value = zlib.crc32(data)
        with self._lock:
            if data not in self._memo and len(data) <= self._max:
                self._memo[data] = value
                self._bytes += len(data)
                while self._bytes > self._max:
                    old, _ = self._memo.popitem(last=False)
                    self._bytes -= len(old)
        return value


_checksums = PtxChecksums()


@cache
def llvm_version() -> str:
    """The LLVM version llvmlite is built against (part of every key: it changes the code)."""
    import llvmlite.binding  # pyright: ignore[reportMissingTypeStubs]

    binding: Any = llvmlite.binding  # llvmlite ships no type information
    info: tuple[int, ...] = binding.llvm_version_info
    return ".".join(str(part) for part in info)


def canonical_options(options: str | Mapping[str, object]) -> str:
    """Compile options as one canonical string (mappings as sorted, compact JSON)."""
    if isinstance(options, str):
        return options
    return json.dumps(options, sort_keys=True, separators=(",", ":"), default=repr)


_COMPILER_PACKAGES = ("ptx2gcn", "ptx2gcn.passes", "ptx2gcn.grammar")
_NOT_COMPILER = ("ptx2gcn.runtime",)
_SOURCE_SUFFIXES = (".py", ".lark")


def _package_dirs(name: str) -> list[Path]:
    spec = importlib.util.find_spec(name)
    locations = spec.submodule_search_locations if spec is not None else None
    return [Path(p) for p in locations or ()]


def _is_within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _source_files(root: Path, excluded: set[str]) -> Iterator[tuple[str, Path]]:
    """(path relative to ``root`` in POSIX form, path) of every compiler source file below ``root``:
    suffix ``.py``/``.lark``, a file (or a link to one), not in a ``__pycache__`` folder, not resolving
    into ``excluded`` (resolved folders). Folders are walked without following links to folders
    (as ``Path.rglob`` does); only folders and linked files are resolved, not every file."""
    if "__pycache__" in root.parts:
        return
    work = [("", str(root), os.path.realpath(root))]
    while work:
        relative, folder, real = work.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = f"{relative}{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    work.append((f"{name}/", entry.path, os.path.realpath(entry.path)))
                continue
            if os.path.splitext(entry.name)[1] not in _SOURCE_SUFFIXES or not entry.is_file():
                continue
            resolved = os.path.realpath(entry.path) if entry.is_symlink() else os.path.join(real, entry.name)
            if not any(_is_within(resolved, d) for d in excluded):
                yield name, Path(entry.path)


def compiler_sources() -> list[tuple[str, Path]]:
    """(name, path) of every compiler source file, sorted by name; the name is the file's path
    below its package, prefixed with the package (``ptx2gcn.passes/dce.py``)."""
    not_compiler = {os.path.realpath(d) for name in _NOT_COMPILER for d in _package_dirs(name)}
    owner = {os.path.realpath(d): name for name in _COMPILER_PACKAGES for d in _package_dirs(name)}
    found: dict[str, Path] = {}
    for package in _COMPILER_PACKAGES:
        # A wheel install has ptx2gcn/runtime/, ptx2gcn/passes/ and ptx2gcn/grammar/ inside ptx2gcn/:
        # the first is not the compiler, the others are named by their own package, as in a checkout.
        for root in _package_dirs(package):
            real_root = os.path.realpath(root)
            nested = {d for d, name in owner.items() if name != package and _is_within(d, real_root)}
            for relative, path in _source_files(root, not_compiler | nested):
                found.setdefault(f"{package}/{relative}", path)
    return sorted(found.items())


def hash_sources(sources: list[tuple[str, Path]]) -> str:
    """Hex SHA-256 over each source's name and bytes (each length-prefixed, so no two different
    source sets hash alike by moving bytes between fields)."""
    digest = hashlib.sha256()
    for name, path in sources:
        data = path.read_bytes()
        encoded = name.encode()
        digest.update(len(encoded).to_bytes(8, "little") + encoded + len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


@cache
def compiler_identity() -> str:
    """Hex SHA-256 of the compiler's sources (see the module docstring); once per process."""
    return hash_sources(compiler_sources())


@dataclass(frozen=True, slots=True)
class CacheKey:
    """Everything a code object depends on. Build one with ``CacheKey.for_ptx``."""

    ptx: bytes = field(repr=False)
    arch: str
    options: str
    compiler_version: str
    llvm_version: str
    ptx_crc32: int = field(default=-1, compare=False)
    """CRC-32 of ``ptx`` (computed when left at -1)."""
    compiler_identity: str = ""
    """``compiler_identity()`` (filled in when left empty)."""

    def __post_init__(self) -> None:
        if self.ptx_crc32 < 0:
            object.__setattr__(self, "ptx_crc32", _checksums.crc32(self.ptx))
        if not self.compiler_identity:
            object.__setattr__(self, "compiler_identity", compiler_identity())

    @classmethod
    def for_ptx(
        cls,
        ptx: bytes | str,
        arch: str,
        options: str | Mapping[str, object] = "",
        *,
        compiler_version: str = __version__,
        llvm: str | None = None,
        identity: str | None = None,
    ) -> CacheKey:
        data = ptx.encode() if isinstance(ptx, str) else bytes(ptx)
        return cls(
            data,
            arch,
            canonical_options(options),
            compiler_version,
            llvm if llvm is not None else llvm_version(),
            compiler_identity=identity or compiler_identity(),
        )

    @classmethod
    def for_options(cls, ptx: bytes | str, options: CompileOptions) -> CacheKey:
        """The key of compiling ``ptx`` with ``options``: the whole value, canonically
        (``CompileOptions.canonical``), so no field can change the code without changing the key."""
        return cls.for_ptx(ptx, options.arch, options.canonical())

    def fields(self) -> dict[str, str | int]:
        """The key without the PTX text itself (stored in entry headers, hashed into the address)."""
        return {
            "ptx_bytes": len(self.ptx),
            "ptx_crc32": self.ptx_crc32,
            "arch": self.arch,
            "options": self.options,
            "ptx2gcn": self.compiler_version,
            "compiler": self.compiler_identity,
            "llvm": self.llvm_version,
        }

    @property
    def digest(self) -> str:
        """Hex SHA-256 of the canonical JSON of ``fields()``: the entry's address."""
        text = json.dumps(self.fields(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()
