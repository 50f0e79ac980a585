"""Fixtures for the linker tests: LLVM IR kernels compiled once per session, and ld.lld-22 as the
reference linker (through the shared ``llvm_tool`` fixture, so it skips locally and fails in CI when
absent)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from ptx2gcn.emit.target import emit_object, optimise
from ptx2gcn.options import CompileOptions

KERNELS = Path(__file__).resolve().parent / "kernels"


@pytest.fixture(scope="session")
def compile_kernel() -> Callable[..., bytes]:
    """``compile_kernel(name, arch="gfx942")``: the relocatable object of ``kernels/<name>.ll``."""
    cache: dict[tuple[str, str], bytes] = {}

    def get(name: str, arch: str = "gfx942") -> bytes:
        key = (name, arch)
        if key not in cache:
            options = CompileOptions(arch=arch)
            text = (KERNELS / f"{name}.ll").read_text()
            cache[key] = emit_object(optimise(text, options), options)
        return cache[key]

    return get


@pytest.fixture(scope="session")
def lld_link(llvm_tool: Callable[[str], str], tmp_path_factory: pytest.TempPathFactory
             ) -> Callable[[Sequence[bytes]], bytes]:
    """``lld_link(objects)``: what ``ld.lld-22 -shared`` makes of the objects."""
    lld = llvm_tool("ld.lld-22")
    folder = tmp_path_factory.mktemp("lld")
    cache: dict[tuple[bytes, ...], bytes] = {}

    def link(objects: Sequence[bytes]) -> bytes:
        key = tuple(objects)
        if key not in cache:
            paths = []
            for index, data in enumerate(objects):
                path = folder / f"in{len(cache)}_{index}.o"
                path.write_bytes(data)
                paths.append(str(path))
            out = folder / f"out{len(cache)}.so"
            subprocess.run([lld, "-shared", *paths, "-o", str(out)], check=True, capture_output=True)
            cache[key] = out.read_bytes()
        return cache[key]

    return link
