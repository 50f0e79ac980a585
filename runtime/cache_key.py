"""Content-addressed JIT cache keys: what a compiled module depends on, hashed.

A key is the hash of (PTX bytes, target arch, compile options, ptx2gcn version, LLVM version): every
input that changes the code object (ZLUDA's cache missed some and served stale binaries after
driver updates, lshqqytiger/ZLUDA#82).

PTX is hashed with a tree of SHA-256 (``tree_sha256``): 1 MiB leaves hashed in parallel threads
(hashlib releases the GIL), the root over their digests and the length. SHA-256 is hardware-assisted
(SHA-NI) where blake2b is not, and the tree keeps a 5 MB module's hash within the ~2 ms a cache hit
may cost (figures in ``benchmarks/cache.py``). ``PtxDigests`` memoises digests by content so a module
loaded again in the same process is not rehashed.

Invariant: equal inputs give equal keys in every process and on every machine (no per-process hash
seeds, no thread-count dependence); different inputs give different keys up to SHA-256 collisions.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache

from ptx2gcn import __version__

LEAF_SIZE = 1 << 20
_TREE_TAG = b"ptx2gcn-tree-sha256-v1\0"
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1), thread_name_prefix="ptx2gcn-hash")
        return _pool


def _leaf(chunk: memoryview) -> bytes:
    return hashlib.sha256(chunk).digest()


def tree_sha256(data: bytes) -> str:
    """Hex digest: SHA-256 over a tag, the length and the SHA-256 of each 1 MiB leaf."""
    view = memoryview(data)
    leaves = [view[i:i + LEAF_SIZE] for i in range(0, len(data), LEAF_SIZE)] or [view]
    digests = list(_executor().map(_leaf, leaves)) if len(leaves) > 1 else [_leaf(leaves[0])]
    root = hashlib.sha256(_TREE_TAG)
    root.update(len(data).to_bytes(8, "little"))
    for digest in digests:
        root.update(digest)
    return root.hexdigest()


class PtxDigests:
    """A bounded content → digest memo. Python caches a bytes object's own hash, so looking up the
    same object again is O(1); an equal copy costs one SipHash pass and one compare, both far cheaper
    than SHA-256."""

    def __init__(self, max_bytes: int = 256 << 20) -> None:
        self._memo: OrderedDict[bytes, str] = OrderedDict()
        self._bytes = 0
        self._max = max_bytes
        self._lock = threading.Lock()

    def digest(self, data: bytes) -> str:
        with self._lock:
            found = self._memo.get(data)
            if found is not None:
                self._memo.move_to_end(data)
                return found
        digest = tree_sha256(data)
        with self._lock:
            if data not in self._memo and len(data) <= self._max:
                self._memo[data] = digest
                self._bytes += len(data)
                while self._bytes > self._max:
                    old, _ = self._memo.popitem(last=False)
                    self._bytes -= len(old)
        return digest


_digests = PtxDigests()


@cache
def llvm_version() -> str:
    """The LLVM version llvmlite is built against (part of every key: it changes the code)."""
    import llvmlite.binding

    return ".".join(str(part) for part in llvmlite.binding.llvm_version_info)


def canonical_options(options: str | Mapping[str, object]) -> str:
    """Compile options as one canonical string (mappings as sorted, compact JSON)."""
    if isinstance(options, str):
        return options
    return json.dumps(options, sort_keys=True, separators=(",", ":"), default=repr)


@dataclass(frozen=True, slots=True)
class CacheKey:
    """Everything a code object depends on. Build one with ``CacheKey.for_ptx``."""

    ptx_digest: str
    arch: str
    options: str
    compiler_version: str
    llvm_version: str

    @classmethod
    def for_ptx(cls, ptx: bytes | str, arch: str, options: str | Mapping[str, object] = "", *,
                compiler_version: str = __version__, llvm: str | None = None) -> CacheKey:
        data = ptx.encode() if isinstance(ptx, str) else bytes(ptx)
        return cls(_digests.digest(data), arch, canonical_options(options), compiler_version,
                   llvm if llvm is not None else llvm_version())

    def fields(self) -> dict[str, str]:
        return {"ptx": self.ptx_digest, "arch": self.arch, "options": self.options,
                "ptx2gcn": self.compiler_version, "llvm": self.llvm_version}

    @property
    def digest(self) -> str:
        """Hex SHA-256 of the canonical JSON of all fields: the entry's name on disk."""
        text = json.dumps(self.fields(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()
