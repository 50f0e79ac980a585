"""Host side of CUDA's device ``printf``: format the records a launch left in the printf FIFO.

A record (``ptx2gcn.link.codeobject.PRINTF_RECORD_HEADER``) holds the format string's device address and
the argument bytes as ``vprintf`` received them (each argument aligned to its size: 4 bytes for
``int``-sized conversions, 8 for ``l``/``ll`` lengths, floating point (promoted to ``double``),
``%s`` and ``%p``), then the text of each non-null ``%s`` argument with its NUL, copied by the
kernel when it called ``printf`` (so strings in a thread's local or shared memory print too).
``format_printf`` renders one record the way glibc's ``printf`` renders the same
format and values: ``%d %i %u %x %X %o %c %s %p %f %F %e %E %g %G %a %A %%`` with the flags
``- + space # 0``, width, precision and the length modifiers ``hh h l ll j z t L``. Where C and
Python differ, C wins: ``%#x`` of 0 is ``0`` and ``%#o`` prefixes ``0``, not ``0o``; ``%a`` prints the
shortest exact hex digits (``0x1.8p+1``); ``%p`` is ``0x...`` or ``(nil)``; ``%s`` of null is
``(null)``; a NaN with its sign bit set is ``-nan``; ``%c`` of 0 writes a NUL byte. A ``%s`` string
the record does not carry is read from device memory (at most ``STRING_LIMIT`` bytes; an unreadable
one prints ``(bad address)``).
A ``*`` width or precision and ``%n`` are not supported by CUDA; the walk consumes no argument for
them and prints nothing for ``%n``. An unknown conversion is printed as written. A width or
precision above INT_MAX makes the whole call print nothing (glibc fails with EOVERFLOW); one above
``MAX_FIELD`` (1 MiB) is clamped to it, unlike C, so that a bad format cannot exhaust host memory.

Invariant: formatting never raises for any record contents: output is bytes, built only from the
format's bytes and the argument bytes (missing argument bytes read as zero).
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ptx2gcn.link.codeobject import PRINTF_RECORD_HEADER

ReadMemory = Callable[[int, int], bytes]
STRING_LIMIT = 64 * 1024
MAX_FIELD = 1 << 20
"""Widths and precisions are clamped to this (1 MiB, the default FIFO size) to bound host memory."""
_INT_MAX = 2**31 - 1
_SPEC = re.compile(rb"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?(hh|h|ll|l|j|z|t|L|q)?([a-zA-Z%])?")
_LONG = {b"l", b"ll", b"j", b"z", b"t", b"L", b"q"}


@dataclass(frozen=True, slots=True)
class Spec:
    """One conversion specification."""

    flags: bytes
    width: int
    precision: int | None
    length: bytes
    conversion: str

    def has(self, flag: str) -> bool:
        return flag.encode() in self.flags


class _Arguments:
    """The argument bytes, consumed in order with C's alignment rule, and the ``%s`` strings the
    kernel copied after them (one NUL-terminated string per non-null ``%s`` pointer)."""

    def __init__(self, data: bytes, strings: bytes | None) -> None:
        self.data = data
        self.offset = 0
        self.strings = strings
        self.string_offset = 0

    def string(self) -> bytes | None:
        """The next copied string; None when the record carries none (read device memory instead)."""
        if self.strings is None:
            return None
        end = self.strings.find(b"\0", self.string_offset)
        if end < 0:
            return None
        text = self.strings[self.string_offset : end]
        self.string_offset = end + 1
        return text

    def take(self, size: int) -> bytes:
        start = (self.offset + size - 1) // size * size
        self.offset = start + size
        return self.data[start : start + size].ljust(size, b"\0")


def _integer(spec: Spec, args: _Arguments) -> int:
    """The argument as C would see it after the length modifier's conversion."""
    raw = args.take(8 if spec.length in _LONG else 4)
    bits = {b"hh": 8, b"h": 16}.get(spec.length, 8 * len(raw))
    value = int.from_bytes(raw, "little") & ((1 << bits) - 1)
    if spec.conversion in "di" and value >> (bits - 1):
        value -= 1 << bits
    return value


def _pad(spec: Spec, prefix: str, body: str, zero_pad: bool) -> str:
    fill = spec.width - len(prefix) - len(body)
    if fill <= 0:
        return prefix + body
    if spec.has("-"):
        return prefix + body + " " * fill
    if zero_pad:
        return prefix + "0" * fill + body
    return " " * fill + prefix + body


def _sign(spec: Spec, negative: bool) -> str:
    return "-" if negative else "+" if spec.has("+") else " " if spec.has(" ") else ""


def _format_integer(spec: Spec, value: int) -> str:
    conv = spec.conversion
    base = {"o": "o", "x": "x", "X": "X"}.get(conv, "d")
    digits = format(abs(value), base)
    if spec.precision is not None:
        digits = "" if spec.precision == 0 and value == 0 else digits.rjust(spec.precision, "0")
    prefix = _sign(spec, value < 0) if conv in "di" else ""
    if spec.has("#"):
        if conv == "o" and not digits.startswith("0"):
            digits = "0" + digits
        elif conv in "xX" and value != 0:
            prefix = "0" + conv
    return _pad(spec, prefix, digits, spec.has("0") and spec.precision is None)


def _hex_float(spec: Spec, value: float) -> str:
    """C's ``%a``: ``0x1.<hex>p<exp>`` (subnormals ``0x0.<hex>p-1022``), shortest exact digits
    unless a precision rounds them (to nearest, ties to even)."""
    bits = struct.unpack("<Q", struct.pack("<d", value))[0]
    exponent, fraction = bits >> 52 & 0x7FF, bits & ((1 << 52) - 1)
    lead, exp = (1, exponent - 1023) if exponent else (0, -1022 if fraction else 0)
    if spec.precision is not None and spec.precision < 13:
        drop = 4 * (13 - spec.precision)
        whole = (lead << 52 | fraction) >> drop
        rest = fraction & ((1 << drop) - 1)
        half = 1 << (drop - 1)
        if rest > half or (rest == half and whole & 1):
            whole += 1
        lead, fraction = whole >> (52 - drop), whole & ((1 << (52 - drop)) - 1)
        digits = format(fraction, "x").rjust(spec.precision, "0") if spec.precision else ""
    else:
        digits = format(fraction, "013x").rstrip("0")
        if spec.precision is not None:
            digits = digits.ljust(spec.precision, "0")
    point = "." if digits or spec.has("#") else ""
    text = f"{lead}{point}{digits}p{exp:+d}"
    return text.upper() if spec.conversion == "A" else text


def _format_float(spec: Spec, value: float) -> str:
    conv = spec.conversion
    negative = math.copysign(1.0, value) < 0
    if not math.isfinite(value):
        body = ("inf" if math.isinf(value) else "nan")
        body = body.upper() if conv in "FEGA" else body
        return _pad(spec, _sign(spec, negative), body, False)
    if conv in "aA":
        prefix = _sign(spec, negative) + ("0X" if conv == "A" else "0x")
        return _pad(spec, prefix, _hex_float(spec, abs(value)), spec.has("0"))
    flags = "".join(f for f in "#" if spec.has(f))
    precision = 6 if spec.precision is None else spec.precision
    body = ("%" + flags + "." + str(precision) + conv) % abs(value)
    return _pad(spec, _sign(spec, negative), body, spec.has("0"))


def _format_string(spec: Spec, address: int, args: _Arguments, read: ReadMemory) -> bytes:
    if address == 0:
        text = b"(null)"
    else:
        copied = args.string()
        limit = STRING_LIMIT if spec.precision is None else spec.precision
        text = copied if copied is not None else read_c_string(read, address, limit)
    if spec.precision is not None:
        text = text[: spec.precision]
    fill = max(0, spec.width - len(text))
    return text + b" " * fill if spec.has("-") else b" " * fill + text


def read_c_string(read: ReadMemory, address: int, limit: int) -> bytes:
    """The NUL-terminated string at ``address`` (at most ``limit`` bytes), ``(bad address)`` if not
    even its first byte is readable; reads 64 bytes at a time, byte by byte near unreadable memory."""
    data = b""
    while len(data) < limit:
        try:
            chunk = bytes(read(address + len(data), 64))
        except Exception:  # noqa: BLE001 — the end of readable memory ends the string
            try:
                chunk = bytes(read(address + len(data), 1))
            except Exception:  # noqa: BLE001
                return data or b"(bad address)"
        end = chunk.find(b"\0")
        if end >= 0:
            return (data + chunk[:end])[:limit]
        data += chunk
    return data[:limit]


def _convert(spec: Spec, args: _Arguments, read: ReadMemory) -> bytes:
    conv = spec.conversion
    if conv in "diuxXo":
        return _format_integer(spec, _integer(spec, args)).encode()
    if conv == "c":
        char = bytes([int.from_bytes(args.take(8 if spec.length in _LONG else 4), "little") & 0xFF])
        fill = max(0, spec.width - 1)
        return char + b" " * fill if spec.has("-") else b" " * fill + char
    if conv in "fFeEgGaA":
        return _format_float(spec, struct.unpack("<d", args.take(8))[0]).encode()
    if conv == "s":
        return _format_string(spec, int.from_bytes(args.take(8), "little"), args, read)
    if conv == "p":
        address = int.from_bytes(args.take(8), "little")
        text = "(nil)" if address == 0 else f"0x{address:x}"
        return _pad(Spec(spec.flags.replace(b"0", b""), spec.width, None, b"", "p"), "", text, False).encode()
    raise ValueError(conv)


class _Overflow(Exception):
    """A width or precision above INT_MAX: glibc's printf fails (EOVERFLOW) and prints nothing."""


def _field(digits: bytes | None) -> int:
    if not digits or digits == b"*":
        return 0
    value = int(digits)
    if value > _INT_MAX:
        raise _Overflow
    return min(value, MAX_FIELD)


def _specs(fmt: bytes) -> Iterator[tuple[int, int, Spec | None]]:
    """(start, end, spec) of each ``%`` conversion; spec None for a malformed or unknown one."""
    for match in _SPEC.finditer(fmt):
        flags, width, precision, length, conversion = match.groups()
        if conversion is None or (conversion not in b"%diuxXocsfFeEgGaApn"):
            yield match.start(), match.end(), None
            continue
        yield match.start(), match.end(), Spec(
            flags, _field(width), None if precision is None else _field(precision), length or b"",
            conversion.decode(),
        )


def format_printf(fmt: bytes, arguments: bytes, read: ReadMemory, strings: bytes | None = None) -> bytes:
    """``fmt`` with its conversions replaced by the values packed in ``arguments`` (see module doc);
    ``%s`` takes its text from ``strings`` (what the kernel copied) or, without it, from device
    memory through ``read``."""
    out: list[bytes] = []
    args = _Arguments(arguments, strings)
    position = 0
    try:
        for start, end, spec in _specs(fmt):
            out.append(fmt[position:start])
            position = end
            if spec is None:
                out.append(fmt[start:end])
            elif spec.conversion == "%":
                out.append(b"%")
            elif spec.conversion != "n":
                out.append(_convert(spec, args, read))
    except _Overflow:
        return b""
    out.append(fmt[position:])
    return b"".join(out)


def format_records(fifo: bytes, read: ReadMemory) -> bytes:
    """The output of every complete record in ``fifo`` (the FIFO's bytes up to its ``used`` mark),
    in record order; a record whose header is zero or runs past the end ends the walk (a thread
    that reserved space but never wrote it, e.g. because another one trapped first)."""
    out: list[bytes] = []
    offset = 0
    header = PRINTF_RECORD_HEADER.size
    while offset + header <= len(fifo):
        size, arg_bytes, fmt_address = PRINTF_RECORD_HEADER.unpack_from(fifo, offset)
        if size < header or size % 8 or offset + size > len(fifo) or header + arg_bytes > size:
            break
        fmt = read_c_string(read, fmt_address, STRING_LIMIT)
        arguments = fifo[offset + header : offset + header + arg_bytes]
        strings = fifo[offset + header + arg_bytes : offset + size]
        out.append(format_printf(fmt, arguments, read, strings))
        offset += size
    return b"".join(out)
