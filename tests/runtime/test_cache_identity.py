"""The JIT cache key knows the compiler: a content hash of its own sources (not just its version)."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import ptx2gcn
from ptx2gcn.runtime.cache.key import CacheKey, compiler_identity, compiler_sources, hash_sources

REPO = Path(ptx2gcn.__file__).resolve().parents[1]


def test_sources_are_the_compiler_and_not_the_runtime() -> None:
    names = [name for name, _ in compiler_sources()]
    assert names == sorted(names) and len(names) == len(set(names))
    for expected in ("ptx2gcn/compiler.py", "ptx2gcn/emit/lower_control.py", "ptx2gcn/ir/core.py",
                     "ptx2gcn/frontend/parse.py", "ptx2gcn.grammar/ptx.lark", "ptx2gcn.passes/__init__.py"):
        assert expected in names
    assert not any("runtime" in name.split("/")[0] or name.startswith("ptx2gcn/runtime") for name in names)
    assert not any("__pycache__" in name for name in names)


def test_identity_is_sha256_of_named_sources() -> None:
    """Recomputed here from the listed files with hashlib (independent of hash_sources' loop)."""
    digest = hashlib.sha256()
    for name, path in compiler_sources():
        data, encoded = path.read_bytes(), name.encode()
        digest.update(len(encoded).to_bytes(8, "little") + encoded + len(data).to_bytes(8, "little") + data)
    assert compiler_identity() == digest.hexdigest()
    assert CacheKey.for_ptx(b"x", "gfx942").compiler_identity == compiler_identity()


def test_changing_one_source_byte_changes_the_identity_and_the_key(tmp_path: Path) -> None:
    sources = compiler_sources()
    copies: list[tuple[str, Path]] = []
    for index, (name, path) in enumerate(sources):
        copy = tmp_path / f"{index}{path.suffix}"
        shutil.copyfile(path, copy)
        copies.append((name, copy))
    assert hash_sources(copies) == compiler_identity()
    target = next(p for n, p in copies if n == "ptx2gcn/emit/lower_int.py")
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0x01
    target.write_bytes(bytes(data))
    edited = hash_sources(copies)
    assert edited != compiler_identity()
    old, new = (CacheKey.for_ptx(b"ptx", "gfx942", "-O3", llvm="22", identity=i) for i in (compiler_identity(), edited))
    assert old != new and old.digest != new.digest
    # moving a byte from one file's end to the next file's start is still a different source set
    first, second = copies[0][1], copies[1][1]
    a, b = first.read_bytes(), second.read_bytes()
    first.write_bytes(a[:-1])
    second.write_bytes(a[-1:] + b)
    assert hash_sources(copies) != edited


def test_identity_is_the_same_in_another_process() -> None:
    code = "from ptx2gcn.runtime.cache.key import compiler_identity; print(compiler_identity())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    assert out.stdout.strip() == compiler_identity()
