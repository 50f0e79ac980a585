"""JIT cache keys: everything a compiled module depends on, and the address it is stored under.

A key holds the PTX bytes, the target arch, the compile options, the ptx2gcn version and the LLVM
version: every input that changes the code object (ZLUDA's cache missed some and served stale
binaries after driver updates, lshqqytiger/ZLUDA#82).

The entry's *address* (``CacheKey.digest``) is SHA-256 over those fields with the PTX represented by
its length and CRC-32; the entry stores the full PTX and a hit requires the stored PTX to equal the
key's byte for byte (``ptx2gcn.runtime.cache_store``). Identity is therefore exact, not probabilistic,
while a lookup costs one CRC-32 pass (~0.15 ms/MB, hardware-assisted in zlib) plus one compare
instead of a cryptographic hash of the whole PTX (SHA-256 ~0.5 ms/MB, blake2b ~0.7 ms/MB here):
that is what keeps a 5 MB module's hit within 2 ms (``benchmarks/cache.py``). Two different PTX
texts with the same address (a CRC-32 collision at equal length) merely replace each other's entry.

Invariant: equal inputs give equal keys and addresses in every process and on every machine (no
per-process hash seeds); keys that differ in any field compare unequal.
"""

from __future__ import annotations

import hashlib
import json
import threading
import zlib
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from ptx2gcn import __version__


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

    def __post_init__(self) -> None:
        if self.ptx_crc32 < 0:
            object.__setattr__(self, "ptx_crc32", _checksums.crc32(self.ptx))

    @classmethod
    def for_ptx(
        cls,
        ptx: bytes | str,
        arch: str,
        options: str | Mapping[str, object] = "",
        *,
        compiler_version: str = __version__,
        llvm: str | None = None,
    ) -> CacheKey:
        data = ptx.encode() if isinstance(ptx, str) else bytes(ptx)
        return cls(
            data,
            arch,
            canonical_options(options),
            compiler_version,
            llvm if llvm is not None else llvm_version(),
        )

    def fields(self) -> dict[str, str | int]:
        """The key without the PTX text itself (stored in entry headers, hashed into the address)."""
        return {
            "ptx_bytes": len(self.ptx),
            "ptx_crc32": self.ptx_crc32,
            "arch": self.arch,
            "options": self.options,
            "ptx2gcn": self.compiler_version,
            "llvm": self.llvm_version,
        }

    @property
    def digest(self) -> str:
        """Hex SHA-256 of the canonical JSON of ``fields()``: the entry's address."""
        text = json.dumps(self.fields(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()
