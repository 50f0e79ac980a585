"""``ptx2gcn exec -- COMMAND ARGS...``: run any program with ptx2gcn as its CUDA driver.

The program (and every process it starts) finds ptx2gcn's ``libcuda.so.1``/``libcuda.so`` first on
``LD_LIBRARY_PATH``; that shim runs the driver API in Python (``ptx2gcn.runtime.libcuda``,
``docs/libcuda.md``). Exported for the shim: ``PTX2GCN_LIBPYTHON`` (the interpreter to start in a
program that is not Python), ``PTX2GCN_SYS_PATH`` (where that interpreter finds ptx2gcn and its
dependencies), ``PTX2GCN_BACKEND`` with ``--backend``, and ``LD_PRELOAD`` gains ptx2gcn's NVRTC
interposer (``nvrtcGetCUBIN`` answers with PTX: ``runtime/libcuda/nvrtc_shim.py``) when a C compiler
can build it. ``--print-env`` prints those settings as shell assignments instead of running anything.

Invariant: the command replaces this process (``execvp``), so its exit status and signals are the
program's own; ptx2gcn's own failures (no shim, no such program) exit 1 with one line saying why,
usage errors 2.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from typing import Any

from ptx2gcn.diagnostics import Ptx2GcnError

BACKEND_NAMES = ("emulator", "hip")
"""Not ``cuda``: that backend reaches NVIDIA's driver through cuda-python, which would load this very
``libcuda.so.1`` again."""

_DESCRIPTION = (
    "Run COMMAND with ptx2gcn as its CUDA driver: a libcuda.so.1 whose driver API runs PTX on the "
    "chosen backend (emulator, hip, cuda). The environment is inherited by the processes COMMAND "
    "starts. Programs built with nvcc that call the driver API (cu*) work; the CUDA runtime API "
    "(cudart) needs cuGetExportTable, which is not implemented yet."
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "exec", help="run a program with ptx2gcn as its libcuda", description=_DESCRIPTION,
        epilog="example: ptx2gcn exec --backend emulator -- ./vector_add",
    )  # fmt: skip
    parser.add_argument("--backend", choices=BACKEND_NAMES, help="PTX2GCN_BACKEND for the program")
    parser.add_argument("--print-env", action="store_true", help="print the environment settings and exit")
    parser.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND ARGS", help="the program to run")
    parser.set_defaults(handler=_exec)


def driver_environment(backend: str | None, environ: dict[str, str]) -> dict[str, str]:
    """The variables ``exec`` sets (building the shim on first use; may raise ``Ptx2GcnError``)."""
    from ptx2gcn.runtime.libcuda.build import libpython_path, shim_library

    chosen = backend or environ.get("PTX2GCN_BACKEND", "")
    if chosen == "cuda":
        raise Ptx2GcnError.at(
            None,
            "unsupported: exec: PTX2GCN_BACKEND=cuda (cuda-python would load ptx2gcn's own libcuda.so.1 "
            "again); use emulator or hip",
        )
    folder = str(shim_library(environ))
    previous = environ.get("LD_LIBRARY_PATH", "")
    settings = {
        "LD_LIBRARY_PATH": folder + (os.pathsep + previous if previous else ""),
        "PTX2GCN_LIBPYTHON": libpython_path(),
        "PTX2GCN_SYS_PATH": os.pathsep.join(p for p in sys.path if p and os.path.isdir(p)),
    }
    nvrtc = _nvrtc_interposer(environ)
    if nvrtc:
        preload = environ.get("LD_PRELOAD", "")
        settings["LD_PRELOAD"] = nvrtc + (" " + preload if preload else "")
    if backend:
        settings["PTX2GCN_BACKEND"] = backend
    return settings


def _nvrtc_interposer(environ: dict[str, str]) -> str:
    """The path of ptx2gcn's ``libnvrtc.so.13`` (nvrtcGetCUBIN answers with PTX: docs/libcuda.md,
    "Staying on PTX: NVRTC"): the wheel's prebuilt copy, else built on first use; '' when neither
    exists (no C compiler): NVRTC is then NVIDIA's own, and a cubin it returns is refused at load
    with the message naming the flag that embeds PTX."""
    import shutil

    from ptx2gcn.runtime.libcuda.nvrtc_shim import PACKAGED, interposer_library

    if PACKAGED.is_file():
        return str(PACKAGED)
    compiler = shutil.which((environ.get("CC") or "cc").split()[0])
    return str(interposer_library(compiler, environ)) if compiler else ""


def _exec(args: argparse.Namespace) -> int:
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    settings = driver_environment(args.backend, dict(os.environ))
    if args.print_env:
        for name, value in settings.items():
            print(f"export {name}={shlex.quote(value)}")
        return 0
    if not command:
        print("ptx2gcn exec: error: no COMMAND given (ptx2gcn exec -- COMMAND ARGS...)", file=sys.stderr)
        return 2
    environment = {**os.environ, **settings}
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execvpe(command[0], command, environment)
    except OSError as error:
        print(f"ptx2gcn exec: error: cannot run {command[0]!r}: {error.strerror or error}", file=sys.stderr)
        return 1
    return 1  # not reached: execvpe returned without raising
