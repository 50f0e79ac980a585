"""The persistent half of the JIT cache: one file per entry, written atomically, checked on read.

Layout under the cache root: ``entries/<2 hex>/<key digest>.p2g`` and ``tmp/`` for writes in flight.
An entry file is::

    0   8  magic  b"P2GJIT\\0\\1"
    8   4  format version (1), u32 little-endian
    12  4  header length H, u32
    16  8  payload length P, u64
    24 32  SHA-256 of header + payload
    56  H  header: UTF-8 JSON {"key": {...CacheKey fields...}, "created": unix seconds}
    56+H P payload: the code object bytes

Invariant: a reader sees either no file or a complete one, because writers fill a private temp file,
fsync it and ``os.replace`` it into place (racing writers of one key leave exactly one complete entry);
an entry is returned only if magic, version, sizes, checksum and the stored key all match, and
anything else is deleted and reported as a miss. Nothing here unpickles or executes stored data.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ptx2gcn.runtime.cache_key import CacheKey

MAGIC = b"P2GJIT\0\1"
FORMAT_VERSION = 1
_PREFIX = struct.Struct("<8sIIQ32s")
SUFFIX = ".p2g"
_STALE_TMP_SECONDS = 3600.0


@dataclass(frozen=True, slots=True)
class EntryInfo:
    path: Path
    size: int
    last_used: float


class ReadResult:
    """Outcome of reading one entry: the payload, or why there is none."""

    __slots__ = ("payload", "corrupt")

    def __init__(self, payload: bytes | None, corrupt: str | None = None) -> None:
        self.payload = payload
        self.corrupt = corrupt


class DiskStore:
    """Entries of one cache root. Safe to share between threads and processes."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.entries_dir = root / "entries"
        self.tmp_dir = root / "tmp"

    def path_for(self, key: CacheKey) -> Path:
        digest = key.digest
        return self.entries_dir / digest[:2] / f"{digest[2:]}{SUFFIX}"

    # -- read -------------------------------------------------------------------------------------
    def read(self, key: CacheKey) -> ReadResult:
        path = self.path_for(key)
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except FileNotFoundError:
            return ReadResult(None)
        except OSError as error:
            return ReadResult(None, f"unreadable: {error}")
        problem = _check(data, key)
        if problem is not None:
            _unlink(path)
            return ReadResult(None, problem)
        try:
            os.utime(path)  # the LRU clock: last use = mtime
        except OSError:
            pass
        return ReadResult(data[len(data) - _payload_size(data):])

    # -- write ------------------------------------------------------------------------------------
    def write(self, key: CacheKey, payload: bytes) -> Path:
        header = json.dumps({"key": key.fields(), "created": time.time()}, sort_keys=True).encode()
        checksum = hashlib.sha256(header + payload).digest()
        prefix = _PREFIX.pack(MAGIC, FORMAT_VERSION, len(header), len(payload), checksum)
        final = self.path_for(key)
        final.parent.mkdir(parents=True, exist_ok=True)
        self.tmp_dir.mkdir(parents=True, exist_ok=True)
        temp = self.tmp_dir / f"{final.stem}.{os.getpid()}.{uuid.uuid4().hex}.tmp"
        try:
            with open(temp, "wb") as handle:
                handle.write(prefix)
                handle.write(header)
                handle.write(payload)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, final)
        finally:
            _unlink(temp)
        _fsync_dir(final.parent)
        return final

    # -- maintenance ------------------------------------------------------------------------------
    def entries(self) -> Iterator[EntryInfo]:
        if not self.entries_dir.is_dir():
            return
        for bucket in os.scandir(self.entries_dir):
            if not bucket.is_dir():
                continue
            for item in os.scandir(bucket.path):
                if item.name.endswith(SUFFIX):
                    try:
                        stat = item.stat()
                    except FileNotFoundError:  # evicted by another process meanwhile
                        continue
                    yield EntryInfo(Path(item.path), stat.st_size, stat.st_mtime)

    def evict(self, max_bytes: int) -> int:
        """Delete least-recently-used entries until the total is within ``max_bytes``; returns the count."""
        infos = sorted(self.entries(), key=lambda info: (info.last_used, info.path.name))
        total = sum(info.size for info in infos)
        removed = 0
        for info in infos:
            if total <= max_bytes:
                break
            _unlink(info.path)
            total -= info.size
            removed += 1
        self._drop_stale_temps()
        return removed

    def clear(self) -> int:
        removed = 0
        for info in list(self.entries()):
            _unlink(info.path)
            removed += 1
        self._drop_stale_temps(max_age=0.0)
        return removed

    def _drop_stale_temps(self, max_age: float = _STALE_TMP_SECONDS) -> None:
        """Temp files of writers that died before renaming (live writers are younger than max_age)."""
        if not self.tmp_dir.is_dir():
            return
        now = time.time()
        for item in os.scandir(self.tmp_dir):
            try:
                if now - item.stat().st_mtime >= max_age:
                    _unlink(Path(item.path))
            except FileNotFoundError:
                continue


def _payload_size(data: bytes) -> int:
    return _PREFIX.unpack_from(data, 0)[3]


def _check(data: bytes, key: CacheKey) -> str | None:
    """Why ``data`` is not a valid entry for ``key``, or None when it is."""
    if len(data) < _PREFIX.size:
        return f"truncated ({len(data)} bytes)"
    magic, version, header_len, payload_len, checksum = _PREFIX.unpack_from(data, 0)
    if magic != MAGIC or version != FORMAT_VERSION:
        return "bad magic or format version"
    if _PREFIX.size + header_len + payload_len != len(data):
        return f"size mismatch ({len(data)} bytes, header says {_PREFIX.size + header_len + payload_len})"
    body = memoryview(data)[_PREFIX.size:]
    if hashlib.sha256(body).digest() != checksum:
        return "checksum mismatch"
    try:
        header = json.loads(bytes(body[:header_len]))
    except ValueError:
        return "header is not JSON"
    if not isinstance(header, dict) or header.get("key") != key.fields():
        return "stored key differs"
    return None


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _fsync_dir(path: Path) -> None:
    """Make the rename durable (best effort: not every filesystem allows opening a directory)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
