"""Device -> host messages around one launch: CUDA's device ``assert`` and ``printf``.

A code object whose PTX calls ``__assertfail`` exports the assertion record, one that calls
``vprintf`` the printf control block (layouts in ``ptx2gcn.link.codeobject``). ``launch_with_messages``
wraps ``Backend.launch`` for every backend that runs ptx2gcn code objects:

* before the launch it zeroes the assertion record's state word, and points the printf control
  block at the device's FIFO (allocated on first use, ``fifo_size`` bytes: CUDA's
  ``cudaLimitPrintfFifoSize``, 1 MiB by default) with nothing used;
* after the launch -- which is CUDA's synchronisation point here, launches being synchronous -- it
  writes the output of the FIFO's records to ``stdout`` in record order and clears the used part;
* when the kernel trapped and the record holds a failed assertion, it writes CUDA's assertion text
  (``file:line: function: block: [x,y,z], thread: [x,y,z] Assertion `msg` failed.``) to ``stderr``
  and raises ``BackendError`` of kind ``assert`` (CUDA_ERROR_ASSERT in the driver API).

Printf output of a launch that failed is written too (before the assertion text), as far as its
records are complete. Backends that run the original PTX (``cuda``) export neither symbol: the real
driver does all this itself.

Invariant: for a module without the two symbols this is exactly ``backend.launch``; for one with
them, every launch starts with a clean record and an empty FIFO, and no error from reading the
messages hides the launch's own error.
"""

from __future__ import annotations

import contextlib
import struct
import sys
from dataclasses import dataclass
from typing import TextIO

from ptx2gcn.link.codeobject import (
    ASSERT_RECORD_SIZE,
    ASSERT_RECORD_SYMBOL,
    PRINTF_CONTROL_SYMBOL,
    AssertionFailure,
    read_assertion,
)
from ptx2gcn.runtime.backends.protocol import Backend, BackendError, Dim3, LaunchResult, LoadedModule
from ptx2gcn.runtime.printf import format_records

DEFAULT_PRINTF_FIFO_SIZE = 1 << 20
"""CUDA's default ``cudaLimitPrintfFifoSize``."""
_CONTROL = struct.Struct("<QQQ")


@dataclass(eq=False)
class DeviceMessages:
    """Per-device (per-context) state: the printf FIFO and its size limit."""

    fifo_size: int = DEFAULT_PRINTF_FIFO_SIZE
    fifo: int = 0
    """Device address of the FIFO (0: not allocated yet)."""
    fifo_capacity: int = 0
    printf_launched: bool = False
    """A kernel that uses printf has run: CUDA then refuses to change the FIFO size."""

    def fifo_for(self, backend: Backend) -> tuple[int, int]:
        """(address, capacity) of the FIFO, allocated on first use."""
        if not self.fifo:
            self.fifo = backend.malloc(self.fifo_size)
            self.fifo_capacity = self.fifo_size
        self.printf_launched = True
        return self.fifo, self.fifo_capacity


@dataclass(frozen=True, slots=True)
class _Symbols:
    assert_record: int | None
    printf_control: int | None


def _symbols(backend: Backend, module: LoadedModule) -> _Symbols:
    if backend.code_format != "hsaco":
        return _Symbols(None, None)  # the original PTX on a real CUDA driver, which does it all itself

    def address(name: str) -> int | None:
        found = backend.global_symbol(module, name)
        return found[0] if found is not None else None

    return _Symbols(address(ASSERT_RECORD_SYMBOL), address(PRINTF_CONTROL_SYMBOL))


def write_bytes(stream: TextIO, data: bytes) -> None:
    """``data`` to a text stream as bytes where it has a binary buffer (NUL and non-UTF-8 bytes
    stay as they are), else decoded as UTF-8 with replacement characters."""
    if not data:
        return
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        stream.flush()
        buffer.write(data)
        buffer.flush()
    else:
        stream.write(data.decode("utf-8", "replace"))
        stream.flush()


def _flush_printf(backend: Backend, control: int, stdout: TextIO) -> None:
    fifo, capacity, used = _CONTROL.unpack(backend.read(control, _CONTROL.size))
    size = min(used, capacity)
    if not fifo or not size:
        return
    records = backend.read(fifo, size)
    output = format_records(records, backend.read)
    backend.write(fifo, bytes(size))  # a later launch never sees stale records
    backend.write(control, _CONTROL.pack(fifo, capacity, 0))
    write_bytes(stdout, output)


def _assertion(backend: Backend, record: int) -> AssertionFailure | None:
    try:
        return read_assertion(backend.read(record, ASSERT_RECORD_SIZE), backend.read)
    except BackendError:
        return None  # the device is gone (hip after a queue error): the launch's own error stands


def launch_with_messages(
    backend: Backend,
    module: LoadedModule,
    kernel: str,
    grid: Dim3,
    block: Dim3,
    shared_bytes: int,
    parameters: bytes,
    messages: DeviceMessages,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    cooperative: bool = False,
) -> LaunchResult:
    """``backend.launch`` with the assertion record and printf FIFO handled (see module doc)."""
    symbols = _symbols(backend, module)
    if symbols.assert_record is not None:
        backend.write(symbols.assert_record, bytes(4))
    if symbols.printf_control is not None:
        fifo, capacity = messages.fifo_for(backend)
        backend.write(symbols.printf_control, _CONTROL.pack(fifo, capacity, 0))
    try:
        result = backend.launch(module, kernel, grid, block, shared_bytes, parameters, cooperative)
    except BackendError as error:
        if symbols.printf_control is not None:
            with contextlib.suppress(BackendError):  # the launch's own error is the one to report
                _flush_printf(backend, symbols.printf_control, stdout or sys.stdout)
        if symbols.assert_record is not None and error.kind in ("trap", "launch"):
            failure = _assertion(backend, symbols.assert_record)
            if failure is not None:
                print(failure, file=stderr or sys.stderr, flush=True)
                raise BackendError.of(f"device-side assertion failed: {failure}", "assert") from None
        raise
    if symbols.printf_control is not None:
        _flush_printf(backend, symbols.printf_control, stdout or sys.stdout)
    return result
