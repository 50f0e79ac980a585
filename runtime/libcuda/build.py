"""Where ``libcuda.so.1`` comes from: a copy built with the wheel, else one built once into the cache.

``shim_library()`` returns a folder holding ``libcuda.so.1`` and ``libcuda.so``:

1. ``ptx2gcn/runtime/libcuda/lib/libcuda.so.1`` inside the installed package, when the wheel build
   compiled it there (``setup.py``; the wheel is then platform-specific): the folder returned holds
   links to it, in the cache (below), since a wheel carries no symlinks;
2. else ``<cache dir>/libcuda/<key>/`` (``PTX2GCN_CACHE_DIR``, default ``~/.cache/ptx2gcn``), compiled
   there on first use with the C compiler ``$CC`` (default ``cc``). ``key`` hashes the C text, so a
   changed table or libpython path builds a new copy and never reuses a stale one.

Invariant: a failure is a ``Ptx2GcnError`` that says what is missing (no compiler, a compile error
with the compiler's output); a folder is returned only when both names are in it and the library
was completely written (built under a temporary name, then renamed).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.runtime.cache.jit_cache import default_cache_dir
from ptx2gcn.runtime.libcuda.csource import SONAME, c_source, compile_command, libpython_path

PACKAGED = Path(__file__).resolve().parent / "lib"


def _compiler(environ: Mapping[str, str]) -> str:
    name = environ.get("CC") or "cc"
    found = shutil.which(name.split()[0])
    if not found:
        raise Ptx2GcnError.at(
            None,
            f"unsupported: libcuda shim: no C compiler ({name!r} not found) and no prebuilt "
            f"{SONAME} in {PACKAGED}; install a C compiler or a ptx2gcn wheel built with one",
        )
    return found


def build_into(folder: Path, environ: Mapping[str, str] | None = None) -> Path:
    """Compile the shim into ``folder`` (``libcuda.so.1`` plus a ``libcuda.so`` link); returns ``folder``."""
    env = os.environ if environ is None else environ
    folder.mkdir(parents=True, exist_ok=True)
    source = c_source(libpython_path())
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        c_file = Path(scratch) / "libcuda_shim.c"
        c_file.write_text(source)
        out = Path(scratch) / SONAME
        command = compile_command(_compiler(env), str(c_file), str(out))
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise Ptx2GcnError.at(None, f"libcuda shim: {' '.join(command)} failed:\n{done.stderr.strip()}")
        os.replace(out, folder / SONAME)
    _link(folder / "libcuda.so", SONAME)
    return folder


def _link(path: Path, target: str) -> None:
    if not path.is_symlink():
        with contextlib.suppress(FileExistsError):  # another process made it at the same moment
            path.symlink_to(target)


def _complete(folder: Path) -> bool:
    return (folder / SONAME).is_file() and (folder / "libcuda.so").exists()


def shim_library(environ: Mapping[str, str] | None = None) -> Path:
    """A folder with a ready ``libcuda.so.1``/``libcuda.so`` (see the module docstring)."""
    env = os.environ if environ is None else environ
    root = (Path(env["PTX2GCN_CACHE_DIR"]) if env.get("PTX2GCN_CACHE_DIR") else default_cache_dir(env)) / "libcuda"
    packaged = PACKAGED / SONAME
    if packaged.is_file():
        return _links_to(packaged, root / ("wheel-" + hashlib.sha256(packaged.read_bytes()).hexdigest()[:16]))
    folder = root / hashlib.sha256(c_source(libpython_path()).encode()).hexdigest()[:16]
    if _complete(folder):
        return folder
    return build_into(folder, env)


def _links_to(library: Path, folder: Path) -> Path:
    """``folder`` with ``libcuda.so.1`` linking to ``library`` and ``libcuda.so`` to that (a wheel
    carries one file; the loader and ``-lcuda`` want both names)."""
    folder.mkdir(parents=True, exist_ok=True)
    _link(folder / SONAME, str(library))
    _link(folder / "libcuda.so", SONAME)
    return folder
