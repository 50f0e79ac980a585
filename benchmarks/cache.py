"""JIT cache hit cost per module load, for a small and a 5 MB PTX module.

Usage: ``.venv/bin/python benchmarks/cache.py [--check] [--repeat N]``

A "load" is what the runtime does for every module: build the ``CacheKey`` from the PTX, then
``JitCache.get_or_build``. Scenarios:

* ``memory, same object``  — the program loads the same PTX buffer again (checksum memo + memory layer);
* ``memory, equal copy``   — a new buffer with the same PTX (memo by content: SipHash + compare);
* ``disk, cold process``   — a new process: CRC-32 of the PTX from scratch, entry read from disk and its
  stored PTX compared with the key's;
* ``crc32 only`` / ``sha256 only`` / ``blake2b only`` — the checksum the key uses, and for comparison
  the cryptographic hashes it replaces (why: see ``ptx2gcn.runtime.cache.key``).

Every key also holds the compiler's identity (a SHA-256 of its own sources), computed once per
process on the first key; its one-off cost is reported on its own line ("compiler identity, once per
process": listing and hashing the sources) and is not part of any hit.

The budget is 2 ms per hit at any PTX size. ``--check`` exits 1 when a median exceeds it. Figures are
medians over ``--repeat`` runs; on a shared machine they are noisy, so read them alongside ``nproc``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path

from ptx2gcn.runtime.cache.jit_cache import CacheConfig, JitCache
from ptx2gcn.runtime.cache.key import CacheKey, compiler_sources, hash_sources

BUDGET_MS = 2.0
ARCH = "gfx942"
OPTIONS = "-O3"
LLVM = "22.1"


def synthetic_ptx(size: int) -> bytes:
    """PTX-like text of about ``size`` bytes (distinct lines, so nothing is trivially repetitive)."""
    lines = [b".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n"]
    total, n = len(lines[0]), 0
    while total < size:
        line = b"add.s32 %%r%d, %%r%d, %d;\n" % (n % 997, (n * 31) % 997, n)
        lines.append(line)
        total += len(line)
        n += 1
    return b"".join(lines) + b"ret;\n}\n"


def median_ms(run: Callable[[], object], repeat: int) -> float:
    run()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples)


def measure(ptx: bytes, code: bytes, root: Path, repeat: int) -> dict[str, float]:
    config = CacheConfig(directory=root)
    warm = JitCache(config)
    warm.get_or_build(CacheKey.for_ptx(ptx, ARCH, OPTIONS, llvm=LLVM), lambda: code)
    copies = iter([bytes(bytearray(ptx)) for _ in range(repeat + 1)])

    def memory_same() -> bytes:
        return warm.get_or_build(CacheKey.for_ptx(ptx, ARCH, OPTIONS, llvm=LLVM), lambda: code)

    def memory_copy() -> bytes:
        return warm.get_or_build(CacheKey.for_ptx(next(copies), ARCH, OPTIONS, llvm=LLVM), lambda: code)

    version = CacheKey.for_ptx(b"", ARCH, llvm=LLVM).compiler_version

    def disk_cold() -> bytes:
        fresh = JitCache(config)  # empty memory layer, as in a new process
        key = CacheKey(ptx, ARCH, OPTIONS, version, LLVM, ptx_crc32=zlib.crc32(ptx))  # no memo
        result = fresh.get_or_build(key, lambda: code)
        assert fresh.stats().disk_hits == 1
        return result

    return {
        "memory, same object": median_ms(memory_same, repeat),
        "memory, equal copy": median_ms(memory_copy, repeat),
        "disk, cold process": median_ms(disk_cold, repeat),
        "crc32 only": median_ms(lambda: zlib.crc32(ptx), repeat),
        "sha256 only": median_ms(lambda: hashlib.sha256(ptx).digest(), repeat),
        "blake2b only": median_ms(lambda: hashlib.blake2b(ptx).digest(), repeat),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help=f"exit 1 if a hit's median exceeds {BUDGET_MS} ms"
    )
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args(argv)
    cases = {
        "small (4 KB PTX, 8 KB code)": (synthetic_ptx(4 << 10), os.urandom(8 << 10)),
        "5 MB PTX, 1 MB code": (synthetic_ptx(5 << 20), os.urandom(1 << 20)),
    }
    over = False
    identity_ms = median_ms(lambda: hash_sources(compiler_sources()), max(3, args.repeat // 10))
    sources = compiler_sources()
    print(
        f"compiler identity, once per process: {identity_ms:.2f} ms "
        f"({len(sources)} files, {sum(p.stat().st_size for _, p in sources)} bytes)"
    )
    print(
        f"cache hit cost per module load, median of {args.repeat} (budget {BUDGET_MS} ms; "
        f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f})"
    )
    with tempfile.TemporaryDirectory(prefix="ptx2gcn-cache-bench-") as tmp:
        for label, (ptx, code) in cases.items():
            print(f"\n{label}: {len(ptx)} bytes of PTX")
            for scenario, ms in measure(ptx, code, Path(tmp) / label[:5], args.repeat).items():
                is_hit = not scenario.endswith(" only")
                verdict = ("  ok" if ms <= BUDGET_MS else "  OVER BUDGET") if is_hit else ""
                over |= is_hit and ms > BUDGET_MS
                print(f"  {scenario:<22} {ms:8.3f} ms{verdict}")
    return 1 if args.check and over else 0


if __name__ == "__main__":
    sys.exit(main())
