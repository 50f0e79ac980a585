"""The persistent half of the JIT cache: one file per entry, written atomically, checked on read.

Layout under the cache root: ``entries/<2 hex>/<address>.p2g`` and ``tmp/`` for writes in flight.
An entry file is (integers little-endian)::

    0   8  magic  b"P2GJIT\0\2"
    8   4  format version (2)
    12  4  header length H
    16  8  PTX length T
    24  8  payload length P
    32  4  CRC-32 of header + payload (the PTX is checked by comparison instead)
    36  4  zero
    40  H  header: UTF-8 JSON {"key": CacheKey.fields(), "created": unix seconds}
    40+H T  the PTX the code was built from (a hit requires it to equal the key's PTX exactly)
    ...  P  payload: the code object bytes

Invariant: a reader sees either no file or a complete one, because writers fill a private temp file,
fsync it and ``os.replace`` it into place (racing writers of one key leave exactly one complete entry);
an entry is returned only if magic, version, sizes, checksum, the stored key and the stored PTX all
match, and anything else is deleted and reported as a miss. Nothing here unpickles or executes stored data.
"""

from __future__ import annotations

import contextlib
import json
import os
import struct
import time
import uuid
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, cast

from ptx2gcn.runtime.cache.key import CacheKey

MAGIC = b"P2GJIT\0\2"
FORMAT_VERSION = 2
_PREFIX = struct.Struct("<8sIIQQII")
SUFFIX = ".p2g"
_STALE_TMP_SECONDS = 3600.0


@dataclass(frozen=True, slots=True)
class EntryInfo:
    path: Path
    size: int
    last_used: float


class ReadResult:
    """Outcome of reading one entry: the payload, or why there is none."""

    __slots__ = ("corrupt", "payload")

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
                problem, payload = _read_entry(handle, key)
        except FileNotFoundError:
            return ReadResult(None)
        except OSError as error:
            return ReadResult(None, f"unreadable: {error}")
        if problem is not None:
            _unlink(path)
            return ReadResult(None, problem)
        with contextlib.suppress(OSError):
            os.utime(path)  # the LRU clock: last use = mtime
        return ReadResult(payload)

    # -- write ------------------------------------------------------------------------------------
    def write(self, key: CacheKey, payload: bytes) -> Path:
        header = json.dumps({"key": key.fields(), "created": int(time.time())}, sort_keys=True).encode()
        checksum = zlib.crc32(payload, zlib.crc32(header))
        prefix = _PREFIX.pack(MAGIC, FORMAT_VERSION, len(header), len(key.ptx), len(payload), checksum, 0)
        final = self.path_for(key)
        final.parent.mkdir(parents=True, exist_ok=True)
        self.tmp_dir.mkdir(parents=True, exist_ok=True)
        temp = self.tmp_dir / f"{final.stem}.{os.getpid()}.{uuid.uuid4().hex}.tmp"
        try:
            with open(temp, "wb") as handle:
                handle.write(prefix)
                handle.write(header)
                handle.write(key.ptx)
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


def _read_entry(handle: BinaryIO, key: CacheKey) -> tuple[str | None, bytes]:
    """(problem or None, payload) of the open entry file ``handle`` for ``key``."""
    size = os.fstat(handle.fileno()).st_size
    # Separate reads: no slicing copies, and the PTX compare runs on plain bytes (fast memcmp).
    prefix = handle.read(_PREFIX.size)
    problem, header_len, ptx_len, payload_len = _check_prefix(prefix, size)
    if problem is not None:
        return problem, b""
    header, ptx, payload = handle.read(header_len), handle.read(ptx_len), handle.read(payload_len)
    return _check_body(prefix, header, ptx, payload, key), payload


def _check_prefix(prefix: bytes, size: int) -> tuple[str | None, int, int, int]:
    """(problem or None, header length, PTX length, payload length) from an entry's fixed prefix."""
    if len(prefix) < _PREFIX.size:
        return f"truncated ({size} bytes)", 0, 0, 0
    magic, version, header_len, ptx_len, payload_len, _checksum, _zero = _PREFIX.unpack(prefix)
    if magic != MAGIC or version != FORMAT_VERSION:
        return "bad magic or format version", 0, 0, 0
    expected = _PREFIX.size + header_len + ptx_len + payload_len
    if expected != size:
        return f"size mismatch ({size} bytes, header says {expected})", 0, 0, 0
    return None, header_len, ptx_len, payload_len


def _check_body(prefix: bytes, header: bytes, ptx: bytes, payload: bytes, key: CacheKey) -> str | None:
    """Why the entry is not valid for ``key``, or None when it is."""
    checksum = _PREFIX.unpack(prefix)[5]
    if zlib.crc32(payload, zlib.crc32(header)) != checksum:
        return "checksum mismatch"
    try:
        decoded: object = json.loads(header)
    except ValueError:
        return "header is not JSON"
    if not isinstance(decoded, dict) or cast(dict[str, object], decoded).get("key") != key.fields():
        return "stored key differs"
    if ptx != key.ptx:
        return "stored PTX differs (same address, other module)"
    return None


def _unlink(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


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
