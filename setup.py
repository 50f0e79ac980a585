"""Wheel build step: compile ptx2gcn's ``libcuda.so.1`` shim into the package (docs/libcuda.md).

Everything else about the package is in ``pyproject.toml``. With a C compiler (``$CC``, default
``cc``) at build time, ``build_py`` writes ``ptx2gcn/runtime/libcuda/lib/libcuda.so.1`` and the wheel is
tagged for the platform (``py3-none-<platform>``: the shim uses no Python headers, so one binary serves
every CPython 3); a failing compile fails the build. Without a compiler the wheel stays pure and the
shim is compiled on first use instead (a C compiler is then needed at run time for ``ptx2gcn exec``).
Editable installs do not run this step; they use the first-use path.

The C text comes from ``runtime/libcuda/csource.py`` and ``abi.py``, loaded here without importing the
rest of ptx2gcn (their only imports are each other and the standard library); the NVRTC interposer's
(``lib/libnvrtc.so.13``, preloaded by ``ptx2gcn exec``) from ``runtime/libcuda/nvrtc_shim.py``.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
COMPILER = shutil.which(os.environ.get("CC") or "cc")


def _shim_modules(module: str = "csource") -> types.ModuleType:
    """``ptx2gcn.runtime.libcuda.<module>`` loaded from the source tree, parents as empty stubs."""
    saved = {name: sys.modules.get(name) for name in ("ptx2gcn", "ptx2gcn.runtime", "ptx2gcn.runtime.libcuda")}
    paths = {"ptx2gcn": ROOT / "ptx2gcn", "ptx2gcn.runtime": ROOT / "runtime"}
    paths["ptx2gcn.runtime.libcuda"] = ROOT / "runtime" / "libcuda"
    try:
        for name, path in paths.items():
            stub = types.ModuleType(name)
            stub.__path__ = [str(path)]
            sys.modules[name] = stub
        return importlib.import_module(f"ptx2gcn.runtime.libcuda.{module}")
    finally:
        for name, previous in saved.items():
            if previous is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = previous


class BuildPyWithShim(build_py):
    def run(self) -> None:
        super().run()
        if COMPILER is None or self.editable_mode:
            return
        csource = _shim_modules()
        target = Path(self.build_lib) / "ptx2gcn" / "runtime" / "libcuda" / "lib"
        target.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as scratch:
            c_file = Path(scratch) / "libcuda_shim.c"
            c_file.write_text(csource.c_source(csource.libpython_path()))
            command = csource.compile_command(COMPILER, str(c_file), str(target / csource.SONAME))
            subprocess.run(command, check=True)
            nvrtc = _shim_modules("nvrtc_shim")  # the NVRTC interposer ``exec`` preloads (docs/libcuda.md)
            c_file = Path(scratch) / "nvrtc_interposer.c"
            c_file.write_text(nvrtc.c_source())
            subprocess.run(nvrtc.compile_command(COMPILER, str(c_file), str(target / nvrtc.SONAME)), check=True)


class ShimDistribution(Distribution):
    """With the shim, the package holds a binary: installed as platform library, wheel not pure."""

    def has_ext_modules(self) -> bool:
        return COMPILER is not None


class PlatformWheel(bdist_wheel):
    def get_tag(self) -> tuple[str, str, str]:
        python, abi, platform = super().get_tag()
        return (python, abi, platform) if self.root_is_pure else ("py3", "none", platform)


setup(distclass=ShimDistribution, cmdclass={"build_py": BuildPyWithShim, "bdist_wheel": PlatformWheel})
