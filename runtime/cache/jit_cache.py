"""The JIT cache: compiled code objects by content-addressed key, in memory and on disk.

``JitCache.get_or_build(key, build)`` returns the code object for ``key`` from the in-memory layer,
else from the persistent store (``ptx2gcn.runtime.cache.store``), else calls ``build()`` and stores
the result in both. Configuration comes from the environment once, at the edge
(``CacheConfig.from_environment``):

* ``PTX2GCN_CACHE=0`` disables caching (every call builds);
* ``PTX2GCN_CACHE_DIR`` is the root (default ``$XDG_CACHE_HOME/ptx2gcn``, else ``~/.cache/ptx2gcn``);
* ``PTX2GCN_CACHE_MAX_BYTES`` bounds the store (default 1 GiB; ``512M``/``2G`` suffixes accepted);
  least-recently-used entries are evicted after each write.

Invariant: ``get_or_build`` returns exactly what ``build()`` returned for an equal key (in this or any
earlier process), or calls ``build()``; a corrupt entry is never returned. Cache failures (a read-only
or full disk) never fail a load: they are counted in ``stats().errors`` and the built code is returned.
"""

from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.runtime.cache.key import CacheKey
from ptx2gcn.runtime.cache.store import DiskStore

DEFAULT_MAX_BYTES = 1 << 30
DEFAULT_MEMORY_BYTES = 256 << 20
_SIZE = re.compile(r"^\s*(\d+)\s*([kmgt]?)(i?b)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}

__all__ = ["CacheConfig", "CacheKey", "CacheStats", "JitCache", "default_cache_dir", "parse_size"]


def parse_size(text: str, what: str) -> int:
    """``"1073741824"``, ``"512M"``, ``"2GiB"`` → bytes; anything else is a clear error."""
    match = _SIZE.match(text)
    if match is None:
        raise Ptx2GcnError.at(
            None, f"{what}: expected a byte count such as 1073741824, 512M or 2G, got {text!r}"
        )
    return int(match.group(1)) * _UNITS[match.group(2).lower()]


def default_cache_dir(environ: Mapping[str, str]) -> Path:
    xdg = environ.get("XDG_CACHE_HOME", "")
    base = (
        Path(xdg) if xdg and Path(xdg).is_absolute() else Path(environ.get("HOME") or Path.home()) / ".cache"
    )
    return base / "ptx2gcn"


@dataclass(frozen=True, slots=True)
class CacheConfig:
    enabled: bool = True
    directory: Path = field(default_factory=lambda: default_cache_dir(os.environ))
    max_bytes: int = DEFAULT_MAX_BYTES
    memory_bytes: int = DEFAULT_MEMORY_BYTES

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> CacheConfig:
        env = os.environ if environ is None else environ
        switch = env.get("PTX2GCN_CACHE", "1").strip().lower()
        if switch not in ("0", "1", "", "off", "on", "false", "true", "no", "yes"):
            raise Ptx2GcnError.at(None, f"PTX2GCN_CACHE: expected 0 or 1, got {switch!r}")
        directory = env.get("PTX2GCN_CACHE_DIR") or ""
        max_text = env.get("PTX2GCN_CACHE_MAX_BYTES") or ""
        return cls(
            enabled=switch not in ("0", "off", "false", "no"),
            directory=Path(directory).expanduser() if directory else default_cache_dir(env),
            max_bytes=parse_size(max_text, "PTX2GCN_CACHE_MAX_BYTES") if max_text else DEFAULT_MAX_BYTES,
        )


@dataclass(frozen=True, slots=True)
class CacheStats:
    memory_hits: int = 0
    disk_hits: int = 0
    misses: int = 0
    builds: int = 0
    corrupt: int = 0
    """Entries found damaged, dropped and rebuilt."""
    evictions: int = 0
    errors: int = 0
    """Store operations that failed (the load itself still succeeded)."""

    @property
    def hits(self) -> int:
        return self.memory_hits + self.disk_hits


class JitCache:
    """Code objects by ``CacheKey``: a bounded in-memory LRU in front of a ``DiskStore``."""

    def __init__(self, config: CacheConfig | None = None) -> None:
        self.config = config if config is not None else CacheConfig.from_environment()
        self.store = DiskStore(self.config.directory)
        self._memory: OrderedDict[str, tuple[CacheKey, bytes]] = OrderedDict()
        self._memory_used = 0
        self._stats = CacheStats()
        self._lock = threading.Lock()
        self.last_error: str | None = None

    def stats(self) -> CacheStats:
        with self._lock:
            return self._stats

    def get_or_build(self, key: CacheKey, build: Callable[[], bytes]) -> bytes:
        if not self.config.enabled:
            self._count(misses=1, builds=1)
            return build()
        found = self.lookup(key)
        if found is not None:
            return found
        code = build()
        self.insert(key, code)
        return code

    def lookup(self, key: CacheKey) -> bytes | None:
        """The stored code for ``key`` (memory, else disk), or None; a miss is counted by ``insert``.
        For callers that build elsewhere (the lazy JIT's worker processes)."""
        if not self.config.enabled:
            return None
        digest = key.digest
        with self._lock:
            found = self._memory.get(digest)
            # Equal keys, PTX included (the same buffer compares by identity, a copy by memcmp).
            if found is not None and found[0] == key:
                self._memory.move_to_end(digest)
                self._stats = replace(self._stats, memory_hits=self._stats.memory_hits + 1)
                return found[1]
        stored = self._read(key)
        if stored is not None:
            self._count(disk_hits=1)
            self._remember(key, digest, stored)
        return stored

    def insert(self, key: CacheKey, code: bytes) -> None:
        """Record ``code``, freshly built for ``key``, in both layers (counted as a miss and a build)."""
        self._count(misses=1, builds=1)
        if not self.config.enabled:
            return
        self._write(key, code)
        self._remember(key, key.digest, code)

    def forget_memory(self) -> None:
        """Drop the in-memory layer (the next lookups go to disk)."""
        with self._lock:
            self._memory.clear()
            self._memory_used = 0

    def _read(self, key: CacheKey) -> bytes | None:
        result = self.store.read(key)
        if result.corrupt is not None:
            self.last_error = f"dropped cache entry {self.store.path_for(key)}: {result.corrupt}"
            self._count(corrupt=1)
        return result.payload

    def _write(self, key: CacheKey, code: bytes) -> None:
        try:
            self.store.write(key, code)
            evicted = self.store.evict(self.config.max_bytes)
        except OSError as error:
            self.last_error = f"cannot write cache entry under {self.config.directory}: {error}"
            self._count(errors=1)
            return
        self._count(evictions=evicted)

    def _remember(self, key: CacheKey, digest: str, code: bytes) -> None:
        """Keep ``code`` in memory, replacing any other key at its address. The budget counts the PTX
        the key holds as well as the code."""
        size = len(code) + len(key.ptx)
        if size > self.config.memory_bytes:
            return
        with self._lock:
            previous = self._memory.pop(digest, None)
            if previous is not None:
                self._memory_used -= _footprint(previous)
            self._memory[digest] = (key, code)
            self._memory_used += size
            while self._memory_used > self.config.memory_bytes:
                _, evicted = self._memory.popitem(last=False)
                self._memory_used -= _footprint(evicted)

    def _count(self, **deltas: int) -> None:
        with self._lock:
            current = self._stats
            self._stats = replace(
                current, **{name: getattr(current, name) + value for name, value in deltas.items()}
            )


def _footprint(item: tuple[CacheKey, bytes]) -> int:
    return len(item[0].ptx) + len(item[1])
