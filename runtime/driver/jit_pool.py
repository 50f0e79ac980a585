"""Worker processes for the JIT: compile several units at once, one process per core.

The compiler is Python and holds the GIL for most of a compile, so threads would not overlap; the
units go to a ``concurrent.futures.ProcessPoolExecutor`` instead. Its processes come from a
*forkserver* (a clean process started once, which imports the compiler before it forks each worker),
never from forking the caller: the caller may be any host program with threads of its own
(``libcuda.so.1`` under ``ptx2gcn exec``), whose locks a plain ``fork`` would copy held. The pool is
made on first use, grows to the largest ``workers`` asked for, and lives as long as the process.

``jit_workers(environ)`` is the worker count: ``PTX2GCN_JIT_WORKERS`` when set (``1`` compiles in
the calling process only), else the CPUs this process may run on. Workers need a Python interpreter
to start: in a process whose ``sys.executable`` is not one (Python embedded in a C program by
``libcuda.so.1`` under ``ptx2gcn exec``), ``worker_python`` looks beside the running installation,
and with none found ``available()`` is False and the JIT compiles in the calling process.

Invariant: ``run_in_workers`` returns one result per job, in job order, each what ``function(*job)``
returns in a fresh worker; a worker that dies (killed, out of memory) is a ``RuntimeError`` naming
the job's position, never a hang.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

T = TypeVar("T")

_PRELOAD = ["ptx2gcn.compiler", "ptx2gcn.runtime.driver.jit"]
_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_size = 0


def jit_workers(environ: Mapping[str, str] | None = None) -> int:
    """How many processes compile at once (see the module docstring); at least 1."""
    env = os.environ if environ is None else environ
    text = env.get("PTX2GCN_JIT_WORKERS", "").strip()
    if text:
        if not text.isdigit() or int(text) < 1:
            raise ValueError(f"PTX2GCN_JIT_WORKERS: expected a positive integer, got {text!r}")
        return int(text)
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def worker_python() -> str | None:
    """A Python interpreter of the running installation to start workers with, or None."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    candidates = [sys.executable, getattr(sys, "_base_executable", ""),
                  os.path.join(sys.prefix, "bin", version), os.path.join(sys.exec_prefix, "bin", version)]
    for path in candidates:
        if path and os.path.basename(path).startswith("python") and os.access(path, os.X_OK):
            return path
    return None


def available() -> bool:
    """Whether worker processes can be started here (a Python interpreter was found)."""
    return worker_python() is not None


def _executor(workers: int) -> ProcessPoolExecutor:
    global _pool, _size
    with _lock:
        if _pool is None or _size < workers:
            if _pool is not None:
                _pool.shutdown(wait=False)
            context = multiprocessing.get_context("forkserver")
            python = worker_python()
            if python is None:
                raise RuntimeError("no Python interpreter to start JIT worker processes with")
            context.set_executable(python)
            context.set_forkserver_preload(_PRELOAD)
            _pool, _size = ProcessPoolExecutor(max_workers=workers, mp_context=context), workers
        return _pool


def _discard(pool: ProcessPoolExecutor) -> None:
    global _pool
    with _lock:
        if _pool is pool:
            _pool = None


def run_in_workers(function: Callable[..., T], jobs: Sequence[tuple[object, ...]], workers: int) -> list[T]:
    """``[function(*job) for job in jobs]``, computed by up to ``workers`` worker processes
    (``function`` must be a module-level function, the jobs' values picklable)."""
    pool = _executor(workers)
    futures = [pool.submit(function, *job) for job in jobs]
    results: list[T] = []
    for position, future in enumerate(futures):
        try:
            results.append(future.result())
        except BrokenProcessPool as error:
            _discard(pool)
            raise RuntimeError(f"JIT worker process died while compiling job {position}: {error}") from None
    return results
