"""Output files a command writes for the user: complete or untouched.

Invariant: ``write_output(path, data)`` leaves ``path`` holding either all of ``data`` or what it
held before, whatever interrupts the write (a crash, a full disk, a signal), for every regular file;
devices and pipes, which cannot be replaced, are written in place. Failures are a ``Ptx2GcnError``
naming the path. (The JIT cache has its own store, ``ptx2gcn.runtime.cache.store``, which also
fsyncs, as entries are shared between processes.)
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile

from ptx2gcn.diagnostics import Ptx2GcnError, Span


def write_output(path: str, data: bytes) -> None:
    """Write ``data`` to the file ``path``, which ends up holding all of it or what it held before.

    A regular file (or a new one) gets a temporary file in the same folder, written, closed and
    renamed over it (``os.replace``, atomic within a file system), with the mode the file had (or
    0o666 less the umask, as ``open`` would give a new file); a symbolic link is followed, so the
    file it names is replaced and the link stays. Anything else that exists (a device such as
    ``/dev/null``, a FIFO), or a folder where no temporary file can be made, is written in place.
    Failures are a ``Ptx2GcnError`` naming ``path``.
    """
    target = os.path.realpath(path)
    try:
        try:
            existing: os.stat_result | None = os.stat(target)
        except FileNotFoundError:
            existing = None
        if existing is None or stat.S_ISREG(existing.st_mode):
            mode = stat.S_IMODE(existing.st_mode) if existing is not None else 0o666 & ~_umask()
            if _replace(target, data, mode):
                return
        with open(target, "wb") as handle:
            handle.write(data)
    except OSError as error:
        raise Ptx2GcnError.at(Span.unknown(path), f"cannot write {path}: {error.strerror or error}") from None


def _replace(target: str, data: bytes, mode: int) -> bool:
    """Write ``data`` to a temporary file beside ``target`` and rename it over ``target``; False,
    with nothing written, when the folder takes no temporary file."""
    folder, name = os.path.split(target)
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    except OSError:
        return False
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return True


def _umask() -> int:
    """The process's umask (reading it means setting it; it is restored at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
