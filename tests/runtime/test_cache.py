"""The JIT cache: keys, layers, atomic racing writers, corruption recovery, LRU eviction, disabled mode,
environment configuration and ``ptx2gcn cache stats|clear``."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
import time
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from ptx2gcn.cli import main
from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.runtime.cache.jit_cache import CacheConfig, CacheKey, JitCache, parse_size
from ptx2gcn.runtime.cache.key import compiler_identity
from ptx2gcn.runtime.cache.store import DiskStore

PTX = b".version 8.0\n.target sm_80\n.address_size 64\n"


def key_for(ptx: bytes = PTX, arch: str = "gfx942", options: str = "-O3") -> CacheKey:
    return CacheKey.for_ptx(ptx, arch, options, llvm="22.1.0")


def make_cache(root: Path, max_bytes: int = 1 << 30, memory_bytes: int = 1 << 28) -> JitCache:
    return JitCache(CacheConfig(directory=root, max_bytes=max_bytes, memory_bytes=memory_bytes))


class Builder:
    """A build callback that counts its calls."""

    def __init__(self, payload: bytes) -> None:
        self.payload = payload
        self.calls = 0

    def __call__(self) -> bytes:
        self.calls += 1
        return self.payload


# -- keys -----------------------------------------------------------------------------------------
def test_key_fields_and_address() -> None:
    key = key_for()
    assert key.ptx_crc32 == zlib.crc32(PTX)
    fields = {
        "ptx_bytes": len(PTX),
        "ptx_crc32": zlib.crc32(PTX),
        "arch": "gfx942",
        "options": "-O3",
        "ptx2gcn": key.compiler_version,
        "compiler": compiler_identity(),
        "llvm": "22.1.0",
    }
    assert key.fields() == fields
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"))
    assert key.digest == hashlib.sha256(text.encode()).hexdigest()


def test_key_covers_every_input() -> None:
    base = key_for()
    assert key_for() == base and key_for().digest == base.digest
    variants = [
        key_for(PTX + b"\n"),
        key_for(arch="gfx90a"),
        key_for(options="-O0"),
        CacheKey.for_ptx(PTX, "gfx942", "-O3", llvm="21.1.0"),
        CacheKey.for_ptx(PTX, "gfx942", "-O3", llvm="22.1.0", compiler_version="9.9"),
        CacheKey.for_ptx(PTX, "gfx942", "-O3", llvm="22.1.0", identity="0" * 64),
    ]
    assert len({v.digest for v in variants} | {base.digest}) == len(variants) + 1
    assert CacheKey.for_ptx(PTX.decode(), "gfx942", "-O3", llvm="22.1.0") == base
    ordered = CacheKey.for_ptx(PTX, "gfx942", {"a": 1, "b": True}, llvm="x")
    assert ordered == CacheKey.for_ptx(PTX, "gfx942", {"b": True, "a": 1}, llvm="x")


def test_default_llvm_version_is_llvmlites() -> None:
    import llvmlite.binding

    expected = ".".join(map(str, llvmlite.binding.llvm_version_info))
    assert CacheKey.for_ptx(PTX, "gfx942").llvm_version == expected


# -- layers ---------------------------------------------------------------------------------------
def test_miss_then_memory_hit_then_disk_hit(tmp_path: Path) -> None:
    build = Builder(b"\x7fELF code object")
    cache = make_cache(tmp_path)
    assert cache.get_or_build(key_for(), build) == build.payload
    assert cache.get_or_build(key_for(), build) == build.payload
    stats = cache.stats()
    assert (stats.misses, stats.builds, stats.memory_hits, stats.disk_hits) == (1, 1, 1, 0)
    fresh = make_cache(tmp_path)
    assert fresh.get_or_build(key_for(), build) == build.payload
    assert (fresh.stats().disk_hits, fresh.stats().hits, build.calls) == (1, 1, 1)
    assert fresh.get_or_build(key_for(arch="gfx90a"), Builder(b"other")) == b"other"
    assert len(list(DiskStore(tmp_path).entries())) == 2


def test_disabled_mode_always_builds_and_writes_nothing(tmp_path: Path) -> None:
    config = CacheConfig.from_environment({"PTX2GCN_CACHE": "0", "PTX2GCN_CACHE_DIR": str(tmp_path / "c")})
    cache = JitCache(config)
    build = Builder(b"code")
    for _ in range(3):
        assert cache.get_or_build(key_for(), build) == b"code"
    assert build.calls == 3 and cache.stats().hits == 0
    assert not (tmp_path / "c").exists()


def test_unwritable_directory_still_loads(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    cache = make_cache(blocker / "cache")
    assert cache.get_or_build(key_for(), Builder(b"code")) == b"code"
    assert cache.stats().errors == 1 and cache.last_error is not None


# -- corruption -----------------------------------------------------------------------------------
def _flip_bit(data: bytes) -> bytes:
    out = bytearray(data)
    out[len(out) - 3] ^= 0x10
    return bytes(out)


def _garbage_header(data: bytes) -> bytes:
    return b"GARBAGE!" + os.urandom(32) + data[40:]


@pytest.mark.parametrize(
    "damage",
    [_flip_bit, lambda d: d[: len(d) // 2], lambda d: b"", _garbage_header, lambda d: d[:20]],
    ids=["bit-flip", "truncated", "zero-length", "garbage-header", "short-prefix"],
)
def test_corrupt_entry_is_dropped_and_rebuilt(tmp_path: Path, damage: Callable[[bytes], bytes]) -> None:
    code = bytes(range(256)) * 8
    make_cache(tmp_path).get_or_build(key_for(), Builder(code))
    path = DiskStore(tmp_path).path_for(key_for())
    path.write_bytes(damage(path.read_bytes()))
    cache = make_cache(tmp_path)
    rebuild = Builder(code)
    assert cache.get_or_build(key_for(), rebuild) == code
    assert rebuild.calls == 1 and cache.stats().corrupt == 1
    assert make_cache(tmp_path).get_or_build(key_for(), Builder(b"never")) == code  # the new entry is valid


def test_same_address_other_ptx_is_a_miss(tmp_path: Path) -> None:
    # Force a CRC-32 "collision": two PTX texts of equal length under one address.
    first = CacheKey(b"module A", "gfx942", "", "0.1.0", "22", ptx_crc32=1234)
    second = CacheKey(b"module B", "gfx942", "", "0.1.0", "22", ptx_crc32=1234)
    assert first.digest == second.digest and first != second
    make_cache(tmp_path).get_or_build(first, Builder(b"code A"))
    cache = make_cache(tmp_path)
    assert cache.get_or_build(second, Builder(b"code B")) == b"code B"  # disk: stored PTX differs
    assert make_cache(tmp_path).get_or_build(second, Builder(b"never")) == b"code B"
    assert cache.get_or_build(first, Builder(b"code A")) == b"code A"  # memory: stored key differs
    assert cache.stats().memory_hits == 0 and cache.stats().builds == 2


def test_entry_of_another_key_is_not_served(tmp_path: Path) -> None:
    store = DiskStore(tmp_path)
    make_cache(tmp_path).get_or_build(key_for(arch="gfx90a"), Builder(b"for gfx90a"))
    target = store.path_for(key_for())
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(store.path_for(key_for(arch="gfx90a")).read_bytes())
    cache = make_cache(tmp_path)
    assert cache.get_or_build(key_for(), Builder(b"for gfx942")) == b"for gfx942"
    assert cache.stats().corrupt == 1


# -- eviction -------------------------------------------------------------------------------------
def test_least_recently_used_entries_are_evicted_first(tmp_path: Path) -> None:
    payload = bytes(1000)
    cache = make_cache(tmp_path)
    keys = [key_for(arch=f"gfx{n}") for n in range(4)]
    for key in keys[:3]:
        cache.get_or_build(key, Builder(payload))
    entry_size = max(DiskStore(tmp_path).path_for(k).stat().st_size for k in keys[:3]) + 20  # < 4 entries
    # Make the use order explicit (mtime is the LRU clock): 1 oldest, then 0, then 2.
    now = time.time()
    for age, key in zip((200, 300, 100), keys[:3], strict=False):
        os.utime(DiskStore(tmp_path).path_for(key), (now - age, now - age))
    small = make_cache(tmp_path, max_bytes=3 * entry_size)
    small.get_or_build(keys[0], Builder(b"unused"))  # a disk hit refreshes keys[0]
    small.get_or_build(keys[3], Builder(payload))  # a fourth entry: the LRU one (keys[1]) must go
    remaining = {info.path for info in DiskStore(tmp_path).entries()}
    assert remaining == {DiskStore(tmp_path).path_for(k) for k in (keys[0], keys[2], keys[3])}
    assert small.stats().evictions == 1
    make_cache(tmp_path, max_bytes=entry_size).get_or_build(key_for(arch="x"), Builder(payload))
    assert [i.path for i in DiskStore(tmp_path).entries()] == [
        DiskStore(tmp_path).path_for(key_for(arch="x"))
    ]


def test_memory_layer_is_bounded(tmp_path: Path) -> None:
    cache = make_cache(tmp_path, memory_bytes=2500 + 3 * len(PTX))
    for n in range(3):
        cache.get_or_build(key_for(arch=str(n)), Builder(bytes(1000)))
    cache.get_or_build(key_for(arch="0"), Builder(b"unused"))
    assert (cache.stats().memory_hits, cache.stats().disk_hits) == (0, 1)  # "0" fell out of memory


# -- racing processes -------------------------------------------------------------------------------
RACER = textwrap.dedent("""
    import os, sys, time
    from pathlib import Path
    from ptx2gcn.runtime.cache.jit_cache import CacheConfig, CacheKey, JitCache
    root, go, index = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    cache = JitCache(CacheConfig(directory=root))
    key = CacheKey.for_ptx(b"racing module", "gfx942", "", llvm="22")
    while not go.exists():
        time.sleep(0.001)
    def build():
        time.sleep(0.05)
        return bytes(range(256)) * 8192
    code = cache.get_or_build(key, build)
    assert code == bytes(range(256)) * 8192
    print(index, cache.stats().builds, cache.stats().disk_hits)
""")


def test_six_processes_racing_leave_one_valid_entry(tmp_path: Path) -> None:
    root, go = tmp_path / "cache", tmp_path / "go"
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(root), str(go), str(i)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(6)
    ]
    time.sleep(0.5)
    go.touch()
    outputs = [racer.communicate(timeout=120) for racer in racers]
    assert [racer.returncode for racer in racers] == [0] * 6, [err for _, err in outputs]
    assert sorted(int(out.split()[0]) for out, _ in outputs) == list(range(6))
    entries = list(DiskStore(root).entries())
    assert len(entries) == 1
    assert list((root / "tmp").iterdir()) == []
    key = CacheKey.for_ptx(b"racing module", "gfx942", "", llvm="22")
    assert make_cache(root).get_or_build(key, Builder(b"never")) == bytes(range(256)) * 8192


# -- configuration and CLI --------------------------------------------------------------------------
def test_configuration_from_environment(tmp_path: Path) -> None:
    config = CacheConfig.from_environment({"HOME": "/home/u"})
    assert (config.enabled, config.directory, config.max_bytes) == (
        True,
        Path("/home/u/.cache/ptx2gcn"),
        1 << 30,
    )
    config = CacheConfig.from_environment({"XDG_CACHE_HOME": "/xdg", "PTX2GCN_CACHE_MAX_BYTES": "512M"})
    assert (config.directory, config.max_bytes) == (Path("/xdg/ptx2gcn"), 512 << 20)
    assert CacheConfig.from_environment({"PTX2GCN_CACHE_DIR": str(tmp_path)}).directory == tmp_path
    assert [parse_size(t, "x") for t in ("10", "2k", "3 MiB", "1G")] == [10, 2048, 3 << 20, 1 << 30]
    with pytest.raises(Ptx2GcnError, match="PTX2GCN_CACHE_MAX_BYTES: expected a byte count"):
        CacheConfig.from_environment({"PTX2GCN_CACHE_MAX_BYTES": "lots"})
    with pytest.raises(Ptx2GcnError, match="PTX2GCN_CACHE: expected 0 or 1"):
        CacheConfig.from_environment({"PTX2GCN_CACHE": "maybe"})


def test_cli_stats_and_clear(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PTX2GCN_CACHE_DIR", str(tmp_path))
    cache = make_cache(tmp_path)
    cache.get_or_build(key_for(arch="a"), Builder(bytes(100)))
    cache.get_or_build(key_for(arch="b"), Builder(bytes(300)))
    assert main(["cache", "stats", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    sizes = [p.stat().st_size for p in tmp_path.rglob("*.p2g")]
    assert (report["entries"], report["bytes"], report["directory"]) == (2, sum(sizes), str(tmp_path))
    assert main(["cache", "stats"]) == 0
    assert "entries    2" in capsys.readouterr().out
    assert main(["cache", "clear"]) == 0
    assert "removed 2 entries" in capsys.readouterr().out
    assert main(["cache", "stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["entries"] == 0


def test_stale_temp_files_of_dead_writers_are_removed(tmp_path: Path) -> None:
    make_cache(tmp_path).get_or_build(key_for(arch="a"), Builder(b"x"))
    stale, fresh = tmp_path / "tmp" / "dead.1.tmp", tmp_path / "tmp" / "live.2.tmp"
    stale.write_bytes(b"partial")
    fresh.write_bytes(b"being written")
    old = time.time() - 2 * 3600
    os.utime(stale, (old, old))
    make_cache(tmp_path).get_or_build(key_for(arch="b"), Builder(b"y"))  # a write runs the cleanup
    assert sorted(p.name for p in (tmp_path / "tmp").iterdir()) == ["live.2.tmp"]
    DiskStore(tmp_path).clear()  # clear removes every temp file and entry
    assert list((tmp_path / "tmp").iterdir()) == [] and list(DiskStore(tmp_path).entries()) == []


def test_failing_build_stores_nothing(tmp_path: Path) -> None:
    cache = make_cache(tmp_path)

    def broken() -> bytes:
        raise RuntimeError("compiler crashed")

    with pytest.raises(RuntimeError, match="compiler crashed"):
        cache.get_or_build(key_for(), broken)
    assert list(DiskStore(tmp_path).entries()) == [] and cache.stats().builds == 0
    assert cache.get_or_build(key_for(), Builder(b"ok")) == b"ok"


def test_threads_sharing_one_cache(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    cache = make_cache(tmp_path)
    keys = [key_for(arch=f"gfx{n % 3}") for n in range(24)]
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda k: cache.get_or_build(k, Builder(k.arch.encode())), keys))
    assert results == [k.arch.encode() for k in keys]
    stats = cache.stats()
    assert stats.hits + stats.misses == 24 and len(list(DiskStore(tmp_path).entries())) == 3
